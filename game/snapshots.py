"""The write-behind of tables' snapshots: once a change is in the log, its snapshot goes to the
cache, with the change's signal to every replica, in the background and off the call's path.

At most one save per table is in flight; the changes made meanwhile coalesce into the newest,
so a busy table costs one cache call per save, not one per move. The snapshot is a recovery
cache: a save that fails is logged and dropped (the next reader rebuilds the state from the
log), and a late save never replaces a newer snapshot (the cache's compare-and-set).
"""

from __future__ import annotations

import asyncio

from game.background import Background
from game.live import Live
from game.states import States


class SnapshotWriter:
    """Saves tables' newest states to the cache, one save per table at a time."""

    def __init__(self, states: States, background: Background):
        self._states = states
        self._background = background
        self._pending: dict[str, Live] = {}
        self._saving: dict[str, asyncio.Event] = {}  # set when the table's saves are done

    def submit(self, live: Live) -> None:
        """Save ``live`` (and signal its revision) soon, unless a newer state comes first."""
        self._pending[live.table_id] = live
        if live.table_id not in self._saving:
            self._saving[live.table_id] = asyncio.Event()
            self._background.start(self._save(live.table_id))

    async def settle(self, table_id: str) -> None:
        """Drop the table's pending save and wait for the one in flight (purging a table)."""
        self._pending.pop(table_id, None)
        saving = self._saving.get(table_id)
        if saving is not None:
            await saving.wait()

    async def _save(self, table_id: str) -> None:
        try:
            while (live := self._pending.pop(table_id, None)) is not None:
                await self._states.save(live, publish=True)
        finally:
            self._saving.pop(table_id).set()
