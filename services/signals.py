"""Change signals: a subscriber waits for "something changed on this channel", then reads the
owner's store for what. Nothing polls.

A signal needs no data: the reader re-reads the truth, so a signal lost or merged costs nothing
but a read. A publisher may attach a payload all the same (e.g. the revision a change made), so
that a subscriber that already knows it can skip the read (:meth:`Signals.payloads`).

Three hubs with one interface: :class:`MemorySignalHub` inside one process (the in-memory
stores), :class:`RedisSignalHub` over Redis (sharded) pub/sub and :class:`PostgresSignalHub` over
Postgres LISTEN/NOTIFY (a store that keeps its truth in Postgres signals in the very
transaction that changes it, so a signal never precedes the commit), each with one connection
per process shared by every local subscriber.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import asyncpg
from asyncpg.pool import PoolConnectionProxy
from redis.exceptions import RedisError

from services import redis_channels
from services.stores import POSTGRES_DOWN, STATEMENT_CACHE_SIZE, RedisClient, postgres_connection

log = logging.getLogger(__name__)

SUBSCRIBE_TIMEOUT_SECONDS = 5.0


class Signals:
    """Change signals for one subscriber; signals that arrive while it is busy merge into one."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._payloads: list[str] | None = []

    def notify(self, payload: str | None = None) -> None:
        if payload is None:
            self._payloads = None
        elif self._payloads is not None:
            self._payloads.append(payload)
        self._event.set()

    def payloads(self) -> list[str] | None:
        """The payloads of the signals since the last call, oldest first; None when one of
        them came without a payload (e.g. after a reconnect: anything may have changed)."""
        taken, self._payloads = self._payloads, []
        return taken

    def clear(self) -> None:
        self._event.clear()
        self._payloads = []

    async def wait(self, timeout: float | None = None) -> bool:
        """True when a signal came (and clears it), False after ``timeout`` seconds without one."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class MemorySignalHub:
    """Subscribers of one process, by channel."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[Signals]] = {}

    def notify(self, channel: str, payload: str | None = None) -> None:
        for signals in self._subscribers.get(channel, ()):
            signals.notify(payload)

    def notify_all(self) -> None:
        for subscribers in self._subscribers.values():
            for signals in subscribers:
                signals.notify()

    @property
    def listening(self) -> bool:
        return bool(self._subscribers)

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Signals]:
        signals = Signals()
        self._subscribers.setdefault(channel, set()).add(signals)
        try:
            yield signals
        finally:
            subscribers = self._subscribers.get(channel)
            if subscribers is not None:
                subscribers.discard(signals)
                if not subscribers:
                    del self._subscribers[channel]


class RedisSignalHub:
    """One pub/sub connection per process (per node, on a Cluster), shared by every local
    subscriber (services.redis_channels).

    A channel is subscribed while it has local subscribers. Each subscribe confirmation,
    including the ones redis-py sends after a reconnect, signals the channel's subscribers,
    so that none of them misses a change made while the connection was down.
    """

    def __init__(self, client: RedisClient, name: str = "signals"):
        self._client = client
        self._name = name
        self._pubsub = redis_channels.Subscription(client)
        self._subscribers: dict[str, set[Signals]] = {}
        self._ready: dict[str, asyncio.Event] = {}
        self._reader: asyncio.Task[None] | None = None
        self._resubscribing: set[asyncio.Task[None]] = set()

    def subscribed(self, channel: str) -> bool:
        """Whether this process's subscription to ``channel`` is in place now (confirmed, and
        its connection not lost since)."""
        ready = self._ready.get(channel)
        return ready is not None and ready.is_set()

    async def publish(self, channel: str, message: str | int = "") -> int:
        """Signal every subscriber of ``channel``, in every process; how many subscriptions
        (one per subscribed process) received it."""
        return await redis_channels.publish(self._client, channel, message)

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Signals]:
        signals = Signals()
        first = channel not in self._subscribers
        if first:
            self._subscribers[channel] = set()
            self._ready[channel] = asyncio.Event()
        subscribers = self._subscribers[channel]
        subscribers.add(signals)
        try:
            if first:
                await self._pubsub.subscribe(channel)
                if self._reader is None or self._reader.done():
                    self._reader = asyncio.create_task(self._read(), name=self._name)
            await asyncio.wait_for(self._ready[channel].wait(), SUBSCRIBE_TIMEOUT_SECONDS)
            signals.clear()  # the confirmation is not a change
            yield signals
        finally:
            subscribers.discard(signals)
            if not subscribers and self._subscribers.get(channel) is subscribers:
                del self._subscribers[channel]
                self._ready.pop(channel, None)
                with contextlib.suppress(RedisError, OSError):
                    await self._pubsub.unsubscribe(channel)

    async def _read(self) -> None:
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                # Any, not only the kit's REDIS_DOWN: the process's one reader must outlive
                # whatever its connection raises.
                log.warning("%s connection lost (%s); reconnecting", self._name, error)
                for confirmed in self._ready.values():  # until each is confirmed again
                    confirmed.clear()
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            channel = str(message.get("channel"))
            kind = message["type"]
            if kind == "subscribe":
                ready = self._ready.get(channel)
                if ready is not None:
                    ready.set()
            elif kind == "unsubscribe" and channel in self._subscribers:
                # a subscriber arrived while the last one was leaving: listen again
                task = asyncio.create_task(self._pubsub.subscribe(channel))
                self._resubscribing.add(task)
                task.add_done_callback(self._resubscribing.discard)
                continue
            elif kind != "message":
                continue
            payload = message.get("data") if kind == "message" else None
            for signals in self._subscribers.get(channel, ()):
                signals.notify(payload if isinstance(payload, str) else None)

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()


class PostgresSignalHub:
    """LISTEN on one Postgres channel; each NOTIFY's payload names the key it signals.

    Writers signal with ``SELECT pg_notify(<channel>, <key>)`` inside their transaction
    (:meth:`notify_in`): Postgres delivers it at commit, never before. The listening connection
    is opened with the first subscriber; when it is lost it is opened again (with backoff) and
    every subscriber is signalled, since a change may have been missed meanwhile.

    LISTEN belongs to a server session: ``dsn`` must reach Postgres directly, or through a
    pooler in session mode, never a transaction pooler (DATABASE_LISTEN_URL). The writers'
    ``pg_notify`` runs in their own transactions and may go through one.
    """

    def __init__(self, dsn: str, channel: str, *,
                 statement_cache_size: int = STATEMENT_CACHE_SIZE):
        self._dsn = dsn
        self._statement_cache_size = statement_cache_size
        self._channel = channel
        self._hub = MemorySignalHub()
        self._connection: asyncpg.Connection | None = None
        self._connecting = asyncio.Lock()
        self._reconnect: asyncio.Task[None] | None = None
        self._closed = False

    async def notify_in(self, connection: asyncpg.Connection | PoolConnectionProxy, key: str) -> None:
        """Signal ``key``'s subscribers when ``connection``'s transaction commits."""
        await connection.execute("SELECT pg_notify($1, $2)", self._channel, key)

    @contextlib.asynccontextmanager
    async def subscribe(self, key: str) -> AsyncIterator[Signals]:
        async with self._hub.subscribe(key) as signals:
            await self._listen()
            signals.clear()
            yield signals

    async def _listen(self) -> None:
        async with self._connecting:
            if self._connection is not None and not self._connection.is_closed():
                return
            connection = await postgres_connection(
                self._dsn, statement_cache_size=self._statement_cache_size)
            await connection.add_listener(self._channel, self._received)
            connection.add_termination_listener(self._lost)
            self._connection = connection

    def _received(self, connection: asyncpg.Connection | PoolConnectionProxy, pid: int, channel: str,
                  payload: object) -> None:
        self._hub.notify(str(payload))

    def _lost(self, connection: asyncpg.Connection | PoolConnectionProxy) -> None:
        if self._closed or self._reconnect is not None:
            return
        self._reconnect = asyncio.get_running_loop().create_task(self._listen_again())

    async def _listen_again(self) -> None:
        delay = 0.2
        try:
            while not self._closed and self._hub.listening:
                try:
                    await self._listen()
                except (*POSTGRES_DOWN, asyncpg.PostgresError) as error:  # down, or refusing
                    log.warning("lost the %s listener (%s); listening again in %.1f s",
                                self._channel, error, delay)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 5.0)
                    continue
                self._hub.notify_all()  # whatever changed while deaf: read it again
                return
        finally:
            self._reconnect = None

    async def close(self) -> None:
        self._closed = True
        if self._reconnect is not None:
            self._reconnect.cancel()
        if self._connection is not None:
            with contextlib.suppress(Exception):
                await self._connection.close()
