"""The live tables: the flow of every call of the game service, over the log, the cache and the engines.

A mutation queues behind the table's other mutations on this replica (an asyncio lock), starts
from the newest state this replica knows (its memo; the log's otherwise), lets the engine decide
and apply, and appends the move to the log on condition that the log is still at the state's
position. The condition is the guard, between replicas too: a stale state makes the append fail,
and the call then reloads from the log and decides again; a refusal is only given after the
state was checked against the log. Then the new state is remembered and handed to this
replica's watchers (game.feeds); its snapshot is saved and the change signalled to the other
replicas in the background (game.snapshots), its deadlines are timed here and, when the
backstop needs to know, handed to the deadline service (game.deadline_keeper), and a finished
match is handed to stats (game.recording); whom a daily table now waits for is announced to
the gateways (game.turn_notices).

Reads check the log's header (one row) and use the state only when it is at the header's
position (game.states resolves it from the memo, the snapshot or the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

from game import fairness, inputs
from game.cache import TableCache
from game.deadline_keeper import BACKSTOP_GRACE_MS, BackstopQueue, DeadlineKeeper
from game.engine import Engine, GameError, Move, OptionsError, compact_json
from game.feeds import Feeds
from game.live import Live
from game.log_store import (
    WINDOW,
    ConcurrentChange,
    CorruptLog,
    DuplicateRequest,
    LoggedMove,
    LogStore,
    TableRecord,
)
from game.recording import (
    RECORD_CAP_SECONDS,
    RECORD_SWEEP_SECONDS,
    RECORD_WARN_SECONDS,
    MatchRecorder,
    Recording,
)
from game.registry import Registry, UnknownGameType
from game.seats import check_seat
from game.snapshots import SnapshotWriter
from game.states import States, table_not_found
from game.status import TableStatus
from game.turn_notices import TurnAnnouncer
from game.view_parts import Facts, ViewCut, cut, facts
from services.background import Background, Retry
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)

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
# The practice take-back's refusal (CONTRACT, Bots): the seat's last play is no longer the last move.
OWN_LAST_PLAY_TEXT = "Your last play can be taken back only until somebody plays after it"
_ATTEMPTS = 5  # of a mutation against a log that keeps moving on
_RENDERED = 64  # every seat's views of the latest changes, for the other WatchTable streams of each


# -- what the tables hand out ---------------------------------------------------------------

# What a copy of a move already made is refused with, by the engine or the log's revision.
_A_MADE_MOVE_REFUSED = frozenset({Reason.CONCURRENT_MOVE, Reason.NOT_YOUR_TURN, Reason.ILLEGAL_MOVE,
                                  Reason.GAME_FINISHED})


@dataclass(frozen=True)
class SeatView:
    """One seat's view at one revision; ``status`` is the engine's ('playing', 'hand_end', 'finished')."""

    view_json: str
    revision: int
    status: str
    updated_ms: int = 0  # when the table last changed (epoch ms)
    replayed: bool = False  # an Act whose request id was in the log: nothing was played now


@dataclass(frozen=True)
class RenderedViews:
    """Every seat's view at one revision: (seat, view JSON) in the table's seat order."""

    revision: int
    status: str
    updated_ms: int
    views: tuple[tuple[str, str], ...]  # empty when cut (``parts``)
    public: str = ""  # the public view (a spectator's), when a watch asked for it
    # Cut for the gateway (game.view_parts), when a watch asked for that: each seat's view, the
    # public view (when asked for), and the facts the gateway reads.
    parts: tuple[tuple[str, ViewCut], ...] = ()
    public_parts: ViewCut | None = None
    facts: Facts | None = None


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
class FinishedResult:
    """A finished match's published result (GetResult)."""

    result_json: str
    started_ms: int
    finished_ms: int


# -- the tables -----------------------------------------------------------------------------

class Tables:
    """Every call of the game service, independent of gRPC and of where the stores live."""

    def __init__(self, registry: Registry, log_store: LogStore, cache: TableCache,
                 deadlines: BackstopQueue | None = None, stats: MatchRecorder | None = None,
                 *, clock: Callable[[], int] = now_ms, memo_size: int = 512,
                 backstop_grace_ms: int = BACKSTOP_GRACE_MS,
                 watch_poll_seconds: float = 15.0, retry_seconds: float = 0.2,
                 retry_cap_seconds: float = 30.0, record_cap_seconds: float = RECORD_CAP_SECONDS,
                 record_sweep_seconds: float = RECORD_SWEEP_SECONDS,
                 record_warn_seconds: float = RECORD_WARN_SECONDS):
        self.registry = registry
        self.log = log_store
        self.cache = cache
        self.deadlines = deadlines
        self.clock = clock
        self.retry = Retry(retry_seconds, retry_cap_seconds)
        self.background = Background()
        self.states = States(self._engine, log_store, cache, memo_size)
        self.replica = uuid.uuid4().hex  # names this replica to the others (follower notices)
        self.feeds = Feeds(self.states, cache, watch_poll_seconds, replica=self.replica)
        self.snapshots = SnapshotWriter(self.states, self.background, replica=self.replica)
        self.recording = Recording(stats, self._engine, log_store, self.states, self.background,
                                   self.retry, clock, first_seconds=retry_seconds,
                                   cap_seconds=record_cap_seconds, sweep_seconds=record_sweep_seconds,
                                   warn_seconds=record_warn_seconds)
        self.deadline_keeper = None if deadlines is None else DeadlineKeeper(
            deadlines, self.fire_deadline, self.background, self.retry, clock,
            grace_ms=backstop_grace_ms)
        # Whom daily tables wait for, told to the gateways (game.turn_notices); None: not told.
        self.turns: TurnAnnouncer | None = None
        self._local_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._rendered: OrderedDict[tuple[str, str, int], RenderedViews] = OrderedDict()
        self._public: OrderedDict[tuple[str, str, int], str] = OrderedDict()
        self._cut: OrderedDict[tuple[str, str, int], RenderedViews] = OrderedDict()
        self._public_cut: OrderedDict[tuple[str, str, int], ViewCut] = OrderedDict()

    # -- the catalogue ----------------------------------------------------------------------

    def game_types(self) -> list[Engine]:
        return self.registry.list()

    def normalize_options(self, game_type: str, options_json: str) -> str:
        engine = self._engine(game_type)
        return compact_json(self._options(engine, options_json))

    # -- creating a table -------------------------------------------------------------------

    async def create_table(self, table_id: str, game_type: str, options_json: str,
                           seats: list[str]) -> CreatedTable:
        table_id = inputs.table_id(table_id) if table_id else str(uuid.uuid4())
        engine = self._engine(game_type)
        options = self._options(engine, options_json)
        seated = inputs.seats(seats, engine.seats)
        seed = secrets.token_bytes(32)
        now = self.clock()
        state = engine.new_state(options, seed, now)
        record = TableRecord(
            table_id=table_id, game_type=engine.id, engine_version=engine.version, seed=seed,
            seed_commitment=fairness.commitment(seed), seats=seated, options_json=compact_json(options),
            status=engine.status(state), created_ms=now,
        )
        stored, created = await self.log.create(record)
        if not created:
            if (stored.game_type, stored.seats, stored.options_json) != (
                    record.game_type, record.seats, record.options_json):
                raise ServiceError(Reason.TABLE_EXISTS, f"Table {table_id} exists with another "
                                   "game type, other options or other seats", table_id=table_id)
            return CreatedTable(stored.table_id, stored.seed_commitment, stored.revision)
        live = Live(table_id, engine.id, seated, record.seed_commitment, now, state, 0, 0,
                    record.status, now)
        self._after_change(engine, live)
        metrics.match_started(engine.id)
        if self.deadline_keeper is not None:
            try:  # the backstop holds the table before anyone hears of it
                await self.deadline_keeper.hand_over_now(table_id, engine.deadlines(state))
            except ServiceError as error:  # the deadline service is down: the batch retries
                log.warning("the deadlines of new table %s are handed over later: %s",
                            table_id, error.message)
        log.info("table %s created (%s)", table_id, engine.id)
        return CreatedTable(table_id, record.seed_commitment, 0)

    # -- reading ----------------------------------------------------------------------------

    async def current(self, table_id: str, header: TableRecord | None = None) -> Live:
        """The table's state at the log's current position (one header row, then the caches)."""
        return await self.states.current(table_id, header)

    async def get_view(self, table_id: str, seat: str, public: bool = False) -> SeatView:
        """The seat's view; ``public``: the public view (a spectator's), whatever ``seat``."""
        table_id = inputs.table_id(table_id)
        if public:
            live = await self.current(table_id)
            return SeatView(self._render_public(live), live.revision, live.status, live.updated_ms)
        seat = check_seat(seat)
        live = await self.current(table_id)
        return self._render(live, _seat_index(live, seat))

    async def get_log(self, table_id: str, after_number: int, page_size: int) -> LogPage:
        table_id = inputs.table_id(table_id)
        if after_number < 0:
            raise ServiceError(Reason.INVALID_ARGUMENT, "after_number must be 0 or more", field="after_number")
        if page_size < 0:
            raise ServiceError(Reason.INVALID_ARGUMENT, "page_size must be 0 (256) or more", field="page_size")
        size = WINDOW if page_size == 0 else min(page_size, WINDOW)
        try:
            moves = _within_bytes(await self.log.moves(table_id, after_number, size), LOG_PAGE_BYTES)
        except CorruptLog as error:  # a compacted log that cannot be read back
            raise ServiceError(Reason.CORRUPT_LOG, f"The log of this table cannot be read: {error}",
                               table_id=table_id) from None
        header = await self.log.header(table_id)  # read second: it counts every move just read
        if header is None:
            raise table_not_found(table_id)
        more = bool(moves) and moves[-1].number < header.move_count
        return LogPage(header, moves, moves[-1].number if more else 0)

    async def get_result(self, table_id: str) -> FinishedResult:
        table_id = inputs.table_id(table_id)
        header = await self.log.header(table_id)
        if header is None:
            raise table_not_found(table_id)
        if header.finished_ms is None:
            raise ServiceError(Reason.MATCH_NOT_FINISHED, "The match is still being played", table_id=table_id)
        live = await self.current(table_id, header)
        result = self._engine(live.game_type).result(live.state)
        # None only for an engine that disagrees with the log about the end: published as null.
        text = result.to_json_text() if result is not None else compact_json(None)
        return FinishedResult(text, header.created_ms, header.finished_ms)

    async def watch(self, table_id: str, seat: str) -> AsyncIterator[SeatView]:
        """The seat's view now, then after every change, until the finished view."""
        table_id, seat = inputs.table_id(table_id), check_seat(seat)
        index: int | None = None
        async with contextlib.aclosing(self.feeds.states(table_id)) as states:
            async for live in states:
                if index is None:
                    index = _seat_index(live, seat)
                yield self._render(live, index)

    async def watch_table(self, table_id: str, public: bool = False,
                          seat: str = "", parts: bool = False) -> AsyncIterator[RenderedViews]:
        """Every seat's view now, then after every change (each rendered once), until the
        finished views; with ``public``, the public view too: rendered once per revision for
        every watch that asks for it, and only while one does. With ``seat``, that seat's view
        alone (a bot's watch): nothing of another seat leaves with it. ``parts``: the views
        cut for the gateway (game.view_parts) instead of as JSON objects."""
        table_id = inputs.table_id(table_id)
        seat = check_seat(seat) if seat else ""
        async with contextlib.aclosing(self.feeds.states(table_id)) as states:
            async for live in states:
                if parts:
                    views = self._cut_all(live)
                    if seat:
                        views = _only(views, live, seat)
                    yield replace(views, public_parts=self._cut_public(live)) if public else views
                else:
                    views = self._render_all(live)
                    if seat:
                        views = _only(views, live, seat)
                    yield replace(views, public=self._render_public(live)) if public else views

    # -- changing ---------------------------------------------------------------------------

    async def act(self, table_id: str, seat: str, action_json: str,
                  expected_revision: int | None = None, request_id: str = "",
                  with_view: bool = True) -> SeatView:
        """The seat's view after the move. With a ``request_id`` already in the table's log
        (the move was made, and this is a retry), nothing is played: the seat's view now,
        ``replayed``. Without ``with_view`` the view is not rendered (``view_json`` is
        empty): the revision and status alone, for a caller that reads the views elsewhere."""
        table_id, seat = inputs.table_id(table_id), check_seat(seat)
        action = inputs.action(action_json)
        inputs.expected_revision(expected_revision)
        request = inputs.request_id(request_id)

        def plan(live: Live, engine: Engine, now: int) -> Move:
            index = _seat_index(live, seat)
            if expected_revision is not None and expected_revision != live.revision:
                raise _concurrent(live)
            try:
                return engine.decide(live.state, index, action, now)
            except GameError as error:
                raise _refused(error) from None

        try:
            live, _ = await self._mutate(table_id, plan, request)
        except (ServiceError, DuplicateRequest) as refusal:
            # A retry finds its move made: the table has moved on, so its plan was refused
            # (or, without an expected revision, its append). Only such a refusal reads the log:
            # not a malformed move, nor a store that does not answer.
            if (request is None or (isinstance(refusal, ServiceError)
                                    and refusal.reason not in _A_MADE_MOVE_REFUSED)
                    or await self.log.find_request(table_id, request) is None):
                if isinstance(refusal, DuplicateRequest):  # taken back since: a race lost
                    raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it "
                                       "again", table_id=table_id) from None
                raise
            if not with_view:
                now = await self.current(table_id)
                _seat_index(now, seat)  # a seat not at the table is refused, as with the view
                return SeatView("", now.revision, now.status, now.updated_ms, replayed=True)
            return replace(await self.get_view(table_id, seat), replayed=True)
        if not with_view:
            return SeatView("", live.revision, live.status, live.updated_ms)
        if not self.feeds.watched(table_id):
            return self._render(live, _seat_index(live, seat))
        # The seat's view from the rendering of all four, which the table's watchers then send
        # without rendering again.
        views = self._render_all(live)
        return SeatView(views.views[_seat_index(live, seat)][1], live.revision, live.status,
                        live.updated_ms)

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
        elif self.deadline_keeper is not None and live.status != TableStatus.FINISHED:
            # A stale entry of the backstop (it holds an early one, lazily): it gets the
            # current deadlines before the stale one is settled (a failure here leaves that one
            # to be fired again). Timed by the replica that made the state, not here.
            engine = self._engine(live.game_type)
            await self.deadline_keeper.hand_over_now(table_id, engine.deadlines(live.state))
        return fired, live.revision

    async def take_back(self, table_id: str, expected_revision: int | None = None,
                        seat: str | None = None) -> int:
        """The revision after taking back the last move (engines that allow it); with ``seat``,
        only when that move is a play of that seat (the practice take-back: CONTRACT, Bots)."""
        table_id = inputs.table_id(table_id)
        inputs.expected_revision(expected_revision)
        async with self._local_lock(table_id):
            header = await self.log.header(table_id)
            if header is None:
                raise table_not_found(table_id)
            if seat is not None:
                await self._own_last_play(header, seat)
            engine = self._engine(header.game_type)
            if not engine.supports_take_back:
                raise ServiceError(Reason.TAKE_BACK_UNSUPPORTED,
                                   f"{engine.name} does not allow taking a move back", table_id=table_id)
            if expected_revision is not None and expected_revision != header.revision:
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                                   revision=str(header.revision))
            if header.finished_ms is not None:
                raise ServiceError(Reason.GAME_FINISHED, "The game is finished", table_id=table_id)
            if header.move_count == 0:
                raise ServiceError(Reason.TAKE_BACK_UNSUPPORTED, "There is no move to take back",
                                   table_id=table_id)
            previous = await self.states.replayer.state_at(header, header.move_count - 1)
            try:
                await self.log.take_back(table_id, header.position, previous.status)
            except ConcurrentChange:
                fresh = await self.log.header(table_id)
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                                   table_id=table_id,
                                   revision=str(fresh.revision if fresh else header.revision)) from None
            live = replace(previous, revision=header.revision + 1, updated_ms=self.clock())
            self._after_change(engine, live)
        log.info("table %s: move %d taken back", table_id, header.move_count)
        return live.revision

    async def _own_last_play(self, header: TableRecord, seat: str) -> None:
        """Refuse unless the log's last move is a play of ``seat`` (read under the table's lock,
        so nobody can play after it before it is taken back)."""
        try:
            index = header.seats.index(seat)
        except ValueError:
            raise ServiceError(Reason.NOT_SEATED, f"{seat} is not a seat of this table",
                               table_id=header.table_id) from None
        moves = await self.log.moves(header.table_id, max(0, header.move_count - 1), 1) if header.move_count else []
        last = moves[-1] if moves and moves[-1].number == header.move_count else None
        if last is None or last.type != "play" or last.seat != index:
            raise ServiceError(Reason.ILLEGAL_MOVE, OWN_LAST_PLAY_TEXT, table_id=header.table_id)

    async def purge(self, table_id: str) -> bool:
        """Delete a table and its moves (finished tables no one needs any more)."""
        table_id = inputs.table_id(table_id)
        async with self._local_lock(table_id):
            deleted = await self.log.delete(table_id)
            await self.snapshots.settle(table_id)
            await self.cache.forget(table_id)
            self.states.forget(table_id)
            if self.deadline_keeper is not None:
                self.deadline_keeper.forget(table_id)
        return deleted

    # -- background work --------------------------------------------------------------------

    async def resume(self, finished_before_ms: int | None = None, page_size: int = 500) -> int:
        """Hand stats the finished matches it has not accepted yet (at start, then by the sweep);
        how many wait. With ``finished_before_ms`` only those finished before then."""
        return await self.recording.resume(finished_before_ms, page_size)

    @property
    def waiting_to_record(self) -> int:
        """Matches this replica has failed to record at least once and is still trying."""
        return self.recording.waiting

    async def unrecorded_count(self) -> int:
        """Every finished match not recorded yet, whichever replica tries it (the
        ``tavolo.matches_unrecorded`` gauge)."""
        return await self.log.unrecorded_count()

    async def resume_deadlines(self, page_size: int = 500) -> int:
        """Hand the backstop every running table's pending deadlines again; how many tables.

        At start (the replica that timed a table may have died before handing it over) and
        after the queue lost its entries; SetTableDeadlines is idempotent, so sending them all
        again is safe. They are not timed here: the backstop fires them, and the replica it
        reaches times the table from then on.
        """
        if self.deadline_keeper is None:
            return 0
        self.deadline_keeper.forget_handed_over()
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
                self.deadline_keeper.changed(table_id, engine.deadlines(live.state),
                                             time_here=False, resend=True)
                resumed += 1
            after = page[-1]
        if resumed:
            log.info("handed the deadlines of %d running table(s) to the queue again", resumed)
        return resumed

    async def run(self) -> None:
        """The service's background job: resume, then sweep for matches waiting to be recorded
        (those of a replica that stopped without restarting), and move the deadline backstop's
        early entries before they fire (DeadlineKeeper.run), and hear which tables other
        replicas start to follow (SnapshotWriter.hear_followers); when stopped, end the view
        streams.
        The running tables' deadlines are handed over by game.queue_watch, at start and after
        the queue lost them."""
        jobs = [self.recording.run(), self.snapshots.hear_followers()]
        if self.deadline_keeper is not None:
            jobs.append(self.deadline_keeper.run())
        try:
            await asyncio.gather(*jobs)
        finally:
            self.stop_watching()

    def stop_watching(self) -> None:
        """End every view stream (the service is stopping; callers reconnect elsewhere) and
        stop timing deadlines (the backstop fires them)."""
        self.feeds.close()
        if self.deadline_keeper is not None:
            self.deadline_keeper.stop()

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for the background work started so far (deadlines, recordings)."""
        await self.background.drain(timeout)

    async def close(self, timeout: float = 5.0) -> None:
        self.stop_watching()
        self.recording.stop()  # recordings waiting out a backoff stop: the log keeps them
        await self.background.drain(timeout)
        await self.background.cancel()

    # -- the flow of a mutation -------------------------------------------------------------

    async def _mutate(self, table_id: str, plan: Callable[[Live, Engine, int], Move | None],
                      request_id: str | None = None) -> tuple[Live, bool]:
        """Decide with the newest known state, append at its position, hand the change on.

        Returns the state after the move and True, or the current state and False when
        ``plan`` made no move. A refusal (a ServiceError from ``plan``) or "no move" is given
        only once the state is known to be the log's.
        """
        async with metrics.waited(self._local_lock(table_id)):
            live = self.states.remembered(table_id)
            verified = live is None
            if live is None:
                live = await self.current(table_id)
            for _ in range(_ATTEMPTS):
                engine = self._engine(live.game_type)
                now = self.clock()
                try:
                    move = plan(live, engine, now)
                except ServiceError:
                    if verified:
                        raise
                    live, verified = await self.states.verify(live), True
                    continue
                if move is None:
                    if verified:
                        return live, False
                    live, verified = await self.states.verify(live), True
                    continue
                entry = LoggedMove(live.move_count + 1, move.type, move.seat, compact_json(move.payload),
                                   move.auto, move.random, now, request_id)
                new = self._applied(engine, live, entry)
                try:
                    await self.log.append(table_id, live.position, entry, new.status, new.finished_ms)
                except ConcurrentChange:  # another replica moved first: decide again on the log's state
                    live, verified = await self.current(table_id), True
                    continue
                break
            else:
                raise ServiceError(Reason.CONCURRENT_MOVE, "The table keeps changing: try again",
                                   table_id=table_id, revision=str(live.revision))
            # Still under the lock: the next mutation queued here starts from this state.
            self._after_change(engine, new, live)
        metrics.move_made(new.game_type, entry.type)
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
                       finished_ms=entry.created_ms if status == TableStatus.FINISHED else None)

    def _local_lock(self, table_id: str) -> asyncio.Lock:
        """The table's mutations on this replica, one at a time (between replicas, the log's
        revision check decides)."""
        local = self._local_locks.get(table_id)
        if local is None:
            local = self._local_locks[table_id] = asyncio.Lock()
        return local

    def _after_change(self, engine: Engine, new: Live, before: Live | None = None) -> None:
        """A change is in the log: remember the state and hand it to this replica's watchers;
        time its deadlines; in the background, save its snapshot and signal it to the other
        replicas, announce whom a daily table now waits for, hand the deadlines to the backstop
        if it needs them and record a finished match."""
        self.states.remember(new)
        self.feeds.changed(new)
        self.snapshots.submit(new)
        if self.turns is not None:
            self.turns.changed(engine, before, new)
        if self.deadline_keeper is not None:
            self.deadline_keeper.changed(new.table_id, engine.deadlines(new.state))
        if new.status == TableStatus.FINISHED:
            log.info("table %s finished (revision %d)", new.table_id, new.revision)
            metrics.match_finished(new.game_type)
            self.recording.submit(new.table_id)

    # -- helpers ----------------------------------------------------------------------------

    def _engine(self, game_type: str) -> Engine:
        try:
            return self.registry.get(game_type)
        except UnknownGameType as error:
            raise ServiceError(Reason.UNKNOWN_GAME_TYPE, str(error), field="game_type",
                               game_type=str(game_type)) from None

    @staticmethod
    def _options(engine: Engine, options_json: str) -> dict[str, Any]:
        options = inputs.json_object(options_json or "{}", Reason.INVALID_OPTIONS, "Invalid options",
                                     "options_json")
        try:
            return engine.normalize_options(options)
        except OptionsError as error:
            raise ServiceError(Reason.INVALID_OPTIONS, f"Invalid options: {error.message}",
                               field="options_json") from None

    def _render(self, live: Live, index: int) -> SeatView:
        view = _view_json(self._engine(live.game_type), live, index)
        return SeatView(view, live.revision, live.status, live.updated_ms)

    def _render_all(self, live: Live) -> RenderedViews:
        """Every seat's view, rendered once per revision however many streams send it."""
        key = (live.table_id, live.seed_commitment, live.revision)
        views = self._rendered.get(key)
        if views is None:
            views = self._rendered[key] = self._render_seats(live)
            while len(self._rendered) > _RENDERED:
                self._rendered.popitem(last=False)
        return views

    def _render_public(self, live: Live) -> str:
        """The public view (the engine's for no seat), rendered once per revision however many
        streams send it."""
        key = (live.table_id, live.seed_commitment, live.revision)
        view = self._public.get(key)
        if view is None:
            view = self._public[key] = _view_json(self._engine(live.game_type), live, None)
            metrics.public_view_rendered()
            while len(self._public) > _RENDERED:
                self._public.popitem(last=False)
        return view

    def _render_seats(self, live: Live) -> RenderedViews:
        engine = self._engine(live.game_type)
        views = tuple((seat, _view_json(engine, live, index)) for index, seat in enumerate(live.seats))
        return RenderedViews(live.revision, live.status, live.updated_ms, views)

    def _cut_all(self, live: Live) -> RenderedViews:
        """Every seat's view cut for the gateway, once per revision however many streams send it."""
        key = (live.table_id, live.seed_commitment, live.revision)
        views = self._cut.get(key)
        if views is None:
            engine = self._engine(live.game_type)
            dicts = [_view(engine, live, index) for index in range(len(live.seats))]
            views = self._cut[key] = RenderedViews(
                live.revision, live.status, live.updated_ms, (),
                parts=tuple((seat, cut(view)) for seat, view in zip(live.seats, dicts, strict=True)),
                facts=facts(dicts[0] if dicts else {}, live.status == TableStatus.FINISHED))
            while len(self._cut) > _RENDERED:
                self._cut.popitem(last=False)
        return views

    def _cut_public(self, live: Live) -> ViewCut:
        """The public view cut for the gateway, once per revision."""
        key = (live.table_id, live.seed_commitment, live.revision)
        view = self._public_cut.get(key)
        if view is None:
            view = self._public_cut[key] = cut(_view(self._engine(live.game_type), live, None), public=True)
            metrics.public_view_rendered()
            while len(self._public_cut) > _RENDERED:
                self._public_cut.popitem(last=False)
        return view


def _view(engine: Engine, live: Live, index: int | None) -> dict[str, Any]:
    """The engine's view of seat ``index`` (None: the public view), with the platform's fields."""
    return {**engine.view(live.state, index), "id": live.table_id, "game_type": live.game_type,
            "seed_commitment": live.seed_commitment, "revision": live.revision}


def _view_json(engine: Engine, live: Live, index: int | None) -> str:
    """The view of seat ``index`` as JSON text (None: the public view)."""
    return compact_json(_view(engine, live, index))


def _only(views: RenderedViews, live: Live, seat: str) -> RenderedViews:
    """``views`` with ``seat``'s view alone (NOT_SEATED when the table has no such seat)."""
    index = _seat_index(live, seat)
    if views.facts is not None:  # cut
        return replace(views, parts=(views.parts[index],))
    return replace(views, views=(views.views[index],))


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


def _concurrent(live: Live) -> ServiceError:
    return ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                        revision=str(live.revision))


def _refused(error: GameError) -> ServiceError:
    reason = _GAME_ERRORS.get(error.code, Reason.ILLEGAL_MOVE)
    # The engine's bad_request and unknown_action are about the action the seat sent.
    field = "action_json" if reason in (Reason.BAD_REQUEST, Reason.UNKNOWN_ACTION) else None
    return ServiceError(reason, error.message, field=field)
