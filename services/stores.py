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
import zlib
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, ParamSpec, TypeVar, cast

import asyncpg
import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.connection import parse_url as parse_redis_url
from redis.exceptions import ClusterDownError as RedisClusterDownError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError as RedisReadOnlyError
from redis.exceptions import SlotNotCoveredError as RedisSlotNotCoveredError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.exceptions import TryAgainError as RedisTryAgainError

from services.config import REDIS_CLUSTER_SCHEMES, Settings
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
# A Redis Cluster that lost a master, or moves slots, answers CLUSTERDOWN or TRYAGAIN, or has
# a slot no node serves yet. (Sentinel's MasterNotFoundError is a ConnectionError.)
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, RedisReadOnlyError, OSError,
              RedisClusterDownError, RedisTryAgainError, RedisSlotNotCoveredError)
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


# A Redis client of any deployment: one server (or a Sentinel-watched master) or a Cluster.
RedisClient = redis.Redis | RedisCluster
# Calls beyond a pool's connections wait this long for one rather than fail.
_POOL_WAIT_SECONDS = 5


def redis_client(url: str, max_connections: int = 64,
                 sentinels: tuple[tuple[str, int], ...] = (),
                 sentinel_service: str | None = None) -> RedisClient:
    """A Redis client returning ``str`` values, for the deployment the arguments name:

    - ``sentinels`` (with ``sentinel_service``): the master the Sentinels name now, found again
      at each new connection (after a failover the next command reaches the new master);
      ``url`` gives the rest (password, database, ``rediss://`` for TLS), its host ignored;
    - a ``redis+cluster://`` (``rediss+cluster://``) ``url``: a Redis Cluster, from any one of
      its nodes; commands go to the node of their key's slot;
    - else the one server of ``url``.

    A burst of calls queues for a connection (up to 5 s) rather than failing with "Too many
    connections": a blocking pool, or on a Cluster at most ``max_connections`` commands at
    once."""
    client: RedisClient
    if sentinels:
        client = _sentinel_master(url, max_connections, sentinels, sentinel_service or "")
    elif url.startswith(REDIS_CLUSTER_SCHEMES):
        client = _QueuingCluster.from_url(url.replace("+cluster", "", 1), decode_responses=True,
                                          max_connections=max_connections,
                                          health_check_interval=30)
    else:
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=max_connections,
                                                     timeout=_POOL_WAIT_SECONDS,
                                                     decode_responses=True,
                                                     health_check_interval=30)
        client = redis.Redis.from_pool(pool)  # the client owns its pool: aclose disconnects it
    telemetry.instrument_redis(client)  # telemetry hook: a span per command when tracing
    return client


def redis_for(settings: Settings, max_connections: int = 64) -> RedisClient | None:
    """The client of the Redis the settings name (REDIS_URL, REDIS_SENTINELS), or None when
    they name none: the caller keeps its state in memory."""
    if settings.redis_url is None:
        return None
    return redis_client(settings.redis_url, max_connections, settings.redis_sentinels,
                        settings.redis_sentinel_service)


class _QueuingCluster(RedisCluster):
    """A Cluster client whose commands wait their turn, ``max_connections`` at once, where
    redis-py's would fail when a node's connections are all in use; each node has as many
    again for pipelines and subscriptions."""

    def __init__(self, max_connections: int = 64, **options: Any) -> None:
        super().__init__(max_connections=2 * max_connections, **options)
        self._turns = asyncio.Semaphore(max_connections)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        try:
            await asyncio.wait_for(self._turns.acquire(), _POOL_WAIT_SECONDS)
        except TimeoutError:
            raise RedisConnectionError("No connection available.") from None
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            self._turns.release()


class _BlockingSentinelPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """The Sentinels' master, on a blocking pool like any other."""


class _SentinelMaster(redis.Redis):
    """A master found through Sentinels; closing it closes the connections to them too."""

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        await super().aclose(close_connection_pool)
        await cast(SentinelConnectionPool, self.connection_pool).sentinel_manager.aclose()


def _sentinel_master(url: str, max_connections: int, sentinels: tuple[tuple[str, int], ...],
                     service: str) -> redis.Redis:
    options = parse_redis_url(url)
    for address in ("host", "port", "path"):  # the Sentinels say where the master is
        options.pop(address, None)
    tls = options.pop("connection_class", None) is not None  # only rediss:// sets one
    sentinel = Sentinel(list(sentinels), socket_timeout=5, socket_connect_timeout=5)
    client: _SentinelMaster = sentinel.master_for(
        service, redis_class=_SentinelMaster, connection_pool_class=_BlockingSentinelPool,
        max_connections=max_connections, timeout=_POOL_WAIT_SECONDS, decode_responses=True,
        health_check_interval=30, ssl=tls, **options)
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
    """Redis key and channel names, each starting with the prefix (REDIS_KEY_PREFIX, ``tavolo``
    by default). The names used together carry a hash tag, the part in braces: the names of
    one tag hash to one Redis Cluster slot, so that the commands, scripts and transactions that
    use several of them at once work on a Cluster too (docs/architecture.md, "Redis keys").

    - ``keys(*parts)``: ``{<prefix>:<parts>}``, a name of its own slot;
    - ``keys.group(group, *parts)``: ``{<prefix>:<group>}:<parts>``, the names used together;
    - ``keys.table(table_id, *parts)``: a table's names, in the group of its bucket (one of
      TABLE_BUCKETS, from the table id), with the bucket's set of running tables;
    - ``keys.plain(*parts)``: ``<prefix>:<parts>``, untagged, each name used alone: the
      gateway's sessions and event channel keep the names they had before the tags (CONTRACT.md
      names the session record), so that the sessions outlive the upgrade.

    A script gets every key it touches in KEYS and starts with ``#!lua``: a Cluster then
    refuses keys (and channels) of two slots even when one node serves both.
    """

    # Enough to spread the tables over a Cluster of tens of masters; few enough that counting
    # the running tables (one ZCARD a bucket, every gauge poll) stays cheap.
    TABLE_BUCKETS = 64

    def __init__(self, prefix: str = "tavolo"):
        self.prefix = prefix

    def __call__(self, *parts: str) -> str:
        return "{" + ":".join((self.prefix, *parts)) + "}"

    def group(self, group: str, *parts: str) -> str:
        return ":".join((f"{{{self.prefix}:{group}}}", *parts))

    @classmethod
    def bucket_of(cls, table_id: str) -> int:
        return zlib.crc32(table_id.encode()) % cls.TABLE_BUCKETS

    def bucket(self, bucket: int, *parts: str) -> str:
        """A name of the bucket's group (e.g. its set of running tables)."""
        return self.group(f"tables:{bucket}", *parts)

    def table(self, table_id: str, *parts: str) -> str:
        return self.bucket(self.bucket_of(table_id), table_id, *parts)

    def plain(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    @property
    def patterns(self) -> tuple[str, str]:
        """The SCAN patterns that match every name of this prefix (tagged, and plain)."""
        escaped = "".join("\\" + c if c in "\\*?[" else c for c in self.prefix)
        return "{" + escaped + ":*", escaped + ":*"
