"""bots.driver's SeatBot over a fake game API: the seat's decision loop, a refused move decided
again at the next view, a lost stream watched again, and a seat taken back left alone."""

from __future__ import annotations

import asyncio

import pytest

from bots import driver
from bots.driver import SeatBot, TableBots, _own_view
from game.client import TableViews
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually
from tests.bots.fake_game import FakeGame, finished, hand_end

TABLE = "t1"


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    monkeypatch.setattr(driver, "FIRST_BACKOFF_SECONDS", 0.01)


def seat_bot(game: FakeGame, still_plays=None) -> SeatBot:
    async def plays() -> bool:
        return True

    return SeatBot(game, TABLE, 1, "principiante", think_ms=0, still_plays=still_plays or plays)


async def test_the_bot_acknowledges_a_hand_end_at_the_revision_it_saw_and_stops_when_finished():
    game = FakeGame()
    run = asyncio.create_task(seat_bot(game).run())
    watch = await game.watch_opened(TABLE, "seat:1")
    watch.put_nowait(hand_end(7, acknowledged=(0,)))
    (move,) = await game.moves_made(1)
    assert (move.seat, move.action, move.expected_revision) == ("seat:1", {"action": "ack"}, 7)
    watch.put_nowait(hand_end(8, acknowledged=(0, 1)))  # owes nothing now
    watch.put_nowait(finished(9))
    await asyncio.wait_for(run, 10)
    assert len(game.moves) == 1


async def test_a_refused_move_is_decided_again_at_the_next_view():
    game = FakeGame()
    game.refusals.append(ServiceError(Reason.CONCURRENT_MOVE, "somebody moved first"))
    run = asyncio.create_task(seat_bot(game).run())
    watch = await game.watch_opened(TABLE, "seat:1")
    watch.put_nowait(hand_end(3))
    await game.moves_made(1)  # refused: the bot keeps watching
    watch.put_nowait(hand_end(4))
    moves = await game.moves_made(2)
    assert [m.expected_revision for m in moves] == [3, 4]
    watch.put_nowait(finished(5))
    await asyncio.wait_for(run, 10)


async def test_a_lost_stream_is_watched_again_and_play_goes_on():
    game = FakeGame()
    run = asyncio.create_task(seat_bot(game).run())
    first = await game.watch_opened(TABLE, "seat:1")
    first.put_nowait(ServiceError(Reason.UNAVAILABLE, "the owner restarted"))
    second = await game.watch_opened(TABLE, "seat:1", count=2)
    second.put_nowait(hand_end(2))
    (move,) = await game.moves_made(1)
    assert move.expected_revision == 2
    second.put_nowait(finished(3))
    await asyncio.wait_for(run, 10)


@pytest.mark.parametrize("reason", [Reason.TABLE_NOT_FOUND, Reason.NOT_SEATED])
async def test_a_table_gone_or_a_seat_lost_ends_the_bot(reason):
    game = FakeGame()
    run = asyncio.create_task(seat_bot(game).run())
    (await game.watch_opened(TABLE, "seat:1")).put_nowait(ServiceError(reason, "gone"))
    await asyncio.wait_for(run, 10)
    assert len(game.watches[TABLE, "seat:1"]) == 1 and not game.moves


async def test_a_seat_taken_back_is_not_played():
    game = FakeGame()
    asked = asyncio.Event()

    async def still_plays() -> bool:
        asked.set()
        return False

    run = asyncio.create_task(seat_bot(game, still_plays).run())
    watch = await game.watch_opened(TABLE, "seat:1")
    watch.put_nowait(hand_end(5))
    await asyncio.wait_for(asked.wait(), 10)
    watch.put_nowait(finished(6))
    await asyncio.wait_for(run, 10)
    assert not game.moves


async def test_a_resumed_watch_starting_at_the_move_under_way_does_not_move_twice():
    game = FakeGame()
    release = asyncio.Event()

    async def still_plays() -> bool:
        await release.wait()  # the move is under way while the watch breaks and resumes
        return True

    run = asyncio.create_task(seat_bot(game, still_plays).run())
    first = await game.watch_opened(TABLE, "seat:1")
    first.put_nowait(hand_end(5))
    first.put_nowait(ServiceError(Reason.UNAVAILABLE, "cut"))
    second = await game.watch_opened(TABLE, "seat:1", count=2)
    second.put_nowait(hand_end(5))
    second.put_nowait(hand_end(5, acknowledged=(1,)))  # the same revision: the move stands
    await eventually(second.empty, interval=0.01, what="the resumed watch was not read")
    release.set()
    await game.moves_made(1)
    second.put_nowait(finished(6))
    await asyncio.wait_for(run, 10)
    assert len(game.moves) == 1


def test_a_watch_that_carries_another_seats_view_is_refused():
    views = TableViews(revision=1, status="playing", updated_ms=0,
                       views=(("seat:0", {"hand": ["7B"]}), ("seat:1", {"hand": ["1C"]})))
    with pytest.raises(ServiceError) as refused:
        _own_view(views, "seat:1")
    assert refused.value.reason is Reason.UNAVAILABLE
    alone = TableViews(revision=1, status="playing", updated_ms=0, views=(("seat:1", {"hand": ["1C"]}),))
    assert _own_view(alone, "seat:1") == {"hand": ["1C"]}


async def test_a_tables_bots_finish_together_and_say_so():
    game = FakeGame()
    done: list[str] = []

    async def on_finished(table_id: str) -> None:
        done.append(table_id)

    async def seats_now(table_id: str):
        return ((1, "principiante"), (3, "esperto"))

    bots = TableBots(game, TABLE, ((1, "principiante"), (3, "esperto")), 0, on_finished, seats_now)
    for seat in ("seat:1", "seat:3"):
        watch = await game.watch_opened(TABLE, seat)
        watch.put_nowait(hand_end(2, acknowledged=(0, 2)))
    moves = await game.moves_made(2)
    assert sorted(m.seat for m in moves) == ["seat:1", "seat:3"]
    (await game.watch_opened(TABLE, "seat:1")).put_nowait(finished(3))
    assert not done  # seat 3 still plays
    (await game.watch_opened(TABLE, "seat:3")).put_nowait(finished(3))
    await asyncio.wait_for(bots.task, 10)
    assert done == [TABLE]
