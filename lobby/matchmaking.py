"""Matchmaking: the open games (listed, watched, opened and closed), the quick match, the
rematch of a finished game, and the list of games to watch."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

from lobby import inputs
from lobby.game_records import (
    WATCH_BACKSTOP_SECONDS,
    GameRecords,
    blocked,
    check_creator,
    no_free_code,
    request_for,
    sorted_seats,
)
from lobby.models import Game, GameType, JoinResult, QuickMatchResult, RematchResult, Seat
from lobby.relations import RelationStore
from lobby.store import OPEN_GAMES_KEY, AlreadyDone, QuickOutcome, Request, seats_any
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

OPEN_GAMES_LIMIT = 50  # ListOpenGames' largest page
WATCHABLE_GAMES_LIMIT = 200  # ListWatchableGames' largest page
OPEN_GAMES_COALESCE_SECONDS = 1.0  # WatchOpenGames sends a changing list at most this often

# Rematch ids are derived from the finished game's id (uuid5 in this namespace): every player
# who asks names the same new game without a shared record of it, and two first askers racing
# each other cannot make two games (a store creates a game only if its id is free).
REMATCH_NAMESPACE = uuid.UUID("0d4bd7a4-93c6-4c55-9d8e-7f1a2f5e6b01")


def rematch_id(game_id: str) -> str:
    """The id of the rematch of ``game_id`` (a canonical uuid)."""
    return str(uuid.uuid5(REMATCH_NAMESPACE, game_id))


class Matchmaking:
    """ListOpenGames, WatchOpenGames, SetGameOpen, QuickMatch, Rematch, ListWatchableGames and
    MarkFinished."""

    def __init__(self, records: GameRecords, relations: RelationStore):
        self.records = records
        self.store = records.store
        self.relations = relations

    async def list_open_games(self, game_type: str = "", limit: int = OPEN_GAMES_LIMIT) -> list[Game]:
        """The open games waiting with a seat free (of ``game_type``; "": any), newest first."""
        game_type = inputs.optional_game_type(game_type)
        return await self.store.open_games(game_type, max(1, min(limit or OPEN_GAMES_LIMIT,
                                                                 OPEN_GAMES_LIMIT)))

    async def list_watchable_games(self, game_type: str = "", limit: int = 0) -> list[Game]:
        """The started games that allow spectators and are not marked finished (of
        ``game_type``; "": any), highest rating first. A table that finished a moment ago is
        listed until stats has recorded its match (mark_finished); the game service knows."""
        game_type = inputs.optional_game_type(game_type)
        if not 0 <= limit <= WATCHABLE_GAMES_LIMIT:
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               f"limit must be from 0 to {WATCHABLE_GAMES_LIMIT}", field="limit")
        return await self.store.watchable_games(game_type, limit or OPEN_GAMES_LIMIT)

    async def mark_finished(self, table_id: str) -> bool:
        """Record that the table finished (stats, when it records the match); idempotent.
        False, changing nothing, when no live game has this id (never one, or expired: stats
        may record a match long after); INVALID_ARGUMENT for an empty id."""
        canonical = inputs.game_id(table_id, "table_id")
        if canonical is None or not await self.store.mark_finished(canonical):
            log.info("game %s: marked finished, but no live game has this id", table_id)
            return False
        log.info("game %s: its table finished", canonical)
        return True

    async def watch_open_games(self, game_type: str = "") -> AsyncIterator[list[Game]]:
        """The open games now, then again whenever the list changed (signalled by the store;
        a burst of changes sends one list, OPEN_GAMES_COALESCE_SECONDS after the first), and
        every WATCH_BACKSTOP_SECONDS when expiry changed it."""
        game_type = inputs.optional_game_type(game_type)
        async with self.store.changes(OPEN_GAMES_KEY) as changes:
            sent: list[Game] | None = None
            while True:
                games = await self.list_open_games(game_type)
                if games != sent:
                    yield games
                    sent = games
                if await changes.wait(WATCH_BACKSTOP_SECONDS):
                    await asyncio.sleep(OPEN_GAMES_COALESCE_SECONDS)
                    changes.clear()

    async def set_open(self, game_id: str, member_id: str, open: bool) -> Game:
        """The creator opens the waiting game to anyone, or closes it."""
        member_id = inputs.member_id(member_id)

        def set_open(game: Game) -> Game:
            check_creator(game, member_id, "Only the creator can open or close the game")
            return replace(game, open=open)

        game = await self.records.modify(game_id, set_open)
        log.info("game %s %s", game.id, "opened to anyone" if open else "closed")
        return game

    async def quick_match(self, member_id: str, display_name: str, game_type: str,
                          options_json: str = "", rating: int = 0,
                          request_id: str = "") -> QuickMatchResult:
        """Seat the member at the open game (with these options, when given) whose rating is
        nearest theirs, or at a new open game; the seat that fills a game starts it."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        rating = inputs.rating(rating)
        request = request_for("QuickMatch", member_id, request_id)
        kind, normalized = await self.records.kind_and_options(game_type, options_json)
        try:
            return await self._quick_match(member_id, display_name, kind, normalized,
                                           options_json, rating, request)
        except AlreadyDone as already:
            done = already.done
            return QuickMatchResult(await self.records.done_again(done), created=done.created,
                                    started=done.filled and not done.created)

    async def _quick_match(self, member_id: str, display_name: str, kind: GameType,
                           normalized: str, options_json: str, rating: int,
                           request: Request | None) -> QuickMatchResult:
        records, starts = self.records, self.records.starts
        wanted = normalized if options_json.strip() else None
        apart = await self.relations.apart(member_id)  # never seated with them: another game
        for _ in range(records.code_attempts):
            candidate = records.new_game(records.new_game_id(), member_id, display_name, kind.id,
                                         normalized, kind.players, open=True, rating=rating)
            quick = await self.store.quick_join(candidate, member_id, display_name, rating,
                                                wanted, records.clock(), request, apart=apart)
            if quick.outcome is QuickOutcome.CODE_TAKEN:
                continue
            game = quick.game
            assert game is not None  # only CODE_TAKEN comes without one
            if quick.outcome is QuickOutcome.CREATED:
                log.info("game %s opened by a quick match (%s)", game.id, kind.id)
                return QuickMatchResult(await starts.retry_start(game), created=True, started=False)
            if quick.outcome is QuickOutcome.SEATED and game.full and not game.started:
                log.info("game %s: a quick match took the last seat", game.id)
                return QuickMatchResult(await starts.start(game), created=False, started=True)
            return QuickMatchResult(game, created=False, started=False)
        raise no_free_code(records.code_attempts)

    async def rematch(self, member_id: str, display_name: str, game_id: str,
                      request_id: str = "") -> RematchResult:
        """Seat the member at the rematch of a finished game they sat at, at the seat they had
        there (partners stay partners), creating it when nobody asked before; the bots that sat
        at the finished game from its start sit at the rematch too."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        request = request_for("Rematch", member_id, request_id)
        try:
            return await self._rematch(member_id, display_name, game_id, request)
        except AlreadyDone as already:
            return RematchResult(await self.records.done_again(already.done),
                                 created=already.done.created, started=already.done.filled)

    async def _rematch(self, member_id: str, display_name: str, game_id: str,
                       request: Request | None) -> RematchResult:
        finished = await self.records.game(game_id, "game_id")
        own = finished.seat_of(member_id)
        if own is None:
            raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=finished.id)
        if not finished.started:
            raise ServiceError(Reason.MATCH_NOT_FINISHED, "The game is not finished",
                               table_id=finished.id)
        await self.records.games.get_result(finished.id)  # MATCH_NOT_FINISHED while it is played
        # The same options, normalized as a new game's (one finished before the first dealer was
        # drawn has no first_dealer; its rematch draws it).
        _, options_json = await self.records.kind_and_options(finished.game_type,
                                                              finished.options_json)
        new_id = rematch_id(finished.id)
        for _ in range(3):  # found, else created, else found (another asker created it)
            existing = await self.store.touch(new_id)
            if existing is not None:
                joined = await self._join_at(existing, member_id, display_name, own.index, request)
                return RematchResult(joined.game, created=False, started=joined.started)
            bots = tuple(replace(seat, took_over=False) for seat in finished.seats
                         if seat.bot and not seat.took_over)
            created = await self.records.create(new_id, member_id, display_name,
                                                finished.game_type, options_json,
                                                finished.seats_total, seat_index=own.index,
                                                bots=bots, request=request,
                                                spectators=finished.spectators)
            if created is not None:
                log.info("game %s is the rematch of %s", created.id, finished.id)
                return RematchResult(created, created=True, started=created.started)
        raise ServiceError(Reason.UNAVAILABLE, "The rematch could not be set up; try again",
                           game_id=new_id)

    async def _join_at(self, game: Game, member_id: str, display_name: str,
                       index: int, request: Request | None = None) -> JoinResult:
        """Seat the member at seat ``index`` of ``game`` (the lowest empty one if it is taken);
        the seat that fills the game starts it. Idempotent for a member seated there; BLOCKED
        when one of the members seated there and the member blocked the other."""
        at_ms = self.records.clock()
        took: list[bool] = []
        apart = await self.relations.apart(member_id)

        def seat_member(game: Game) -> Game:
            if game.seat_of(member_id) is not None:
                return game
            free = index if game.at(index) is None else game.free_index
            if free is None or game.started:
                raise ServiceError(Reason.GAME_FULL, "Game is full", game_id=game.id)
            if seats_any(game, apart):
                raise blocked()
            took.append(True)
            return replace(game, seats=sorted_seats((*game.seats,
                                                     Seat(free, member_id, display_name))),
                           updated_at_ms=at_ms)

        seated = await self.records.modify(game.id, seat_member, request)
        if seated.full and not seated.started:
            return JoinResult(await self.records.starts.start(seated), started=bool(took))
        return JoinResult(seated, started=False)
