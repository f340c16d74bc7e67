"""Connections to the shared servers: Redis (redis-py asyncio) and Postgres (an asyncpg pool).

Services that find ``REDIS_URL`` / ``DATABASE_URL`` unset use their in-memory stores instead;
these factories are only called when a URL is configured.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, ParamSpec, TypeVar

import asyncpg
import redis.asyncio as redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError as RedisReadOnlyError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.observability import metrics, telemetry
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)
T = TypeVar("T")
P = ParamSpec("P")

# How long a service waits at start for Postgres to answer: inside the chart's startup budget
# (60 s), so that a pod started during an outage says why before it is restarted.
STORE_WAIT_SECONDS = 50.0
# No answer (yet): worth another try. A refusal (bad password, no such database) is not.
_NOT_ANSWERING = (OSError, asyncio.TimeoutError, asyncpg.CannotConnectNowError,
                  asyncpg.TooManyConnectionsError)
_REFUSING = (asyncpg.InvalidAuthorizationSpecificationError, asyncpg.InvalidCatalogNameError)


# What a Redis or a Postgres that does not answer, restarts or is out of resources raises: worth
# a retry, never a 500. Every store maps them with unavailable_on / unavailable_when. (redis-py
# wraps socket errors in its ConnectionError; OSError is there for any it does not. asyncpg's
# InternalClientError, "another operation is in progress", comes from a connection the server
# has just closed; OperatorInterventionError is an administrator's shutdown or cancel, a crash,
# a server not accepting connections yet; InsufficientResourcesError is too many connections,
# a full disk, no memory.)
# A failover answers for a while from a read-only replica: ReadOnlyError (Redis),
# ReadOnlySQLTransactionError (Postgres); a serialization failure or a deadlock
# (TransactionRollbackError) succeeds when tried again.
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, RedisReadOnlyError, OSError)
POSTGRES_DOWN = (OSError, TimeoutError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
                 asyncpg.InternalClientError, asyncpg.FatalPostgresError,
                 asyncpg.OperatorInterventionError, asyncpg.InsufficientResourcesError,
                 asyncpg.ReadOnlySQLTransactionError, asyncpg.TransactionRollbackError)
# A service with both (the game: move logs in Postgres, snapshots and locks in Redis).
STORES_DOWN = REDIS_DOWN + POSTGRES_DOWN


@contextlib.contextmanager
def unavailable_on(errors: tuple[type[BaseException], ...], store: str) -> Iterator[None]:
    """Within the block, ``errors`` become UNAVAILABLE ("The <store> is unavailable: <error>"),
    which callers retry, instead of an internal error. Each is logged with the driver's words
    (address, cause), which the caller's message leaves out."""
    try:
        yield
    except errors as error:
        log.warning("the %s did not answer: %r", store, error)
        metrics.store_error(store, error)
        raise ServiceError(Reason.UNAVAILABLE,
                           f"The {store} is unavailable: {type(error).__name__}") from None


def unavailable_when(errors: tuple[type[BaseException], ...], store: str
                     ) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Coroutine[Any, Any, T]]]:
    """Decorate a store's async methods: :func:`unavailable_on` around each call."""

    def decorate(method: Callable[P, Awaitable[T]]) -> Callable[P, Coroutine[Any, Any, T]]:
        @functools.wraps(method)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
            with unavailable_on(errors, store):
                return await method(*args, **kwargs)

        return wrapper

    return decorate


class StoreUnreachable(Exception):
    """A store did not answer at start (or refused the connection): the process cannot serve."""


async def when_reachable(what: str, open_store: Callable[[], Awaitable[T]],
                         wait_seconds: float = STORE_WAIT_SECONDS) -> T:
    """``open_store()``, tried again while the server does not answer (a warning each time);
    :class:`StoreUnreachable` after ``wait_seconds``, or at once when the server refuses."""
    deadline = time.monotonic() + wait_seconds
    delay = 0.5
    while True:
        try:
            return await open_store()
        except _REFUSING as error:
            raise StoreUnreachable(f"{what} refused the connection: {error}") from None
        except _NOT_ANSWERING as error:
            reason = str(error) or type(error).__name__
            if time.monotonic() + delay > deadline:
                raise StoreUnreachable(
                    f"{what} did not answer within {wait_seconds:g} s: {reason}") from None
            log.warning("%s does not answer yet (%s); trying again in %.1f s", what, reason, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


def redis_client(url: str, max_connections: int = 64) -> redis.Redis:
    """A Redis client returning ``str`` values, on a blocking pool: a burst of calls queues for
    a connection (up to 5 s) rather than failing with "Too many connections"."""
    pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=5,
                                                 decode_responses=True, health_check_interval=30)
    client = redis.Redis(connection_pool=pool)
    telemetry.instrument_redis(client)  # telemetry hook: a span per command when tracing
    return client


# asyncpg's own default: each connection keeps this many prepared statements, named, on its
# server session. Behind a transaction pooler (PgBouncer's pool_mode = transaction) consecutive
# transactions land on different server sessions, where those names are unknown or taken by
# another client: DATABASE_STATEMENT_CACHE_SIZE=0 makes every statement unnamed, parsed and run
# within one transaction. Each service passes its setting (Settings.database).
STATEMENT_CACHE_SIZE = 100


async def postgres_pool(url: str, min_size: int = 1, max_size: int = 10, *, name: str,
                        statement_cache_size: int = STATEMENT_CACHE_SIZE,
                        **options: Any) -> asyncpg.Pool:
    """An asyncpg pool; ``postgres://`` and ``postgresql://`` DSNs both work. ``name`` says what
    it is for (``db.client.connection.pool.name`` in the metrics: unique in the process).
    ``options`` go to asyncpg.create_pool (e.g. ``reset=`` for a store that keeps no session
    state, or another ``command_timeout`` than 30 s)."""
    database = telemetry.database_metrics()  # telemetry hook: None when telemetry is off
    if database is not None:  # each statement's duration (asyncpg's query logger)
        options["init"] = database.timing(options.get("init"))
    pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size,
                                     statement_cache_size=statement_cache_size,
                                     **{"command_timeout": 30, **options})
    if database is not None:
        database.watch(pool, name)
    return pool


async def postgres_connection(url: str, *, statement_cache_size: int = STATEMENT_CACHE_SIZE,
                              **options: Any) -> asyncpg.Connection:
    """One asyncpg connection of its own (a listener, a migration run), with the same statement
    cache rule as the pools."""
    return await asyncpg.connect(url, statement_cache_size=statement_cache_size, **options)


class Keys:
    """Redis key names: ``<prefix>:<name>`` with the prefix ``tavolo`` unless REDIS_KEY_PREFIX says otherwise."""

    def __init__(self, prefix: str = "tavolo"):
        self.prefix = prefix

    def __call__(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))
