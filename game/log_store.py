"""The move log, the truth of every table: one interface, a Postgres store and an in-memory one.

A table is a header (what it is, how many moves, its revision) and its numbered moves. Every
change is conditional on the position the caller read (move count, revision and the seed
commitment, which tells two tables that reused one id apart): of two changes computed from the
same position exactly one lands, the other raises :class:`ConcurrentChange`. A take-back lowers
the count and raises the revision, so a move computed before it is refused even though the
count is the same again. JSON stays text, exactly as the engine's move was written.

A finished table's log can be compacted (log retention, game.retention): its moves become one
archived value (compressed JSON) and its rows go, in one transaction. Reads do not change: the
archive is read only when a read finds no row.
"""

from __future__ import annotations

import contextlib
import json
import logging
import zlib
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, overload

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from game.engine import Move
from game.group_commit import GroupCommit
from services.stores import STATEMENT_CACHE_SIZE, postgres_pool

log = logging.getLogger(__name__)

WINDOW = 256  # moves per read: a replay of a long log holds one window in memory
ARCHIVE_FORMAT = 1  # game_archive.format (see the migration 0004_game_archive.sql)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


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
            found = _request_in(self._archived(table_id), request_id)
        return found

    async def take_back(self, table_id: str, expected: Position, status: str) -> None:
        record = self._at(table_id, expected)
        if record.move_count == 0:
            raise ConcurrentChange(f"table {table_id} has no move to take back")
        self._moves[table_id].pop()
        self._tables[table_id] = replace(record, move_count=record.move_count - 1,
                                         revision=record.revision + 1, status=status, finished_ms=None)

    async def moves(self, table_id: str, after: int, limit: int = WINDOW) -> list[LoggedMove]:
        found = _window(self._moves.get(table_id, []), after, limit)
        if not found and table_id in self._archives:
            return _window(self._archived(table_id), after, limit)
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
            if _whole(record.table_id, record.move_count, moves):
                self._archives[record.table_id] = (ARCHIVE_FORMAT, _encode_archive(moves))
                self._moves[record.table_id] = []
                compacted.append(record.table_id)
        return compacted

    def _archived(self, table_id: str) -> list[LoggedMove]:
        format_, value = self._archives[table_id]
        return _decode_archive(table_id, format_, value)

    def _at(self, table_id: str, expected: Position) -> TableRecord:
        record = self._tables.get(table_id)
        if record is None or record.position != expected:
            raise ConcurrentChange(f"table {table_id} moved on")
        return record


_HEADER_COLUMNS = """table_id, game_type, engine_version, seed, seed_commitment, seats, options_json,
    status, created_at, move_count, revision, finished_at, recorded_at"""

_APPEND = """
WITH bumped AS (
    UPDATE game_table
       SET move_count = move_count + 1, revision = revision + 1, status = $5, finished_at = $6
     WHERE table_id = $1 AND move_count = $2 AND revision = $3 AND seed_commitment = $4
 RETURNING table_id, move_count
)
INSERT INTO game_move (table_id, number, type, seat, payload_json, auto, random, created_at,
                       request_id)
SELECT table_id, move_count, $7, $8, $9, $10, $11, $12, $13 FROM bumped
RETURNING number
"""

# The appends of many tables in one statement (game.group_commit): each table's row is bumped
# only at its expected position, and only when the move's request id is not in its log yet;
# each input row answers "made", "duplicate", or nothing (the table moved on).
_APPEND_MANY = """
WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::text[],
                         $6::timestamptz[], $7::text[], $8::smallint[], $9::text[], $10::bool[],
                         $11::bool[], $12::timestamptz[], $13::text[]) WITH ORDINALITY
        AS i (table_id, move_count, revision, seed_commitment, status, finished_at, type, seat,
              payload_json, auto, random, created_at, request_id, n)
),
duplicate AS (
    SELECT i.n, i.table_id FROM input i
      JOIN game_move m ON m.table_id = i.table_id AND m.request_id = i.request_id
),
bumped AS (  -- two rows of one table bump it once, with one of them
    UPDATE game_table t
       SET move_count = t.move_count + 1, revision = t.revision + 1, status = i.status,
           finished_at = i.finished_at
      FROM input i
     WHERE t.table_id = i.table_id AND t.move_count = i.move_count AND t.revision = i.revision
       AND t.seed_commitment = i.seed_commitment
       AND i.table_id NOT IN (SELECT table_id FROM duplicate)
 RETURNING i.n, t.table_id, t.move_count, i.type, i.seat, i.payload_json, i.auto, i.random,
           i.created_at, i.request_id
),
inserted AS (
    INSERT INTO game_move (table_id, number, type, seat, payload_json, auto, random, created_at,
                           request_id)
    SELECT table_id, move_count, type, seat, payload_json, auto, random, created_at, request_id
      FROM bumped
)
SELECT n, 'made' AS outcome FROM bumped
UNION ALL
SELECT n, 'duplicate' FROM duplicate
"""

_TAKE_BACK = """
WITH lowered AS (
    UPDATE game_table
       SET move_count = move_count - 1, revision = revision + 1, status = $5, finished_at = NULL
     WHERE table_id = $1 AND move_count = $2 AND revision = $3 AND seed_commitment = $4
       AND move_count > 0
 RETURNING table_id
)
DELETE FROM game_move AS m USING lowered
 WHERE m.table_id = lowered.table_id AND m.number = $2
RETURNING m.number
"""

_MOVES = """
SELECT number, type, seat, payload_json, auto, random, created_at
  FROM game_move WHERE table_id = $1 AND number > $2 ORDER BY number LIMIT $3
"""

# -- compaction (one transaction per batch) ---------------------------------------------------
# Only one replica compacts at a time: a transaction-level advisory lock (a session-level one
# would not survive a transaction pooler); another replica that finds it taken skips its turn.
_COMPACTION_LEASE = "SELECT pg_try_advisory_xact_lock(hashtext('game-log-compaction'))"
# The oldest finished tables not compacted yet (the partial index game_table_unarchived); their
# rows stay locked until the batch commits.
_DUE = """
SELECT table_id, move_count FROM game_table
 WHERE finished_at IS NOT NULL AND archived_at IS NULL AND finished_at < $1
 ORDER BY finished_at LIMIT $2
   FOR NO KEY UPDATE SKIP LOCKED
"""
_DUE_MOVES = """
SELECT table_id, number, type, seat, payload_json, auto, random, created_at, request_id
  FROM game_move WHERE table_id = ANY($1::uuid[]) ORDER BY table_id, number
"""
_ARCHIVE = """
WITH archived AS (
    INSERT INTO game_archive (table_id, format, moves)
    SELECT * FROM unnest($1::uuid[], $2::smallint[], $3::bytea[])
    RETURNING table_id
),
marked AS (
    UPDATE game_table t SET archived_at = $4 FROM archived a WHERE t.table_id = a.table_id
)
DELETE FROM game_move m USING archived a WHERE m.table_id = a.table_id
"""


# Finished tables not recorded yet, oldest first (the partial index game_table_unrecorded).
_UNRECORDED = """
SELECT table_id FROM game_table
 WHERE finished_at IS NOT NULL AND recorded_at IS NULL
   AND ($2::timestamptz IS NULL OR finished_at < $2)
 ORDER BY finished_at, table_id LIMIT $1
"""
_UNRECORDED_AFTER = """
SELECT table_id FROM game_table
 WHERE finished_at IS NOT NULL AND recorded_at IS NULL
   AND ($2::timestamptz IS NULL OR finished_at < $2)
   AND (finished_at, table_id) > (SELECT finished_at, table_id FROM game_table WHERE table_id = $3)
 ORDER BY finished_at, table_id LIMIT $1
"""

_NIL_UUID = "00000000-0000-0000-0000-000000000000"  # below every table id (uuid order = hex order)


@dataclass(frozen=True)
class _Append:
    table_id: str
    expected: Position
    move: LoggedMove
    status: str
    finished_ms: int | None


class PostgresLogStore(LogStore):
    """The log in Postgres (asyncpg). An append is one statement: the conditional UPDATE of the
    header and the INSERT of the move run in one transaction, in one round trip. Under load the
    appends of many tables share a statement (game.group_commit), each still checked against
    its own table's position."""

    def __init__(self, pool: asyncpg.Pool):
        self._pool = pool
        self.appends = GroupCommit(self._append_many, self._append_one)

    @classmethod
    async def open(cls, dsn: str, min_size: int = 1, max_size: int = 10, *,
                   statement_cache_size: int = STATEMENT_CACHE_SIZE) -> PostgresLogStore:
        """A store with a pool of its own.

        The store keeps no session state (no transaction spans two calls, no LISTEN, no SET),
        so a connection goes back to the pool without asyncpg's reset query: a round trip
        less on every read and append. The reset query was also what found a broken
        connection; :meth:`_connection` closes those instead, so none is handed out again.
        For the same reason ``dsn`` may go through a transaction pooler.
        """
        pool = await postgres_pool(dsn, min_size=min_size, max_size=max_size, name="game_log",
                                   statement_cache_size=statement_cache_size,
                                   reset=_rollback_if_needed)
        return cls(pool)

    async def create(self, record: TableRecord) -> tuple[TableRecord, bool]:
        inserted = await self._fetchval(
            f"""INSERT INTO game_table ({_HEADER_COLUMNS})
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
                ON CONFLICT (table_id) DO NOTHING RETURNING table_id""",
            record.table_id, record.game_type, record.engine_version, record.seed,
            record.seed_commitment, list(record.seats), record.options_json, record.status,
            _time(record.created_ms), record.move_count, record.revision,
            _time(record.finished_ms), _time(record.recorded_ms),
        )
        if inserted is not None:
            return record, True
        existing = await self.header(record.table_id)
        if existing is None:  # deleted between the two statements: try once more
            return await self.create(record)
        return existing, False

    async def positions(self, table_ids: list[str]) -> dict[str, Position]:
        rows = await self._fetch(
            "SELECT table_id, move_count, revision, seed_commitment FROM game_table"
            " WHERE table_id = ANY($1::uuid[])", table_ids)
        return {str(row["table_id"]): Position(row["move_count"], row["revision"], row["seed_commitment"])
                for row in rows}

    async def header(self, table_id: str) -> TableRecord | None:
        row = await self._fetchrow(
            f"SELECT {_HEADER_COLUMNS} FROM game_table WHERE table_id = $1", table_id)
        if row is None:
            return None
        return TableRecord(
            table_id=str(row["table_id"]), game_type=row["game_type"],
            engine_version=row["engine_version"], seed=bytes(row["seed"]),
            seed_commitment=row["seed_commitment"], seats=tuple(row["seats"]),
            options_json=row["options_json"], status=row["status"],
            created_ms=_ms(row["created_at"]), move_count=row["move_count"],
            revision=row["revision"], finished_ms=_ms(row["finished_at"]),
            recorded_ms=_ms(row["recorded_at"]),
        )

    async def append(self, table_id: str, expected: Position, move: LoggedMove, status: str,
                     finished_ms: int | None) -> None:
        await self.appends.submit(_Append(table_id, expected, move, status, finished_ms))

    async def _append_one(self, append: _Append) -> None:
        table_id, expected, move = append.table_id, append.expected, append.move
        try:
            number = await self._fetchval(
                _APPEND, table_id, expected.move_count, expected.revision, expected.seed_commitment,
                append.status, _time(append.finished_ms), move.type, move.seat, move.payload_json,
                move.auto, move.random, _time(move.created_ms), move.request_id,
            )
        except asyncpg.UniqueViolationError as error:  # the transaction rolled back whole
            if error.constraint_name != "game_move_request":
                raise
            raise DuplicateRequest(f"table {table_id}: request {move.request_id} was made") from None
        if number is None:
            raise ConcurrentChange(f"table {table_id} moved on")

    async def _append_many(self, appends: list[_Append]) -> list[LogError | None]:
        columns = list(zip(*(
            (a.table_id, a.expected.move_count, a.expected.revision, a.expected.seed_commitment,
             a.status, _time(a.finished_ms), a.move.type, a.move.seat, a.move.payload_json,
             a.move.auto, a.move.random, _time(a.move.created_ms), a.move.request_id)
            for a in appends), strict=True))
        rows = await self._fetch(_APPEND_MANY, *columns)
        outcome = {row["n"]: row["outcome"] for row in rows}  # n counts the appends from 1
        return [None if outcome.get(n) == "made"
                else DuplicateRequest(f"table {a.table_id}: request {a.move.request_id} was made")
                if outcome.get(n) == "duplicate"
                else ConcurrentChange(f"table {a.table_id} moved on")
                for n, a in enumerate(appends, start=1)]

    async def find_request(self, table_id: str, request_id: str) -> int | None:
        number: int | None = await self._fetchval(
            "SELECT number FROM game_move WHERE table_id = $1 AND request_id = $2",
            table_id, request_id)
        if number is None:  # a retry is refused first, so only a refusal reads the archive
            archived = await self._archived(table_id)
            number = None if archived is None else _request_in(archived, request_id)
        return number

    async def take_back(self, table_id: str, expected: Position, status: str) -> None:
        number = await self._fetchval(
            _TAKE_BACK, table_id, expected.move_count, expected.revision, expected.seed_commitment,
            status,
        )
        if number is None:
            raise ConcurrentChange(f"table {table_id} moved on")

    async def moves(self, table_id: str, after: int, limit: int = WINDOW) -> list[LoggedMove]:
        rows = await self._fetch(_MOVES, table_id, after, limit)
        if not rows and limit > 0:  # a compacted table (or past the end, or no such table)
            archived = await self._archived(table_id)
            return [] if archived is None else _window(archived, after, limit)
        return [
            LoggedMove(number, kind, seat, payload, auto, rnd, (created - _EPOCH) // _MS)
            for number, kind, seat, payload, auto, rnd, created in rows
        ]

    async def _archived(self, table_id: str) -> list[LoggedMove] | None:
        """The compacted moves of the table, or None when its log is not compacted."""
        row = await self._fetchrow("SELECT format, moves FROM game_archive WHERE table_id = $1",
                                   table_id)
        return None if row is None else _decode_archive(table_id, row["format"], bytes(row["moves"]))

    async def mark_recorded(self, table_id: str, recorded_ms: int) -> None:
        await self._execute(
            "UPDATE game_table SET recorded_at = $2 WHERE table_id = $1 AND recorded_at IS NULL",
            table_id, _time(recorded_ms))

    async def unrecorded(self, limit: int = 1000, after: str = "",
                         finished_before_ms: int | None = None) -> list[str]:
        before = _time(finished_before_ms)
        async with self._connection() as connection:
            if after:
                rows = await connection.fetch(_UNRECORDED_AFTER, limit, before, after)
            else:
                rows = await connection.fetch(_UNRECORDED, limit, before)
        return [str(row["table_id"]) for row in rows]

    async def unrecorded_count(self) -> int:
        async with self._connection() as connection:
            count: int = await connection.fetchval(
                """SELECT count(*) FROM game_table
                    WHERE finished_at IS NOT NULL AND recorded_at IS NULL""")
            return count

    async def unfinished(self, after: str = "", limit: int = 1000) -> list[str]:
        rows = await self._fetch(
            """SELECT table_id FROM game_table
                WHERE finished_at IS NULL AND table_id > $1::uuid
                ORDER BY table_id LIMIT $2""", after or _NIL_UUID, limit)
        return [str(row["table_id"]) for row in rows]

    async def delete(self, table_id: str) -> bool:
        status = await self._execute("DELETE FROM game_table WHERE table_id = $1", table_id)
        return status != "DELETE 0"

    async def compact(self, finished_before_ms: int, limit: int, now_ms: int) -> list[str]:
        async with self._connection() as connection, connection.transaction():
            leased = await connection.fetchval(_COMPACTION_LEASE)
            compacted = await _compact_batch(connection, finished_before_ms, limit, now_ms) if leased else []
        if not leased:  # raised here: the connection is healthy and goes back to the pool
            raise CompactionBusy("another replica is compacting logs")
        return compacted

    async def ping(self) -> None:
        await self._fetchval("SELECT 1")

    async def close(self) -> None:
        await self._pool.close()

    # -- connections --------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[PoolConnectionProxy]:
        """A pooled connection that goes back to the pool only in a known state.

        The pool releases connections without a reset query (``_rollback_if_needed``), so
        nothing else would notice a connection the driver left in the middle of an exchange:
        one whose server went away (a Postgres restart, pg_terminate_backend), one that raised
        a driver error ("another operation is in progress"), one whose call was cancelled or
        timed out. Reused, such a connection fails every later call. Any failure but a
        statement-level refusal of a healthy server therefore closes the connection; the pool
        opens a fresh one for the next caller.
        """
        async with self._pool.acquire() as connection:
            try:
                yield connection
            except asyncpg.PostgresError as error:
                if isinstance(error, _CONNECTION_LOST):
                    _discard(connection)
                raise
            except BaseException:
                _discard(connection)
                raise

    async def _fetchval(self, query: str, *args: Any) -> Any:
        async with self._connection() as connection:
            return await connection.fetchval(query, *args)

    async def _fetchrow(self, query: str, *args: Any) -> asyncpg.Record | None:
        async with self._connection() as connection:
            return await connection.fetchrow(query, *args)

    async def _fetch(self, query: str, *args: Any) -> list[asyncpg.Record]:
        async with self._connection() as connection:
            return await connection.fetch(query, *args)

    async def _execute(self, query: str, *args: Any) -> str:
        async with self._connection() as connection:
            return await connection.execute(query, *args)


# Errors the server sends as it drops the session (a restart, an administrator's termination,
# a crash of another backend): the connection is not worth keeping.
_CONNECTION_LOST = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.FatalPostgresError,
)


def _discard(connection: PoolConnectionProxy) -> None:
    """Close a pooled connection now (the pool replaces it); one the driver already closed and
    gave back is left alone."""
    with contextlib.suppress(asyncpg.InterfaceError):  # closed by the driver and released already
        connection.terminate()


async def _rollback_if_needed(connection: asyncpg.Connection) -> None:
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK")


async def _compact_batch(connection: PoolConnectionProxy, finished_before_ms: int, limit: int,
                         now_ms: int) -> list[str]:
    """One batch of PostgresLogStore.compact, inside its transaction and lease."""
    due = await connection.fetch(_DUE, _time(finished_before_ms), limit)
    if not due:
        return []
    moves: dict[str, list[LoggedMove]] = {str(row["table_id"]): [] for row in due}
    for row in await connection.fetch(_DUE_MOVES, list(moves)):
        moves[str(row["table_id"])].append(LoggedMove(
            row["number"], row["type"], row["seat"], row["payload_json"], row["auto"],
            row["random"], (row["created_at"] - _EPOCH) // _MS, row["request_id"]))
    whole = [str(row["table_id"]) for row in due
             if _whole(str(row["table_id"]), row["move_count"], moves[str(row["table_id"])])]
    if whole:
        await connection.execute(_ARCHIVE, whole, [ARCHIVE_FORMAT] * len(whole),
                                 [_encode_archive(moves[t]) for t in whole], _time(now_ms))
    return whole


def _window(moves: list[LoggedMove], after: int, limit: int) -> list[LoggedMove]:
    """Up to ``limit`` of a whole log's moves (numbered 1, 2, 3...) numbered above ``after``."""
    start = max(after, 0)
    return moves[start:start + max(limit, 0)]


def _request_in(moves: list[LoggedMove], request_id: str) -> int | None:
    return next((move.number for move in moves if move.request_id == request_id), None)


def _whole(table_id: str, move_count: int, moves: list[LoggedMove]) -> bool:
    """The table's moves are all there, numbered 1, 2, 3...: only such a log is compacted."""
    if [move.number for move in moves] == list(range(1, move_count + 1)):
        return True
    log.error("table %s: its log has %d move rows for a move count of %d, or a gap; it is not "
              "compacted", table_id, len(moves), move_count)
    return False


def _encode_archive(moves: Sequence[LoggedMove]) -> bytes:
    """A whole log as one archived value (format 1: migrations/0004_game_archive.sql). The
    payload stays the engine's text, a string inside the JSON, so it comes back byte for byte."""
    rows = [[m.number, m.type, m.seat, m.payload_json, m.auto, m.random, m.created_ms, m.request_id]
            for m in moves]
    return zlib.compress(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode())


def _decode_archive(table_id: str, format_: int, value: bytes) -> list[LoggedMove]:
    """The archived moves, in order; CorruptLog when the value cannot be read back."""
    if format_ != ARCHIVE_FORMAT:
        raise CorruptLog(f"table {table_id}: its archived log has the unknown format {format_}")
    try:
        moves = [LoggedMove(number, kind, seat, payload, auto, rnd, created, request)
                 for number, kind, seat, payload, auto, rnd, created, request
                 in json.loads(zlib.decompress(value))]
    except (zlib.error, ValueError, TypeError) as error:
        raise CorruptLog(f"table {table_id}: its archived log cannot be read ({error})") from None
    if [move.number for move in moves] != list(range(1, len(moves) + 1)):
        raise CorruptLog(f"table {table_id}: its archived moves are not numbered 1, 2, 3...")
    return moves


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else _EPOCH + timedelta(milliseconds=ms)


@overload
def _ms(moment: datetime) -> int: ...


@overload
def _ms(moment: None) -> None: ...


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // _MS
