"""A table's state rebuilt from its log: from scratch, or from a state already on the way.

Replays read the moves one window at a time and apply each with the time it was logged at, so
a replay lands on exactly the state the live table had. They run while the log may change: a
log that changed meanwhile is read on from where it is when only moves were added, and read
again from the start after a take-back.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

from game.engine import Engine, GameError
from game.live import Live, extends
from game.log_store import WINDOW, CorruptLog, LogStore, TableRecord
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

_ATTEMPTS = 5


class _Gap(Exception):
    """The log changed under a read: read it again."""


class Replayer:
    def __init__(self, engine_of: Callable[[str], Engine], log_store: LogStore):
        self._engine_of = engine_of
        self._log = log_store

    async def bring_forward(self, header: TableRecord, base: Live | None) -> Live:
        """The state at ``header``'s position (or later), from ``base`` when the log extends it."""
        table_id = header.table_id
        try:
            for _ in range(_ATTEMPTS):
                start = base if base is not None and extends(base, header) else self.fresh(header)
                try:
                    live = await self.replay(start, header.move_count)
                except _Gap:
                    base, header = None, await self._header(table_id)
                    continue
                live = replace(live, revision=header.revision, finished_ms=header.finished_ms)
                latest = await self._header(table_id)
                if latest.position == header.position:
                    return live
                base, header = live, latest
        except CorruptLog as error:
            log.error("%s", error)
            raise _damaged(table_id, error) from None
        raise ServiceError(Reason.UNAVAILABLE, "The table keeps changing: try again", table_id=table_id)

    async def state_at(self, header: TableRecord, upto: int) -> Live:
        """The state after the first ``upto`` moves (for a take-back: only another take-back,
        which the caller's own revision check then refuses, changes those moves meanwhile)."""
        try:
            live = await self.replay(self.fresh(header), upto)
        except CorruptLog as error:
            raise _damaged(header.table_id, error) from None
        except _Gap:
            raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again",
                               table_id=header.table_id) from None
        return replace(live, revision=header.revision)

    def fresh(self, header: TableRecord) -> Live:
        """The state the table was created with."""
        engine = self._engine_of(header.game_type)
        try:
            options = json.loads(header.options_json)
        except ValueError:
            raise CorruptLog(f"table {header.table_id}: its options are not valid JSON") from None
        state = engine.new_state(options, header.seed, header.created_ms)
        return Live(header.table_id, header.game_type, header.seats, header.seed_commitment,
                    header.created_ms, state, 0, 0, engine.status(state), header.created_ms)

    async def replay(self, live: Live, upto: int) -> Live:
        """``live`` with the moves after it, up to number ``upto``, applied one window at a time."""
        engine = self._engine_of(live.game_type)
        state, count, updated = live.state, live.move_count, live.updated_ms
        table_id = live.table_id
        async for window in self._log.windows(table_id, count, upto):
            for row in window:
                if row.number != count + 1:
                    raise _Gap(f"table {table_id}: move {count + 1} is missing")
                try:
                    state = engine.apply(state, row.to_move(table_id), row.created_ms)
                except GameError as error:
                    raise CorruptLog(f"table {table_id}: move {row.number} does not replay "
                                     f"({error.message})") from None
                count, updated = row.number, row.created_ms
        if count != upto:
            raise _Gap(f"table {table_id}: the log ends at move {count}, not {upto}")
        return replace(live, state=state, move_count=count, status=engine.status(state),
                       updated_ms=updated)

    async def steps_between(self, live: Live, target: Live) -> AsyncIterator[Live]:
        """The states strictly between ``live`` and ``target`` (which extends it), in order."""
        if target.move_count - live.move_count > WINDOW:
            return  # too far behind to show every step: the caller shows the target alone
        engine = self._engine_of(live.game_type)
        try:
            async for window in self._log.windows(live.table_id, live.move_count, target.move_count - 1):
                for row in window:
                    if row.number != live.move_count + 1:
                        return
                    state = engine.apply(live.state, row.to_move(live.table_id), row.created_ms)
                    live = replace(live, state=state, move_count=row.number, revision=live.revision + 1,
                                   status=engine.status(state), updated_ms=row.created_ms)
                    yield live
        except (CorruptLog, GameError):
            return  # the target, read next, reports any damage

    async def _header(self, table_id: str) -> TableRecord:
        header = await self._log.header(table_id)
        if header is None:
            raise ServiceError(Reason.TABLE_NOT_FOUND, "No table has this id", table_id=table_id)
        return header


def _damaged(table_id: str, error: Exception) -> ServiceError:
    return ServiceError(Reason.CORRUPT_LOG, f"The log of this table cannot be read: {error}",
                        table_id=table_id)
