"""Fixtures of the stats tests: both stores, a fake lobby over a real socket, a live server."""

from __future__ import annotations

import pytest

from stats.repository import MemoryStatsRepository
from tests.stats.servers import postgres_repository, running_stack, serving_lobby


@pytest.fixture
async def fake_lobby():
    async with serving_lobby() as lobby:
        yield lobby


@pytest.fixture(params=["memory", "postgres"])
async def repository(request, postgres_dsn):
    """Each store in turn: the behaviour suite must hold for both. (The memory run gets an
    unused database too: an async fixture cannot be requested conditionally, and it is cheap.)"""
    if request.param == "memory":
        store = MemoryStatsRepository()
    else:
        store = await postgres_repository(postgres_dsn)
    yield store
    await store.close()


@pytest.fixture
async def stack(repository, fake_lobby):
    """The whole service over each store in turn."""
    async with running_stack(repository, fake_lobby) as running:
        yield running


@pytest.fixture
async def memory_stack(fake_lobby):
    """The whole service over the in-memory store: for checks that never reach a store."""
    async with running_stack(MemoryStatsRepository(), fake_lobby) as running:
        yield running
