"""Log retention: finished tables' move logs older than LOG_RETENTION_DAYS are compacted.

Every RETENTION_INTERVAL_SECONDS (the first pass a minute after start) each game replica asks
the log to compact the tables finished before the cutoff, a batch of BATCH_TABLES at a time,
each batch one transaction (LogStore.compact): a table is either still whole or compacted,
never half. Only one replica compacts at a time (the log's lease); one that finds it taken
skips its turn, and the next pass of any replica takes up what is left. Unset
LOG_RETENTION_DAYS: nothing is ever compacted.

A compacted log reads the same (LogStore.moves): the replay, ``GetLog`` and
``GET /api/games/{id}/log`` do not change, nor does the cache (a compacted log's state is the
state it had). Live tables are never touched: only finished ones are.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from game.log_store import CompactionBusy, LogStore
from services.background import every
from services.observability import metrics
from services.timeutil import iso_from_ms, now_ms

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
RETENTION_INTERVAL_SECONDS = 3600.0
FIRST_PASS_SECONDS = 60.0  # after start: off the start-up's own work
# Tables per transaction: a few hundred moves each, so a batch deletes some ten thousand rows,
# holds its locks (on finished tables only) for well under a second and writes a few MB of WAL.
BATCH_TABLES = 50
BATCH_PAUSE_SECONDS = 0.2  # between batches: checkpoints and replicas keep up with a long pass


class LogRetention:
    """The game service's background job that compacts old finished logs (``run``)."""

    def __init__(self, log_store: LogStore, retention_days: int | None, *,
                 clock: Callable[[], int] = now_ms,
                 interval_seconds: float = RETENTION_INTERVAL_SECONDS,
                 first_pass_seconds: float = FIRST_PASS_SECONDS,
                 batch_tables: int = BATCH_TABLES, pause_seconds: float = BATCH_PAUSE_SECONDS):
        self._log = log_store
        self.retention_ms = None if retention_days is None else retention_days * DAY_MS
        self._clock = clock
        self.interval_seconds = interval_seconds
        self.first_pass_seconds = first_pass_seconds
        self.batch_tables = batch_tables
        self.pause_seconds = pause_seconds
        self.passes = 0  # passes made (whether or not they found anything to compact)

    async def run(self) -> None:
        """A pass now and then, until cancelled; nothing at all with no retention set."""
        if self.retention_ms is None:
            return
        log.info("log retention: finished tables' logs older than %d day(s) are compacted "
                 "every %g s", self.retention_ms // DAY_MS, self.interval_seconds)
        await every(self.interval_seconds, self.first_pass_seconds, self.run_once, "log retention")

    async def run_once(self) -> int:
        """Compact, batch after batch, every finished log older than the retention; how many.

        Stops early when another replica holds the lease: that one is at it.
        """
        if self.retention_ms is None:
            return 0
        cutoff = self._clock() - self.retention_ms
        compacted = 0
        try:
            if cutoff <= 0:  # a retention longer than the epoch: nothing finished before it
                return 0
            while True:
                try:
                    batch = await self._log.compact(cutoff, self.batch_tables, self._clock())
                except CompactionBusy:
                    log.info("log retention: another replica is compacting; skipping this pass")
                    break
                compacted += len(batch)
                metrics.logs_compacted(len(batch))
                if len(batch) < self.batch_tables:
                    break
                await asyncio.sleep(self.pause_seconds)
        finally:
            self.passes += 1
            if compacted:
                log.info("log retention: compacted the logs of %d table(s) finished before %s",
                         compacted, iso_from_ms(cutoff))
        return compacted
