"""The gateway's turn notices (gateway.turn_notices) on their own: whom a notice tells, on the
memory pieces (presence, the event bus, the push throttle); the stream read by two gateways on a
real Redis, each entry handled once, and the entries a dead gateway left claimed by another; the
member feed's `your_turn`, rendered as an /api/me/games item for the member."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

import pytest

from game.turn_notices import TurnNotice, stream_name
from gateway.contract.common import Body
from gateway.events import MemoryEventBus, YourTurn
from gateway.member_feed import MemberFeed
from gateway.online import MemoryOnline
from gateway.presence import MemoryPresence
from gateway.turn_notices import (
    PUSH_EVERY_SECONDS,
    MemoryThrottle,
    Outcome,
    RedisThrottle,
    TurnNotices,
    TurnNoticeWorker,
    TurnStream,
    left_text,
)
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError
from services.stores import Keys, redis_client
from testing.servers import REDIS_URL, delete_keys, new_prefix
from testing.waiting import eventually
from tests.gateway.live_fakes import FakeLobby, lobby_game, seat_view

NOW = 1_796_205_600.0  # seconds
HOUR_MS = 3_600_000


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


class Seating:
    """The lobby's seating of a few tables; a table it does not know is gone."""

    def __init__(self) -> None:
        self.tables = {"t1": list(lobby_game("t1").seats)}
        self.down = False

    async def get_game(self, game_id: str) -> Game:
        if self.down:
            raise ServiceError(Reason.UNAVAILABLE, "The lobby is unavailable")
        if game_id not in self.tables:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found")
        return replace(lobby_game(game_id), seats=tuple(self.tables[game_id]))


@dataclass
class Pieces:
    seating: Seating = field(default_factory=Seating)
    presence: MemoryPresence = field(default_factory=MemoryPresence)
    bus: MemoryEventBus = field(default_factory=MemoryEventBus)
    clock: Clock = field(default_factory=Clock)
    events: list = field(default_factory=list)
    pushes: list = field(default_factory=list)

    def notices(self) -> TurnNotices:
        async def push(member_id: str, payload: dict) -> None:
            self.pushes.append((member_id, payload))

        async def names() -> dict[str, str]:
            return {"scopone_scientifico": "Scopone scientifico"}

        return TurnNotices(self.seating, self.presence, self.bus.publish,
                           MemoryThrottle(clock=self.clock), push=push, game_names=names, clock=self.clock)


@pytest.fixture
async def pieces():
    found = Pieces()
    await found.bus.listen(found.events.append)
    return found


def notice(seat: int = 1, table: str = "t1", revision: int = 5, left_ms: int = 23 * HOUR_MS + 60_000):
    return TurnNotice(table, seat, revision, int(NOW * 1000) + left_ms, "scopone_scientifico")


async def test_a_member_away_is_told_on_every_gateway_and_pushed(pieces):
    outcome = await pieces.notices().handle(notice(seat=1))
    assert (outcome.told, outcome.pushed) == ("bob", True)
    assert pieces.events == [YourTurn(sub="bob", game_id="t1")]
    assert pieces.pushes == [("bob", {"type": "your_turn", "game": "t1", "title": "Your turn",
                                      "body": "Scopone scientifico: it is your turn — 23 h left",
                                      "url": "/games/t1"})]


async def test_a_member_at_the_table_in_any_gateway_is_told_nothing(pieces):
    await pieces.presence.mark("t1", 1, True)
    outcome = await pieces.notices().handle(notice(seat=1))
    assert (outcome.told, outcome.why) == ("", "present")
    assert pieces.events == [] and pieces.pushes == []
    # Another seat's socket is no presence of this one.
    await pieces.presence.mark("t1", 1, False)
    await pieces.presence.mark("t1", 2, True)
    assert (await pieces.notices().handle(notice(seat=1))).told == "bob"


async def test_a_bot_a_seat_a_bot_took_over_and_a_gone_table_tell_nobody(pieces):
    seats = pieces.seating.tables["t1"]
    seats[1] = replace(seats[1], bot="esperto")
    seats[2] = replace(seats[2], bot="esperto", took_over=True)
    seats[3] = replace(seats[3], erased=True)
    handler = pieces.notices()
    assert [(await handler.handle(notice(seat=seat))).why for seat in (1, 2, 3)] == ["bot", "bot", "gone"]
    assert (await handler.handle(notice(table="t9"))).why == "gone"
    assert pieces.events == [] and pieces.pushes == []


async def test_at_most_one_push_a_game_an_hour_though_the_socket_hears_each_turn(pieces):
    handler = pieces.notices()
    first = await handler.handle(notice(seat=1, revision=5))
    pieces.clock.now += PUSH_EVERY_SECONDS - 1
    second = await handler.handle(notice(seat=1, revision=9))
    assert (first.pushed, second.pushed) == (True, False)
    assert pieces.events == [YourTurn(sub="bob", game_id="t1")] * 2
    # Another game of the same member is pushed; this one again once the hour passed.
    pieces.seating.tables["t2"] = list(lobby_game("t2").seats)
    assert (await handler.handle(notice(seat=1, table="t2"))).pushed
    pieces.clock.now += 1
    assert (await handler.handle(notice(seat=1, revision=13))).pushed
    assert [game for _, payload in pieces.pushes for game in [payload["game"]]] == ["t1", "t2", "t1"]


async def test_a_lobby_that_does_not_answer_leaves_the_notice_to_be_handled_again(pieces):
    pieces.seating.down = True
    with pytest.raises(ServiceError) as caught:
        await pieces.notices().handle(notice())
    assert caught.value.reason is Reason.UNAVAILABLE
    assert pieces.events == [] and pieces.pushes == []


def test_the_time_left_is_said_in_hours_then_minutes():
    now_ms = int(NOW * 1000)
    assert left_text(now_ms + 23 * HOUR_MS + 59 * 60_000, NOW) == "23 h"
    assert left_text(now_ms + 40 * 60_000 + 5, NOW) == "40 min"
    assert left_text(now_ms - 5, NOW) == "1 min"
    assert left_text(0, NOW) == ""


# -- the stream, two gateways on a real Redis ------------------------------------------------

@pytest.fixture
async def redis_keys():
    prefix = new_prefix("turns")
    client = redis_client(REDIS_URL)
    yield client, Keys(prefix)
    await client.aclose()
    await delete_keys(prefix)


class Recording:
    """A TurnNotices that records what it handled (and can be made to fail)."""

    def __init__(self) -> None:
        self.handled: list[TurnNotice] = []
        self.failing = False

    async def handle(self, found: TurnNotice):
        if self.failing:
            raise ServiceError(Reason.UNAVAILABLE, "The lobby is unavailable")
        self.handled.append(found)
        return Outcome(told="bob")


async def _append(client, keys, *found: TurnNotice) -> None:
    for item in found:
        await client.xadd(stream_name(keys), item.fields())


async def test_two_gateways_handle_each_entry_once(redis_keys):
    client, keys = redis_keys
    first, second = Recording(), Recording()
    workers = [TurnNoticeWorker(TurnStream(client, keys), first, block_ms=100),  # type: ignore[arg-type]
               TurnNoticeWorker(TurnStream(client, keys), second, block_ms=100)]  # type: ignore[arg-type]
    for worker in workers:
        worker.start()
    try:
        sent = [notice(seat=1, revision=revision) for revision in range(1, 21)]
        await _append(client, keys, *sent)

        async def all_handled():
            return len(first.handled) + len(second.handled) >= len(sent)

        await eventually(all_handled, timeout=10, interval=0.05, what="the entries were not handled")
        await asyncio.sleep(0)
        assert sorted(n.revision for n in first.handled + second.handled) == list(range(1, 21))
        assert (await client.xpending(stream_name(keys), "gateways"))["pending"] == 0
    finally:
        for worker in workers:
            await worker.aclose()


async def test_an_entry_a_gateway_could_not_handle_is_claimed_by_another(redis_keys):
    client, keys = redis_keys
    dead, alive = Recording(), Recording()
    dead.failing = True  # takes the entry, never acknowledges it (as a gateway that died would)
    dying = TurnNoticeWorker(TurnStream(client, keys, consumer="dying"), dead,  # type: ignore[arg-type]
                             claim_idle_seconds=0.3, block_ms=100)
    dying.start()
    await _append(client, keys, notice(seat=2))

    async def taken():
        return (await client.xpending(stream_name(keys), "gateways"))["pending"] == 1

    await eventually(taken, timeout=10, interval=0.05, what="the entry was not read")
    await dying.aclose()
    assert alive.handled == []

    taking_over = TurnNoticeWorker(TurnStream(client, keys, consumer="alive"), alive,  # type: ignore[arg-type]
                                   claim_idle_seconds=0.3, block_ms=100)
    taking_over.start()
    try:
        async def claimed():
            return alive.handled

        handled = await eventually(claimed, timeout=10, interval=0.05, what="the entry was not claimed")
        assert [(n.table, n.seat) for n in handled] == [("t1", 2)]

        async def acknowledged():
            return (await client.xpending(stream_name(keys), "gateways"))["pending"] == 0

        await eventually(acknowledged, timeout=10, interval=0.05, what="the entry was not acknowledged")
    finally:
        await taking_over.aclose()


async def test_a_redis_that_lost_its_keys_gets_the_group_again(redis_keys):
    client, keys = redis_keys
    handler = Recording()
    worker = TurnNoticeWorker(TurnStream(client, keys), handler, block_ms=100)  # type: ignore[arg-type]
    worker.start()
    try:
        await _append(client, keys, notice(seat=1))

        async def handled(count: int):
            return len(handler.handled) >= count

        await eventually(lambda: handled(1), timeout=10, interval=0.05, what="not handled")
        await client.delete(stream_name(keys))  # a flush: the stream and its group are gone
        await _append(client, keys, notice(seat=2))
        await eventually(lambda: handled(2), timeout=15, interval=0.05, what="not handled after the loss")
        assert [n.seat for n in handler.handled] == [1, 2]
    finally:
        await worker.aclose()


async def test_an_entry_that_is_not_a_notice_is_dropped(redis_keys):
    client, keys = redis_keys
    handler = Recording()
    worker = TurnNoticeWorker(TurnStream(client, keys), handler, block_ms=100)  # type: ignore[arg-type]
    worker.start()
    try:
        await client.xadd(stream_name(keys), {"table": "t1", "seat": "x"})
        await _append(client, keys, notice(seat=3))

        async def handled():
            return handler.handled

        assert [n.seat for n in await eventually(handled, timeout=10, interval=0.05)] == [3]

        async def acknowledged():
            return (await client.xpending(stream_name(keys), "gateways"))["pending"] == 0

        await eventually(acknowledged, timeout=10, interval=0.05, what="the bad entry stayed pending")
    finally:
        await worker.aclose()


async def test_the_push_throttle_in_redis_lets_one_push_a_game_an_hour(redis_keys):
    client, keys = redis_keys
    throttle = RedisThrottle(client, keys)
    assert [await throttle.first("bob", "t1"), await throttle.first("bob", "t1"),
            await throttle.first("bob", "t2"), await throttle.first("carol", "t1")] == [True, False, True, True]
    ttl = await client.ttl(keys("pushed", "t1", "bob"))
    assert 0 < ttl <= PUSH_EVERY_SECONDS


# -- the member feed -------------------------------------------------------------------------

@dataclass(eq=False)
class Socket:
    sub: str
    player: str = ""
    told: set[str] = field(default_factory=set)
    sent: list[dict] = field(default_factory=list)

    def send(self, message: Body) -> None:
        self.sent.append(message.body())


class FakeGame:
    def __init__(self) -> None:
        self.status = "playing"
        self.turn = 1

    async def get_view_at(self, table_id: str, seat: str):
        index = int(seat.split(":")[1])
        view = seat_view(index, 7, self.status)
        if self.status == "playing" and index == self.turn:
            view["your_turn"] = True
        return view, 1_796_205_600_000


async def test_the_member_feed_tells_your_turn_with_the_game_as_my_games_shows_it():
    lobby, game = FakeLobby(), FakeGame()
    feed = MemberFeed(lobby, None, MemoryOnline(), game)  # type: ignore[arg-type]
    bob, alice = Socket("bob"), Socket("alice")
    feed.add(bob)
    feed.add(alice)
    try:
        feed.your_turn(YourTurn(sub="bob", game_id="t1"))

        async def told():
            return bob.sent

        (message,) = await eventually(told, timeout=5, interval=0.01)
        assert message["type"] == "your_turn"
        item = message["game"]
        assert (item["id"], item["status"], item["your_turn"], item["game_type"]) == (
            "t1", "playing", True, "scopone_scientifico")
        assert [(p["name"], p["is_you"]) for p in item["players"]][1] == ("bob", True)
        assert alice.sent == []

        # While seeding (player entropy) the view has no your_turn: the notice says it is theirs.
        game.status = "seeding"
        feed.your_turn(YourTurn(sub="bob", game_id="t1"))
        (_, seeding) = await eventually(lambda: _sent(bob, 2), timeout=5, interval=0.01)
        assert (seeding["game"]["status"], seeding["game"]["your_turn"]) == ("seeding", True)

        # Handled late: another seat is on turn now, or the game finished: nothing is told (the
        # telling awaited here, as the event's task runs it).
        game.status, game.turn = "playing", 2
        await feed._tell_turn(YourTurn(sub="bob", game_id="t1"))
        game.status = "finished"
        await feed._tell_turn(YourTurn(sub="bob", game_id="t2"))
        assert len(bob.sent) == 2
    finally:
        await feed.aclose()


async def _sent(socket: Socket, count: int) -> list[dict] | None:
    return socket.sent if len(socket.sent) >= count else None
