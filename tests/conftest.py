"""Shared fixtures: the real Redis and Postgres of the machine, each test in a namespace of its own.

Postgres tests get a fresh database (dropped afterwards); Redis tests get a fresh key prefix
(its keys deleted afterwards). The servers are found through TAVOLO_TEST_POSTGRES (an admin
DSN, default the local ``postgres`` database) and TAVOLO_TEST_REDIS.
"""

from __future__ import annotations

import os
import uuid

import asyncpg
import pytest
import redis.asyncio as redis

ADMIN_DSN = os.environ.get("TAVOLO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TAVOLO_TEST_REDIS", "redis://127.0.0.1:6379/0")


def _dsn_for(database: str) -> str:
    base, _, _ = ADMIN_DSN.rpartition("/")
    return f"{base}/{database}"


@pytest.fixture
async def postgres_dsn():
    """A DSN of a brand-new empty database, dropped when the test ends."""
    name = f"tavolo_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(ADMIN_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield _dsn_for(name)
    finally:
        admin = await asyncpg.connect(ADMIN_DSN)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest.fixture
def redis_url() -> str:
    return REDIS_URL


@pytest.fixture
async def redis_prefix():
    """A key prefix of this test's own (``test-<hex>:tavolo``); its keys are deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex[:12]}:tavolo"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@pytest.fixture
async def redis_client(redis_prefix):
    client = redis.Redis.from_url(REDIS_URL, decode_responses=True)
    yield client
    await client.aclose()
