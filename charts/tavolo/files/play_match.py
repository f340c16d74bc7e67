"""`helm test`: one match played through the gateway, the way a person plays it.

It signs in at the development OIDC provider (its HTML form, as a browser would), creates a
scopone game over the REST API, seats three bots, plays its own seat over the game's WebSocket
until the match is over, and waits for the match in its history (the stats service recorded
it). Every step goes through the gateway, so it exercises the gateway, lobby, game, deadlines,
stats and bots, Redis and Postgres. The chart runs it with the application image's Python (`python
-c`, arguments: the gateway's URL and the provider's, as this pod reaches them); it exits 0
once the match is recorded, 1 with the reason otherwise.
"""

import asyncio
import html
import json
import re
import sys
import time
from urllib.parse import urlsplit

import httpx
import websockets

from game.scopone.rules import legal_plays

USERNAME = "helm-test"
TIMEOUT_SECONDS = 240
HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')
ACTION = re.compile(r'<form method="post" action="([^"]*)">')


class Failed(Exception):
    """A step that did not answer as the contract says."""


def expect(response: httpx.Response, status: int, what: str) -> httpx.Response:
    if response.status_code != status:
        raise Failed(f"{what}: {response.status_code} {response.text[:300]}")
    return response


async def sign_in(http: httpx.AsyncClient, provider_url: str) -> None:
    """The authorization code flow through the provider's sign-in form. The gateway sends the
    browser to the issuer (http://localhost:8180/tavolo, a browser's port-forward); this pod
    reaches the same provider at provider_url, its Service."""
    providers = expect(await http.get("/api/auth/providers"), 200, "GET /api/auth/providers").json()
    login = expect(await http.get(providers["providers"][0]["login_url"]), 302, "login")
    authorize = urlsplit(login.headers["location"])
    async with httpx.AsyncClient(base_url=provider_url, timeout=10) as provider:
        page = expect(await provider.get(f"{authorize.path}?{authorize.query}"), 200, "the sign-in form")
        fields = {html.unescape(k): html.unescape(v) for k, v in HIDDEN.findall(page.text)}
        action = ACTION.search(page.text)
        if action is None:
            raise Failed("the sign-in form has no action")
        answer = expect(await provider.post(html.unescape(action.group(1)),
                                            data={**fields, "username": USERNAME}), 302, "signing in")
    callback = urlsplit(answer.headers["location"])
    expect(await http.get(f"{callback.path}?{callback.query}"), 302, "the login callback")
    me = expect(await http.get("/api/me"), 200, "GET /api/me").json()
    print(f"signed in as {me['name']}", flush=True)


async def play(http: httpx.AsyncClient, ws_url: str) -> tuple[str, dict]:
    """A game against three bots, played to its end; its id and the game_over message."""
    lobby = expect(await http.post("/api/games", json={"game_type": "scopone_scientifico",
                                                       "options": {"target_score": 1}}),
                   201, "POST /api/games").json()
    game_id = lobby["id"]
    for seat in (1, 2, 3):
        expect(await http.post(f"/api/games/{game_id}/bots", json={"seat": seat, "level": "principiante"}),
               200, f"seating a bot at {seat}")
    print(f"game {game_id}: three bots seated, playing", flush=True)
    asso = lobby["options"].get("asso_pigliatutto", False)
    cookie = "; ".join(f"{name}={value}" for name, value in http.cookies.items())
    moves = 0
    async with websockets.connect(f"{ws_url}/ws/games/{game_id}", additional_headers={"Cookie": cookie},
                                  open_timeout=10) as socket:
        async for text in socket:
            message = json.loads(text)
            if message["type"] == "game_over":
                print(f"game over after {moves} plays of ours: {json.dumps(message)[:300]}", flush=True)
                return game_id, message
            if message["type"] == "error":
                # A move that raced another (an acknowledgement beside the bots') is sent again on
                # the next state; anything else means this client is wrong.
                if message["code"] not in ("concurrent_move", "not_your_turn"):
                    raise Failed(f"the game refused a move: {message}")
                continue
            if message["type"] != "state":
                continue
            game = message["game"]
            if game.get("your_turn"):
                card, capture = legal_plays(game["hand"], game["table"], asso)[0]
                await socket.send(json.dumps({"action": "play", "card": card, "capture": capture,
                                              "revision": game["revision"]}))
                moves += 1
            elif game["status"] == "hand_end" and game["you"] not in game["acknowledged"]:
                await socket.send(json.dumps({"action": "ack", "revision": game["revision"]}))
    raise Failed("the socket closed before the game was over")


async def recorded(http: httpx.AsyncClient, game_id: str) -> dict:
    """The match in the player's history, once stats has recorded it."""
    while True:
        items = expect(await http.get("/api/me/matches"), 200, "GET /api/me/matches").json()["items"]
        match = next((item for item in items if item["id"] == game_id), None)
        if match is not None:
            return match
        await asyncio.sleep(1)


async def main(gateway_url: str, provider_url: str) -> None:
    started = time.monotonic()
    ws_url = "ws" + gateway_url.removeprefix("http")
    async with asyncio.timeout(TIMEOUT_SECONDS), httpx.AsyncClient(base_url=gateway_url, timeout=10) as http:
        await sign_in(http, provider_url)
        game_id, _ = await play(http, ws_url)
        match = await recorded(http, game_id)
    print(f"ok: match {game_id} recorded ({json.dumps(match['result'].get('scores'))}), "
          f"{time.monotonic() - started:.1f} s", flush=True)


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/")))
    except (Failed, TimeoutError, httpx.HTTPError, websockets.WebSocketException, OSError) as error:
        print(f"failed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        sys.exit(1)
