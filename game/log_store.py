"""The move log, the truth of every table: its interface, what it holds and how it fails.

A table is a header (what it is, how many moves, its revision) and its numbered moves. Every
change is conditional on the position the caller read (move count, revision and the seed
commitment, which tells two tables that reused one id apart): of two changes computed from the
same position exactly one lands, the other raises :class:`ConcurrentChange`. A take-back lowers
the count and raises the revision, so a move computed before it is refused even though the
count is the same again. JSON stays text, exactly as the engine's move was written.

A finished table's log can be compacted (log retention, game.retention): its moves become one
archived value (game.log_archive) and its rows go, in one transaction. Reads do not change: the
archive is read only when a read finds no row.

The stores: game.memory_log_store (DATABASE_URL unset) and game.postgres_log_store.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from dataclasses import dataclass

from game.engine import Move

WINDOW = 256  # moves per read: a replay of a long log holds one window in memory


class LogError(Exception):
    """A failure of the log that callers handle (not a broken database)."""


class ConcurrentChange(LogError):
    """The table is no longer at the position the change was computed from."""


class DuplicateRequest(LogError):
    """The move's request id is already in the table's log: the move was made before."""


class CorruptLog(LogError):
    """A stored row cannot be read back; nothing was applied from it."""


class CompactionBusy(LogError):
    """Another replica is compacting logs right now (it holds the compaction's lease)."""


@dataclass(frozen=True)
class Position:
    """Where a table's log stands; a change is applied only at the position it was computed at."""

    move_count: int
    revision: int
    seed_commitment: str


@dataclass(frozen=True)
class TableRecord:
    """The header row of a table."""

    table_id: str
    game_type: str
    engine_version: str
    seed: bytes
    seed_commitment: str
    seats: tuple[str, ...]
    options_json: str
    status: str
    created_ms: int
    move_count: int = 0
    revision: int = 0
    finished_ms: int | None = None
    recorded_ms: int | None = None

    @property
    def position(self) -> Position:
        return Position(self.move_count, self.revision, self.seed_commitment)


@dataclass(frozen=True)
class LoggedMove:
    """One row of the log; ``seat`` is the seat's index (None for a system move)."""

    number: int
    type: str
    seat: int | None
    payload_json: str
    auto: bool
    random: bool
    created_ms: int
    request_id: str | None = None  # the caller's id of the move (ActRequest.request_id)

    def to_move(self, table_id: str) -> Move:
        """The engine's Move; CorruptLog when the stored payload is not a JSON object."""
        try:
            payload = json.loads(self.payload_json)
        except ValueError as error:
            raise CorruptLog(f"table {table_id}: move {self.number} is not valid JSON ({error})") from None
        if not isinstance(payload, dict):
            raise CorruptLog(f"table {table_id}: move {self.number} is not a JSON object")
        return Move(self.type, self.seat, payload, auto=self.auto, random=self.random)


class LogStore(ABC):
    """Tables and their moves. Methods naming an unknown table return None / raise ConcurrentChange."""

    @abstractmethod
    async def create(self, record: TableRecord) -> tuple[TableRecord, bool]:
        """Store a new table; when the id exists, the stored one and False (creation is idempotent)."""

    @abstractmethod
    async def header(self, table_id: str) -> TableRecord | None:
        """The header row alone (one row read)."""

    @abstractmethod
    async def positions(self, table_ids: list[str]) -> dict[str, Position]:
        """Where each of the tables' logs stands, in one read; unknown tables are left out."""

    @abstractmethod
    async def append(self, table_id: str, expected: Position, move: LoggedMove, status: str,
                     finished_ms: int | None) -> None:
        """Add move number ``expected.move_count + 1`` if the table is still at ``expected``;
        DuplicateRequest when the move's request id is in the log already."""

    @abstractmethod
    async def find_request(self, table_id: str, request_id: str) -> int | None:
        """The number of the table's move made for ``request_id``, or None."""

    @abstractmethod
    async def take_back(self, table_id: str, expected: Position, status: str) -> None:
        """Delete the last move if the table is still at ``expected``; the revision still grows."""

    @abstractmethod
    async def moves(self, table_id: str, after: int, limit: int = WINDOW) -> list[LoggedMove]:
        """Up to ``limit`` moves numbered above ``after``, in order."""

    @abstractmethod
    async def mark_recorded(self, table_id: str, recorded_ms: int) -> None:
        """Remember that stats accepted the table's result."""

    @abstractmethod
    async def unrecorded(self, limit: int = 1000, after: str = "",
                         finished_before_ms: int | None = None) -> list[str]:
        """Finished tables whose result stats has not accepted yet, oldest first (by finish
        time, then id): the matches waiting to be recorded.

        ``after``: a table id of the previous page; the page starts after it (a table purged
        since ends the listing early). ``finished_before_ms``: only tables finished before then.
        """

    @abstractmethod
    async def unrecorded_count(self) -> int:
        """How many finished tables wait to be recorded (the ``tavolo.matches_unrecorded`` gauge)."""

    @abstractmethod
    async def unfinished(self, after: str = "", limit: int = 1000) -> list[str]:
        """Ids of the tables not finished yet, in id order, above ``after`` (a page of them)."""

    @abstractmethod
    async def delete(self, table_id: str) -> bool:
        """Remove a table and its moves (purging finished tables); False when it did not exist."""

    @abstractmethod
    async def compact(self, finished_before_ms: int, limit: int, now_ms: int) -> list[str]:
        """Compact the logs of up to ``limit`` tables finished before ``finished_before_ms`` and
        not compacted yet (oldest first): each table's moves become one archived value and its
        move rows are deleted, all in one transaction. The ids compacted; their moves read the
        same afterwards. CompactionBusy when another replica is compacting now.
        """

    async def ping(self) -> None:
        """Raise when the store does not answer."""

    async def close(self) -> None:
        """Release connections."""

    async def windows(self, table_id: str, after: int = 0,
                      upto: int | None = None) -> AsyncIterator[list[LoggedMove]]:
        """The moves after ``after`` (up to number ``upto``), one window of WINDOW moves at a time."""
        while upto is None or after < upto:
            limit = WINDOW if upto is None else min(WINDOW, upto - after)
            window = await self.moves(table_id, after, limit)
            if not window:
                return
            yield window
            after = window[-1].number
            if len(window) < limit:
                return

    async def read_all(self, table_id: str, attempts: int = 5) -> tuple[TableRecord, list[LoggedMove]] | None:
        """Header and every move, consistent with each other, for a verifier.

        The moves are read in windows without a lock; when the revision changed meanwhile the
        read starts again, so the answer is the log as it stood at one revision.
        """
        for _ in range(attempts):
            header = await self.header(table_id)
            if header is None:
                return None
            moves = [m async for window in self.windows(table_id, 0, header.move_count) for m in window]
            again = await self.header(table_id)
            if again is not None and again.position == header.position and len(moves) == header.move_count:
                return header, moves
        raise ConcurrentChange(f"table {table_id}: the log kept changing while it was read")


def moves_window(moves: list[LoggedMove], after: int, limit: int) -> list[LoggedMove]:
    """Up to ``limit`` of a whole log's moves (numbered 1, 2, 3...) numbered above ``after``."""
    start = max(after, 0)
    return moves[start:start + max(limit, 0)]


def request_number(moves: list[LoggedMove], request_id: str) -> int | None:
    """The number of the move made with ``request_id``, None when none was."""
    return next((move.number for move in moves if move.request_id == request_id), None)
