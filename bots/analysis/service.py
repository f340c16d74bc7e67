"""The analyses' use cases and their worker, in the bots process.

``request``, ``get`` and ``erase_member`` answer AnalysisService's calls from the store. The
worker (``run``) takes the queued analyses one at a time, off the move path: it reads the
finished table's public log (GameService.GetLog, page by page), judges the seat's plays in a
thread (bots.analysis.match, CPU-bound: the event loop, which drives the bots' tables, stays
free) while it renews its lease, and keeps the result. A request wakes this replica's worker at
once; a worker with nothing to do looks again every lease (a lapsed lease of a worker that died,
another replica's request while it was busy, a retry whose time came).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from bots.analysis import match
from bots.analysis.positions import UnreadableLog
from bots.analysis.store import Analysis, AnalysisStore
from game import inputs
from game.client import LogEntry, LogHeader
from game.status import TableStatus
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

MAX_PENDING = 3  # a member's analyses queued or running at once (CONTRACT notes: 409 Too many analyses)
LEASE_SECONDS = 30.0  # how long a worker that died keeps its analysis from the others
RETRY_SECONDS = 10.0  # a failure that may pass (the game service out of reach): try again after this
UNREADABLE_RETRY_SECONDS = 3600.0  # a log this code cannot read: again in an hour (a fix may come)
LOG_PAGE = 500
MAX_MEMBER_ID = 512


class LogReader(Protocol):
    async def get_log(self, table_id: str, after_number: int = 0,
                      page_size: int = 0) -> tuple[LogHeader, list[LogEntry], int]: ...


@dataclass(frozen=True)
class WorkerSettings:
    search: match.Settings = field(default_factory=match.Settings)
    lease_seconds: float = LEASE_SECONDS
    retry_seconds: float = RETRY_SECONDS
    limit: int = MAX_PENDING


class _Stopped(Exception):
    """The worker stops (its lease was lost, or the service is stopping): the analysis is left."""


class Analyses:
    def __init__(self, store: AnalysisStore, logs: LogReader, settings: WorkerSettings = WorkerSettings(), *,
                 owner: str | None = None):
        self.store = store
        self.logs = logs
        self.settings = settings
        self.owner = owner or uuid.uuid4().hex
        self._wake = asyncio.Event()
        self.analysed = 0  # finished by this worker, for tests and logs

    async def request(self, table_id: str, member_id: str, seat: int) -> tuple[Analysis, bool]:
        table_id = inputs.table_id(table_id)
        member_id = _member_id(member_id)
        if not 0 <= seat <= 3:
            raise ServiceError(Reason.INVALID_ARGUMENT, "seat_index must be 0..3", field="seat_index")
        analysis, created = await self.store.request(table_id, member_id, seat, self.settings.limit)
        if created:
            log.info("analysis of table %s seat %d queued", table_id, seat)
            self._wake.set()
        return analysis, created

    async def get(self, table_id: str, member_id: str) -> Analysis:
        found = await self.store.get(inputs.table_id(table_id), _member_id(member_id))
        if found is None:
            raise ServiceError(Reason.NO_ANALYSIS, "No analysis", table_id=table_id)
        return found

    async def erase_member(self, member_id: str) -> int:
        deleted = await self.store.erase_member(_member_id(member_id))
        if deleted:
            log.info("erased %d analyses of a member", deleted)
        return deleted

    async def run(self) -> None:
        """Analyse, one at a time, for as long as the service runs."""
        while True:
            try:
                job = await self.store.claim(self.owner, self.settings.lease_seconds)
            except ServiceError as error:
                log.warning("analyses: the queue does not answer: %s", error.message)
                job = None
            if job is None:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.lease_seconds)
                continue
            await self.run_one(job)

    async def run_one(self, job: Analysis) -> None:
        """Analyse a claimed job and keep the result, or put it back for later."""
        started = time.monotonic()
        try:
            moves, options = await self._read(job.table_id)
            result = await self._analyse_holding_lease(job, moves, options)
        except _Stopped:
            log.info("analysis of table %s: left to another worker", job.table_id)
            return
        except UnreadableLog as error:
            log.error("analysis of table %s: the log cannot be analysed: %s", job.table_id, error)
            await self._retry(job, UNREADABLE_RETRY_SECONDS)
            return
        except ServiceError as error:
            log.warning("analysis of table %s: will retry: %s", job.table_id, error.message)
            await self._retry(job, self.settings.retry_seconds)
            return
        if await self.store.finish(job.table_id, job.member_id, self.owner, result):
            self.analysed += 1
            log.info("analysis of table %s seat %d done in %.1f s", job.table_id, job.seat,
                     time.monotonic() - started)

    async def _retry(self, job: Analysis, delay: float) -> None:
        with contextlib.suppress(ServiceError):
            await self.store.retry_later(job.table_id, job.member_id, self.owner, delay)

    async def _read(self, table_id: str) -> tuple[list[dict[str, Any]], Mapping[str, Any]]:
        """The finished table's moves, as the public log gives them (never the seed)."""
        header, entries, after = await self.logs.get_log(table_id, 0, LOG_PAGE)
        if header.status != TableStatus.FINISHED:
            raise UnreadableLog(f"the table is {header.status}, not finished")
        while after:
            _, page, after = await self.logs.get_log(table_id, after, LOG_PAGE)
            entries.extend(page)
        moves = [{"number": e.number, "type": e.type, "seat": e.seat, "payload": e.payload, "auto": e.auto}
                 for e in entries]
        return moves, header.options

    async def _analyse_holding_lease(self, job: Analysis, moves: list[dict[str, Any]],
                                     options: Mapping[str, Any]) -> dict[str, Any]:
        """The analysis, computed in a thread while this task renews the lease; _Stopped when the
        lease is lost or the task is cancelled (the thread stops at its next play)."""
        stop = threading.Event()

        def progress(done: int, total: int) -> None:
            if stop.is_set():
                raise _Stopped()

        work = asyncio.ensure_future(asyncio.to_thread(
            match.analyse, moves, options, job.seat, self.settings.search, progress))
        try:
            while True:
                finished, _ = await asyncio.wait({work}, timeout=self.settings.lease_seconds / 3)
                if finished:
                    return work.result()
                try:
                    held = await self.store.renew(job.table_id, job.member_id, self.owner,
                                                  self.settings.lease_seconds)
                except ServiceError:
                    held = True  # the store is out of reach: go on, finish() tells whether it still holds
                if not held:
                    raise _Stopped()
        finally:
            stop.set()


def _member_id(value: str) -> str:
    """An opaque member id, as the lobby's rule: 1..512 characters, no control characters."""
    if not value:
        raise ServiceError(Reason.INVALID_ARGUMENT, "member_id is required", field="member_id")
    if len(value) > MAX_MEMBER_ID or any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise ServiceError(Reason.INVALID_ARGUMENT, "member_id must be 1..512 characters without control characters",
                           field="member_id")
    return value
