"""Which tables bots play and who drives them: the same behaviour in memory and in Postgres."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from bots.store import Assignment, DriveStore, MemoryDriveStore, PostgresDriveStore
from services.migrations import migrate
from services.stores import postgres_pool

LEASE = 0.3  # seconds; the tests wait past it on purpose, never race it


class Clock:
    """The memory store's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "postgres"])
async def store(request, postgres_dsn) -> DriveStore:
    if request.param == "memory":
        made: DriveStore = MemoryDriveStore(clock=Clock())
    else:
        await migrate(postgres_dsn, components=("bots",))
        made = PostgresDriveStore(await postgres_pool(postgres_dsn, max_size=2, name="bots"))
    yield made
    await made.close()


def table() -> str:
    return str(uuid.uuid4())


async def test_a_table_set_is_claimed_by_the_first_replica_and_kept_by_it(store):
    first = table()
    await store.set(first, ((1, "esperto"), (3, "maestro")))
    assert await store.claim("a", LEASE) == [Assignment(first, ((1, "esperto"), (3, "maestro")))]
    assert await store.claim("b", LEASE) == []  # a holds the lease
    assert await store.claim("a", LEASE) == [Assignment(first, ((1, "esperto"), (3, "maestro")))]
    assert await store.seats(first) == ((1, "esperto"), (3, "maestro"))


async def test_new_seats_keep_the_lease_and_none_forget_the_table(store):
    first = table()
    await store.set(first, ((1, "esperto"),))
    await store.claim("a", LEASE)
    await store.set(first, ((1, "esperto"), (2, "esperto")))  # a person left
    assert await store.claim("b", LEASE) == []
    assert await store.claim("a", LEASE) == [Assignment(first, ((1, "esperto"), (2, "esperto")))]
    await store.set(first, ())  # everyone came back
    assert await store.claim("a", LEASE) == [] and await store.seats(first) == ()


async def test_a_lapsed_lease_goes_to_whoever_claims_next(store):
    first, second = table(), table()
    await store.set(first, ((1, "esperto"),))
    await store.claim("a", LEASE)
    await store.set(second, ((2, "principiante"),))
    assert [a.table_id for a in await store.claim("b", LEASE)] == [second]
    await _past_the_lease(store)  # "a" died: it renewed nothing
    assert sorted(a.table_id for a in await store.claim("b", LEASE)) == sorted([first, second])
    assert await store.claim("a", LEASE) == []  # back from the dead: b holds them now


async def test_a_finished_table_is_forgotten(store):
    first = table()
    await store.set(first, ((1, "esperto"),))
    await store.claim("a", LEASE)
    await store.forget(first)
    assert await store.claim("a", LEASE) == [] and await store.seats(first) == ()


async def _past_the_lease(store: DriveStore) -> None:
    if isinstance(store, MemoryDriveStore):
        store.clock.now += LEASE * 2  # type: ignore[attr-defined]
    else:
        await asyncio.sleep(LEASE * 2)
