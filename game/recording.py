"""The outbox of finished matches: each is handed to stats until stats has it, exactly once.

The log is the outbox: a finished match waits there (finished, not recorded) until stats
accepted it, then it is marked recorded. A failed attempt is tried again after a jittered
exponential backoff from ``first_seconds`` up to RECORD_CAP_SECONDS, for as long as it takes;
every replica resumes the waiting matches at start and sweeps for those another replica left
every RECORD_SWEEP_SECONDS. Only stats' refusal of the report itself (INVALID_ARGUMENT: a
malformed result, a seating that can never match) settles a match without a record.
Stats is idempotent on the table id, so a match handed over twice is recorded once.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from game.engine import Engine
from game.live import Live
from game.log_store import LogStore
from game.states import States
from services.background import Background, Retry, Throttle
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from stats.client import SeatOutcome

log = logging.getLogger(__name__)

RECORD_CAP_SECONDS = 60.0
RECORD_SWEEP_SECONDS = 300.0
RECORD_WARN_SECONDS = 10.0  # at most one "not recorded yet" warning per this many seconds
_NEVER_RECORDED = frozenset({Reason.INVALID_ARGUMENT, Reason.IDENTIFYING_SEAT, Reason.BAD_REQUEST})


class MatchRecorder(Protocol):
    """The stats service as the game service uses it (stats.client.StatsClient is one);
    idempotent on the table id. ``result`` is the published result's JSON text."""

    async def record_match(self, table_id: str, game_type: str, started_ms: int, finished_ms: int,
                           result: str, seats: Sequence[SeatOutcome]) -> object: ...


class Recording:
    """Hands this replica's finished matches to ``recorder``, in the background."""

    def __init__(self, recorder: MatchRecorder | None, engine_of: Callable[[str], Engine],
                 log_store: LogStore, states: States, background: Background, retry: Retry,
                 clock: Callable[[], int], *, first_seconds: float,
                 cap_seconds: float = RECORD_CAP_SECONDS,
                 sweep_seconds: float = RECORD_SWEEP_SECONDS,
                 warn_seconds: float = RECORD_WARN_SECONDS):
        self.recorder = recorder
        self._engine_of = engine_of
        self._log = log_store
        self._states = states
        self._background = background
        self._retry = retry
        self._clock = clock
        self.first_seconds = first_seconds
        self.cap_seconds = max(cap_seconds, first_seconds)
        self.sweep_seconds = sweep_seconds
        self._warnings = Throttle(warn_seconds)
        self._waiting: set[str] = set()  # matches this replica failed to record at least once
        self._stopping = asyncio.Event()

    @property
    def waiting(self) -> int:
        """Matches this replica has failed to record at least once and is still trying."""
        return len(self._waiting)

    def submit(self, table_id: str) -> None:
        """Start recording a finished match, unless this replica is at it already."""
        if self.recorder is not None:
            self._background.start(self._record(table_id), key=f"record:{table_id}")

    async def resume(self, finished_before_ms: int | None = None, page_size: int = 500) -> int:
        """Submit the finished matches stats has not accepted yet; how many wait. With
        ``finished_before_ms`` only those finished before then."""
        count, after = 0, ""
        while page := await self._log.unrecorded(page_size, after, finished_before_ms):
            for table_id in page:
                self.submit(table_id)
            count += len(page)
            after = page[-1]
        if count and finished_before_ms is None:
            log.info("resuming the recording of %d finished match(es)", count)
        elif count:
            log.warning("%d finished match(es) have waited more than %g s to be recorded with "
                        "stats; trying them (again)", count, self.sweep_seconds)
        return count

    async def run(self) -> None:
        """Resume, then sweep for matches waiting to be recorded (those of a replica that
        stopped without restarting), until stopped."""
        await self._retry("resuming unrecorded matches", self.resume)
        while not await self._stopping_within(self.sweep_seconds):
            before = self._clock() - round(self.sweep_seconds * 1000)
            try:
                await self.resume(finished_before_ms=before)
            except Exception as error:  # noqa: BLE001 - the log is down: the next sweep
                log.warning("cannot look for unrecorded matches (%s); trying at the next sweep", error)

    def stop(self) -> None:
        """Recordings waiting out a backoff, and the sweep, stop: the log keeps their matches."""
        self._stopping.set()

    async def _record(self, table_id: str) -> None:
        """Hand the finished match to stats until stats has it or refuses it for good.

        Whatever fails meanwhile (stats or the lobby it asks down, no seating yet, the log or
        the cache not answering, an engine whose result does not fit the table) is tried again
        after a jittered exponential backoff capped at ``cap_seconds``, with a (throttled)
        warning each time.
        """
        delay, failures = self.first_seconds, 0
        try:
            while True:
                try:
                    await self._record_once(table_id, failures)
                    return
                except asyncio.CancelledError:
                    raise
                except _Refused as refused:
                    await self._settle(table_id, refused.error)
                    return
                except Exception as error:  # noqa: BLE001 - anything may heal: try again later
                    failures += 1
                    self._waiting.add(table_id)
                    wait = delay * random.uniform(0.5, 1.0)
                    self._report_waiting(table_id, failures, error, wait)
                    if await self._stopping_within(wait):
                        return
                    delay = min(delay * 2, self.cap_seconds)
        finally:
            self._waiting.discard(table_id)

    async def _record_once(self, table_id: str, failures: int) -> None:
        recorder = self.recorder
        assert recorder is not None
        header = await self._log.header(table_id)
        if header is None:
            log.info("match %s was purged before stats recorded it", table_id)
            return
        if header.finished_ms is None or header.recorded_ms is not None:
            return
        try:
            live = await self._states.current(table_id, header)
        except ServiceError as error:
            if error.reason is not Reason.TABLE_NOT_FOUND:
                raise
            log.info("match %s was purged before stats recorded it", table_id)
            return
        result, seats = self._report(live)
        try:
            await recorder.record_match(
                table_id=live.table_id, game_type=live.game_type, started_ms=live.created_ms,
                finished_ms=live.finished_ms or live.updated_ms, result=result, seats=seats)
        except ServiceError as refusal:
            if refusal.reason in _NEVER_RECORDED:
                raise _Refused(refusal) from None
            raise
        await self._log.mark_recorded(table_id, self._clock())
        metrics.match_recorded()
        if failures:
            log.info("match %s recorded with stats after %d failed attempt(s); %d match(es) "
                     "still wait here", table_id, failures, len(self._waiting - {table_id}))
        else:
            log.info("match %s recorded with stats", table_id)

    def _report(self, live: Live) -> tuple[str, tuple[SeatOutcome, ...]]:
        """The published result's JSON text and every seat's report; ValueError when the
        engine's result does not fit the table (a bug: retried, so that a fixed engine records it)."""
        result = self._engine_of(live.game_type).result(live.state)
        if result is None:
            raise ValueError(f"the log says match {live.table_id} is finished, but the "
                             f"{live.game_type} engine gives no result for its state")
        if len(result.seats) != len(live.seats):
            raise ValueError(f"the {live.game_type} result of match {live.table_id} has "
                             f"{len(result.seats)} seats, the table {len(live.seats)}")
        seats = tuple(SeatOutcome(seat=live.seats[s.seat_index], seat_index=s.seat_index,
                                  team=s.team, won=s.won, points=s.points, details=dict(s.details))
                      for s in result.seats)
        return result.to_json_text(), seats

    async def _settle(self, table_id: str, refusal: ServiceError) -> None:
        """Stats refused the report for good: mark it, so it is not offered again at each start."""
        log.error("match %s: stats refused it for good (%s: %s); settled without a record, it "
                  "will not be offered again", table_id, refusal.reason.name, refusal.message)
        await self._retry(f"settling match {table_id}",
                          lambda: self._log.mark_recorded(table_id, self._clock()))

    def _report_waiting(self, table_id: str, failures: int, error: Exception, wait: float) -> None:
        why = (f"{error.reason.name}: {error.message}" if isinstance(error, ServiceError)
               else f"{type(error).__name__}: {error}")
        held_back = self._warnings.allow()
        if held_back is None:
            log.debug("match %s not recorded yet (attempt %d: %s); trying again in %.1f s",
                      table_id, failures, why, wait)
            return
        log.warning("match %s not recorded yet (attempt %d: %s); trying again in %.1f s; %d "
                    "finished match(es) wait to be recorded here%s", table_id, failures, why, wait,
                    len(self._waiting),
                    f" ({held_back} more failed attempt(s) since the last warning)" if held_back else "")

    async def _stopping_within(self, seconds: float) -> bool:
        """Wait ``seconds``; True as soon as the recording is stopped."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True


class _Refused(Exception):
    """Stats refused the report itself: no retry can change that."""

    def __init__(self, error: ServiceError):
        super().__init__(error.message)
        self.error = error
