"""The deadline queue's behaviour, the same on Redis and in memory."""

from __future__ import annotations

import asyncio

from deadlines.entry import Entry
from deadlines.queue import RedisDeadlineQueue
from services.rpc.errors import Reason, ServiceError
from services.stores import Keys
from services.stores import redis_client as redis_client_for
from testing.waiting import eventually

T0 = 1_000_000  # a fixed "now" (ms): the queue never reads a clock itself
LEASE = 30_000


def entry(token: str = "x", table: str = "table-1", kind: str = "turn") -> Entry:
    return Entry(table, kind, token)


async def test_an_entry_is_claimed_once_due_not_before(queue):
    await queue.schedule(entry(), T0 + 100)
    early = await queue.poll(T0 + 99, T0 + 99 + LEASE, 10)
    assert early.claims == [] and early.next_wake_ms == T0 + 100
    due = await queue.poll(T0 + 100, T0 + 100 + LEASE, 10)
    assert [(c.entry, c.due_ms, c.attempts) for c in due.claims] == [(entry(), T0 + 100, 0)]


async def test_claims_come_in_due_order_up_to_the_limit(queue):
    for token, due in [("c", 30), ("a", 10), ("b", 20), ("later", 500)]:
        await queue.schedule(entry(token), T0 + due)
    first = await queue.poll(T0 + 100, T0 + LEASE, 2)
    assert [c.entry.token for c in first.claims] == ["a", "b"]
    second = await queue.poll(T0 + 100, T0 + LEASE, 10)
    assert [c.entry.token for c in second.claims] == ["c"]
    assert second.next_wake_ms == T0 + 500


async def test_scheduling_again_keeps_one_entry_at_the_last_due_time(queue):
    await queue.schedule(entry(), T0 + 100)
    await queue.schedule(entry(), T0 + 500)
    assert (await queue.counts()).pending == 1
    assert (await queue.poll(T0 + 100, T0 + LEASE, 10)).claims == []
    await queue.schedule(entry(), T0 + 50)  # earlier again: the last call still wins
    assert len((await queue.poll(T0 + 100, T0 + LEASE, 10)).claims) == 1


async def test_a_claimed_entry_is_not_claimed_again(queue):
    await queue.schedule(entry(), T0)
    assert len((await queue.poll(T0, T0 + LEASE, 10)).claims) == 1
    again = await queue.poll(T0 + 1, T0 + 1 + LEASE, 10)
    assert again.claims == [] and again.next_wake_ms == T0 + LEASE  # only its lease is left
    assert await queue.counts() == (0, 1)


async def test_ack_removes_the_entry(queue):
    await queue.schedule(entry(), T0)
    [claim] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    assert await queue.ack(claim) is True
    assert await queue.ack(claim) is False
    assert await queue.counts() == (0, 0)
    assert (await queue.poll(T0 + 10 * LEASE, T0 + 11 * LEASE, 10)).next_wake_ms is None


async def test_an_expired_lease_returns_the_entry_to_be_claimed_again(queue):
    await queue.schedule(entry(), T0)
    [first] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    assert (await queue.poll(T0 + LEASE - 1, T0 + 2 * LEASE, 10)).claims == []
    swept = await queue.poll(T0 + LEASE, T0 + 2 * LEASE, 10)
    assert swept.returned == 1
    assert [c.entry for c in swept.claims] == [entry()]
    # the first claimer's late ack or retry cannot undo the new claim
    assert await queue.ack(first) is False
    assert await queue.retry(first, T0) is False
    assert await queue.counts() == (0, 1)
    assert await queue.ack(swept.claims[0]) is True


async def test_retry_puts_the_entry_back_later_and_counts_the_attempt(queue):
    await queue.schedule(entry(), T0)
    [claim] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    assert await queue.retry(claim, T0 + 250) is True
    assert (await queue.poll(T0 + 249, T0 + LEASE, 10)).claims == []
    [again] = (await queue.poll(T0 + 250, T0 + LEASE + 1, 10)).claims
    assert again.attempts == 1 and again.due_ms == T0 + 250
    await queue.retry(again, T0 + 300)
    [third] = (await queue.poll(T0 + 300, T0 + LEASE + 2, 10)).claims
    assert third.attempts == 2


async def test_scheduling_again_resets_the_attempts(queue):
    await queue.schedule(entry(), T0)
    [claim] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    await queue.retry(claim, T0 + 10)
    await queue.schedule(entry(), T0 + 20)
    [again] = (await queue.poll(T0 + 20, T0 + LEASE + 1, 10)).claims
    assert again.attempts == 0


async def test_release_gives_the_claim_back_due_now_without_counting(queue):
    await queue.schedule(entry(), T0)
    [claim] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    assert await queue.release(claim, T0 + 5) is True
    [again] = (await queue.poll(T0 + 5, T0 + LEASE + 5, 10)).claims
    assert again.attempts == 0


async def test_rescheduled_while_in_flight_fires_again_at_its_new_time(queue):
    await queue.schedule(entry(), T0)
    [claim] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    await queue.schedule(entry(), T0 + 1000)
    assert await queue.ack(claim) is True
    assert await queue.counts() == (1, 0)
    assert len((await queue.poll(T0 + 1000, T0 + LEASE + 1000, 10)).claims) == 1
    # a retry of the old claim keeps the newer schedule's time too
    await queue.schedule(entry("y"), T0)
    [old] = (await queue.poll(T0, T0 + LEASE, 10)).claims
    await queue.schedule(entry("y"), T0 + 5000)
    await queue.retry(old, T0 + 10)
    assert (await queue.poll(T0 + 4999, T0 + LEASE, 10)).claims == []


async def test_cancel_removes_a_pending_entry_once(queue):
    await queue.schedule(entry("a"), T0)
    await queue.schedule(entry("b"), T0)
    assert await queue.cancel(entry("a")) is True
    assert await queue.cancel(entry("a")) is False
    assert await queue.cancel(entry("never")) is False
    assert [c.entry.token for c in (await queue.poll(T0, T0 + LEASE, 10)).claims] == ["b"]


async def test_a_cancelled_claim_is_neither_retried_nor_returned_by_its_lease(queue):
    await queue.schedule(entry("a"), T0)
    await queue.schedule(entry("b"), T0)
    claim_a, claim_b = (await queue.poll(T0, T0 + LEASE, 10)).claims
    assert await queue.cancel(claim_a.entry) is False  # it was in flight, not pending
    assert await queue.retry(claim_a, T0 + 1) is False
    await queue.cancel(claim_b.entry)
    after = await queue.poll(T0 + 2 * LEASE, T0 + 3 * LEASE, 10)
    assert after.claims == [] and after.returned == 0
    assert await queue.counts() == (0, 0)


async def test_cancel_table_removes_only_that_tables_entries(queue):
    for token in ("a", "b", "c"):
        await queue.schedule(entry(token, table="t1"), T0)
    await queue.schedule(entry("a", table="t2"), T0)
    [claimed] = (await queue.poll(T0, T0 + LEASE, 1)).claims  # one of t1's is in flight
    assert claimed.entry.table_id == "t1"
    assert await queue.cancel_table("t1") == 2
    assert await queue.cancel_table("t1") == 0
    assert await queue.cancel_table("nobody") == 0
    assert await queue.ack(claimed) is False
    assert [c.entry for c in (await queue.poll(T0, T0 + LEASE, 10)).claims] == [
        entry("a", table="t2")]


async def test_set_tables_replaces_each_listed_tables_entries_and_no_others(backend, queue,
                                                                            redis_client):
    for token in ("a", "b"):
        await queue.schedule(entry(token, table="t1"), T0)
    await queue.schedule(entry("a", table="t2"), T0 + 5)
    await queue.schedule(entry("kept", table="t3"), T0 + 7)
    [claimed] = (await queue.poll(T0, T0 + LEASE, 1)).claims  # one of t1's is in flight
    await queue.set_tables({"t1": [(entry("c", table="t1"), T0 + 20)],
                            "t2": [],  # none left
                            "t4": [(entry("x", table="t4"), T0 + 10),
                                   (entry("y", table="t4", kind="hand_end"), T0 + 30)]})
    assert await queue.counts() == (4, 0)  # the claimed one went too
    assert await queue.ack(claimed) is False
    due = (await queue.poll(T0 + 100, T0 + LEASE, 10)).claims
    assert [(c.entry, c.due_ms) for c in due] == [
        (entry("kept", table="t3"), T0 + 7), (entry("x", table="t4"), T0 + 10),
        (entry("c", table="t1"), T0 + 20), (entry("y", table="t4", kind="hand_end"), T0 + 30)]
    await queue.set_tables({"t1": [], "t3": [], "t4": []})
    assert await queue.cancel_table("t4") == 0
    if backend.name == "redis":  # the emptied tables leave no index behind
        left = [key async for key in redis_client.scan_iter(Keys(backend.prefix).group("deadlines", "table", "*"))]
        assert left == []


async def test_set_tables_wakes_the_listeners_once_with_the_earliest_due(backend):
    setter, listener_queue = backend.handle(), backend.handle()
    heard: list[int | None] = []
    subscribed = asyncio.Event()

    def on_wake(due):
        heard.append(due)
        if due is None:
            subscribed.set()

    task = asyncio.create_task(listener_queue.listen(on_wake))
    try:
        await asyncio.wait_for(subscribed.wait(), 5)
        await setter.set_tables({"t1": [(entry("a", table="t1"), T0 + 50)],
                                 "t2": [(entry("a", table="t2"), T0 + 40)]})
        await eventually(lambda: T0 + 40 in heard, timeout=5, interval=0.005)
        await setter.set_tables({"t1": []})  # nothing scheduled: no wake-up
        await setter.schedule(entry("z"), T0 + 99)
        await eventually(lambda: T0 + 99 in heard, timeout=5, interval=0.005)
        assert [due for due in heard if due is not None] == [T0 + 40, T0 + 99]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_the_table_index_forgets_settled_entries(backend, queue, redis_client):
    await queue.schedule(entry("a"), T0)
    await queue.schedule(entry("b"), T0)
    claims = (await queue.poll(T0, T0 + LEASE, 10)).claims
    for claim in claims:
        await queue.ack(claim)
    await queue.cancel(entry("never"))
    assert await queue.cancel_table("table-1") == 0
    if backend.name == "redis":  # no key outlives its entries
        assert [key for pattern in Keys(backend.prefix).patterns
                async for key in redis_client.scan_iter(pattern)] == []


async def test_a_redis_member_that_is_not_an_entry_is_dropped_not_fired(redis_url, redis_prefix,
                                                                         redis_client):
    queue = RedisDeadlineQueue(redis_client_for(redis_url), Keys(redis_prefix))
    try:
        await redis_client.zadd(queue.pending_key, {"not an entry": T0})
        await queue.schedule(entry(), T0)
        poll = await queue.poll(T0, T0 + LEASE, 10)
        assert [c.entry for c in poll.claims] == [entry()]
        assert poll.undecodable == ("not an entry",)
        assert await queue.counts() == (0, 1)
    finally:
        await queue.close()


async def test_scheduling_wakes_every_listener_with_the_due_time(backend):
    first, second = backend.handle(), backend.handle()
    heard: list[list[int | None]] = [[], []]
    subscribed = [asyncio.Event(), asyncio.Event()]

    def listener(i):
        def on_wake(due):
            heard[i].append(due)
            if due is None:
                subscribed[i].set()
        return on_wake

    tasks = [asyncio.create_task(q.listen(listener(i))) for i, q in enumerate((first, second))]
    try:
        await asyncio.wait_for(asyncio.gather(*(e.wait() for e in subscribed)), 5)
        await first.schedule(entry(), T0 + 42)
        for i in range(2):
            await eventually(lambda i=i: T0 + 42 in heard[i], timeout=5, interval=0.005)
        assert heard[0][0] is None  # a (re)subscription first asks for a re-plan
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_replicas_polling_at_once_never_claim_one_entry_twice(backend):
    replicas = [backend.handle() for _ in range(4)]
    tokens = [f"e{i}" for i in range(300)]
    for i, token in enumerate(tokens):
        await replicas[0].schedule(entry(token), T0 + i % 7)

    async def drain(queue):
        claimed = []
        while claims := (await queue.poll(T0 + 10, T0 + LEASE, 7)).claims:
            claimed += [c.entry.token for c in claims]
        return claimed

    results = await asyncio.gather(*(drain(q) for q in replicas))
    everything = [token for claimed in results for token in claimed]
    assert sorted(everything) == sorted(tokens)  # each exactly once
    if backend.name == "redis":
        assert all(results), "every replica should have taken a share"


async def test_a_store_that_does_not_answer_is_unavailable():
    queue = RedisDeadlineQueue(redis_client_for("redis://127.0.0.1:1/0"), Keys("test-none:tavolo"))
    try:
        for call in (queue.schedule(entry(), T0), queue.cancel(entry()),
                     queue.cancel_table("t"), queue.poll(T0, T0 + LEASE, 1), queue.counts()):
            try:
                await call
            except ServiceError as error:
                assert error.reason is Reason.UNAVAILABLE
            else:
                raise AssertionError("expected UNAVAILABLE")
    finally:
        await queue.close()


async def test_the_epoch_stays_while_the_queue_keeps_its_entries(backend):
    first, other_replica = backend.handle(), backend.handle()
    epoch = await first.epoch()
    await first.schedule(entry(), T0 + 100)
    await first.cancel(entry())
    assert len(epoch) >= 16
    assert await first.epoch() == epoch and await other_replica.epoch() == epoch


async def test_a_flushed_redis_gives_the_queue_a_new_epoch(redis_url, redis_prefix, redis_client):
    queue = RedisDeadlineQueue(redis_client_for(redis_url), Keys(redis_prefix))
    other_replica = RedisDeadlineQueue(redis_client_for(redis_url), Keys(redis_prefix))
    try:
        before = await queue.epoch()
        await queue.schedule(entry(), T0 + 100)
        for key in await redis_client.keys(Keys(redis_prefix).patterns[0]):  # what FLUSHALL does
            await redis_client.delete(key)
        after = await queue.epoch()
        assert after != before and await other_replica.epoch() == after
    finally:
        await queue.close()
        await other_replica.close()


async def test_a_new_memory_queue_has_a_new_epoch():
    from deadlines.queue import MemoryDeadlineQueue

    assert await MemoryDeadlineQueue().epoch() != await MemoryDeadlineQueue().epoch()
