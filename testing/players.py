"""A player of the end-to-end tests: a browser-like HTTP client with its own session cookie.

It logs in through the stack's real development OIDC provider (the HTML form, over HTTP) and
opens the game's WebSocket with its cookie, like the SPA would.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from urllib.parse import urlsplit

import httpx
import websockets

from game.scopone.rules import legal_plays
from gateway.sessions import COOKIE_NAME

_HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')
_ACTION = re.compile(r'<form method="post" action="([^"]*)">')


class Player:
    def __init__(self, stack, username: str):
        self.stack = stack
        self.username = username
        self.http = httpx.AsyncClient(base_url=stack.gateway_url, timeout=10)
        self.idp = httpx.AsyncClient(timeout=10)

    async def close(self) -> None:
        await self.http.aclose()
        await self.idp.aclose()

    @property
    def cookie(self) -> str | None:
        return self.http.cookies.get(COOKIE_NAME)

    async def login(self) -> Player:
        first = await self.http.get("/auth/login")
        assert first.status_code == 302 and first.headers["location"].endswith("/auth/default/login")
        login = await self.http.get("/auth/default/login")
        assert login.status_code == 302, login.text
        authorize = login.headers["location"]
        page = await self.idp.get(authorize)
        assert page.status_code == 200, page.text
        fields = {html.unescape(k): html.unescape(v) for k, v in _HIDDEN.findall(page.text)}
        action = html.unescape(_ACTION.search(page.text).group(1))
        parts = urlsplit(authorize)
        answer = await self.idp.post(f"{parts.scheme}://{parts.netloc}{action}",
                                     data={**fields, "username": self.username})
        assert answer.status_code == 302, answer.text
        callback = urlsplit(answer.headers["location"])
        done = await self.http.get(f"{callback.path}?{callback.query}")
        assert done.status_code == 302, done.text
        assert self.cookie, "the callback set no session cookie"
        return self

    async def player_id(self) -> str:
        """The member's public player id (``player`` of GET /api/me)."""
        response = await self.http.get("/api/me")
        assert response.status_code == 200, response.text
        return response.json()["player"]

    async def socket(self, game_id: str, origin: str | None = None, gateway_url: str | None = None,
                     features: str = ""):
        """The game's socket, on the stack's (first) gateway or on ``gateway_url``, asking for
        ``features`` (``?features=``; none: the contract's four message types only)."""
        headers = {"Cookie": f"{COOKIE_NAME}={self.cookie}"} if self.cookie else {}
        if origin is not None:
            headers["Origin"] = origin
        base = gateway_url or self.stack.gateway_url
        url = base.replace("http://", "ws://") + f"/ws/games/{game_id}"
        if features:
            url += f"?features={features}"
        return await websockets.connect(url, additional_headers=headers, open_timeout=10)

    async def watch(self, game_id: str, gateway_url: str | None = None, features: str = ""):
        """A spectator's socket at the game (/ws/games/{id}/watch), as :meth:`socket`."""
        return await self.socket(f"{game_id}/watch", gateway_url=gateway_url, features=features)

    async def member_socket(self, gateway_url: str | None = None):
        """The member's own socket (/ws/me), on the stack's (first) gateway or ``gateway_url``."""
        headers = {"Cookie": f"{COOKIE_NAME}={self.cookie}"} if self.cookie else {}
        base = gateway_url or self.stack.gateway_url
        return await websockets.connect(base.replace("http://", "ws://") + "/ws/me",
                                        additional_headers=headers, open_timeout=10)


async def receive(socket, type_: str | None = None, timeout: float = 10.0) -> dict:
    """The next message (of ``type_``, skipping others)."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), timeout))
        if type_ is None or message["type"] == type_:
            return message


async def take_turn(socket, game: dict) -> None:
    """Answer a seat's state as a quick player would: the first legal play when it is our turn,
    an acknowledgement at a hand end not yet acknowledged."""
    if game.get("your_turn"):
        option = game["legal"][0]
        await socket.send(json.dumps({"action": "play", "card": option["card"],
                                      "capture": option["captures"][0], "revision": game["revision"]}))
    elif game["status"] == "hand_end" and game["you"] not in game["acknowledged"]:
        await socket.send(json.dumps({"action": "ack"}))


async def seat_four(players, options) -> dict:
    """A game created by the first player with ``options`` and joined by the other three."""
    lobby = (await players[0].http.post("/api/games", json={"options": options})).json()
    for player in players[1:]:
        response = await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
        assert response.status_code == 200
    return lobby


async def on_turn(players, game_id: str) -> Player:
    """The one of ``players`` (seated in seat order) whose move it is: at the start, the seat after
    the dealer drawn from the seed (CONTRACT "Turns and deadlines")."""
    view = (await players[0].http.get(f"/api/games/{game_id}")).json()
    return players[view["turn"]]


async def play_until_over(socket, asso: bool, hand_ends: list | None = None) -> dict:
    """A seat's loop: play a legal card when it is our turn, acknowledge hand ends (the views
    of which go to ``hand_ends``)."""
    while True:
        message = await receive(socket, timeout=30)
        if message["type"] == "game_over":
            return message
        if message["type"] != "state":
            continue
        game = message["game"]
        if game["status"] == "hand_end" and hand_ends is not None:
            hand_ends.append(game)
        if game.get("your_turn"):
            card, capture = legal_plays(game["hand"], game["table"], asso)[0]
            await socket.send(json.dumps({"action": "play", "card": card, "capture": capture,
                                          "revision": game["revision"]}))
        elif game["status"] == "hand_end" and game["you"] not in game["acknowledged"]:
            await socket.send(json.dumps({"action": "ack", "revision": game["revision"]}))


async def play_against_bots(player: Player, level: str = "principiante") -> tuple[dict, dict]:
    """A one-point match of ``player`` against three bots, played to its end over the socket:
    the created game and its game_over message."""
    game = (await player.http.post("/api/games", json={"options": {"target_score": 1,
                                                                   "napola": False}})).json()
    for seat in (1, 2, 3):
        seated = await player.http.post(f"/api/games/{game['id']}/bots",
                                        json={"seat": seat, "level": level})
        assert seated.status_code == 200, seated.text
    assert seated.json()["status"] == "playing"
    socket = await player.socket(game["id"])
    over = await play_until_over(socket, False)
    await socket.close()
    return game, over
