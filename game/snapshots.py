"""The write-behind of tables' changes: once a change is in the log, the other replicas are told
(its snapshot, one signal) and now and then the snapshot is stored in the cache, in the
background and off the call's path.

Every change is signalled, with the new state as the signal: a replica that follows the table
learns it without a read. The snapshot is stored only when a restarted or another replica would
otherwise replay more than a little of the log: a table's first change on this replica (it
enters the running set), a change of status (a hand ends, the next begins, the match ends) and
every ``STORE_EVERY`` changes in between. So a move costs one cache command, not three, and a
reader of a stored snapshot replays at most ``STORE_EVERY - 1`` moves from the log.

At most one write per table is in flight; the changes made meanwhile coalesce into the newest,
so a busy table costs one cache call per write, not one per move. The snapshot is a recovery
cache: a write that fails is logged and dropped (the next reader rebuilds the state from the
log), and a late store never replaces a newer snapshot (the cache's compare-and-set).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from game.background import Background
from game.live import FINISHED, Live
from game.states import States

STORE_EVERY = 32  # changes between two stored snapshots of a table whose status stays


@dataclass(frozen=True)
class _Stored:
    """What this replica last stored of a table."""

    revision: int
    status: str
    seed_commitment: str


class SnapshotWriter:
    """Signals tables' newest states to the other replicas and stores them now and then, one
    write per table at a time."""

    def __init__(self, states: States, background: Background):
        self._states = states
        self._background = background
        self._pending: dict[str, Live] = {}
        self._saving: dict[str, asyncio.Event] = {}  # set when the table's writes are done
        self._stored: dict[str, _Stored] = {}

    def submit(self, live: Live) -> None:
        """Signal ``live`` (and store it when due) soon, unless a newer state comes first."""
        self._pending[live.table_id] = live
        if live.table_id not in self._saving:
            self._saving[live.table_id] = asyncio.Event()
            self._background.start(self._save(live.table_id))

    async def settle(self, table_id: str) -> None:
        """Drop the table's pending write and wait for the one in flight (purging a table)."""
        self._pending.pop(table_id, None)
        saving = self._saving.get(table_id)
        if saving is not None:
            await saving.wait()
        self._stored.pop(table_id, None)

    def must_store(self, live: Live) -> bool:
        """Whether ``live``'s snapshot goes to the cache, not only to the other replicas."""
        stored = self._stored.get(live.table_id)
        return (stored is None or stored.seed_commitment != live.seed_commitment
                or stored.status != live.status or live.revision - stored.revision >= STORE_EVERY)

    async def _save(self, table_id: str) -> None:
        try:
            # A loop pass later: the move's answer and its views, which players wait for, go
            # out first.
            await asyncio.sleep(0)
            while (live := self._pending.pop(table_id, None)) is not None:
                if not self.must_store(live):
                    await self._states.signal(live)
                elif await self._states.save(live, publish=True):
                    self._remember_stored(live)
        finally:
            self._saving.pop(table_id).set()

    def _remember_stored(self, live: Live) -> None:
        if live.status == FINISHED:  # nothing follows a finished table's last state
            self._stored.pop(live.table_id, None)
        else:
            self._stored[live.table_id] = _Stored(live.revision, live.status, live.seed_commitment)
