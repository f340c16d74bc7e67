"""Work that outlives the call that caused it: background jobs, and calls retried until they succeed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Retry:
    """Jittered exponential backoff, without end: for calls that must eventually succeed."""

    first_seconds: float = 0.2
    cap_seconds: float = 30.0

    async def __call__(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """``call()`` until it succeeds. A definite refusal (a ServiceError whose reason is not
        transient, e.g. TABLE_NOT_FOUND or INVALID_ARGUMENT) is raised at once: it would only
        come back again."""
        delay, attempt = self.first_seconds, 0
        while True:
            try:
                return await call()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if isinstance(error, ServiceError) and not error.reason.transient:
                    raise
                attempt += 1
                report = log.warning if attempt in (1, 5) or attempt % 50 == 0 else log.debug
                report("%s failed (attempt %d): %s; retrying", what, attempt, error)
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.cap_seconds)


class Throttle:
    """At most one report per ``interval_seconds``: for warnings that many failures may repeat.

    ``allow()`` answers None while reports are held back, else how many were held back since
    the last one (0 for the first), so the report can say so.
    """

    def __init__(self, interval_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.interval_seconds = interval_seconds
        self._clock = clock
        self._last: float | None = None
        self._held_back = 0

    def allow(self) -> int | None:
        now = self._clock()
        if self._last is not None and now - self._last < self.interval_seconds:
            self._held_back += 1
            return None
        self._last, held_back, self._held_back = now, self._held_back, 0
        return held_back


async def every(interval_seconds: float, first_wait_seconds: float, job: Callable[[], Awaitable[Any]],
                what: str) -> None:
    """``job()`` after ``first_wait_seconds``, then every ``interval_seconds``, until cancelled: a
    pass that fails (a store down) is logged and the next one tries again."""
    wait = first_wait_seconds
    while True:
        await asyncio.sleep(wait)
        wait = interval_seconds
        try:
            await job()
        except Exception as error:  # noqa: BLE001 - the next pass tries again
            log.warning("%s: the pass failed (%s: %s); trying at the next one", what, type(error).__name__, error)


@contextlib.asynccontextmanager
async def in_background(job: Coroutine[Any, Any, Any], name: str) -> AsyncIterator[None]:
    """``job`` as a task for the life of the block, cancelled (and awaited) when it ends."""
    task = asyncio.create_task(job, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class Background:
    """The tasks started for later; ``drain`` waits for them, ``cancel`` stops them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._keys: set[str] = set()

    def start(self, job: Coroutine[Any, Any, Any], key: str | None = None) -> None:
        """Run ``job``; with a ``key``, only if no job of that key is running."""
        if key is not None:
            if key in self._keys:
                job.close()
                return
            self._keys.add(key)
        task = asyncio.ensure_future(self._guarded(job, key))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def drain(self, timeout: float | None = None) -> None:
        loop = asyncio.get_running_loop()
        give_up_at = None if timeout is None else loop.time() + timeout
        while self._tasks:
            left = None if give_up_at is None else give_up_at - loop.time()
            if left is not None and left <= 0:
                return
            await asyncio.wait(set(self._tasks), timeout=left)

    async def cancel(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _guarded(self, job: Awaitable[Any], key: str | None) -> None:
        try:
            await job
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("background job %s failed", key or job)
        finally:
            if key is not None:
                self._keys.discard(key)
