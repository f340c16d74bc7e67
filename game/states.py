"""A table's current state, from the cheapest place that has it: this replica's memo, the
cached snapshot (shared by the replicas), or the log.

The log is the truth; the memo and the snapshot are caches of it. A state is used only when it
is at the log's position (the header: one row); an older one is brought forward with the moves
since (when the log only grew since it), a missing or diverged one rebuilt from the start. A
cache that does not answer is logged and passed over: the log still does.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable

from game.cache import SnapshotWrite, TableCache
from game.engine import Engine
from game.live import Live, extends
from game.log_store import LogStore, TableRecord
from game.replay import Replayer
from game.status import TableStatus
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)


class States:
    """Resolves tables' states for the flow (game.tables) and the recorder (game.recording)."""

    def __init__(self, engine_of: Callable[[str], Engine], log_store: LogStore, cache: TableCache,
                 memo_size: int = 512):
        self.log = log_store
        self.cache = cache
        self.replayer = Replayer(engine_of, log_store)
        self._memo: OrderedDict[str, Live] = OrderedDict()
        self._memo_size = memo_size

    async def current(self, table_id: str, header: TableRecord | None = None) -> Live:
        """The table's state at the log's current position (one header row, then the caches)."""
        memo = self._memo.get(table_id)
        text: str | None = None
        loaded = False
        if header is None:
            if memo is not None:
                header = await self.log.header(table_id)
            else:  # the snapshot will be needed: read it alongside the header
                header, text = await asyncio.gather(self.log.header(table_id), self._load(table_id))
                loaded = True
        if header is None:
            raise table_not_found(table_id)
        if memo is not None and memo.position == header.position:
            return memo
        if not loaded:
            text = await self._load(table_id)
        snapshot = Live.from_snapshot(text, table_id)
        if snapshot is not None and snapshot.position == header.position:
            self.remember(snapshot)
            return snapshot
        bases = [s for s in (snapshot, memo) if s is not None and extends(s, header)]
        base = max(bases, key=lambda s: s.revision) if bases else None
        live = await self.replayer.bring_forward(header, base)
        self.remember(live)
        await self.save(live, publish=False)
        return live

    async def at_least(self, table_id: str, revision: int, seed_commitment: str) -> Live:
        """A state at ``revision`` or later, for a change another replica signalled: the memo
        or the snapshot when either got that far, else the log's current state.

        No header is needed for the first two: a snapshot is saved only once its change is in
        the log (and the change is signalled by the same save), so any snapshot of the table
        (its seed) at or past a signalled revision is a state the log had.
        """
        memo = self._memo.get(table_id)
        if memo is not None and memo.seed_commitment == seed_commitment and memo.revision >= revision:
            return memo
        snapshot = Live.from_snapshot(await self._load(table_id), table_id)
        if snapshot is not None and snapshot.seed_commitment == seed_commitment \
                and snapshot.revision >= revision:
            self.remember(snapshot)
            return snapshot
        return await self.current(table_id)

    def remembered(self, table_id: str) -> Live | None:
        """The newest state this replica knows of the table, unchecked: the mutations' starting
        point (the log's revision check on the append tells them when it is stale)."""
        return self._memo.get(table_id)

    async def verify(self, live: Live) -> Live:
        """``live`` if the log is at its position, else the log's current state."""
        header = await self.log.header(live.table_id)
        if header is None:
            raise table_not_found(live.table_id)
        if header.position == live.position:
            return live
        return await self.current(live.table_id, header)

    def remember(self, live: Live) -> None:
        """Keep ``live`` in the memo, unless the memo has a newer state of the same table."""
        known = self._memo.get(live.table_id)
        if known is not None and known.seed_commitment == live.seed_commitment and known.revision > live.revision:
            return
        self._memo[live.table_id] = live
        self._memo.move_to_end(live.table_id)
        while len(self._memo) > self._memo_size:
            self._memo.popitem(last=False)

    def forget(self, table_id: str) -> None:
        self._memo.pop(table_id, None)

    @staticmethod
    def write(live: Live, publish: bool) -> SnapshotWrite:
        """The snapshot of ``live``; a finished table leaves the cache's index of ongoing games."""
        score = None if live.status == TableStatus.FINISHED else live.updated_ms
        return SnapshotWrite(live.table_id, live.revision, live.snapshot_json(), score, publish)

    async def save(self, live: Live, publish: bool) -> bool:
        """Store the snapshot of ``live`` (and signal it when ``publish``); False when the cache
        did not answer."""
        try:
            await self.cache.save(self.write(live, publish))
        except Exception as error:  # noqa: BLE001 - the log has the change; the next reader rebuilds the cache
            log.warning("table %s: cannot save the snapshot (%s)", live.table_id, error)
            return False
        return True

    async def signal(self, live: Live) -> int | None:
        """Tell the other replicas of ``live`` (its snapshot as the signal), storing nothing;
        how many subscriptions received it (None: not known, or the cache did not answer)."""
        try:
            return await self.cache.publish(live.table_id, live.snapshot_json())
        except Exception as error:  # noqa: BLE001 - followers find the change at their next check of the logs
            log.warning("table %s: cannot signal the change (%s)", live.table_id, error)
            return None

    async def _load(self, table_id: str) -> str | None:
        try:
            return await self.cache.load(table_id)
        except Exception as error:  # noqa: BLE001 - a cache that does not answer: the log still does
            log.warning("table %s: cannot read the snapshot (%s)", table_id, error)
            return None


def table_not_found(table_id: str) -> ServiceError:
    return ServiceError(Reason.TABLE_NOT_FOUND, "No table has this id", table_id=table_id)
