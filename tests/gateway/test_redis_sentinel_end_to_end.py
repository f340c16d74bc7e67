"""The whole platform on a Sentinel-watched Redis (REDIS_SENTINELS), through a failover.

Every component is its own process. A master, its replica and two Sentinels run on this
machine (testing.redis_deployments); four people play a match, the master is killed in the
middle of it, they play on while it is down and after the Sentinels promoted the replica, and
the match ends with every move they sent in the log once: a move answered `unavailable` or
`unconfirmed` is sent again with its `id`. After it the sessions, the event bus and the tables'
cache work on the new master.
"""

from __future__ import annotations

import asyncio
import json

import pytest
import redis.asyncio as redis
import websockets

from game.scopone.rules import legal_plays
from services.stores import Keys
from testing.players import Player, receive, seat_four
from testing.redis_deployments import SentinelDeployment, redis_sentinel
from testing.stack import real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module")
def sentinel():
    with redis_sentinel(sentinels=2) as deployment:
        yield deployment


@pytest.fixture(scope="module")
def stack(sentinel: SentinelDeployment):
    """The Sentinels name the master, REDIS_URL its database (its host is never asked). Turns
    never time out during the test."""
    with real_stack({"REDIS_URL": "redis://nowhere.invalid:1/2",
                     "REDIS_SENTINELS": sentinel.sentinels,
                     "REDIS_SENTINEL_SERVICE": sentinel.service, "TURN_TIMEOUT_SECONDS": "60",
                     "HAND_ACK_TIMEOUT_SECONDS": "60"}, label="sentinel") as running:
        yield running


class Pace:
    """How many moves (plays and acks) the four seats may send so far, and how many of them
    were answered as made: the test's phases."""

    def __init__(self) -> None:
        self.limit = self.sent = self.made = 0
        self._changed = asyncio.Condition()

    async def allow(self, limit: int) -> None:
        async with self._changed:
            self.limit = limit
            self._changed.notify_all()

    async def take(self) -> None:
        async with self._changed:
            await self._changed.wait_for(lambda: self.sent < self.limit)
            self.sent += 1

    async def answered(self) -> None:
        async with self._changed:
            self.made += 1
            self._changed.notify_all()

    async def until_made(self, count: int) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.made >= count), 30)


async def _seat(socket, seat: int, pace: Pace, played: list[str]) -> dict:
    """One seat plays its cards (the first legal play) and acknowledges hand ends, every move
    with an ``id``; a move answered ``unavailable`` or ``unconfirmed`` goes again with the same
    ``id``. The cards the game made for it go to ``played``; the game_over message at the end."""
    waiting: dict | None = None  # the move sent whose answer has not come
    number = 0
    while True:
        message = await receive(socket, timeout=30)
        if message["type"] == "game_over":
            assert waiting is None
            return message
        if message["type"] == "error":
            assert waiting is not None and message.get("id") == waiting["id"], message
            if message["code"] in ("unavailable", "unconfirmed"):
                await asyncio.sleep(0.2)
                await socket.send(json.dumps(waiting))
                continue
            assert message["code"] == "already_played", message
        elif message["type"] != "state":
            continue
        else:
            game = message["game"]
            if waiting is not None and waiting["action"] == "play":
                if game["revision"] <= waiting["revision"]:
                    continue
                assert waiting["card"] not in game["hand"]
            elif waiting is not None and game["status"] == "hand_end" and seat not in game["acknowledged"]:
                continue
        if waiting is not None:  # made (a state after it, or already_played)
            if waiting["action"] == "play":
                played.append(waiting["card"])
            waiting = None
            await pace.answered()
            if message["type"] == "error":
                continue
        if game.get("your_turn"):
            card, capture = legal_plays(game["hand"], game["table"], False)[0]
            waiting = {"action": "play", "card": card, "capture": capture,
                       "revision": game["revision"]}
        elif game["status"] == "hand_end" and seat not in game["acknowledged"]:
            waiting = {"action": "ack"}  # the four at once: no revision to race on
        else:
            continue
        number += 1
        waiting["id"] = f"s{seat}-m{number}"
        await pace.take()
        await socket.send(json.dumps(waiting))


async def test_a_match_plays_on_through_a_failover_and_loses_no_move(stack, sentinel):
    players = [await Player(stack, name).login() for name in ("ann", "ben", "cat", "dan")]
    try:
        lobby = await seat_four(players, {"target_score": 1})
        sockets = [await player.socket(lobby["id"]) for player in players]
        pace, played = Pace(), [[] for _ in players]
        await pace.allow(8)
        seats = asyncio.gather(*(_seat(socket, seat, pace, played[seat])
                                 for seat, socket in enumerate(sockets)))
        await pace.until_made(8)
        old = await asyncio.to_thread(sentinel.kill_master)
        await pace.allow(14)  # six moves while no master answers
        await pace.until_made(14)
        assert await asyncio.to_thread(sentinel.master_port) == old  # not promoted yet
        new = await asyncio.to_thread(sentinel.wait_promoted, old)
        await pace.allow(10**6)  # on to the end, on the new master
        overs = await asyncio.wait_for(seats, 120)
        assert len({over["winner"] for over in overs}) == 1
        for socket in sockets:
            await socket.close()

        log = (await players[0].http.get(f"/api/games/{lobby['id']}/log")).json()
        plays = [move for move in log["moves"] if move["type"] == "play"]
        assert not any(move["auto"] for move in plays) and len(plays) >= 40
        for seat in range(4):  # every move the seat saw made is in the log, once, in order
            assert [m["payload"]["card"] for m in plays if m["seat"] == f"seat:{seat}"] == played[seat]

        # The sessions were on the replica too; a login writes to the new master.
        assert (await players[1].http.get("/api/me")).json()["sub"] == "ben"
        late = await Player(stack, "eve").login()
        assert (await late.http.get("/api/me")).json()["sub"] == "eve"
        await late.close()
        # The finished table's snapshot was stored on the new master, in REDIS_URL's database.
        master = redis.Redis(port=new, db=2, decode_responses=True)
        key = Keys(stack.env["REDIS_KEY_PREFIX"]).table(lobby["id"], "snapshot")

        async def stored():
            snapshot = await master.get(key)
            return snapshot is not None and json.loads(snapshot)["revision"] == log["revision"]

        try:
            await eventually(stored, timeout=10)
        finally:
            await master.aclose()
        # The event bus listens on the new master: a logout closes the session's socket.
        async with await players[2].socket(lobby["id"]) as socket:
            await receive(socket, "game_over")
            assert (await players[2].http.get("/auth/logout")).status_code == 302
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await receive(socket, timeout=10)
            assert closed.value.rcvd.code == 1008
    finally:
        for player in players:
            await player.close()
