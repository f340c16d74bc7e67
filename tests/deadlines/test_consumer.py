"""The firing loop against a fake game service over gRPC, on Redis and in memory."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from deadlines.consumer import Backoff, Consumer
from deadlines.entry import Entry
from deadlines.queue import RedisDeadlineQueue
from deadlines.server import fire_target
from services.stores import Keys, redis_client
from tests.deadlines.conftest import consuming, until_empty
from tests.deadlines.fakes import FakeGameServer, due_token

FAST_RETRY = Backoff(initial_ms=20, max_ms=100)


def now_ms() -> int:
    return int(time.time() * 1000)


async def schedule_at(queue, due_ms: int, name: str = "t", table: str = "table-1",
                      kind: str = "turn") -> str:
    token = due_token(due_ms, name)
    await queue.schedule(Entry(table, kind, token), due_ms)
    return token


# A wake-up fires within milliseconds; the heartbeat would take 30 s. Between the two, a bound
# that a loaded 2-core machine meets.
WOKEN_BOUND_MS = 2_000


async def idle() -> None:
    """Give a freshly started consumer the moment to make its first (empty) poll."""
    await asyncio.sleep(0.05)


async def test_fires_on_time_when_woken_and_never_early(queue, game_server, game_target):
    async with consuming(queue, game_target):  # heartbeat 30 s: only wake-ups can make it
        await idle()
        start = now_ms()
        tokens = [await schedule_at(queue, start + 100 + 60 * i, f"n{i}") for i in range(5)]
        calls = await game_server.game.wait_for_all(tokens, timeout=5)
    for call in calls.values():
        # Never early; late by far less than the 30 s heartbeat (a bound a loaded machine meets).
        assert 0 <= call.lateness_ms < WOKEN_BOUND_MS, call
        assert call.answer == "fired" and call.kind == "turn" and call.table_id == "table-1"


async def test_an_entry_due_in_the_past_fires_at_once(queue, game_server, game_target):
    async with consuming(queue, game_target):
        await idle()
        scheduled = now_ms()
        token = await schedule_at(queue, scheduled - 60_000)
        [call] = await game_server.game.wait_for(token)
    assert call.at_ms - scheduled < WOKEN_BOUND_MS  # at once, not at the 30 s heartbeat


async def test_a_lost_wake_up_fires_within_the_heartbeat(queue, game_server, game_target):
    async with consuming(queue, game_target, heartbeat_ms=200, wakeups=False):
        await idle()
        due = now_ms() + 20
        token = await schedule_at(queue, due)
        [call] = await game_server.game.wait_for(token, timeout=5)
    assert 0 <= call.lateness_ms < 200 + 100


async def test_a_cancelled_entry_never_fires(queue, game_server, game_target):
    # Due already, and cancelled before anything consumes: no race with the clock.
    start = now_ms()
    cancelled = await schedule_at(queue, start, "cancelled")
    table_wide = await schedule_at(queue, start, "table", table="table-2")
    sentinel = await schedule_at(queue, start + 1, "sentinel")
    assert await queue.cancel(Entry("table-1", "turn", cancelled)) is True
    assert await queue.cancel_table("table-2") == 1
    async with consuming(queue, game_target):
        await game_server.game.wait_for(sentinel)
    assert game_server.game.calls_of(cancelled) == []
    assert game_server.game.calls_of(table_wide) == []


async def test_each_answer_that_ends_an_entry_removes_it(queue, game_server, game_target):
    game = game_server.game
    game.gone_tables.add("gone-table")
    async with consuming(queue, game_target, backoff=FAST_RETRY):
        start = now_ms()
        fired = await schedule_at(queue, start, "fired")
        stale = await schedule_at(queue, start, "stale")
        game.stale_tokens.add(stale)
        gone = await schedule_at(queue, start, "gone", table="gone-table")
        game.refused.add(due_token(start, "refused"))  # for good: firing again would not help
        refused = await schedule_at(queue, start, "refused")
        await game.wait_for_all([fired, stale, gone, refused])
        await until_empty(queue)
        sentinel = await schedule_at(queue, now_ms() + 150, "sentinel")  # room for a wrong retry
        await game.wait_for(sentinel)
    assert sorted((c.token, c.answer) for c in game.calls if c.token != sentinel) == sorted([
        (fired, "fired"), (stale, "stale"), (gone, "gone"), (refused, "refused")])


async def test_a_failing_fire_is_retried_with_backoff_until_it_succeeds(queue, game_server,
                                                                          game_target):
    game = game_server.game
    async with consuming(queue, game_target, backoff=FAST_RETRY):
        token = await schedule_at(queue, now_ms())
        game.failures[token] = 3
        calls = await game.wait_for(token, count=4, timeout=5)
        await until_empty(queue)
    assert [call.answer for call in calls] == ["failed"] * 3 + ["fired"]
    gaps = [later.at_ms - earlier.at_ms for earlier, later in itertools.pairwise(calls)]
    assert all(gap >= 9 for gap in gaps), gaps  # at least half of the 20 ms initial backoff


async def test_a_table_that_kept_changing_is_fired_again_not_dropped(queue, game_server,
                                                                     game_target):
    game = game_server.game
    async with consuming(queue, game_target, backoff=FAST_RETRY):
        token = await schedule_at(queue, now_ms())
        game.busy[token] = 2
        calls = await game.wait_for(token, count=3, timeout=5)
        await until_empty(queue)
    assert [call.answer for call in calls] == ["busy", "busy", "fired"]


async def test_a_fire_that_hangs_gives_up_at_its_deadline_and_is_retried(queue, game_server):
    game = game_server.game
    target = fire_target(game_server.address, timeout_seconds=0.3)  # a deadline per call
    try:
        async with consuming(queue, target, backoff=FAST_RETRY):
            token = await schedule_at(queue, now_ms())
            game.hang_first.add(token)
            calls = await game.wait_for(token, count=2, timeout=5)
            await until_empty(queue)
    finally:
        await target.close()
    assert [call.answer for call in calls] == ["hung", "fired"]
    assert 250 <= calls[1].at_ms - calls[0].at_ms < 1500


async def test_a_game_service_down_then_up_gets_the_entry_when_it_returns(queue):
    server = FakeGameServer()  # not started: the game service is down
    target = fire_target(server.address, timeout_seconds=1)
    try:
        async with consuming(queue, target, backoff=Backoff(initial_ms=20, max_ms=200)):
            token = await schedule_at(queue, now_ms())
            await asyncio.sleep(0.4)  # the outage: several attempts fail meanwhile
            counts = await queue.counts()  # one read: the entry moves between the two sets
            assert counts.pending + counts.in_flight == 1
            await server.start()
            back = now_ms()
            [call] = await server.game.wait_for(token, timeout=5)
            await until_empty(queue)
        assert call.answer == "fired"
        assert call.at_ms - back < 200 + 2000 + 500  # the backoff ceiling + gRPC's reconnect
    finally:
        await target.close()
        await server.stop()


async def test_two_replicas_never_fire_one_entry_twice(backend, game_server, game_target):
    first, second = backend.handle(), backend.handle()
    start = now_ms() + 100
    tokens = [due_token(start + i % 50, f"e{i}") for i in range(200)]
    async with consuming(first, game_target), consuming(second, game_target):
        for i, token in enumerate(tokens):
            await first.schedule(Entry("table-1", "turn", token), start + i % 50)
        await game_server.game.wait_for_all(tokens, timeout=10)
        await until_empty(first)
    fired = [call.token for call in game_server.game.calls]
    assert sorted(fired) == sorted(tokens)


async def test_a_full_consumer_fires_everything_a_slot_at_a_time(queue, game_server,
                                                                 game_target):
    tokens = [await schedule_at(queue, now_ms(), f"e{i}") for i in range(40)]
    async with consuming(queue, game_target, max_in_flight=3):
        await game_server.game.wait_for_all(tokens, timeout=10)
        await until_empty(queue)
    assert sorted(call.token for call in game_server.game.calls) == sorted(tokens)


async def test_stopping_gives_unfinished_claims_back_for_another_replica(backend, game_server,
                                                                         game_target):
    game = game_server.game
    first, second = backend.handle(), backend.handle()
    token = await schedule_at(first, now_ms())
    game.hang_first.add(token)  # the first replica's fire never gets an answer
    async with consuming(first, game_target):
        await game.wait_for(token)
    assert await first.counts() == (1, 0)  # back in pending, not waiting for its 30 s lease
    async with consuming(second, game_target):
        calls = await game.wait_for(token, count=2)
    assert [call.answer for call in calls] == ["hung", "fired"]


async def test_a_queue_that_does_not_answer_does_not_stop_the_consumer(game_target):
    queue = RedisDeadlineQueue(redis_client("redis://127.0.0.1:1/0"), Keys("test-none:tavolo"))
    consumer = Consumer(queue, game_target, heartbeat_ms=100, backoff=FAST_RETRY)
    task = asyncio.create_task(consumer.run())
    try:
        await asyncio.sleep(0.3)  # several polls fail meanwhile
        assert not task.done()
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await queue.close()


@pytest.mark.parametrize("lease_ms", [0, -1])
def test_a_consumer_needs_a_positive_lease(queue, game_target, lease_ms):
    with pytest.raises(ValueError):
        Consumer(queue, game_target, lease_ms=lease_ms)
