"""A table's deadlines: timed by the replica that changed the table, backed by the deadline service.

The replica whose move (or fire) made a state keeps that state's deadlines as timers in its own
process and fires them when they fall due: no call to anyone per move. The deadline service is
the durable backstop for a table whose replica died or restarted: it holds, for each running
table, entries due BACKSTOP_GRACE_MS after the table's deadlines, and fires them at whichever
replica it reaches; a fire that lands makes that replica the one timing the table from then on.

The backstop is kept lazily. A move pushes a turn deadline later, and an entry that is early is
harmless: it fires with a stale token and the replica it reaches hands over the table's current
deadlines (Tables.fire_deadline). So the deadline service hears of a table only when its earliest
deadline comes before what the service holds (as far as this replica knows), when the table is
new to this replica, and when it finishes. So that early entries seldom fire, every
REFRESH_SECONDS the tables timed here whose entry falls due within REFRESH_AHEAD_MS are handed
over as they are now (`make bench`: a stale round trip costs about 5 ms of CPU over every
process, a table's share of a batched hand-over 0.1 ms). All of it in batches, one
SetTableDeadlines call every HANDOVER_SECONDS at most for all such tables; a table that changes
again before its batch leaves is sent once, as it is then. Two hand-overs cannot wait for a
batch, because a replica dying in between would leave the table with no entry at all: a new
table's (CreateTable answers once the backstop holds it) and the one after a stale fire (the
stale entry is settled only after).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Protocol

from game.engine import Deadline
from services.background import Background, Retry
from services.observability import metrics, telemetry
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

BACKSTOP_GRACE_MS = 2000  # the backstop fires this long after the owner would have
HANDOVER_SECONDS = 0.2    # how long the changes of a batch gather before it leaves
BATCH_TABLES = 1000       # the deadline service's limit per SetTableDeadlines call
HELD_TABLES = 100_000     # tables whose hand-over is remembered (the others are sent again)
REFRESH_SECONDS = 5.0     # how often early entries about to fall due are moved
REFRESH_AHEAD_MS = 12_000  # ... those due within this (more than two refreshes ahead)


class BackstopQueue(Protocol):
    """The deadline service as the keeper uses it (deadlines.client.DeadlinesClient)."""

    async def set_table_deadlines(
            self, tables: Mapping[str, Iterable[tuple[str, str, int]]]) -> None: ...


# (table_id, token, kind) -> (fired, revision): Tables.fire_deadline
FireDeadline = Callable[[str, str, str], Awaitable[tuple[bool, int]]]


class DeadlineKeeper:
    """This replica's timers of its tables' deadlines, and their hand-over to the backstop."""

    def __init__(self, backstop: BackstopQueue, fire: FireDeadline | None, background: Background,
                 retry: Retry, clock: Callable[[], int], *,
                 grace_ms: int = BACKSTOP_GRACE_MS, handover_seconds: float = HANDOVER_SECONDS):
        self._backstop = backstop
        self._fire = fire  # None until the tables that hold it are made (fire_with)
        self._background = background
        self._retry = retry
        self._clock = clock
        self.grace_ms = grace_ms
        self._handover_seconds = handover_seconds
        self._timers: dict[str, dict[Deadline, asyncio.TimerHandle]] = {}
        # table -> the earliest due this replica last handed over (the backstop holds it, or
        # an entry another replica handed over later, which is no later); the least recently
        # handed over are forgotten past HELD_TABLES (another replica may have finished them)
        self._held: OrderedDict[str, int] = OrderedDict()
        self._owed: dict[str, tuple[Deadline, ...]] = {}  # the next batch, by table
        self._handing_over = False
        self.handed_over = 0  # tables sent so far (for tests and the bench)

    def changed(self, table_id: str, deadlines: Sequence[Deadline], *,
                time_here: bool = True, resend: bool = False) -> None:
        """The table's pending deadlines are now ``deadlines``. ``time_here``: this replica
        made the change and fires them when due; ``resend``: hand them over even if the
        backstop should hold an earlier entry (after a restart, or a queue that lost its
        entries)."""
        if time_here:
            self._arm(table_id, deadlines)
        if not deadlines:  # finished: the backstop keeps nothing of it
            self._held.pop(table_id, None)
            self._owe(table_id, ())
            return
        earliest = min(deadline.due_ms for deadline in deadlines) + self.grace_ms
        held = self._held.get(table_id)
        if resend or held is None or earliest < held or table_id in self._owed:
            self._hold(table_id, earliest)
            self._owe(table_id, tuple(deadlines))

    async def hand_over_now(self, table_id: str, deadlines: Sequence[Deadline]) -> None:
        """Hand the table's deadlines to the backstop before returning; a ServiceError: they
        were not, and a batch owes them again if one did."""
        owed = self._owed.pop(table_id, None)
        if deadlines:  # from now on, changes compare with what is on its way
            self._hold(table_id, min(deadline.due_ms for deadline in deadlines) + self.grace_ms)
        try:
            await self._backstop.set_table_deadlines({table_id: self._entries(deadlines)})
        except BaseException:
            self._held.pop(table_id, None)  # the backstop may hold nothing: the next change sends
            if owed is not None and table_id not in self._owed:
                self._owe(table_id, owed)
            raise
        self.handed_over += 1

    def forget(self, table_id: str) -> None:
        """The table is gone (purged): no timer, no entry in the backstop."""
        self.changed(table_id, ())

    def forget_handed_over(self) -> None:
        """The backstop lost its entries: every table is new to it again."""
        self._held.clear()

    def stop(self) -> None:
        """Cancel every timer (the replica stops: the backstop fires what is left)."""
        for handles in self._timers.values():
            for handle in handles.values():
                handle.cancel()
        self._timers.clear()

    async def run(self, interval_seconds: float = REFRESH_SECONDS) -> None:
        """Refresh the early entries every ``interval_seconds``, until cancelled."""
        while True:
            await asyncio.sleep(interval_seconds)
            self.refresh()

    def refresh(self, ahead_ms: int = REFRESH_AHEAD_MS) -> int:
        """Owe the next batch every table timed here whose backstop entry is early and falls due
        within ``ahead_ms``; how many."""
        horizon = self._clock() + ahead_ms
        refreshed = 0
        for table_id, timers in self._timers.items():
            held = self._held.get(table_id)
            if held is None or held > horizon or table_id in self._owed:
                continue
            deadlines = tuple(timers)
            earliest = min(deadline.due_ms for deadline in deadlines) + self.grace_ms
            if earliest > held:
                self._hold(table_id, earliest)
                self._owe(table_id, deadlines)
                refreshed += 1
        return refreshed

    @property
    def timed_tables(self) -> int:
        """How many tables have a timer here."""
        return len(self._timers)

    def _hold(self, table_id: str, earliest: int) -> None:
        self._held[table_id] = earliest
        self._held.move_to_end(table_id)
        while len(self._held) > HELD_TABLES:
            self._held.popitem(last=False)

    # -- the timers ---------------------------------------------------------------------------

    def _arm(self, table_id: str, deadlines: Sequence[Deadline]) -> None:
        for handle in self._timers.pop(table_id, {}).values():
            handle.cancel()
        if not deadlines:
            return
        loop = asyncio.get_running_loop()
        now = self._clock()
        self._timers[table_id] = {
            deadline: loop.call_later(max(0, deadline.due_ms - now) / 1000, self._due, table_id,
                                      deadline)
            for deadline in deadlines
        }

    def _due(self, table_id: str, deadline: Deadline) -> None:
        handles = self._timers.get(table_id)
        if handles is not None:
            handles.pop(deadline, None)
            if not handles:
                del self._timers[table_id]
        self._background.start(self._fire_here(table_id, deadline),
                               key=f"deadline {table_id} {deadline.kind} {deadline.token}")

    def fire_with(self, fire: FireDeadline) -> None:
        """Fire deadlines with ``fire`` (the tables that hold this keeper, made after it)."""
        self._fire = fire

    async def _fire_here(self, table_id: str, deadline: Deadline) -> None:
        lateness = (self._clock() - deadline.due_ms) / 1000
        try:
            with telemetry.job_span("deadline fire", {"tavolo.deadline.kind": deadline.kind}):
                assert self._fire is not None, "fire_with was not called"
                fired, _ = await self._fire(table_id, deadline.token, deadline.kind)
        except ServiceError as error:  # a store is down, say: the backstop fires it later
            log.warning("deadline %s of table %s not fired here (%s: %s); the deadline "
                        "service will fire it", deadline.kind, table_id, error.reason.name,
                        error.message)
            return
        metrics.deadline_fired(deadline.kind, "fired" if fired else "stale", lateness, "replica")

    # -- the hand-over ------------------------------------------------------------------------

    def _owe(self, table_id: str, deadlines: tuple[Deadline, ...]) -> None:
        self._owed[table_id] = deadlines
        if not self._handing_over:
            self._handing_over = True
            self._background.start(self._hand_over())

    async def _hand_over(self) -> None:
        try:
            while self._owed:
                await asyncio.sleep(self._handover_seconds)  # let the batch gather
                tables = list(itertools.islice(self._owed, BATCH_TABLES))
                batch = {table_id: self._entries(self._owed.pop(table_id)) for table_id in tables}
                await self._retry(f"handing the deadlines of {len(batch)} table(s) over",
                                  functools.partial(self._backstop.set_table_deadlines, batch))
                self.handed_over += len(batch)
        finally:
            self._handing_over = False

    def _entries(self, deadlines: Iterable[Deadline]) -> list[tuple[str, str, int]]:
        """The backstop's entries: each deadline, BACKSTOP_GRACE_MS later."""
        return [(d.kind, d.token, d.due_ms + self.grace_ms) for d in deadlines]
