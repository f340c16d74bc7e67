"""Where matches and ratings are kept: one interface, an in-memory store and a Postgres store.

Both stores settle Elo with :func:`stats.standings.settle` inside the write that records the
match, so a match, its players and every player's new rating land together or not at all.
The in-memory store (``DATABASE_URL`` unset) serves a single replica; one behaviour test suite
runs against both.

An erasure racing a recording. RecordMatch reads the lobby's seating before its write, so a
member erased in between (the gateway erases in the lobby first, then here) would be written
under their real id after their erasure. Each erasure therefore leaves a mark: a numbered
SHA-256 of the member id (never the id), kept ERASURE_MARK_RETENTION, just long enough to cover
a recording in flight. The recording takes ``erasure_mark()`` (the newest number) before it
reads the seating and, inside its write, after it has serialized with erasures (a table lock),
writes as erased every player whose hash was marked after that number. An erasure marked at or
before the number had already finished in the lobby, so the seating showed its seat erased; an
erasure that commits after the write finds the rows and anonymizes them. Only erasures after
the read count, so a member who comes back after deleting their account is rated as anyone.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import overload

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from services.rpc.errors import Reason, ServiceError
from services.stores import POSTGRES_DOWN, unavailable_on
from stats.model import (
    ERASED_NAME,
    LeaderboardRow,
    Match,
    Player,
    Position,
    Rating,
    RecalculationSummary,
    erased_member_id,
)
from stats.standings import (
    Ledger,
    Standing,
    counted,
    history_order,
    is_rated,
    members,
    moved,
    settle,
    with_deltas,
)

log = logging.getLogger(__name__)

# How long an erasure's mark is kept: far beyond any recording in flight (a lobby call and a
# transaction, each with timeouts of seconds).
ERASURE_MARK_RETENTION = timedelta(hours=1)


def member_hash(member_id: str) -> bytes:
    return hashlib.sha256(member_id.encode("utf-8")).digest()


def _erased_meanwhile(match: Match, hashes: Collection[bytes],
                      new_member_id: Callable[[], str]) -> Match:
    """The match with every player whose member id hashes into ``hashes`` anonymized."""
    if not hashes:
        return match
    erased = {p.seat_index for p in members(match) if member_hash(p.member_id) in hashes}
    players = tuple(p.anonymized(new_member_id()) if p.seat_index in erased else p
                    for p in match.players)
    return replace(match, players=players)


class StatsRepository(ABC):
    """The stats store. Every method is atomic; ``record_match`` is idempotent on the match id."""

    @abstractmethod
    async def get_match(self, match_id: str) -> Match | None:
        """The recorded match, or None."""

    @abstractmethod
    async def erasure_mark(self) -> int:
        """The number of the newest erasure: take it before reading a seating, pass it to
        ``record_match`` (see the module's docstring)."""

    @abstractmethod
    async def record_match(self, match: Match,
                           erasures_after: int | None = None) -> tuple[Match, bool]:
        """Record ``match`` (its players' deltas and whether it is rated are computed here)
        and update the ratings of the players it moves (stats.standings: not the erased, no
        bot, nobody in a practice match, only the abandoners in an abandoned one).

        With ``erasures_after`` (an ``erasure_mark()``), players whose member was erased since
        that mark are written as erased. Returns the stored match and True; when a match with
        this id is already recorded, returns that one and False and changes nothing.
        """

    @abstractmethod
    async def list_matches(self, member_id: str, game_type: str | None, limit: int,
                           after: Position | None) -> list[Match]:
        """Up to ``limit`` of the member's matches older than ``after``, newest first."""

    @abstractmethod
    async def ratings(self, member_id: str) -> list[Rating]:
        """The member's rating in every game type they played, by game type id."""

    @abstractmethod
    async def totals(self, member_id: str) -> tuple[int, int]:
        """(matches, wins): every match recorded for the member, of any game type, practice and
        abandoned ones included, and those their team won."""

    @abstractmethod
    async def leaderboard(self, game_type: str, limit: int) -> list[LeaderboardRow]:
        """By rating, then wins (both highest first), then member id."""

    @abstractmethod
    async def erase_member(self, member_id: str) -> int:
        """Anonymize the member's match rows (each under a fresh random id of its own, so they
        cannot be linked), drop their ratings, mark the erasure; returns how many rows were
        anonymized."""

    @abstractmethod
    async def recalculate(self) -> RecalculationSummary:
        """Recompute every Elo delta and rating from the history, in finished order (a match
        with an erased player counts as recorded: see stats.standings)."""

    async def probe(self) -> None:
        """Raises while the store does not answer."""

    async def close(self) -> None:
        """Release connections."""


# -- in memory -----------------------------------------------------------------------------


class MemoryStatsRepository(StatsRepository):
    """Everything in dicts. No method awaits between reading and writing, so each is atomic."""

    def __init__(self, new_member_id: Callable[[], str] = erased_member_id,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._matches: dict[str, Match] = {}
        self._history: dict[str, set[str]] = {}  # member id -> ids of their matches
        self._ledger = Ledger()
        self._new_member_id = new_member_id
        self._clock = clock
        self._erasures: list[tuple[int, bytes, float]] = []  # (number, member hash, when)
        self._erasure_count = 0

    async def get_match(self, match_id: str) -> Match | None:
        match = self._matches.get(match_id)
        return copy.deepcopy(match) if match is not None else None

    async def erasure_mark(self) -> int:
        horizon = self._clock() - ERASURE_MARK_RETENTION.total_seconds()
        self._erasures = [e for e in self._erasures if e[2] >= horizon]
        return self._erasure_count

    async def record_match(self, match: Match,
                           erasures_after: int | None = None) -> tuple[Match, bool]:
        existing = self._matches.get(match.id)
        if existing is not None:
            return copy.deepcopy(existing), False
        if erasures_after is not None:
            match = _erased_meanwhile(
                match, {h for number, h, _ in self._erasures if number > erasures_after},
                self._new_member_id)
        settled = with_deltas(copy.deepcopy(match), self._ledger.settle(match))
        self._matches[match.id] = settled
        for player in settled.players:
            if player.bot_level is None:  # a bot is nobody: it has no history
                self._history.setdefault(player.member_id, set()).add(match.id)
        return copy.deepcopy(settled), True

    async def list_matches(self, member_id: str, game_type: str | None, limit: int,
                           after: Position | None) -> list[Match]:
        matches = [self._matches[match_id] for match_id in self._history.get(member_id, ())]
        if game_type is not None:
            matches = [m for m in matches if m.game_type == game_type]
        if after is not None:
            matches = [m for m in matches if history_order(m) < (after.finished_ms, after.match_id)]
        matches.sort(key=history_order, reverse=True)
        return copy.deepcopy(matches[:limit])

    async def ratings(self, member_id: str) -> list[Rating]:
        return [Rating(game_type, s.rating, s.matches)
                for (member, game_type), s in sorted(self._ledger.standings.items())
                if member == member_id and s.matches > 0]

    async def totals(self, member_id: str) -> tuple[int, int]:
        played = [self._matches[match_id] for match_id in self._history.get(member_id, ())]
        wins = sum(1 for match in played for player in match.players
                   if player.member_id == member_id and player.won)
        return len(played), wins

    async def leaderboard(self, game_type: str, limit: int) -> list[LeaderboardRow]:
        rows = [LeaderboardRow(member, s.display_name, s.rating, s.wins, s.matches, s.points,
                               s.player)
                for (member, kind), s in self._ledger.standings.items()
                if kind == game_type and s.matches > 0]
        rows.sort(key=lambda row: (-row.rating, -row.wins, row.member_id))
        return rows[:limit]

    async def erase_member(self, member_id: str) -> int:
        self._erasure_count += 1
        self._erasures.append((self._erasure_count, member_hash(member_id), self._clock()))
        anonymized = 0
        for match_id in self._history.pop(member_id, set()):
            match = self._matches[match_id]
            players = []
            for player in match.players:
                if player.member_id == member_id:
                    player = player.anonymized(self._new_member_id())  # one id per row
                    self._history.setdefault(player.member_id, set()).add(match_id)
                    anonymized += 1
                players.append(player)
            self._matches[match_id] = replace(match, players=tuple(players))
        standings = self._ledger.standings
        for key in [key for key in standings if key[0] == member_id]:
            del standings[key]
        return anonymized

    async def recalculate(self) -> RecalculationSummary:
        ordered = sorted(self._matches.values(), key=history_order)
        ledger = Ledger()
        settled = [with_deltas(match, ledger.replay(match)) for match in ordered]
        changed = sum(old.elo_delta != new.elo_delta
                      for before, after in zip(ordered, settled, strict=True)
                      for old, new in zip(before.players, after.players, strict=True))
        self._matches = {match.id: match for match in settled}
        self._ledger = ledger
        return RecalculationSummary(len(settled), len(ledger.standings), changed)


# -- Postgres ------------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
# What a query runs on: a connection of the pool (a proxy, to the type checker).
_Connection = asyncpg.Connection | PoolConnectionProxy

# Conflicts Postgres resolves by aborting one transaction; the write is simply tried again.
_RETRYABLE = (asyncpg.exceptions.DeadlockDetectedError, asyncpg.exceptions.SerializationError)
_ATTEMPTS = 3


@overload
def _datetime(ms: int) -> datetime: ...
@overload
def _datetime(ms: None) -> None: ...
def _datetime(ms: int | None) -> datetime | None:
    """The moment ``ms`` (milliseconds since the epoch); None (no match yet) stays NULL."""
    return None if ms is None else _EPOCH + ms * _MS


def _ms(moment: datetime) -> int:
    return (moment - _EPOCH) // _MS


def _database_call(method):
    """A repository call: tried again after a conflict; UNAVAILABLE (retry later), never an
    UNKNOWN or INTERNAL error, when the conflicts go on or the database does not answer (the
    kit's POSTGRES_DOWN). A connection a restart broke ("another operation is in progress") is
    not handed out again: the pool's reset query closes it."""
    @functools.wraps(method)
    async def wrapper(self, *args, **kwargs):
        with unavailable_on(POSTGRES_DOWN, "stats database"):
            for attempt in range(1, _ATTEMPTS + 1):
                try:
                    return await method(self, *args, **kwargs)
                except _RETRYABLE as error:
                    if attempt == _ATTEMPTS:
                        log.warning("stats: %s gave up after %d conflicts: %s", method.__name__,
                                    attempt, error)
                        raise ServiceError(Reason.UNAVAILABLE,
                                           "The stats database is busy: try again") from error
    return wrapper


_INSERT_MATCH = """
INSERT INTO match (id, game_type, started_at, finished_at, result, rated)
VALUES ($1, $2, $3, $4, $5::jsonb, $6)
ON CONFLICT (id) DO NOTHING
RETURNING true
"""
# Rating rows exist before they are locked, so two first matches of one member serialize on
# the row instead of both starting from 1500. Sorted inserts and sorted locks: no deadlocks.
# Rows are made for the players the match moves; those it only reads (the others of an
# abandoned match) are locked when they exist and are 1500 when they do not.
_ENSURE_RATINGS = """
INSERT INTO player_rating (member_id, game_type)
SELECT member_id, $2 FROM unnest($1::text[]) AS m(member_id) ORDER BY member_id COLLATE "C"
ON CONFLICT (member_id, game_type) DO NOTHING
"""
_LOCK_RATINGS = """
SELECT member_id, rating, matches, wins, points, display_name, last_finished_at,
       coalesce(player_id, '') AS player_id
FROM player_rating WHERE game_type = $1 AND member_id = ANY($2::text[])
ORDER BY member_id FOR UPDATE
"""
_INSERT_PLAYER = """
INSERT INTO match_player (match_id, member_id, display_name, seat, team, won, points, elo_delta,
                          details, game_type, finished_at, erased, bot_level, abandoned,
                          player_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14, $15)
"""
# Taken by a recording before it looks for erasures: it conflicts with the lock an erasure
# takes (_ERASE), so an erasure either committed before the look or waits for the recording.
_LOCK_AGAINST_ERASURE = "LOCK TABLE player_rating IN ROW EXCLUSIVE MODE"
_PRUNE_MARKS = (f"DELETE FROM erased_member WHERE erased_at < now() - interval "
                f"'{int(ERASURE_MARK_RETENTION.total_seconds())} seconds'")
# The data-modifying CTE prunes old marks; the max still sees them (one snapshot), which is
# harmless: the newest mark is never among the pruned.
_ERASURE_MARK = f"""
WITH pruned AS ({_PRUNE_MARKS})
SELECT coalesce(max(seq), 0) FROM erased_member
"""
_ERASED_SINCE = """
SELECT member_hash FROM erased_member WHERE seq > $1 AND member_hash = ANY($2::bytea[])
"""
_UPDATE_RATING = """
UPDATE player_rating
SET rating = $3, matches = $4, wins = $5, points = $6, display_name = $7, last_finished_at = $8,
    player_id = $9
WHERE member_id = $1 AND game_type = $2
"""
_SELECT_MATCHES = """
SELECT id::text, game_type, started_at, finished_at, result::text, rated FROM match
WHERE id = ANY($1::uuid[])
"""
_SELECT_PLAYERS = """
SELECT match_id::text, seat, coalesce(member_id, '') AS member_id, display_name, team, won, points,
       elo_delta, details::text, erased, bot_level, abandoned, coalesce(player_id, '') AS player_id
FROM match_player WHERE match_id = ANY($1::uuid[]) ORDER BY match_id, seat
"""
_SELECT_RATINGS = """
SELECT game_type, rating, matches FROM player_rating
WHERE member_id = $1 AND matches > 0 ORDER BY game_type
"""
# One range of the history index: as many rows as the member played matches.
_SELECT_TOTALS = """
SELECT count(*)::int AS matches, (count(*) FILTER (WHERE won))::int AS wins
FROM match_player WHERE member_id = $1
"""
_SELECT_LEADERBOARD = """
SELECT member_id, display_name, rating, wins, matches, points, coalesce(player_id, '') AS player_id
FROM player_rating
WHERE game_type = $1 AND matches > 0
ORDER BY rating DESC, wins DESC, member_id
LIMIT $2
"""
# Erasure and backfill take a table lock that conflicts with the one every recording takes
# before its rating work (_LOCK_AGAINST_ERASURE): no recording can slip a row of the member in
# between (nor see a half-recalculated table). Plain reads are never blocked. Every anonymized
# row gets its own random id (gen_random_uuid() is evaluated per row), so the erased rows
# cannot be linked to each other; the mark (a hash, see the module's docstring) catches a
# recording that read the seating before the erasure.
_ERASE = (
    "LOCK TABLE player_rating IN SHARE ROW EXCLUSIVE MODE",
    _PRUNE_MARKS,
    "INSERT INTO erased_member (member_hash) VALUES ($1)",
    """UPDATE match_player
       SET member_id = 'deleted-' || replace(gen_random_uuid()::text, '-', ''),
           display_name = $2, erased = true, player_id = NULL
       WHERE member_id = $1""",
    "DELETE FROM player_rating WHERE member_id = $1",
)
_HISTORY_IN_FINISHED_ORDER = """
SELECT m.id::text AS match_id, m.game_type, m.finished_at, p.seat,
       coalesce(p.member_id, '') AS member_id, p.display_name, p.team, p.won, p.points,
       p.elo_delta, p.erased, p.bot_level, p.abandoned, coalesce(p.player_id, '') AS player_id
FROM match m JOIN match_player p ON p.match_id = m.id
ORDER BY m.finished_at, m.id, p.seat
"""
_RATING_COLUMNS = ("member_id", "game_type", "rating", "matches", "wins", "points",
                   "display_name", "last_finished_at", "player_id")


def _page_query(member_id: str, game_type: str | None, limit: int,
                after: Position | None) -> tuple[str, list]:
    """A member's page of match ids: one range scan of a history index, whatever the filter."""
    arguments: list = [member_id]
    conditions = ["member_id = $1"]
    if game_type is not None:
        arguments.append(game_type)
        conditions.append(f"game_type = ${len(arguments)}")
    if after is not None:
        arguments += [_datetime(after.finished_ms), after.match_id]
        conditions.append(f"(finished_at, match_id) < (${len(arguments) - 1}::timestamptz, "
                          f"${len(arguments)}::uuid)")
    arguments.append(limit)
    query = (f"SELECT match_id::text FROM match_player WHERE {' AND '.join(conditions)} "
             f"ORDER BY finished_at DESC, match_id DESC LIMIT ${len(arguments)}")
    return query, arguments


class PostgresStatsRepository(StatsRepository):
    """The tables of ``stats/migrations`` through an asyncpg pool.

    With ``read_pool`` (DATABASE_READ_URL: a read replica) the history, ratings and
    leaderboard are read there, and may lag the writes by the replica's delay. Everything that
    must see the newest writes stays on ``pool``: the writes themselves, and recording's reads
    (whether the match is recorded already, the newest erasure mark)."""

    def __init__(self, pool: asyncpg.Pool, read_pool: asyncpg.Pool | None = None):
        self._pool = pool
        self._read_pool = read_pool if read_pool is not None else pool

    async def probe(self) -> None:
        # The primary only: recording (which the game retries until it lands) must not wait
        # for a replica; a replica that does not answer fails only its reads, as UNAVAILABLE.
        await self._pool.fetchval("SELECT 1")

    async def close(self) -> None:
        if self._read_pool is not self._pool:
            await self._read_pool.close()
        await self._pool.close()

    @_database_call
    async def get_match(self, match_id: str) -> Match | None:
        async with self._pool.acquire() as connection:
            matches = await self._fetch_matches(connection, [match_id])
        return matches[0] if matches else None

    @_database_call
    async def erasure_mark(self) -> int:
        return await self._pool.fetchval(_ERASURE_MARK)

    @_database_call
    async def record_match(self, match: Match,
                           erasures_after: int | None = None) -> tuple[Match, bool]:
        async with self._pool.acquire() as connection, connection.transaction():
            inserted = await connection.fetchval(
                _INSERT_MATCH, match.id, match.game_type, _datetime(match.started_ms),
                _datetime(match.finished_ms), json.dumps(match.result), is_rated(match))
            if not inserted:
                # Another call recorded it (ON CONFLICT waited for it to commit).
                (existing,) = await self._fetch_matches(connection, [match.id])
                return existing, False
            await connection.execute(_LOCK_AGAINST_ERASURE)
            if erasures_after is not None:
                hashes = [member_hash(p.member_id) for p in members(match)]
                found = await connection.fetch(_ERASED_SINCE, erasures_after, hashes)
                match = _erased_meanwhile(match, {bytes(row[0]) for row in found},
                                          erased_member_id)
            movers = sorted(p.member_id for p in moved(match))
            readers = sorted(p.member_id for p in counted(match))
            if movers:
                await connection.execute(_ENSURE_RATINGS, movers, match.game_type)
            rows = await connection.fetch(_LOCK_RATINGS, match.game_type, readers) if readers else []
            # A player only read may have no row yet: a first match, at 1500.
            standings = {member: Standing() for member in readers} | {
                row["member_id"]: Standing(
                    row["rating"], row["matches"], row["wins"], row["points"],
                    row["display_name"],
                    _ms(row["last_finished_at"]) if row["last_finished_at"] else None,
                    row["player_id"])
                for row in rows
            }
            settled = with_deltas(match, settle(match, standings))
            finished_at = _datetime(match.finished_ms)
            await connection.executemany(_INSERT_PLAYER, [
                (match.id, p.member_id if p.bot_level is None else None, p.display_name,
                 p.seat_index, p.team, p.won, p.points, p.elo_delta, json.dumps(p.details),
                 match.game_type, finished_at, p.erased, p.bot_level, p.abandoned,
                 p.player or None)
                for p in settled.players])
            await connection.executemany(_UPDATE_RATING, [
                (member, match.game_type, standings[member].rating, standings[member].matches,
                 standings[member].wins, standings[member].points,
                 standings[member].display_name, _datetime(standings[member].last_finished_ms),
                 standings[member].player or None)
                for member in movers])
        return settled, True

    @_database_call
    async def list_matches(self, member_id: str, game_type: str | None, limit: int,
                           after: Position | None) -> list[Match]:
        query, arguments = _page_query(member_id, game_type, limit, after)
        async with self._read_pool.acquire() as connection:
            ids = [row[0] for row in await connection.fetch(query, *arguments)]
            matches = await self._fetch_matches(connection, ids)
        return matches

    @_database_call
    async def ratings(self, member_id: str) -> list[Rating]:
        rows = await self._read_pool.fetch(_SELECT_RATINGS, member_id)
        return [Rating(row["game_type"], row["rating"], row["matches"]) for row in rows]

    @_database_call
    async def totals(self, member_id: str) -> tuple[int, int]:
        row = await self._read_pool.fetchrow(_SELECT_TOTALS, member_id)
        assert row is not None  # an aggregate: always one row
        return row["matches"], row["wins"]

    @_database_call
    async def leaderboard(self, game_type: str, limit: int) -> list[LeaderboardRow]:
        rows = await self._read_pool.fetch(_SELECT_LEADERBOARD, game_type, limit)
        return [LeaderboardRow(row["member_id"], row["display_name"], row["rating"], row["wins"],
                               row["matches"], row["points"], row["player_id"]) for row in rows]

    @_database_call
    async def erase_member(self, member_id: str) -> int:
        lock, prune, mark, anonymize, drop_ratings = _ERASE
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute(lock)
            await connection.execute(prune)
            await connection.execute(mark, member_hash(member_id))
            status = await connection.execute(anonymize, member_id, ERASED_NAME)
            await connection.execute(drop_ratings, member_id)
        return int(status.split()[-1])

    @_database_call
    async def recalculate(self) -> RecalculationSummary:
        async with self._pool.acquire() as connection, connection.transaction():
            await connection.execute("LOCK TABLE player_rating IN EXCLUSIVE MODE")
            return await _recalculate(connection)

    async def _fetch_matches(self, connection: _Connection, ids: list[str]) -> list[Match]:
        """The matches with these ids, in the order of ``ids``."""
        if not ids:
            return []
        rows = await connection.fetch(_SELECT_MATCHES, ids)
        if not rows:
            return []
        players: dict[str, list[Player]] = {}
        for row in await connection.fetch(_SELECT_PLAYERS, [row["id"] for row in rows]):
            players.setdefault(row[0], []).append(Player(
                seat_index=row["seat"], member_id=row["member_id"],
                display_name=row["display_name"], team=row["team"], won=row["won"],
                points=row["points"], elo_delta=row["elo_delta"],
                details=json.loads(row["details"]), erased=row["erased"],
                bot_level=row["bot_level"], abandoned=row["abandoned"], player=row["player_id"]))
        found = {
            row["id"]: Match(row["id"], row["game_type"], _ms(row["started_at"]),
                             _ms(row["finished_at"]), json.loads(row["result"]),
                             tuple(players.get(row["id"], ())), rated=row["rated"])
            for row in rows
        }
        return [found[match_id] for match_id in ids if match_id in found]


async def _recalculate(connection: _Connection) -> RecalculationSummary:
    """Replay the history one match at a time (streamed), then write what changed."""
    ledger = Ledger()
    changed: list[tuple[str, int, int]] = []
    matches = 0

    def settle_one(rows: list[asyncpg.Record]) -> None:
        nonlocal matches
        first = rows[0]
        match = Match(first["match_id"], first["game_type"], 0, _ms(first["finished_at"]), {},
                      tuple(Player(row["seat"], row["member_id"], row["display_name"],
                                   row["team"], row["won"], row["points"], row["elo_delta"],
                                   erased=row["erased"], bot_level=row["bot_level"],
                                   abandoned=row["abandoned"], player=row["player_id"])
                            for row in rows))
        deltas = ledger.replay(match)  # only the players it moves are in the ledger
        for player in match.players:
            if player.elo_delta != deltas[player.member_id]:
                changed.append((match.id, player.seat_index, deltas[player.member_id]))
        matches += 1

    pending: list[asyncpg.Record] = []
    async for row in connection.cursor(_HISTORY_IN_FINISHED_ORDER, prefetch=2000):
        if pending and pending[0]["match_id"] != row["match_id"]:
            settle_one(pending)
            pending = []
        pending.append(row)
    if pending:
        settle_one(pending)

    if changed:
        await connection.execute("""CREATE TEMP TABLE recalculated_delta
            (match_id uuid, seat smallint, elo_delta integer) ON COMMIT DROP""")
        await connection.copy_records_to_table("recalculated_delta", records=changed)
        await connection.execute("""UPDATE match_player p SET elo_delta = r.elo_delta
            FROM recalculated_delta r WHERE p.match_id = r.match_id AND p.seat = r.seat""")
    await connection.execute("DELETE FROM player_rating")
    kept = [(member, game_type, s.rating, s.matches, s.wins, s.points, s.display_name,
             _datetime(s.last_finished_ms), s.player or None)
            for (member, game_type), s in sorted(ledger.standings.items())]
    await connection.copy_records_to_table("player_rating", records=kept, columns=_RATING_COLUMNS)
    return RecalculationSummary(matches, len(kept), len(changed))
