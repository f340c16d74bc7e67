"""Fixtures of table talk's tests: each store (memory and real Postgres), and TalkService served over
a socket behind a TalkClient."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from services.components import TALK_SERVICE
from services.migrations import migrate
from services.rpc.server import ServiceSpec, serve
from services.stores import postgres_pool
from talk.client import TalkClient
from talk.memory_store import MemoryTalkStore
from talk.postgres_store import PostgresTalkStore
from talk.service import Talk
from talk.servicer import register
from talk.store import TalkStore
from testing.processes import free_address
from testing.servers import create_database, drop_database, dsn_for


class Clock:
    """Milliseconds that the tests move by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def talk_database():
    """One migrated scratch database per module (each test empties it first)."""
    database = asyncio.run(create_database("talk"))
    asyncio.run(migrate(dsn_for(database), components=("talk",)))
    yield dsn_for(database)
    asyncio.run(drop_database(database))


@pytest.fixture(params=["memory", "postgres"])
async def store(request, talk_database) -> AsyncIterator[TalkStore]:
    if request.param == "memory":
        yield MemoryTalkStore()
        return
    pool = await postgres_pool(talk_database, name="talk tests")
    await pool.execute("TRUNCATE talk_message, talk_mute, talk_report")
    postgres = PostgresTalkStore(pool)
    yield postgres
    await postgres.close()


@pytest.fixture
def talk(store, clock) -> Talk:
    return Talk(store, clock=clock)


@pytest.fixture
async def address(talk) -> AsyncIterator[str]:
    """TalkService served over a real socket (the store under test behind it): its address."""
    address = free_address()
    started, stop = asyncio.Event(), asyncio.Event()
    spec = ServiceSpec(name="talk", full_names=(TALK_SERVICE,),
                       register=lambda server: register(server, talk), probe=talk.store.ping)
    task = asyncio.create_task(serve(spec, address, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 10)
    yield address
    stop.set()
    await task


@pytest.fixture
async def client(address) -> AsyncIterator[TalkClient]:
    async with TalkClient(address) as client:
        yield client
