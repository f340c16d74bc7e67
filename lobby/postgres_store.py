"""The lobby's durable store: games and seatings in Postgres (lobby/migrations).

DESIGN: Redis holds nothing that cannot be rebuilt; who sits where is the truth that lets a
match be played on and recorded, so it lives in Postgres and a flushed Redis loses none of it.
The same rules as the other stores (lobby/store.py), kept by Postgres itself:
- a game is live until ``expires_at``, which creating, joining and reading it by id push
  GAME_TTL_SECONDS ahead (a read only once a minute: a game in use lives on); reads see live
  games only;
- a join code is unique among live games: creations of one code take a transaction-level
  advisory lock on it, so two of them never both find it free;
- a join locks the game's row (``FOR UPDATE``), so two members racing for the last seat end
  with exactly one of them seated;
- every change (a seat taken, the start, an erasure) NOTIFYs in its own transaction, so a
  waiting room hears of it once it is committed (services.signals.PostgresSignalHub);
- a change made for a request claims the request's row (``lobby_request``) first in its
  transaction and records what it did there before it commits: a racing call with the same
  request waits on the row's key, then finds it done; a change that fails takes its claim back
  with it.
Games that expired more than PURGE_AFTER ago are deleted, and requests whose time is up, at
most once per PURGE_EVERY.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from lobby.models import DELETED_PLAYER, MAX_DAILY_GAMES, MAX_OPEN_GAMES, Game, Seat
from lobby.store import (
    OPEN_GAMES_KEY,
    QUICK_CANDIDATES,
    REQUEST_TTL_SECONDS,
    AlreadyDone,
    Done,
    Joined,
    JoinOutcome,
    LobbyStore,
    QuickJoined,
    QuickOutcome,
    Request,
    SeatingChange,
    done_by,
    lives_on,
    nearest,
    not_found,
    open_list_changed,
    opens_for,
    quick_fits,
    refused_join,
    seated_daily,
    seats_any,
    too_many_daily_games,
    too_many_open_games,
    with_seat,
)
from services.signals import PostgresSignalHub, Signals
from services.stores import POSTGRES_DOWN, STATEMENT_CACHE_SIZE, unavailable_when

CHANNEL = "tavolo_lobby"  # NOTIFY channel; the payload is the game id
PURGE_AFTER = "7 days"
PURGE_EVERY_SECONDS = 3600.0
TOUCH_SLACK_SECONDS = 60.0  # how far a read lets the expiry fall behind GAME_TTL_SECONDS

_GAME_COLUMNS = ("g.id::text AS id, g.game_type, g.join_code, g.options_json, g.seats_total, "
                 "g.created_at_ms, g.updated_at_ms, g.started, g.open, g.spectators, g.finished")
_SEAT_COLUMNS = "s.seat_index, s.member_id, s.display_name, s.erased, s.bot_level, s.took_over, s.rating"
_LIVE_GAME = f"""
SELECT {_GAME_COLUMNS}, {_SEAT_COLUMNS}
FROM lobby_game g LEFT JOIN lobby_seat s ON s.game_id = g.id
WHERE g.id = $1 AND g.expires_at > now()
ORDER BY s.seat_index
"""
# A read by id pushes the expiry TTL ($2) ahead only once it is less than $3 ahead: a game read
# over and over (every socket refreshes its names) costs one write a minute, not one a read.
# The outer SELECT sees the row as it was, live either way.
_TOUCHED_GAME = f"""
WITH touched AS (
    UPDATE lobby_game SET expires_at = now() + make_interval(secs => $2)
    WHERE id = $1 AND expires_at > now() AND expires_at < now() + make_interval(secs => $3)
)
{_LIVE_GAME}"""
_MEMBER_GAMES = f"""
SELECT {_GAME_COLUMNS}, {_SEAT_COLUMNS}
FROM lobby_game g JOIN lobby_seat s ON s.game_id = g.id
WHERE g.id IN (SELECT game_id FROM lobby_seat WHERE member_id = $1) AND g.expires_at > now()
ORDER BY g.id, s.seat_index
"""
# Live games by id, for the invitations of a member (a page of them at a time).
_GAMES_BY_ID = f"""
SELECT {_GAME_COLUMNS}, {_SEAT_COLUMNS}
FROM lobby_game g LEFT JOIN lobby_seat s ON s.game_id = g.id
WHERE g.id = ANY($1::uuid[]) AND g.expires_at > now()
ORDER BY g.id, s.seat_index
"""
# The watchable games (started, not finished, spectators allowed) whose seat each member of $1
# plays themselves (not a bot for them; an erased seat's id is nobody's), most recently
# started first (a started game's updated_at_ms is its start).
_PLAYING = """
SELECT s.member_id, g.id::text AS game_id
FROM lobby_seat s JOIN lobby_game g ON g.id = s.game_id
WHERE s.member_id = ANY($1::text[]) AND s.bot_level = '' AND NOT s.erased
  AND g.started AND g.spectators AND NOT g.finished AND g.expires_at > now()
ORDER BY s.member_id, greatest(g.updated_at_ms, g.created_at_ms) DESC, g.id DESC
"""
# The open games waiting (of a type, or of any: $1 = ''), newest first: the partial index
# lobby_game_open finds them. A full game not started yet (its table being created) is left out
# by the caller; $2 leaves room for those.
_OPEN_GAMES = f"""
SELECT {_GAME_COLUMNS}, {_SEAT_COLUMNS}
FROM lobby_game g LEFT JOIN lobby_seat s ON s.game_id = g.id
WHERE g.id IN (SELECT id FROM lobby_game
               WHERE open AND NOT started AND expires_at > now() AND ($1 = '' OR game_type = $1)
               ORDER BY created_at_ms DESC LIMIT $2)
ORDER BY g.created_at_ms DESC, g.id, s.seat_index
"""
# The started games that allow spectators and did not finish (of a type, or of any: $1 = ''),
# highest rating first: the mean rating of the seated people (0 counted as 1500; bots do not
# count), as Game.rating. The partial index lobby_game_watchable_unfinished finds them, so a
# day of finished games (they live GAME_TTL_SECONDS) costs this nothing.
_WATCHABLE_GAMES = f"""
WITH ranked AS (
    SELECT g.id, coalesce(round(avg(CASE WHEN s.rating > 0 THEN s.rating ELSE 1500 END)
                                FILTER (WHERE s.bot_level = '' OR s.took_over)), 1500) AS rating,
           g.updated_at_ms
    FROM lobby_game g LEFT JOIN lobby_seat s ON s.game_id = g.id
    WHERE g.started AND g.spectators AND NOT g.finished AND g.expires_at > now()
      AND ($1 = '' OR g.game_type = $1)
    GROUP BY g.id
    ORDER BY rating DESC, g.updated_at_ms DESC, g.id
    LIMIT $2
)
SELECT {_GAME_COLUMNS}, {_SEAT_COLUMNS}
FROM ranked r JOIN lobby_game g ON g.id = r.id LEFT JOIN lobby_seat s ON s.game_id = g.id
ORDER BY r.rating DESC, r.updated_at_ms DESC, g.id, s.seat_index
"""
# The open games waiting whose creator (lowest-seated person) is $1.
_CREATOR_OPEN_GAMES = """
SELECT count(*) FROM lobby_game g
WHERE g.open AND NOT g.started AND g.expires_at > now()
  AND (SELECT member_id FROM lobby_seat s
       WHERE s.game_id = g.id AND (s.bot_level = '' OR s.took_over)
       ORDER BY s.seat_index LIMIT 1) = $1
  AND g.seats_total > (SELECT count(*) FROM lobby_seat s WHERE s.game_id = g.id)
  AND g.id IN (SELECT game_id FROM lobby_seat WHERE member_id = $1)
"""
# The unfinished daily games (game.pace) that $1 sits at as a person (a bot may play for them),
# other than $2.
_MEMBER_DAILY_GAMES = """
SELECT count(*) FROM lobby_game g
WHERE g.expires_at > now() AND NOT g.finished AND g.id <> $2::uuid
  AND g.options_json::jsonb ->> 'pace' = 'daily'
  AND g.id IN (SELECT game_id FROM lobby_seat
               WHERE member_id = $1 AND (bot_level = '' OR took_over) AND NOT erased)
"""
# A daily game not finished (lobby.store.lives_on, once started), in SQL.
_DAILY_UNFINISHED = "options_json::jsonb ->> 'pace' = 'daily' AND NOT finished"
# A request's row, taken for this transaction: a row whose time is up is taken over; a live one
# (a racing transaction's: this waits for it to end) leaves nothing returned.
_CLAIM = """
INSERT INTO lobby_request (member_id, method, request_id, expires_at)
VALUES ($1, $2, $3, now() + make_interval(secs => $4))
ON CONFLICT (member_id, method, request_id) DO UPDATE
    SET expires_at = EXCLUDED.expires_at, game_id = NULL, created = false, filled = false
    WHERE lobby_request.expires_at <= now()
RETURNING true
"""
_unavailable = unavailable_when(POSTGRES_DOWN, "lobby store")


class PostgresLobbyStore(LobbyStore):
    """Every replica of the lobby shares the database; LISTEN/NOTIFY carries the changes.

    ``pool`` may go through a transaction pooler: every lock is transaction-level and nothing
    outlives a transaction. The LISTEN goes to ``listen_dsn``, a session of its own."""

    def __init__(self, pool: asyncpg.Pool, listen_dsn: str, ttl_seconds: int,
                 clock: Callable[[], float] = time.monotonic, *,
                 statement_cache_size: int = STATEMENT_CACHE_SIZE):
        self.pool = pool
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._signals = PostgresSignalHub(listen_dsn, CHANNEL,
                                          statement_cache_size=statement_cache_size)
        self._next_purge = clock()

    @_unavailable
    async def create(self, game: Game, request: Request | None = None) -> bool:
        async with self.pool.acquire() as connection, connection.transaction():
            await _claim(connection, request)
            created = await self._create_in(connection, game)
            await _record(connection, request, done_by(None, game) if created else None)
        if created:
            await self._purge_now_and_then()
        return created

    async def _create_in(self, connection: PoolConnectionProxy, game: Game) -> bool:
        """Store ``game`` in the connection's transaction (see create)."""
        await self._check_open_limit(connection, None, game)
        await self._check_daily_limit(connection, None, game)
        await connection.execute("SELECT pg_advisory_xact_lock(hashtext('lobby-code:' || $1))",
                                 game.join_code)
        if await connection.fetchval(
                "SELECT 1 FROM lobby_game WHERE join_code = $1 AND expires_at > now()",
                game.join_code):
            return False
        # A rematch id (lobby.service.rematch_id) may name an expired game: it goes; a live
        # one keeps its id, and this creation is refused (ON CONFLICT: a racing creator).
        await connection.execute(
            "DELETE FROM lobby_game WHERE id = $1 AND expires_at <= now()", game.id)
        if not await connection.fetchval(
                "INSERT INTO lobby_game (id, game_type, join_code, options_json, seats_total, "
                "created_at_ms, updated_at_ms, started, open, expires_at, spectators) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10), $11) "
                "ON CONFLICT (id) DO NOTHING RETURNING true",
                game.id, game.game_type, game.join_code, game.options_json, game.seats_total,
                game.created_at_ms, game.updated_at_ms, game.started, game.open,
                float(self.ttl_seconds), game.spectators):
            return False
        await _insert_seats(connection, game)
        await self._signal_in(connection, None, game)
        return True

    @_unavailable
    async def game_id_for_code(self, code: str) -> str | None:
        return await self.pool.fetchval(
            "SELECT id::text FROM lobby_game WHERE join_code = $1 AND expires_at > now()", code)

    @_unavailable
    async def get(self, game_id: str) -> Game | None:
        return _one(await self.pool.fetch(_LIVE_GAME, game_id))

    @_unavailable
    async def touch(self, game_id: str) -> Game | None:
        ttl = float(self.ttl_seconds)
        return _one(await self.pool.fetch(_TOUCHED_GAME, game_id, ttl,
                                          ttl - min(TOUCH_SLACK_SECONDS, ttl / 10)))

    @_unavailable
    async def get_many(self, game_ids: Sequence[str]) -> list[Game]:
        wanted = list(dict.fromkeys(game_ids))
        return _games(await self.pool.fetch(_GAMES_BY_ID, wanted)) if wanted else []

    @_unavailable
    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0,
                   ratings: Mapping[str, int] | None = None,
                   apart: Set[str] = frozenset()) -> Joined:
        async with self.pool.acquire() as connection, connection.transaction():
            game_id = await connection.fetchval(
                "SELECT id::text FROM lobby_game WHERE join_code = $1 AND expires_at > now() "
                "FOR UPDATE", code)
            game = _one(await connection.fetch(_LIVE_GAME, game_id)) if game_id else None
            if (refusal := refused_join(game, member_id, apart)) is not None:
                return refusal
            assert game is not None  # refused_join answers NOT_FOUND for a missing game
            return Joined(JoinOutcome.SEATED, await self._seat_in(
                connection, game, member_id, display_name,
                (ratings or {}).get(game.game_type, 0), at_ms))

    async def _seat_in(self, connection: PoolConnectionProxy, game: Game, member_id: str,
                       display_name: str, rating: int, at_ms: int) -> Game:
        """Seat the member at the lowest free seat of ``game``, whose row the transaction locked."""
        await self._check_daily_limit(connection, game,
                                      with_seat(game, member_id, display_name, rating, at_ms))
        await connection.execute(
            "INSERT INTO lobby_seat (game_id, seat_index, member_id, display_name, rating) "
            "VALUES ($1, $2, $3, $4, $5)", game.id, game.free_index, member_id, display_name, rating)
        await connection.execute(
            "UPDATE lobby_game SET expires_at = now() + make_interval(secs => $2), "
            "updated_at_ms = CASE WHEN $3::bigint > 0 THEN $3::bigint ELSE updated_at_ms END "
            "WHERE id = $1", game.id, float(self.ttl_seconds), at_ms)
        seated = _one(await connection.fetch(_LIVE_GAME, game.id))
        assert seated is not None  # locked and live
        await self._signal_in(connection, game, seated)
        return seated

    @_unavailable
    async def modify(self, game_id: str, change: SeatingChange,
                     request: Request | None = None) -> Game | None:
        async with self.pool.acquire() as connection, connection.transaction():
            await _claim(connection, request)
            locked = await connection.fetchval(
                "SELECT true FROM lobby_game WHERE id = $1 AND expires_at > now() FOR UPDATE",
                game_id)
            game = _one(await connection.fetch(_LIVE_GAME, game_id)) if locked else None
            if game is None:
                raise not_found()
            changed = change(game)
            await self._check_open_limit(connection, game, changed)
            await self._check_daily_limit(connection, game, changed)
            if changed is None:
                await connection.execute("DELETE FROM lobby_game WHERE id = $1", game_id)
            else:
                # The seating is a handful of rows: written anew, as the change left it.
                await connection.execute("DELETE FROM lobby_seat WHERE game_id = $1", game_id)
                await _insert_seats(connection, changed)
                await connection.execute(
                    "UPDATE lobby_game SET started = $2, updated_at_ms = $3, open = $4, "
                    "expires_at = CASE WHEN $6 THEN 'infinity' "
                    "                  ELSE now() + make_interval(secs => $5) END WHERE id = $1",
                    game_id, changed.started, changed.updated_at_ms, changed.open,
                    float(self.ttl_seconds), lives_on(changed))
            await self._signal_in(connection, game, changed)
            await _record(connection, request, done_by(game, changed))
            return changed

    @_unavailable
    async def open_games(self, game_type: str, limit: int) -> list[Game]:
        rows = await self.pool.fetch(_OPEN_GAMES, game_type, limit + 10)
        return [game for game in _games(rows) if game.waiting_open][:limit]

    @_unavailable
    async def watchable_games(self, game_type: str, limit: int) -> list[Game]:
        return _games(await self.pool.fetch(_WATCHABLE_GAMES, game_type, limit))

    @_unavailable
    async def quick_join(self, candidate: Game, member_id: str, display_name: str, rating: int,
                         options_json: str | None, at_ms: int,
                         request: Request | None = None,
                         apart: Set[str] = frozenset()) -> QuickJoined:
        async with self.pool.acquire() as connection, connection.transaction():
            await _claim(connection, request)
            # One quick match of a type at a time: members asking together fill one game
            # before the next is made (row locks alone would let each make its own).
            await connection.execute("SELECT pg_advisory_xact_lock(hashtext('lobby-quick:' || $1))",
                                     candidate.game_type)
            before, quick = await self._quick_join_in(connection, candidate, member_id,
                                                      display_name, rating, options_json, at_ms,
                                                      apart)
            await _record(connection, request,
                          done_by(before, quick.game) if quick.game is not None else None)
            return quick

    async def _quick_join_in(self, connection: PoolConnectionProxy, candidate: Game, member_id: str,
                             display_name: str, rating: int, options_json: str | None,
                             at_ms: int, apart: Set[str]) -> tuple[Game | None, QuickJoined]:
        """quick_join in the connection's transaction: the game before (None: none) and after."""
        games = [game for game in _games(await connection.fetch(
                    _OPEN_GAMES, candidate.game_type, QUICK_CANDIDATES))
                 if quick_fits(game, candidate, options_json)]
        waiting = next((game for game in games if game.seat_of(member_id) is not None), None)
        if waiting is not None:
            return waiting, QuickJoined(QuickOutcome.WAITING, waiting)
        while (chosen := nearest(games, member_id, rating, apart)) is not None:
            # A join by code may have taken a seat since the read: read it again, locked.
            locked = _one(await connection.fetch(_LIVE_GAME + " FOR UPDATE OF g", chosen.id))
            if locked is not None and locked.waiting_open and locked.seat_of(member_id) is None \
                    and not seats_any(locked, apart):
                return locked, QuickJoined(QuickOutcome.SEATED, await self._seat_in(
                    connection, locked, member_id, display_name, rating, at_ms))
            games.remove(chosen)
        if not await self._create_in(connection, candidate):
            return None, QuickJoined(QuickOutcome.CODE_TAKEN, None)
        return None, QuickJoined(QuickOutcome.CREATED, candidate)

    async def _check_open_limit(self, connection: PoolConnectionProxy, before: Game | None,
                                after: Game | None) -> None:
        """TOO_MANY_OPEN_GAMES when the change opens a game of a creator who has MAX_OPEN_GAMES
        open already; the member's lock makes two such changes count one after the other."""
        member_id = opens_for(before, after)
        if member_id is None:
            return
        await connection.execute("SELECT pg_advisory_xact_lock(hashtext('lobby-member:' || $1))",
                                 member_id)
        if await connection.fetchval(_CREATOR_OPEN_GAMES, member_id) >= MAX_OPEN_GAMES:
            raise too_many_open_games()

    async def _check_daily_limit(self, connection: PoolConnectionProxy, before: Game | None,
                                 after: Game | None) -> None:
        """TOO_MANY_DAILY_GAMES when the change seats someone at a daily game who sits at
        MAX_DAILY_GAMES unfinished ones already; the member's lock makes two seatings of theirs
        count one after the other (the second's count sees the first, committed)."""
        for member_id in seated_daily(before, after):
            assert after is not None  # seated_daily names nobody for a deleted game
            await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtext('lobby-daily:' || $1))", member_id)
            if await connection.fetchval(_MEMBER_DAILY_GAMES, member_id, after.id) >= MAX_DAILY_GAMES:
                raise too_many_daily_games()

    async def _signal_in(self, connection: PoolConnectionProxy, before: Game | None,
                         after: Game | None) -> None:
        """The game's subscribers, and the open list's when it may have changed, hear of the
        change at commit."""
        game = after or before
        assert game is not None
        await self._signals.notify_in(connection, game.id)
        if open_list_changed(before, after):
            await self._signals.notify_in(connection, OPEN_GAMES_KEY)

    @_unavailable
    async def done(self, request: Request) -> Done | None:
        row = await self.pool.fetchrow(
            "SELECT game_id::text AS game_id, created, filled FROM lobby_request "
            "WHERE member_id = $1 AND method = $2 AND request_id = $3 AND expires_at > now()",
            request.member_id, request.method, request.request_id)
        return _done(row) if row is not None else None

    @_unavailable
    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        async with self.pool.acquire() as connection, connection.transaction():
            changed = await connection.fetchval(
                "UPDATE lobby_game SET started = true, "
                "updated_at_ms = CASE WHEN $2::bigint > 0 THEN $2::bigint ELSE updated_at_ms END, "
                f"expires_at = CASE WHEN {_DAILY_UNFINISHED} THEN 'infinity' ELSE expires_at END "
                "WHERE id = $1 AND expires_at > now() AND NOT started RETURNING open",
                game_id, at_ms)
            if changed is not None:
                await self._signals.notify_in(connection, game_id)
                if changed:  # it leaves the open list
                    await self._signals.notify_in(connection, OPEN_GAMES_KEY)
            return _one(await connection.fetch(_LIVE_GAME, game_id))

    @_unavailable
    async def mark_finished(self, game_id: str) -> bool:
        # Marked already: a read, no write (stats marks again on every retry of a record).
        # A daily game kept while it was played (lives_on) starts its TTL now.
        return bool(await self.pool.fetchval(
            "WITH marked AS (UPDATE lobby_game SET finished = true, "
            "                expires_at = CASE WHEN expires_at = 'infinity' "
            "                                  THEN now() + make_interval(secs => $2) ELSE expires_at END "
            "                WHERE id = $1 AND expires_at > now() AND NOT finished) "
            "SELECT true FROM lobby_game WHERE id = $1 AND expires_at > now()",
            game_id, float(self.ttl_seconds)))

    @_unavailable
    async def member_games(self, member_id: str) -> list[Game]:
        return _games(await self.pool.fetch(_MEMBER_GAMES, member_id))

    @_unavailable
    async def playing(self, member_ids: Iterable[str]) -> dict[str, list[str]]:
        wanted = sorted(set(member_ids))
        found: dict[str, list[str]] = {}
        for row in await self.pool.fetch(_PLAYING, wanted) if wanted else []:
            found.setdefault(row["member_id"], []).append(row["game_id"])
        return found

    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._signals.subscribe(game_id)

    @_unavailable
    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        """Every seating of the member, live or expired: nothing of them is kept anywhere."""
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute("DELETE FROM lobby_request WHERE member_id = $1", member_id)
            seats = await connection.fetch(
                "SELECT game_id::text AS game_id, seat_index FROM lobby_seat WHERE member_id = $1 "
                "ORDER BY game_id FOR UPDATE", member_id)
            for seat in seats:
                await connection.execute(
                    "UPDATE lobby_seat SET member_id = $3, display_name = $4, erased = true, rating = 0 "
                    "WHERE game_id = $1 AND seat_index = $2",
                    seat["game_id"], seat["seat_index"], new_member_id(), DELETED_PLAYER)
                await self._signals.notify_in(connection, seat["game_id"])
            if seats:  # a name on the open list may be theirs
                await self._signals.notify_in(connection, OPEN_GAMES_KEY)
        return sorted({seat["game_id"] for seat in seats})

    async def ping(self) -> None:
        await self.pool.fetchval("SELECT 1")

    async def close(self) -> None:
        await self._signals.close()
        await self.pool.close()

    async def _purge_now_and_then(self) -> None:
        """Drop games long expired (their seatings go with them), at most once per period."""
        if self.clock() < self._next_purge:
            return
        self._next_purge = self.clock() + PURGE_EVERY_SECONDS
        await self.pool.execute(
            f"DELETE FROM lobby_game WHERE expires_at < now() - interval '{PURGE_AFTER}'")
        await self.pool.execute("DELETE FROM lobby_request WHERE expires_at < now()")


async def _claim(connection: PoolConnectionProxy, request: Request | None) -> None:
    """Take ``request``'s row in the connection's transaction; AlreadyDone, with what it did,
    when it was made (a racing call holding the row: once that one committed)."""
    if request is None:
        return
    key = (request.member_id, request.method, request.request_id)
    while not await connection.fetchval(_CLAIM, *key, float(REQUEST_TTL_SECONDS)):
        row = await connection.fetchrow(
            "SELECT game_id::text AS game_id, created, filled FROM lobby_request "
            "WHERE member_id = $1 AND method = $2 AND request_id = $3", *key)
        if row is not None:  # (else purged or erased since the claim: claim again)
            raise AlreadyDone(_done(row))


def _done(row: asyncpg.Record) -> Done:
    return Done(row["game_id"], created=row["created"], filled=row["filled"])


async def _record(connection: PoolConnectionProxy, request: Request | None,
                  done: Done | None) -> None:
    """Keep what the claimed ``request`` did (None: nothing, the claim is let go)."""
    if request is None:
        return
    key = (request.member_id, request.method, request.request_id)
    if done is None:
        await connection.execute(
            "DELETE FROM lobby_request WHERE member_id = $1 AND method = $2 AND request_id = $3", *key)
        return
    await connection.execute(
        "UPDATE lobby_request SET game_id = $4, created = $5, filled = $6 "
        "WHERE member_id = $1 AND method = $2 AND request_id = $3",
        *key, done.game_id, done.created, done.filled)


async def _insert_seats(connection: asyncpg.Connection | PoolConnectionProxy, game: Game) -> None:
    await connection.executemany(
        "INSERT INTO lobby_seat (game_id, seat_index, member_id, display_name, erased, "
        "bot_level, took_over, rating) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [(game.id, s.index, s.member_id, s.display_name, s.erased, s.bot, s.took_over, s.rating)
         for s in game.seats])


def _one(rows: list[asyncpg.Record]) -> Game | None:
    return _game(rows) if rows else None


def _games(rows: list[asyncpg.Record]) -> list[Game]:
    """The games of rows ordered by game (one row per seat), in the rows' order."""
    by_game: dict[str, list[asyncpg.Record]] = {}
    for row in rows:
        by_game.setdefault(row["id"], []).append(row)
    return [_game(game_rows) for game_rows in by_game.values()]


def _game(rows: list[asyncpg.Record]) -> Game:
    """A game from its rows, one per seat (a single row with null seat columns: no seat)."""
    first = rows[0]
    return Game(
        id=first["id"], game_type=first["game_type"], join_code=first["join_code"],
        options_json=first["options_json"], seats_total=first["seats_total"],
        created_at_ms=first["created_at_ms"], updated_at_ms=first["updated_at_ms"],
        started=first["started"], open=first["open"], spectators=first["spectators"],
        finished=first["finished"],
        seats=tuple(Seat(row["seat_index"], row["member_id"], row["display_name"],
                         erased=row["erased"], bot=row["bot_level"], took_over=row["took_over"],
                         rating=row["rating"])
                    for row in rows if row["seat_index"] is not None),
    )
