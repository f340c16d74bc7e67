"""Fixtures of the deadline tests: the queue on both backends, a fake game service, consumers."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from deadlines.consumer import Consumer
from deadlines.queue import DeadlineQueue, MemoryDeadlineQueue, RedisDeadlineQueue
from deadlines.server import fire_target
from services.stores import Keys, redis_client
from testing.waiting import eventually
from tests.deadlines.fakes import FakeGameServer


class Backend:
    """One shared queue; :meth:`handle` gives another replica's view of it."""

    def __init__(self, name: str, redis_url: str, prefix: str):
        self.name = name
        self.redis_url = redis_url
        self.prefix = prefix
        self._memory = MemoryDeadlineQueue()
        self._handles: list[DeadlineQueue] = []

    def handle(self) -> DeadlineQueue:
        """Memory: the one queue of the process. Redis: a new client on the same keys."""
        if self.name == "memory":
            return self._memory
        queue = RedisDeadlineQueue(redis_client(self.redis_url), Keys(self.prefix))
        self._handles.append(queue)
        return queue

    async def close(self) -> None:
        for queue in self._handles:
            await queue.close()


@pytest.fixture(params=["memory", "redis"])
async def backend(request, redis_url, redis_prefix):
    backend = Backend(request.param, redis_url, redis_prefix)
    yield backend
    await backend.close()


@pytest.fixture
def queue(backend) -> DeadlineQueue:
    return backend.handle()


@pytest.fixture
async def game_server():
    server = FakeGameServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def game_target(game_server):
    target = fire_target(game_server.address, timeout_seconds=2)
    yield target
    await target.close()


@contextlib.asynccontextmanager
async def consuming(queue: DeadlineQueue, target, **options):
    """A consumer running in the background for the block; stopped (gracefully) after it."""
    consumer = Consumer(queue, target, **options)
    task = asyncio.create_task(consumer.run())
    try:
        yield consumer
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def until_empty(queue: DeadlineQueue, timeout: float = 5.0) -> None:
    """Until nothing is pending or in flight (a fire is received before it is acked)."""
    async def empty() -> bool:
        return tuple(await queue.counts()) == (0, 0)

    await eventually(empty, timeout=timeout, interval=0.01, what="the queue never emptied")
