"""The move log in Postgres (asyncpg): appends grouped into shared statements, compaction of
old finished logs into game_archive."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, overload

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from game.group_commit import GroupCommit
from game.log_archive import ARCHIVE_FORMAT, decode_archive, encode_archive, is_whole
from game.log_store import (
    WINDOW,
    CompactionBusy,
    ConcurrentChange,
    DuplicateRequest,
    LogError,
    LoggedMove,
    LogStore,
    Position,
    TableRecord,
    moves_window,
    request_number,
)
from services.stores import STATEMENT_CACHE_SIZE, postgres_pool

log = logging.getLogger(__name__)

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


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
            number = None if archived is None else request_number(archived, request_id)
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
            return [] if archived is None else moves_window(archived, after, limit)
        return [
            LoggedMove(number, kind, seat, payload, auto, rnd, (created - _EPOCH) // _MS)
            for number, kind, seat, payload, auto, rnd, created in rows
        ]

    async def _archived(self, table_id: str) -> list[LoggedMove] | None:
        """The compacted moves of the table, or None when its log is not compacted."""
        row = await self._fetchrow("SELECT format, moves FROM game_archive WHERE table_id = $1",
                                   table_id)
        return None if row is None else decode_archive(table_id, row["format"], bytes(row["moves"]))

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
             if is_whole(str(row["table_id"]), row["move_count"], moves[str(row["table_id"])])]
    if whole:
        await connection.execute(_ARCHIVE, whole, [ARCHIVE_FORMAT] * len(whole),
                                 [encode_archive(moves[t]) for t in whole], _time(now_ms))
    return whole



def _time(ms: int | None) -> datetime | None:
    return None if ms is None else _EPOCH + timedelta(milliseconds=ms)


@overload
def _ms(moment: datetime) -> int: ...


@overload
def _ms(moment: None) -> None: ...


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // _MS
