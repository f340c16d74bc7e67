"""The move log in this process's memory (DATABASE_URL unset): one replica only."""

from __future__ import annotations

from dataclasses import replace

from game.log_archive import ARCHIVE_FORMAT, decode_archive, encode_archive, is_whole
from game.log_store import (
    WINDOW,
    ConcurrentChange,
    DuplicateRequest,
    LoggedMove,
    LogStore,
    Position,
    TableRecord,
    moves_window,
    request_number,
)


class MemoryLogStore(LogStore):
    """The log in this process's memory (DATABASE_URL unset): the same behaviour, one replica."""

    def __init__(self) -> None:
        self._tables: dict[str, TableRecord] = {}
        self._moves: dict[str, list[LoggedMove]] = {}
        self._archives: dict[str, tuple[int, bytes]] = {}  # compacted logs: (format, value)

    async def create(self, record: TableRecord) -> tuple[TableRecord, bool]:
        existing = self._tables.get(record.table_id)
        if existing is not None:
            return existing, False
        self._tables[record.table_id] = record
        self._moves[record.table_id] = []
        return record, True

    async def header(self, table_id: str) -> TableRecord | None:
        return self._tables.get(table_id)

    async def positions(self, table_ids: list[str]) -> dict[str, Position]:
        found = (self._tables.get(table_id) for table_id in table_ids)
        return {r.table_id: Position(r.move_count, r.revision, r.seed_commitment) for r in found if r}

    async def append(self, table_id: str, expected: Position, move: LoggedMove, status: str,
                     finished_ms: int | None) -> None:
        record = self._at(table_id, expected)
        if move.request_id is not None and await self.find_request(table_id, move.request_id):
            raise DuplicateRequest(f"table {table_id}: request {move.request_id} was made")
        self._moves[table_id].append(replace(move, number=expected.move_count + 1))
        self._tables[table_id] = replace(record, move_count=record.move_count + 1,
                                         revision=record.revision + 1, status=status,
                                         finished_ms=finished_ms)

    async def find_request(self, table_id: str, request_id: str) -> int | None:
        found = next((move.number for move in self._moves.get(table_id, ())
                      if move.request_id == request_id), None)
        if found is None and table_id in self._archives:
            found = request_number(self._archived(table_id), request_id)
        return found

    async def take_back(self, table_id: str, expected: Position, status: str) -> None:
        record = self._at(table_id, expected)
        if record.move_count == 0:
            raise ConcurrentChange(f"table {table_id} has no move to take back")
        self._moves[table_id].pop()
        self._tables[table_id] = replace(record, move_count=record.move_count - 1,
                                         revision=record.revision + 1, status=status, finished_ms=None)

    async def moves(self, table_id: str, after: int, limit: int = WINDOW) -> list[LoggedMove]:
        found = moves_window(self._moves.get(table_id, []), after, limit)
        if not found and table_id in self._archives:
            return moves_window(self._archived(table_id), after, limit)
        return found

    async def mark_recorded(self, table_id: str, recorded_ms: int) -> None:
        record = self._tables.get(table_id)
        if record is not None and record.recorded_ms is None:
            self._tables[table_id] = replace(record, recorded_ms=recorded_ms)

    async def unrecorded(self, limit: int = 1000, after: str = "",
                         finished_before_ms: int | None = None) -> list[str]:
        waiting = sorted((r for r in self._tables.values()
                          if r.finished_ms is not None and r.recorded_ms is None
                          and (finished_before_ms is None or r.finished_ms < finished_before_ms)),
                         key=lambda r: (r.finished_ms, r.table_id))
        if after:
            start = self._tables.get(after)
            if start is None or start.finished_ms is None:
                return []
            waiting = [r for r in waiting if (r.finished_ms, r.table_id) > (start.finished_ms, after)]
        return [r.table_id for r in waiting[:limit]]

    async def unrecorded_count(self) -> int:
        return sum(1 for r in self._tables.values() if r.finished_ms is not None and r.recorded_ms is None)

    async def unfinished(self, after: str = "", limit: int = 1000) -> list[str]:
        running = sorted(t for t, r in self._tables.items() if r.finished_ms is None and t > after)
        return running[:limit]

    async def delete(self, table_id: str) -> bool:
        self._moves.pop(table_id, None)
        self._archives.pop(table_id, None)
        return self._tables.pop(table_id, None) is not None

    async def compact(self, finished_before_ms: int, limit: int, now_ms: int) -> list[str]:
        due = sorted((r for r in self._tables.values()
                      if r.finished_ms is not None and r.finished_ms < finished_before_ms
                      and r.table_id not in self._archives),
                     key=lambda r: (r.finished_ms, r.table_id))[:max(limit, 0)]
        compacted = []
        for record in due:
            moves = self._moves[record.table_id]
            if is_whole(record.table_id, record.move_count, moves):
                self._archives[record.table_id] = (ARCHIVE_FORMAT, encode_archive(moves))
                self._moves[record.table_id] = []
                compacted.append(record.table_id)
        return compacted

    def _archived(self, table_id: str) -> list[LoggedMove]:
        format_, value = self._archives[table_id]
        return decode_archive(table_id, format_, value)

    def _at(self, table_id: str, expected: Position) -> TableRecord:
        record = self._tables.get(table_id)
        if record is None or record.position != expected:
            raise ConcurrentChange(f"table {table_id} moved on")
        return record

