"""Who has a socket open at a table, shared by the gateway processes: the same in memory and in
Redis, and marks of a process that died lapse."""

from __future__ import annotations

import pytest

from gateway.presence import RENEW_BATCH, MemoryPresence, Presence, RedisPresence
from services.stores import Keys


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
async def presence(request, redis_client, redis_prefix) -> Presence:
    if request.param == "memory":
        return MemoryPresence()
    return RedisPresence(redis_client, Keys(redis_prefix), process="one")


async def test_a_seat_is_connected_while_a_process_marks_it(presence):
    await presence.mark("t1", 2, True)
    await presence.mark("t1", 0, True)
    assert await presence.seats("t1") == {0, 2} and await presence.seats("t2") == set()
    await presence.mark("t1", 2, False)
    assert await presence.seats("t1") == {0}


async def test_two_processes_see_each_others_seats(redis_client, redis_prefix):
    one = RedisPresence(redis_client, Keys(redis_prefix), process="one")
    two = RedisPresence(redis_client, Keys(redis_prefix), process="two")
    await one.mark("t1", 0, True)
    await two.mark("t1", 0, True)
    await two.mark("t1", 3, True)
    assert await one.seats("t1") == {0, 3}
    await one.mark("t1", 0, False)  # seat 0 still has a socket in process two
    assert await two.seats("t1") == {0, 3}


async def test_the_marks_of_a_process_that_stopped_renewing_lapse(redis_client, redis_prefix):
    clock = Clock()
    dead = RedisPresence(redis_client, Keys(redis_prefix), process="dead", clock=clock,
                         ttl_seconds=60)
    alive = RedisPresence(redis_client, Keys(redis_prefix), process="alive", clock=clock,
                          ttl_seconds=60)
    await dead.mark("t1", 1, True)
    await alive.mark("t1", 2, True)
    clock.now += 40
    await alive.renew([("t1", 2)])
    clock.now += 30  # dead's mark is 70 s old, alive's 30 s
    assert await alive.seats("t1") == {2}
    assert 0 < await redis_client.pttl(Keys(redis_prefix).table("t1", "presence")) <= 60_000


async def test_a_renewal_of_more_tables_than_one_round_trip_carries_renews_them_all(redis_client, redis_prefix):
    clock = Clock()
    presence = RedisPresence(redis_client, Keys(redis_prefix), process="p", clock=clock, ttl_seconds=60)
    tables = [f"t{n}" for n in range(2 * RENEW_BATCH + 3)]
    for table in tables:
        await presence.mark(table, 0, True)
    clock.now += 40
    await presence.renew([(table, seat) for table in tables for seat in (0, 3)])
    clock.now += 30  # the first marks are 70 s old: only the renewal keeps them
    assert [await presence.seats(table) for table in tables] == [{0, 3}] * len(tables)
