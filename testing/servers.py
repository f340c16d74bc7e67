"""The machine's real Redis and Postgres, in namespaces of their own: for tests and benchmarks.

TAVOLO_TEST_POSTGRES is an admin DSN (default: the local ``postgres`` database); every user gets
a brand-new database, dropped afterwards. TAVOLO_TEST_REDIS is the Redis; every user gets a key
prefix of its own, whose keys are deleted afterwards.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import asyncpg

from services.stores import Keys, redis_client

ADMIN_DSN = os.environ.get("TAVOLO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("TAVOLO_TEST_REDIS", "redis://127.0.0.1:6379/0")


def dsn_for(database: str) -> str:
    return f"{ADMIN_DSN.rpartition('/')[0]}/{database}"


async def _admin(sql: str) -> None:
    connection = await asyncpg.connect(ADMIN_DSN)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def create_database(label: str = "test") -> str:
    """A new empty database ``tavolo_<label>_<hex>``: its name."""
    name = f"tavolo_{label}_{uuid.uuid4().hex[:12]}"
    await _admin(f'CREATE DATABASE "{name}"')
    return name


async def drop_database(name: str) -> None:
    await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.asynccontextmanager
async def scratch_database(label: str = "test") -> AsyncIterator[str]:
    """The DSN of a new empty database, dropped when the block ends."""
    name = await create_database(label)
    try:
        yield dsn_for(name)
    finally:
        await drop_database(name)


def new_prefix(label: str = "test") -> str:
    return f"{label}-{uuid.uuid4().hex[:12]}:tavolo"


async def delete_keys(prefix: str, url: str = REDIS_URL) -> None:
    """Delete every key of ``prefix`` (services.stores.Keys), as a flush of the namespace
    would; ``url`` may name a Cluster (every node's keys go)."""
    client = redis_client(url)
    try:
        keys = [key for pattern in Keys(prefix).patterns
                async for key in client.scan_iter(match=pattern, count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@contextlib.asynccontextmanager
async def scratch_prefix(label: str = "test") -> AsyncIterator[str]:
    """A key prefix ``<label>-<hex>:tavolo`` of the caller's own; its keys go when the block ends."""
    prefix = new_prefix(label)
    try:
        yield prefix
    finally:
        await delete_keys(prefix)


async def terminate_connections(dsn: str) -> int:
    """Cut every session on ``dsn``'s database but the admin's own, as a Postgres restart or a
    failover does: how many were cut."""
    database = dsn.rpartition("/")[2]
    admin = await asyncpg.connect(ADMIN_DSN)
    try:
        return await admin.fetchval(
            """SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = $1 AND pid <> pg_backend_pid()""", database)
    finally:
        await admin.close()
