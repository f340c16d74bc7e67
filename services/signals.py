"""Change signals: a subscriber waits for "something changed on this channel", then reads the
owner's store for what. Nothing polls.

A signal carries no data on purpose: the reader always re-reads the truth, so a signal lost
or merged costs nothing but a read. Two hubs with one interface: :class:`MemorySignalHub`
inside one process (the in-memory stores), :class:`RedisSignalHub` over Redis pub/sub, with one
connection per process shared by every local subscriber.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import redis.asyncio as redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

SUBSCRIBE_TIMEOUT_SECONDS = 5.0


class Signals:
    """Change signals for one subscriber; signals that arrive while it is busy merge into one."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

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

    def notify(self, channel: str) -> None:
        for signals in self._subscribers.get(channel, ()):
            signals.notify()

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
    """One pub/sub connection per process, shared by every local subscriber.

    A channel is subscribed while it has local subscribers. Each subscribe confirmation,
    including the ones redis-py sends after a reconnect, signals the channel's subscribers,
    so that none of them misses a change made while the connection was down.
    """

    def __init__(self, client: redis.Redis, name: str = "signals"):
        self._client = client
        self._name = name
        self._pubsub = client.pubsub()
        self._subscribers: dict[str, set[Signals]] = {}
        self._ready: dict[str, asyncio.Event] = {}
        self._reader: asyncio.Task | None = None
        self._resubscribing: set[asyncio.Task] = set()

    async def publish(self, channel: str, message: str | int = "") -> None:
        """Signal every subscriber of ``channel``, in every process."""
        await self._client.publish(channel, message)

    @contextlib.asynccontextmanager
    async def subscribe(self, channel: str) -> AsyncIterator[Signals]:
        signals = Signals()
        subscribers = self._subscribers.get(channel)
        first = subscribers is None
        if first:
            subscribers = self._subscribers[channel] = set()
            self._ready[channel] = asyncio.Event()
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
                log.warning("%s connection lost (%s); reconnecting", self._name, error)
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            channel = message.get("channel")
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
            for signals in self._subscribers.get(channel, ()):
                signals.notify()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(RedisError, OSError):
            await self._pubsub.aclose()
