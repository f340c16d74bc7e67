"""A lost Redis loses no match (DESIGN: Redis is a cache; the truth is in Postgres).

Every component runs as its own process on real Redis and Postgres; "FLUSHALL" is the deletion of
every key of the stack's prefix, which is all a flush does to one installation. Sessions are lost
(people log in again); seatings, logs and matches are not, and the deadline queue refills itself.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from testing.players import Player, on_turn, play_until_over, receive, seat_four
from testing.servers import delete_keys
from testing.stack import real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module")
def stack():
    """Real servers; turns time out after half a second, so a table left alone moves on by
    itself (the players of the first test answer in milliseconds)."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.5", "HAND_ACK_TIMEOUT_SECONDS": "0.5"},
                    label="redisloss") as running:
        yield running


async def _flush(stack) -> None:
    await delete_keys(stack.env["REDIS_KEY_PREFIX"])


async def _login(stack, names) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


async def _recorded_once(player: Player, game_id: str) -> dict:
    async def recorded():
        items = (await player.http.get("/api/me/matches")).json()["items"]
        return items or None

    (item,) = await eventually(recorded, timeout=60)
    assert item["id"] == game_id
    return item


async def test_players_mid_hand_find_their_game_after_a_flush_and_play_it_to_the_end(stack):
    names = ("ann", "ben", "cat", "dan")
    players = await _login(stack, names)
    try:
        lobby = await seat_four(players, {"target_score": 1})
        async with await (await on_turn(players, lobby["id"])).socket(lobby["id"]) as socket:
            game = (await receive(socket, "state"))["game"]
            card = game["legal"][0]
            await socket.send(json.dumps({"action": "play", "card": card["card"],
                                          "capture": card["captures"][0]}))
            assert (await receive(socket, "state"))["game"]["revision"] == game["revision"] + 1
        await _flush(stack)
        assert (await players[0].http.get("/api/me")).status_code == 401  # sessions are gone
    finally:
        for player in players:
            await player.close()

    players = await _login(stack, names)  # they log in again...
    try:
        view = (await players[1].http.get(f"/api/games/{lobby['id']}")).json()
        assert view["status"] in ("playing", "hand_end") and view["revision"] > game["revision"]
        assert [p["name"] for p in view["players"]] == list(names)  # ...and find their seats
        mine = (await players[2].http.get("/api/me/games")).json()["games"]
        assert [g["id"] for g in mine] == [lobby["id"]]
        sockets = [await p.socket(lobby["id"]) for p in players]
        overs = await asyncio.gather(*(play_until_over(s, False) for s in sockets))
        for s in sockets:
            await s.close()
        winner = overs[0]["winner"]
        item = await _recorded_once(players[0], lobby["id"])
        deltas = {p["name"]: p["elo_delta"] for p in item["players"]}
        assert {name: delta > 0 for name, delta in deltas.items()} == {
            name: (index % 2 == 0) == (winner == "A") for index, name in enumerate(names)}
        ratings = (await players[3].http.get("/api/me/ratings")).json()["ratings"]
        assert ratings == [{"game_type": "scopone_scientifico",
                            "rating": 1500 + deltas["dan"], "matches": 1}]
    finally:
        for player in players:
            await player.close()


async def test_a_table_nobody_watches_finishes_on_its_deadlines_after_a_flush(stack):
    """The queue lost its entries with the flush: the game service hands them back within
    seconds, without a restart, and the deadlines play the match out."""
    players = await _login(stack, ("eve", "fay", "gus", "hal"))
    try:
        lobby = await seat_four(players, {"target_score": 1})

        async def moved():  # an automatic play or two, then the flush
            view = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()
            return view["revision"] >= 3

        await eventually(moved, timeout=30)
        await _flush(stack)
        for player in players:
            await player.close()
        players = await _login(stack, ("eve", "fay", "gus", "hal"))
        before = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()["revision"]

        async def finished():
            view = (await players[1].http.get(f"/api/games/{lobby['id']}")).json()
            return view if view["status"] == "finished" else None

        final = await eventually(finished, timeout=240)
        assert final["revision"] > before and final["winner"] in ("A", "B")
        await _recorded_once(players[2], lobby["id"])
    finally:
        for player in players:
            await player.close()
