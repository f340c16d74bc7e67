"""The live tables: the flow of every call of the game service, over the log, the cache and the engines.

A mutation takes the table's lock, starts from the newest state it knows (this replica's memo
or the cached snapshot), lets the engine decide and apply, and appends the move to the log on
condition that the log is still at the state's position. The condition is the check: a stale
state makes the append fail, and the call then reloads from the log and decides again; a
refusal is only given after the state was checked against the log. Then the snapshot is saved,
the change is signalled to every replica, and in the background the table's deadlines are
brought up to date and a finished match is handed to stats.

Reads check the log's header (one row) and use the state only when it is at the header's
position; an older state is brought forward with the moves since, a missing one rebuilt.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Protocol

from game import fairness, inputs
from game.background import Background, DeadlineScheduler, DeadlineSync, Retry, Throttle
from game.cache import LockTimeout, SnapshotWrite, TableCache
from game.engine import Engine, GameError, Move, OptionsError
from game.live import Live, extends, snapshot_revision
from game.log_store import (
    WINDOW,
    ConcurrentChange,
    LoggedMove,
    LogStore,
    TableRecord,
)
from game.registry import Registry, UnknownGameType
from game.replay import Replayer
from game.seats import check_seat
from services.errors import Reason, ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)

FINISHED = "finished"
# A GetLog page stops once its payloads pass this (clients take 4 MiB messages; one move is at
# most inputs.MAX_ACTION_CHARS), so a log of large moves stays readable page by page.
LOG_PAGE_BYTES = 1024 * 1024
_GAME_ERRORS = {
    "illegal_move": Reason.ILLEGAL_MOVE,
    "not_your_turn": Reason.NOT_YOUR_TURN,
    "bad_request": Reason.BAD_REQUEST,
    "unknown_action": Reason.UNKNOWN_ACTION,
    "game_finished": Reason.GAME_FINISHED,
}
_ATTEMPTS = 5  # of a mutation against a log that keeps moving on

# Handing a finished match to stats (see Tables._record). A failed attempt is tried again after
# a jittered exponential backoff from ``retry_seconds`` up to RECORD_CAP_SECONDS, for as long as
# it takes: the match waits in the log (finished, not recorded), which every replica resumes at
# start and sweeps every RECORD_SWEEP_SECONDS. Only stats' refusal of the report itself
# (INVALID_ARGUMENT: a malformed result, a seating that can never match) settles it unrecorded.
RECORD_CAP_SECONDS = 60.0
RECORD_SWEEP_SECONDS = 300.0
RECORD_WARN_SECONDS = 10.0  # at most one "not recorded yet" warning per this many seconds
_NEVER_RECORDED = frozenset({Reason.INVALID_ARGUMENT, Reason.IDENTIFYING_SEAT, Reason.BAD_REQUEST})


# -- what the tables hand out ---------------------------------------------------------------

@dataclass(frozen=True)
class SeatView:
    """One seat's view at one revision; ``status`` is the engine's ('playing', 'hand_end', 'finished')."""

    view_json: str
    revision: int
    status: str
    updated_ms: int = 0  # when the table last changed (epoch ms)


@dataclass(frozen=True)
class CreatedTable:
    table_id: str
    seed_commitment: str
    revision: int


@dataclass(frozen=True)
class LogPage:
    header: TableRecord
    moves: list[LoggedMove]
    next_after: int  # 0 when there are no more moves


@dataclass(frozen=True)
class MatchResult:
    result_json: str
    started_ms: int
    finished_ms: int


@dataclass(frozen=True)
class SeatOutcome:
    seat: str
    seat_index: int
    team: str
    won: bool
    points: int
    details_json: str = "{}"


@dataclass(frozen=True)
class FinishedMatch:
    """What stats is told about a finished match."""

    table_id: str
    game_type: str
    started_ms: int
    finished_ms: int
    result_json: str
    seats: tuple[SeatOutcome, ...]


class MatchRecorder(Protocol):
    """The stats service as the tables use it; idempotent on the table id."""

    async def record_match(self, match: FinishedMatch) -> bool: ...


# -- the tables -----------------------------------------------------------------------------

class Tables:
    """Every call of the game service, independent of gRPC and of where the stores live."""

    def __init__(self, registry: Registry, log_store: LogStore, cache: TableCache,
                 deadlines: DeadlineScheduler | None = None, stats: MatchRecorder | None = None,
                 *, clock: Callable[[], int] = now_ms, memo_size: int = 512,
                 watch_poll_seconds: float = 15.0, retry_seconds: float = 0.2,
                 retry_cap_seconds: float = 30.0, record_cap_seconds: float = RECORD_CAP_SECONDS,
                 record_sweep_seconds: float = RECORD_SWEEP_SECONDS,
                 record_warn_seconds: float = RECORD_WARN_SECONDS):
        self.registry = registry
        self.log = log_store
        self.cache = cache
        self.deadlines = deadlines
        self.stats = stats
        self.clock = clock
        self.watch_poll_seconds = watch_poll_seconds
        self.retry = Retry(retry_seconds, retry_cap_seconds)
        self.record_first_seconds = retry_seconds
        self.record_cap_seconds = max(record_cap_seconds, retry_seconds)
        self.record_sweep_seconds = record_sweep_seconds
        self._record_warnings = Throttle(record_warn_seconds)
        self._waiting: set[str] = set()  # matches this replica failed to record at least once
        self._stopping = asyncio.Event()
        self.background = Background()
        self._deadline_sync = DeadlineSync(deadlines, self.background, self.retry) if deadlines is not None else None
        self._replayer = Replayer(self._engine, log_store)
        self._memo: OrderedDict[str, Live] = OrderedDict()
        self._memo_size = memo_size
        self._local_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._watchers: set = set()
        self._closing = False

    # -- the catalogue ----------------------------------------------------------------------

    def game_types(self) -> list[Engine]:
        return self.registry.list()

    def normalize_options(self, game_type: str, options_json: str) -> str:
        engine = self._engine(game_type)
        return _dumps(self._options(engine, options_json))

    # -- creating a table -------------------------------------------------------------------

    async def create_table(self, table_id: str, game_type: str, options_json: str,
                           seats: list[str]) -> CreatedTable:
        table_id = inputs.table_id(table_id) if table_id else str(uuid.uuid4())
        engine = self._engine(game_type)
        options = self._options(engine, options_json)
        seats = inputs.seats(seats, engine.seats)
        seed = secrets.token_bytes(32)
        now = self.clock()
        state = engine.new_state(options, seed, now)
        record = TableRecord(
            table_id=table_id, game_type=engine.id, engine_version=engine.version, seed=seed,
            seed_commitment=fairness.commitment(seed), seats=seats, options_json=_dumps(options),
            status=engine.status(state), created_ms=now,
        )
        stored, created = await self.log.create(record)
        if not created:
            if (stored.game_type, stored.seats, stored.options_json) != (
                    record.game_type, record.seats, record.options_json):
                raise ServiceError(Reason.TABLE_EXISTS, f"Table {table_id} exists with another "
                                   "game type, other options or other seats", table_id=table_id)
            return CreatedTable(stored.table_id, stored.seed_commitment, stored.revision)
        live = Live(table_id, engine.id, seats, record.seed_commitment, now, state, 0, 0,
                    record.status, now)
        self._remember(live)
        await self._save(live, publish=False)
        self._after_change(engine, None, live)
        log.info("table %s created (%s)", table_id, engine.id)
        return CreatedTable(table_id, record.seed_commitment, 0)

    # -- reading ----------------------------------------------------------------------------

    async def get_view(self, table_id: str, seat: str) -> SeatView:
        table_id, seat = inputs.table_id(table_id), check_seat(seat)
        live = await self.current(table_id)
        return self._render(live, _seat_index(live, seat))

    async def get_log(self, table_id: str, after_number: int, page_size: int) -> LogPage:
        table_id = inputs.table_id(table_id)
        if after_number < 0:
            raise ServiceError(Reason.INVALID_ARGUMENT, "after_number must be 0 or more", field="after_number")
        if page_size < 0:
            raise ServiceError(Reason.INVALID_ARGUMENT, "page_size must be 0 (256) or more", field="page_size")
        size = WINDOW if page_size == 0 else min(page_size, WINDOW)
        moves = _within_bytes(await self.log.moves(table_id, after_number, size), LOG_PAGE_BYTES)
        header = await self.log.header(table_id)  # read second: it counts every move just read
        if header is None:
            raise _not_found(table_id)
        more = bool(moves) and moves[-1].number < header.move_count
        return LogPage(header, moves, moves[-1].number if more else 0)

    async def get_result(self, table_id: str) -> MatchResult:
        table_id = inputs.table_id(table_id)
        header = await self.log.header(table_id)
        if header is None:
            raise _not_found(table_id)
        if header.finished_ms is None:
            raise ServiceError(Reason.MATCH_NOT_FINISHED, "The match is still being played", table_id=table_id)
        live = await self.current(table_id, header)
        result = self._engine(live.game_type).result(live.state)
        return MatchResult(_dumps(result), header.created_ms, header.finished_ms)

    async def watch(self, table_id: str, seat: str) -> AsyncIterator[SeatView]:
        """The seat's view now, then after every change, until the finished view."""
        table_id, seat = inputs.table_id(table_id), check_seat(seat)
        async with self.cache.subscribe(table_id) as signals:
            self._watchers.add(signals)
            try:
                live = await self.current(table_id)
                index = _seat_index(live, seat)
                yield self._render(live, index)
                while live.status != FINISHED and not self._closing:
                    await signals.wait(self.watch_poll_seconds)
                    if self._closing:
                        return
                    header = await self.log.header(table_id)
                    if header is None:
                        raise _not_found(table_id)  # purged meanwhile
                    if header.revision <= live.revision:
                        continue
                    current = await self.current(table_id, header)
                    if current.revision - live.revision > 1 and extends(live, current):
                        async for step in self._replayer.steps_between(live, current):
                            live = step
                            yield self._render(live, index)
                    if current.revision > live.revision:
                        live = current
                        yield self._render(live, index)
            finally:
                self._watchers.discard(signals)

    # -- changing ---------------------------------------------------------------------------

    async def act(self, table_id: str, seat: str, action_json: str,
                  expected_revision: int | None = None) -> SeatView:
        table_id, seat = inputs.table_id(table_id), check_seat(seat)
        action = inputs.action(action_json)
        inputs.expected_revision(expected_revision)

        def plan(live: Live, engine: Engine, now: int) -> Move:
            index = _seat_index(live, seat)
            if expected_revision is not None and expected_revision != live.revision:
                raise _concurrent(live)
            try:
                return engine.decide(live.state, index, action, now)
            except GameError as error:
                raise _refused(error) from None

        live, _ = await self._mutate(table_id, plan)
        return self._render(live, _seat_index(live, seat))

    async def fire_deadline(self, table_id: str, token: str, kind: str = "") -> tuple[bool, int]:
        """(fired, revision): a stale token changes nothing and answers fired = False."""
        table_id = inputs.table_id(table_id)
        if not token:
            raise ServiceError(Reason.INVALID_ARGUMENT, "token is required", field="token")

        def plan(live: Live, engine: Engine, now: int) -> Move | None:
            pending = engine.deadlines(live.state)
            if not any(d.token == token and (not kind or d.kind == kind) for d in pending):
                return None
            return engine.fire(live.state, token, now)

        live, fired = await self._mutate(table_id, plan)
        if fired:
            log.info("deadline %s of table %s fired (revision %d)", kind or token, table_id, live.revision)
        return fired, live.revision

    async def take_back(self, table_id: str, expected_revision: int | None = None) -> int:
        """The revision after taking back the last move (engines that allow it)."""
        table_id = inputs.table_id(table_id)
        inputs.expected_revision(expected_revision)
        async with self._locked(table_id) as holding:
            header = await self.log.header(table_id)
            if header is None:
                raise _not_found(table_id)
            engine = self._engine(header.game_type)
            if not engine.supports_take_back:
                raise ServiceError(Reason.TAKE_BACK_UNSUPPORTED,
                                   f"{engine.name} does not allow taking a move back", table_id=table_id)
            if expected_revision is not None and expected_revision != header.revision:
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                                   revision=header.revision)
            if header.finished_ms is not None:
                raise ServiceError(Reason.GAME_FINISHED, "The game is finished", table_id=table_id)
            if header.move_count == 0:
                raise ServiceError(Reason.TAKE_BACK_UNSUPPORTED, "There is no move to take back",
                                   table_id=table_id)
            old = await self.current(table_id, header)
            previous = await self._replayer.state_at(header, header.move_count - 1)
            try:
                await self.log.take_back(table_id, header.position, previous.status)
            except ConcurrentChange:
                fresh = await self.log.header(table_id)
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                                   table_id=table_id,
                                   revision=fresh.revision if fresh else header.revision) from None
            live = replace(previous, revision=header.revision + 1, updated_ms=self.clock())
            holding.changed(live)
        self._after_change(engine, old, live)
        log.info("table %s: move %d taken back", table_id, header.move_count)
        return live.revision

    async def purge(self, table_id: str) -> bool:
        """Delete a table and its moves (finished tables no one needs any more)."""
        table_id = inputs.table_id(table_id)
        async with self._locked(table_id):
            deleted = await self.log.delete(table_id)
            await self.cache.forget(table_id)
            self._memo.pop(table_id, None)
        return deleted

    # -- background work --------------------------------------------------------------------

    async def resume(self, finished_before_ms: int | None = None, page_size: int = 500) -> int:
        """Hand stats the finished matches it has not accepted yet (at start, then by the sweep);
        how many wait. With ``finished_before_ms`` only those finished before then."""
        count, after = 0, ""
        while page := await self.log.unrecorded(page_size, after, finished_before_ms):
            for table_id in page:
                self._submit_record(table_id)
            count += len(page)
            after = page[-1]
        if count and finished_before_ms is None:
            log.info("resuming the recording of %d finished match(es)", count)
        elif count:
            log.warning("%d finished match(es) have waited more than %g s to be recorded with "
                        "stats; trying them (again)", count, self.record_sweep_seconds)
        return count

    @property
    def waiting_to_record(self) -> int:
        """Matches this replica has failed to record at least once and is still trying."""
        return len(self._waiting)

    async def unrecorded_count(self) -> int:
        """Every finished match not recorded yet, whichever replica tries it (the
        ``tavolo.matches_unrecorded`` gauge)."""
        return await self.log.unrecorded_count()

    async def resume_deadlines(self, page_size: int = 500) -> int:
        """Hand the queue every running table's pending deadlines again; how many tables.

        A process that stopped between logging a move and scheduling its deadline would leave
        the table waiting forever; Schedule is idempotent, so sending them all again is safe.
        """
        if self._deadline_sync is None:
            return 0
        resumed, after = 0, ""
        while page := await self.log.unfinished(after, page_size):
            for table_id in page:
                try:
                    live = await self.current(table_id)
                except ServiceError as error:  # purged meanwhile
                    if error.reason is not Reason.TABLE_NOT_FOUND:
                        raise
                    continue
                engine = self._engine(live.game_type)
                self._deadline_sync.changed(table_id, [], engine.deadlines(live.state))
                resumed += 1
            after = page[-1]
        if resumed:
            log.info("handed the deadlines of %d running table(s) to the queue again", resumed)
        return resumed

    async def run(self) -> None:
        """The service's background job: resume, then sweep for matches waiting to be recorded
        (those of a replica that stopped without restarting); when stopped, end the view streams.
        The running tables' deadlines are handed over by game.queue_watch, at start and after
        the queue lost them."""
        try:
            await self.retry("resuming unrecorded matches", self.resume)
            while not await self._stopping_within(self.record_sweep_seconds):
                before = self.clock() - round(self.record_sweep_seconds * 1000)
                try:
                    await self.resume(finished_before_ms=before)
                except Exception as error:  # noqa: BLE001 - the log is down: the next sweep
                    log.warning("cannot look for unrecorded matches (%s); trying at the next sweep",
                                error)
        finally:
            self.stop_watching()

    def stop_watching(self) -> None:
        """End every view stream (the service is stopping; callers reconnect elsewhere)."""
        self._closing = True
        for signals in list(self._watchers):
            signals.notify()

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for the background work started so far (deadlines, recordings)."""
        await self.background.drain(timeout)

    async def close(self, timeout: float = 5.0) -> None:
        self.stop_watching()
        self._stopping.set()  # recordings waiting out a backoff stop: the log keeps them
        await self.background.drain(timeout)
        await self.background.cancel()

    # -- the flow of a mutation -------------------------------------------------------------

    async def _mutate(self, table_id: str,
                      plan: Callable[[Live, Engine, int], Move | None]) -> tuple[Live, bool]:
        """Lock, decide with the newest known state, append at its position, save and signal.

        Returns the state after the move and True, or the current state and False when
        ``plan`` made no move. A refusal (a ServiceError from ``plan``) or "no move" is given
        only once the state is known to be the log's.
        """
        async with self._locked(table_id, preload=True) as holding:
            live = holding.preloaded or await self.current(table_id)
            verified = holding.preloaded is None
            for _ in range(_ATTEMPTS):
                engine = self._engine(live.game_type)
                now = self.clock()
                try:
                    move = plan(live, engine, now)
                except ServiceError:
                    if verified:
                        raise
                    live, verified = await self._verify(live), True
                    continue
                if move is None:
                    if verified:
                        return live, False
                    live, verified = await self._verify(live), True
                    continue
                entry = LoggedMove(live.move_count + 1, move.type, move.seat, _dumps(move.payload),
                                   move.auto, move.random, now)
                new = self._applied(engine, live, entry)
                try:
                    await self.log.append(table_id, live.position, entry, new.status, new.finished_ms)
                except ConcurrentChange:
                    live, verified = await self.current(table_id), True
                    continue
                holding.changed(new)
                break
            else:
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table keeps changing: try again",
                                   table_id=table_id, revision=live.revision)
        self._after_change(engine, live, new)
        log.debug("table %s: move %d %s (revision %d)", table_id, new.move_count, entry.type, new.revision)
        return new, True

    def _applied(self, engine: Engine, live: Live, entry: LoggedMove) -> Live:
        """The state after ``entry``, applied exactly as a replay of the log will apply it."""
        try:
            state = engine.apply(live.state, entry.to_move(live.table_id), entry.created_ms)
        except GameError as error:
            raise _refused(error) from None
        status = engine.status(state)
        return replace(live, state=state, move_count=entry.number, revision=live.revision + 1,
                       status=status, updated_ms=entry.created_ms,
                       finished_ms=entry.created_ms if status == FINISHED else None)

    @contextlib.asynccontextmanager
    async def _locked(self, table_id: str, preload: bool = False) -> AsyncIterator[_Holding]:
        """Hold the table's lock: this replica's callers queue locally, replicas in the cache.

        With ``preload`` the cached snapshot is read while the lock is being acquired. A state
        saved with ``changed`` is written to the cache and signalled as the lock is released.
        """
        local = self._local_locks.get(table_id)
        if local is None:
            local = self._local_locks[table_id] = asyncio.Lock()
        async with local:
            lock = self.cache.lock(table_id)
            loading = asyncio.ensure_future(self._preload(table_id)) if preload else None
            try:
                await lock.acquire()
            except LockTimeout:
                if loading is not None:
                    loading.cancel()
                raise ServiceError(Reason.UNAVAILABLE, "The table is busy: try again",
                                   table_id=table_id) from None
            except BaseException:
                if loading is not None:
                    loading.cancel()
                raise
            holding = _Holding(await loading if loading is not None else None)
            try:
                yield holding
            finally:
                write = self._write(holding.new, publish=True) if holding.new is not None else None
                try:
                    released = await lock.release(write)
                except Exception as error:  # noqa: BLE001 - the log has the change; the lock's TTL frees the table
                    log.warning("table %s: cannot release the lock or save the snapshot (%s)",
                                table_id, error)
                else:
                    if not released:
                        log.warning("table %s: the lock had expired before it was released", table_id)

    async def _preload(self, table_id: str) -> Live | None:
        """The newest state this replica can get without the log: its memo or the snapshot."""
        memo = self._memo.get(table_id)
        try:
            text = await self.cache.load(table_id)
        except Exception as error:  # noqa: BLE001 - the cache is a cache: fall back to the log
            log.warning("table %s: cannot read the snapshot (%s)", table_id, error)
            return memo
        if memo is not None and (snapshot_revision(text) or -1) <= memo.revision:
            return memo
        return Live.from_snapshot(text, table_id) or memo

    async def _verify(self, live: Live) -> Live:
        """``live`` if the log is at its position, else the log's current state."""
        header = await self.log.header(live.table_id)
        if header is None:
            raise _not_found(live.table_id)
        if header.position == live.position:
            return live
        return await self.current(live.table_id, header)

    def _after_change(self, engine: Engine, old: Live | None, new: Live) -> None:
        """Remember the state; in the background, sync deadlines and record a finished match."""
        self._remember(new)
        if self._deadline_sync is not None:
            before = engine.deadlines(old.state) if old is not None else []
            self._deadline_sync.changed(new.table_id, before, engine.deadlines(new.state))
        if new.status == FINISHED:
            log.info("table %s finished (revision %d)", new.table_id, new.revision)
            self._submit_record(new.table_id)

    def _submit_record(self, table_id: str) -> None:
        if self.stats is not None:
            self.background.start(self._record(table_id), key=f"record:{table_id}")

    async def _record(self, table_id: str) -> None:
        """Hand the finished match to stats until stats has it or refuses it for good.

        Whatever fails meanwhile (stats or the lobby it asks down, no seating yet, the log or
        the cache not answering) is tried again after a jittered exponential backoff capped at
        ``record_cap_seconds``, with a (throttled) warning each time. The match waits in the
        log meanwhile, finished and not recorded: a restart or another replica's sweep takes it
        up. Only a refusal of the report itself (INVALID_ARGUMENT) settles it without a record.
        """
        delay, failures = self.record_first_seconds, 0
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
                    delay = min(delay * 2, self.record_cap_seconds)
        finally:
            self._waiting.discard(table_id)

    async def _record_once(self, table_id: str, failures: int) -> None:
        stats = self.stats
        assert stats is not None
        header = await self.log.header(table_id)
        if header is None:
            log.info("match %s was purged before stats recorded it", table_id)
            return
        if header.finished_ms is None or header.recorded_ms is not None:
            return
        try:
            live = await self.current(table_id, header)
        except ServiceError as error:
            if error.reason is not Reason.TABLE_NOT_FOUND:
                raise
            log.info("match %s was purged before stats recorded it", table_id)
            return
        match = self._finished_match(live)
        try:
            await stats.record_match(match)
        except ServiceError as refusal:
            if refusal.reason in _NEVER_RECORDED:
                raise _Refused(refusal) from None
            raise
        await self.log.mark_recorded(table_id, self.clock())
        if failures:
            log.info("match %s recorded with stats after %d failed attempt(s); %d match(es) "
                     "still wait here", table_id, failures, len(self._waiting - {table_id}))
        else:
            log.info("match %s recorded with stats", table_id)

    async def _settle(self, table_id: str, refusal: ServiceError) -> None:
        """Stats refused the report for good: mark it, so it is not offered again at each start."""
        log.error("match %s: stats refused it for good (%s: %s); settled without a record, it "
                  "will not be offered again", table_id, refusal.reason.name, refusal.message)
        await self.retry(f"settling match {table_id}",
                         lambda: self.log.mark_recorded(table_id, self.clock()))

    def _report_waiting(self, table_id: str, failures: int, error: Exception, wait: float) -> None:
        why = (f"{error.reason.name}: {error.message}" if isinstance(error, ServiceError)
               else f"{type(error).__name__}: {error}")
        held_back = self._record_warnings.allow()
        if held_back is None:
            log.debug("match %s not recorded yet (attempt %d: %s); trying again in %.1f s",
                      table_id, failures, why, wait)
            return
        log.warning("match %s not recorded yet (attempt %d: %s); trying again in %.1f s; %d "
                    "finished match(es) wait to be recorded here%s", table_id, failures, why, wait,
                    len(self._waiting),
                    f" ({held_back} more failed attempt(s) since the last warning)" if held_back else "")

    async def _stopping_within(self, seconds: float) -> bool:
        """Wait ``seconds``; True as soon as the tables are closing."""
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def _finished_match(self, live: Live) -> FinishedMatch:
        result = self._engine(live.game_type).result(live.state) or {}
        outcomes = []
        for entry in result.get("seats") or []:
            index = entry.get("seat")
            if not isinstance(index, int) or not 0 <= index < len(live.seats):
                continue
            details = {k: v for k, v in entry.items() if k not in ("seat", "team", "won", "points")}
            outcomes.append(SeatOutcome(live.seats[index], index, str(entry.get("team") or ""),
                                        bool(entry.get("won")), int(entry.get("points") or 0),
                                        _dumps(details)))
        if not outcomes:
            outcomes = [SeatOutcome(seat, i, "", False, 0) for i, seat in enumerate(live.seats)]
        return FinishedMatch(live.table_id, live.game_type, live.created_ms,
                             live.finished_ms or live.updated_ms, _dumps(result), tuple(outcomes))

    # -- states: memo, snapshot, log ---------------------------------------------------------

    async def current(self, table_id: str, header: TableRecord | None = None) -> Live:
        """The table's state at the log's current position (one header row, then the caches)."""
        memo = self._memo.get(table_id)
        text: str | None = None
        loaded = False
        if header is None:
            if memo is not None:
                header = await self.log.header(table_id)
            else:
                header, text = await asyncio.gather(self.log.header(table_id), self._load(table_id))
                loaded = True
        if header is None:
            raise _not_found(table_id)
        if memo is not None and memo.position == header.position:
            return memo
        if not loaded:
            text = await self._load(table_id)
        snapshot = Live.from_snapshot(text, table_id)
        if snapshot is not None and snapshot.position == header.position:
            self._remember(snapshot)
            return snapshot
        bases = [s for s in (snapshot, memo) if s is not None and extends(s, header)]
        base = max(bases, key=lambda s: s.revision) if bases else None
        live = await self._replayer.bring_forward(header, base)
        self._remember(live)
        await self._save(live, publish=False)
        return live

    async def _load(self, table_id: str) -> str | None:
        try:
            return await self.cache.load(table_id)
        except Exception as error:  # noqa: BLE001 - a cache that does not answer: the log still does
            log.warning("table %s: cannot read the snapshot (%s)", table_id, error)
            return None

    @staticmethod
    def _write(live: Live, publish: bool) -> SnapshotWrite:
        score = None if live.status == FINISHED else live.updated_ms
        return SnapshotWrite(live.table_id, live.revision, live.snapshot_json(), score, publish)

    async def _save(self, live: Live, publish: bool) -> None:
        try:
            await self.cache.save(self._write(live, publish))
        except Exception as error:  # noqa: BLE001 - the log has the change; the next reader rebuilds the cache
            log.warning("table %s: cannot save the snapshot (%s)", live.table_id, error)

    def _remember(self, live: Live) -> None:
        known = self._memo.get(live.table_id)
        if known is not None and known.seed_commitment == live.seed_commitment and known.revision > live.revision:
            return
        self._memo[live.table_id] = live
        self._memo.move_to_end(live.table_id)
        while len(self._memo) > self._memo_size:
            self._memo.popitem(last=False)

    # -- helpers ----------------------------------------------------------------------------

    def _engine(self, game_type: str) -> Engine:
        try:
            return self.registry.get(game_type)
        except UnknownGameType as error:
            raise ServiceError(Reason.UNKNOWN_GAME_TYPE, str(error), game_type=str(game_type)) from None

    @staticmethod
    def _options(engine: Engine, options_json: str) -> dict:
        options = inputs.json_object(options_json or "{}", Reason.INVALID_OPTIONS, "Invalid options")
        try:
            return engine.normalize_options(options)
        except OptionsError as error:
            raise ServiceError(Reason.INVALID_OPTIONS, f"Invalid options: {error.message}") from None

    def _render(self, live: Live, index: int) -> SeatView:
        view = {**self._engine(live.game_type).view(live.state, index), "id": live.table_id,
                "game_type": live.game_type, "seed_commitment": live.seed_commitment,
                "revision": live.revision}
        return SeatView(_dumps(view), live.revision, live.status, live.updated_ms)


class _Refused(Exception):
    """Stats refused the report itself: no retry can change that."""

    def __init__(self, error: ServiceError):
        super().__init__(error.message)
        self.error = error


class _Holding:
    """What a holder of a table's lock found when it got it, and the state it leaves behind."""

    def __init__(self, preloaded: Live | None):
        self.preloaded = preloaded
        self.new: Live | None = None

    def changed(self, live: Live) -> None:
        self.new = live


def _within_bytes(moves: list[LoggedMove], limit: int) -> list[LoggedMove]:
    """The first moves whose payloads fit in ``limit`` bytes (always at least one)."""
    total = 0
    for count, move in enumerate(moves):
        total += len(move.payload_json.encode())
        if total > limit and count > 0:
            return moves[:count]
    return moves


def _seat_index(live: Live, seat: str) -> int:
    try:
        return live.seats.index(seat)
    except ValueError:
        raise ServiceError(Reason.NOT_SEATED, f"{seat} is not a seat of this table",
                           table_id=live.table_id) from None


def _dumps(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _not_found(table_id: str) -> ServiceError:
    return ServiceError(Reason.TABLE_NOT_FOUND, "No table has this id", table_id=table_id)


def _concurrent(live: Live) -> ServiceError:
    return ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                        revision=live.revision)


def _refused(error: GameError) -> ServiceError:
    return ServiceError(_GAME_ERRORS.get(error.code, Reason.ILLEGAL_MOVE), error.message)
