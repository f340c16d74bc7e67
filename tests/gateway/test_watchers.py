"""How many members watch a table, shared by the gateway processes: the same in memory and in
Redis, a member counted once however many sockets and processes, and the marks of a process that
died lapse."""

from __future__ import annotations

import pytest

from gateway.table_leases import RENEW_BATCH
from gateway.watchers import MemoryWatchers, RedisWatchers, Watchers
from services.stores import Keys


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
async def watchers(request, redis_client, redis_prefix) -> Watchers:
    if request.param == "memory":
        return MemoryWatchers()
    return RedisWatchers(redis_client, Keys(redis_prefix), process="one")


async def test_a_member_counts_while_a_process_marks_them(watchers):
    await watchers.mark("t1", "google:eve", True)
    await watchers.mark("t1", "google:frank", True)
    await watchers.mark("t1", "google:eve", True)  # again: still one member
    assert await watchers.counts(["t1", "t2"]) == [2, 0]
    await watchers.mark("t1", "google:eve", False)
    assert await watchers.count("t1") == 1
    assert await watchers.counts([]) == []


async def test_a_member_watching_through_two_processes_counts_once(redis_client, redis_prefix):
    one = RedisWatchers(redis_client, Keys(redis_prefix), process="one")
    two = RedisWatchers(redis_client, Keys(redis_prefix), process="two")
    await one.mark("t1", "oidc:eve", True)
    await two.mark("t1", "oidc:eve", True)
    await two.mark("t1", "oidc:frank", True)
    assert await one.count("t1") == 2
    await one.mark("t1", "oidc:eve", False)  # eve still watches through process two
    assert await two.count("t1") == 2
    await two.mark("t1", "oidc:eve", False)
    assert await one.count("t1") == 1


async def test_the_marks_of_a_process_that_stopped_renewing_lapse(redis_client, redis_prefix):
    clock = Clock()
    dead = RedisWatchers(redis_client, Keys(redis_prefix), process="dead", clock=clock, ttl_seconds=60)
    alive = RedisWatchers(redis_client, Keys(redis_prefix), process="alive", clock=clock, ttl_seconds=60)
    await dead.mark("t1", "a:1", True)
    await alive.mark("t1", "a:2", True)
    clock.now += 40
    await alive.renew([("t1", "a:2")])
    clock.now += 30  # dead's mark is 70 s old, alive's 30 s
    assert await alive.count("t1") == 1
    assert 0 < await redis_client.pttl(Keys(redis_prefix).table("t1", "watchers")) <= 60_000


async def test_a_renewal_of_many_tables_renews_them_all(redis_client, redis_prefix):
    clock = Clock()
    watchers = RedisWatchers(redis_client, Keys(redis_prefix), process="p", clock=clock, ttl_seconds=60)
    tables = [f"t{n}" for n in range(2 * RENEW_BATCH + 3)]
    for table in tables:
        await watchers.mark(table, "m:1", True)
    clock.now += 40
    await watchers.renew([(table, member) for table in tables for member in ("m:1", "m:2")])
    clock.now += 30
    assert await watchers.counts(tables) == [2] * len(tables)
