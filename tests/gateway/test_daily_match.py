"""A daily game plays to the end across restarts of every service (issue 44's done condition).

Every component runs as its own process on real Redis and Postgres, with DAILY_TURN_HOURS scaled
down to 1.8 seconds and a live game's timeouts set to an hour: only the daily length can move
the turns nobody plays. Two people and two bots: each person plays every other turn of theirs
and leaves the rest to time out (auto-play); the gateway, lobby, game, deadlines, stats and bots
are each restarted while the match is under way, and the people's sockets come back after the
gateway's restart. The match ends, the log holds people's plays and auto-plays, and stats records
it.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets

from testing.players import Player, receive
from testing.stack import real_stack
from testing.waiting import eventually

SERVICES = ("gateway", "lobby", "game", "deadlines", "stats", "bots")
UNDER_WAY = ("playing", "hand_end")


@pytest.fixture(scope="module")
def stack():
    with real_stack({"DAILY_TURN_HOURS": "0.0005", "TURN_TIMEOUT_SECONDS": "3600",
                     "HAND_ACK_TIMEOUT_SECONDS": "3600", "ENTROPY_TIMEOUT_SECONDS": "3600"},
                    label="dailymatch") as running:
        yield running


async def _person(player: Player, game_id: str, acknowledges: bool) -> dict:
    """A seat's player who plays every other turn of theirs (the first legal play) and lets the
    others time out, acknowledging hand ends or not; the final view once the game is over. A
    socket cut by a restart is opened again."""
    turns: set[int] = set()  # the revisions at which it was our turn
    while True:
        try:
            socket = await player.socket(game_id)
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
            await asyncio.sleep(0.2)  # the gateway is restarting
            continue
        try:
            while True:
                message = await receive(socket, timeout=60)
                if message["type"] == "game_over":
                    return message
                if message["type"] != "state":
                    continue
                game = message["game"]
                if game["status"] == "finished":
                    return game
                if game.get("your_turn") and game["revision"] not in turns:
                    turns.add(game["revision"])
                    if len(turns) % 2:
                        option = game["legal"][0]
                        await socket.send(json.dumps({
                            "action": "play", "card": option["card"], "capture": option["captures"][0],
                            "revision": game["revision"]}))
                elif (acknowledges and game["status"] == "hand_end"
                      and game["you"] not in game["acknowledged"]):
                    await socket.send(json.dumps({"action": "ack", "revision": game["revision"]}))
        except websockets.exceptions.ConnectionClosed:
            continue
        finally:
            await socket.close()


async def _view(player: Player, game_id: str) -> dict | None:
    """The player's view, None while the gateway does not answer (restarting)."""
    try:
        response = await player.http.get(f"/api/games/{game_id}")
    except httpx.HTTPError:
        return None
    return response.json() if response.status_code == 200 else None


async def test_a_daily_game_plays_to_the_end_across_restarts_of_every_service(stack):
    alice, bob = await Player(stack, "alice").login(), await Player(stack, "bob").login()
    people: asyncio.Future | None = None
    try:
        created = await alice.http.post("/api/games", json={"options": {
            "pace": "daily", "target_score": 6, "napola": False}})  # a few hands: time for six restarts
        lobby = created.json()
        assert created.status_code == 201 and lobby["options"]["pace"] == "daily"
        game_id = lobby["id"]
        joined = await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})
        assert joined.status_code == 200
        for seat in (2, 3):
            seated = await alice.http.post(f"/api/games/{game_id}/bots",
                                           json={"seat": seat, "level": "principiante"})
            assert seated.status_code == 200, seated.text
        people = asyncio.gather(_person(alice, game_id, acknowledges=True),
                                _person(bob, game_id, acknowledges=False))

        revision = 0
        for service in SERVICES:
            async def moved_on(since=revision):
                view = await _view(alice, game_id)
                return view if view is not None and view["revision"] > since else None

            view = await eventually(moved_on, timeout=60, what=f"no move before restarting {service}")
            assert view["status"] in UNDER_WAY, f"the match ended before {service} was restarted"
            revision = view["revision"]
            await asyncio.to_thread(stack.restart, service)

        endings = await asyncio.wait_for(people, timeout=600)
        assert all(ending.get("winner") in ("A", "B") for ending in endings)

        log = (await alice.http.get(f"/api/games/{game_id}/log")).json()
        assert log["status"] == "finished" and log["options"]["pace"] == "daily"
        by_people = [move for move in log["moves"]
                     if move["seat"] in ("seat:0", "seat:1") and move["type"] in ("play", "auto_play")]
        assert {move["type"] for move in by_people} == {"play", "auto_play"}

        async def recorded():
            items = (await bob.http.get("/api/me/matches")).json()["items"]
            return next((item for item in items if item["id"] == game_id), None)

        match = await eventually(recorded, timeout=60, what="stats never recorded the match")
        assert match["rated"] is False  # bots sat from the start: a practice match
        assert {player["name"] for player in match["players"] if "bot" not in player} == {"alice", "bob"}
    finally:
        if people is not None:
            people.cancel()
        await alice.close()
        await bob.close()
