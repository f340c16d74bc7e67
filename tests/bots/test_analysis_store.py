"""The analyses' queue: the same behaviour in memory and in Postgres."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from bots.analysis.store import DONE, QUEUED, RUNNING, AnalysisStore, MemoryAnalysisStore, PostgresAnalysisStore
from services.migrations import migrate
from services.rpc.errors import Reason, ServiceError
from services.stores import postgres_pool
from testing.waiting import eventually

LEASE = 0.3  # seconds; the tests wait past it on purpose, never race it
RESULT = {"plays": [], "summary": {"accuracy": 100, "inaccuracies": 0, "mistakes": 0, "blunders": 0}}


@pytest.fixture(params=["memory", "postgres"])
async def store(request, postgres_dsn) -> AnalysisStore:
    if request.param == "memory":
        made: AnalysisStore = MemoryAnalysisStore()
    else:
        await migrate(postgres_dsn, components=("bots",))
        made = PostgresAnalysisStore(await postgres_pool(postgres_dsn, max_size=4, name="bots"))
        await made.pool.execute("DELETE FROM bot_analysis")  # the queue is shared: start empty
    yield made
    await made.close()


def table() -> str:
    return str(uuid.uuid4())


def member() -> str:
    return f"member-{uuid.uuid4().hex}"


async def test_a_request_is_queued_once_and_asking_again_answers_it(store):
    game, alice = table(), member()
    first, created = await store.request(game, alice, 2, 3)
    assert created and (first.status, first.seat, first.result) == (QUEUED, 2, None)
    again, created = await store.request(game, alice, 2, 3)
    assert not created and again == first
    assert await store.get(game, alice) == first
    assert await store.get(game, member()) is None and await store.get(table(), alice) is None


async def test_a_member_has_at_most_the_limit_queued_or_running(store):
    alice = member()
    games = [table() for _ in range(4)]
    for game in games[:3]:
        await store.request(game, alice, 0, 3)
    with pytest.raises(ServiceError) as refused:
        await store.request(games[3], alice, 0, 3)
    assert refused.value.reason is Reason.TOO_MANY_ANALYSES and refused.value.message == "Too many analyses"
    await store.request(games[0], alice, 0, 3)  # one asked before is still answered
    await store.request(table(), member(), 0, 3)  # another member's count is their own
    job = await store.claim("w", LEASE)
    assert job is not None and await store.finish(job.table_id, job.member_id, "w", RESULT)
    _, created = await store.request(games[3], alice, 0, 3)  # one done: room for one more
    assert created


async def test_requests_at_once_never_pass_the_limit(store):
    alice = member()
    outcomes = await asyncio.gather(*(store.request(table(), alice, 1, 3) for _ in range(8)),
                                    return_exceptions=True)
    assert sum(1 for o in outcomes if not isinstance(o, Exception)) == 3
    assert all(o.reason is Reason.TOO_MANY_ANALYSES for o in outcomes if isinstance(o, ServiceError))


async def test_a_worker_claims_the_oldest_and_keeps_the_result(store):
    first, second = table(), table()
    await store.request(first, member(), 0, 3)
    await store.request(second, member(), 1, 3)
    job = await store.claim("w", LEASE)
    assert (job.table_id, job.status, job.attempts) == (first, RUNNING, 1)
    other = await store.claim("v", LEASE)
    assert other.table_id == second
    assert await store.claim("u", LEASE) is None  # both held
    assert await store.finish(job.table_id, job.member_id, "w", RESULT)
    done = await store.get(job.table_id, job.member_id)
    assert (done.status, done.result) == (DONE, RESULT)
    assert not await store.finish(job.table_id, job.member_id, "w", RESULT)  # done: held no more


async def test_the_analysis_of_a_worker_that_died_is_claimed_again_once_its_lease_lapsed(store):
    game, alice = table(), member()
    await store.request(game, alice, 0, 3)
    assert await store.claim("dead", LEASE) is not None
    assert await store.renew(game, alice, "dead", LEASE)

    async def taken():
        return await store.claim("alive", LEASE)

    job = await eventually(taken, what="the lapsed lease was never claimed")
    assert (job.table_id, job.attempts) == (game, 2)
    assert not await store.renew(game, alice, "dead", LEASE)  # its lease is gone
    assert not await store.finish(game, alice, "dead", RESULT)
    assert await store.finish(game, alice, "alive", RESULT)


async def test_a_retry_waits_its_time_then_is_claimed_again(store):
    game, alice = table(), member()
    await store.request(game, alice, 3, 3)
    await store.claim("w", LEASE)
    assert await store.retry_later(game, alice, "w", LEASE)
    assert (await store.get(game, alice)).status == QUEUED
    assert await store.claim("w", LEASE) is None  # not before its time

    async def again():
        return await store.claim("w", LEASE)

    assert (await eventually(again, what="the retry was never claimed")).attempts == 2


async def test_erasing_a_member_deletes_their_analyses_only(store):
    alice, bob = member(), member()
    game = table()
    await store.request(game, alice, 0, 3)
    await store.request(table(), alice, 1, 3)
    await store.request(game, bob, 2, 3)
    assert await store.erase_member(alice) == 2
    assert await store.get(game, alice) is None and await store.get(game, bob) is not None
    assert await store.erase_member(alice) == 0
