"""Shared fixtures: the real Redis and Postgres of the machine, each test in a namespace of its own.

Postgres tests get a fresh database (dropped afterwards); Redis tests get a fresh key prefix
(its keys deleted afterwards): see tests/servers.py.
"""

from __future__ import annotations

import os

import pytest
import redis.asyncio as redis

from testing.servers import REDIS_URL, scratch_database, scratch_prefix

# The services the tests start serve no Prometheus port unless a test gives them one: the
# default (9464) would be taken by two at once (the suite runs in two workers).
os.environ["METRICS_PORT"] = "0"


@pytest.fixture
async def postgres_dsn():
    """A DSN of a brand-new empty database, dropped when the test ends."""
    async with scratch_database() as dsn:
        yield dsn


@pytest.fixture
def redis_url() -> str:
    return REDIS_URL


@pytest.fixture
async def redis_prefix():
    """A key prefix of this test's own (``test-<hex>:tavolo``); its keys are deleted afterwards."""
    async with scratch_prefix() as prefix:
        yield prefix


@pytest.fixture
async def redis_client(redis_prefix):
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    yield client
    await client.aclose()
