"""Keeps the deadline queue whole: a queue that lost its entries is refilled within seconds.

The deadline queue lives in Redis, which may lose everything (a restart without persistence, a
failover, a new empty server). The truth of what is pending is the tables' logs, so the game
service hands every running table's deadlines to the queue again whenever the queue says its
contents are new: DeadlineService.GetQueueEpoch names them, and its answer changes only when
the entries were lost. Asking costs one small call per QUEUE_CHECK_SECONDS per replica,
whatever the number of tables; the expensive part (a paged pass over the unfinished tables,
Schedule being idempotent) runs only at start and after a loss.

Chosen over a periodic reconcile of every table, whose cost grows with the tables even when
nothing is missing, and over the deadline service refilling itself, which would make it read
the game service's logs (one owner per piece of state).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from services.background import Retry
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

QUEUE_CHECK_SECONDS = 2.0


class QueueEpochs(Protocol):
    async def queue_epoch(self) -> str: ...


class QueueWatch:
    """Resends every running table's deadlines at start and whenever the queue's epoch changes."""

    def __init__(self, queue: QueueEpochs, resend: Callable[[], Awaitable[int]],
                 interval_seconds: float = QUEUE_CHECK_SECONDS, retry: Retry | None = None):
        self._queue = queue
        self._resend = resend
        self._interval = interval_seconds
        self._retry = retry or Retry()
        self.resent = 0  # how many times the deadlines were handed over (start included)

    async def run(self) -> None:
        seen: str | None = None
        while True:
            try:
                epoch = await self._queue.queue_epoch()
            except ServiceError as error:
                if not error.reason.transient:
                    raise
                log.debug("deadline queue epoch not read: %s", error.message)
            else:
                if epoch != seen:
                    if seen is not None:
                        log.warning("the deadline queue lost its entries: handing it every running "
                                    "table's deadlines again")
                    # Read before resending: a loss during the resend changes the epoch again.
                    seen = epoch
                    await self._retry("resending the deadlines of running tables", self._resend)
                    self.resent += 1
            await asyncio.sleep(self._interval)
