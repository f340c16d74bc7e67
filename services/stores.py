"""Connections to the shared servers: Redis (redis-py asyncio) and Postgres (an asyncpg pool).

Services that find ``REDIS_URL`` / ``DATABASE_URL`` unset use their in-memory stores instead;
these factories are only called when a URL is configured.
"""

from __future__ import annotations

import asyncpg
import redis.asyncio as redis


def redis_client(url: str, max_connections: int = 64) -> redis.Redis:
    """A Redis client returning ``str`` values, on a blocking pool: a burst of calls queues for
    a connection (up to 5 s) rather than failing with "Too many connections"."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=5,
                                                 decode_responses=True, health_check_interval=30)
    return redis.Redis(connection_pool=pool)


async def postgres_pool(url: str, min_size: int = 1, max_size: int = 10,
                        **options) -> asyncpg.Pool:
    """An asyncpg pool; ``postgres://`` and ``postgresql://`` DSNs both work. ``options`` go to
    asyncpg.create_pool (e.g. ``reset=`` for a store that keeps no session state)."""
    return await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                     command_timeout=30, **options)


class Keys:
    """Redis key names: ``<prefix>:<name>`` with the prefix ``tavolo`` unless REDIS_KEY_PREFIX says otherwise."""

    def __init__(self, prefix: str = "tavolo"):
        self.prefix = prefix

    def __call__(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))
