"""Seating: creating a game, joining it by code, moving, leaving and coming back; and the reads
of a game and of who sits where.

Blocking. Two members of whom one blocked the other (lobby.relations) never sit at one game:
the calls that seat a member at a game others sit at (JoinGame, QuickMatch, Rematch's seat at
an existing rematch) read whom the member never sits with first, and the store refuses (or, for
a quick match, skips) a game where one of them sits, in the same atomic step that seats. A block
made while both sit at one game already unseats nobody, and a seat taken back (ReturnSeat) is
the member's own: creating a game and seating bots seat nobody beside another member.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace

from lobby import inputs
from lobby.bot_seats import BotSeats
from lobby.codes import normalize_code
from lobby.game_records import (
    WATCH_BACKSTOP_SECONDS,
    GameRecords,
    blocked,
    not_found,
    not_seated,
    request_for,
    with_seat,
    with_seats,
)
from lobby.models import Game, JoinResult, Seat
from lobby.relations import RelationStore
from lobby.store import AlreadyDone, JoinOutcome, Request
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

MEMBER_GAMES_LIMIT = 200  # ListMemberGames' page: a member's live games, newest first


class Seating:
    """CreateGame, JoinGame, ChangeSeat, LeaveGame, ReturnSeat and the reads of a game."""

    def __init__(self, records: GameRecords, relations: RelationStore, bot_seats: BotSeats):
        self.records = records
        self.store = records.store
        self.relations = relations
        self.bot_seats = bot_seats

    async def create_game(self, member_id: str, display_name: str, game_type: str,
                          options_json: str, open: bool = False, rating: int = 0,
                          request_id: str = "", spectators: bool = True) -> Game:
        """A new game with its creator at seat 0 and a join code no live game has; ``open``
        lists it for anyone (TOO_MANY_OPEN_GAMES beyond MAX_OPEN_GAMES); ``spectators`` false
        forbids watching it."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        request = request_for("CreateGame", member_id, request_id)
        kind, normalized = await self.records.kind_and_options(game_type, options_json)
        try:
            game = await self.records.create(self.records.new_game_id(), member_id, display_name,
                                             kind.id, normalized, kind.players, open=open,
                                             rating=inputs.rating(rating), request=request,
                                             spectators=spectators)
        except AlreadyDone as already:
            return await self.records.done_again(already.done)
        assert game is not None  # a fresh uuid is nobody's
        return game

    async def join_game(self, member_id: str, display_name: str, join_code: str,
                        ratings: Mapping[str, int] | None = None) -> JoinResult:
        """Seat the member at the next free seat; the join that takes the last one starts the table."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        code = normalize_code(inputs.join_code(join_code))
        if code is None:
            raise not_found()
        ratings = inputs.ratings(ratings or {})
        joined = await self.store.join(code, member_id, display_name, at_ms=self.records.clock(),
                                       ratings=ratings, apart=await self.relations.apart(member_id))
        if joined.outcome is JoinOutcome.NOT_FOUND or joined.game is None:
            raise not_found()
        game = joined.game
        if joined.outcome is JoinOutcome.FULL:
            if not game.started:
                await self.records.starts.retry_start(game)
            raise ServiceError(Reason.GAME_FULL, "Game is full", game_id=game.id)
        if joined.outcome is JoinOutcome.BLOCKED:
            raise blocked()
        if joined.outcome is JoinOutcome.SEATED and (seat := game.seat_of(member_id)) is not None:
            log.info("game %s: seat %d taken", game.id, seat.index)
        if game.full and not game.started:
            game = await self.records.starts.start(game)
            return JoinResult(game, started=joined.took_last_seat)
        return JoinResult(game, started=False)

    async def change_seat(self, game_id: str, member_id: str, seat_index: int) -> Game:
        """A seated member moves to an empty seat of a game still in the lobby."""
        member_id = inputs.member_id(member_id)
        at_ms = self.records.clock()

        def move(game: Game) -> Game:
            if game.started:
                raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
            seat = game.seat_of(member_id)
            if seat is None:
                raise not_seated(game)
            if seat.index == seat_index:
                return game
            if not 0 <= seat_index < game.seats_total or game.at(seat_index) is not None:
                raise ServiceError(Reason.SEAT_TAKEN, "Seat taken", game_id=game.id)
            return with_seats(game, seat, replace(seat, index=seat_index), at_ms)

        return await self.records.modify(game_id, move)

    async def preview_game(self, join_code: str) -> Game:
        code = normalize_code(inputs.join_code(join_code))
        game_id = await self.store.game_id_for_code(code) if code is not None else None
        game = await self.store.get(game_id) if game_id is not None else None
        if game is None:
            raise not_found()
        return await self.records.starts.retry_start(game)

    async def get_game(self, game_id: str) -> Game:
        return await self.records.starts.retry_start(await self.records.game(game_id, "game_id"))

    async def watch_game(self, game_id: str) -> AsyncIterator[Game]:
        """The game now, then again after every change (a seat taken, an erasure), until and
        including its start; GAME_NOT_FOUND when it is gone (an unstarted game that expired).

        Changes are signalled by the store (pub/sub in Redis), so nothing polls; a quiet game is
        still read every WATCH_BACKSTOP_SECONDS, so a watcher learns that it expired.
        """
        canonical = inputs.game_id(game_id, "game_id")
        if canonical is None:
            raise not_found()
        async with self.store.changes(canonical) as changes:
            sent: Game | None = None
            while True:
                game = await self.get_game(canonical)
                if game != sent:
                    yield game
                    sent = game
                if game.started:
                    return
                await changes.wait(WATCH_BACKSTOP_SECONDS)

    async def list_member_games(self, member_id: str, limit: int = MEMBER_GAMES_LIMIT) -> list[Game]:
        """The live games the member sits at, most recently changed first, at most ``limit``."""
        games = await self.store.member_games(inputs.member_id(member_id))
        games.sort(key=lambda game: (game.changed_at_ms, game.id), reverse=True)
        return games[:max(1, min(limit, MEMBER_GAMES_LIMIT))]

    async def get_seating(self, table_id: str) -> tuple[Seat, ...]:
        return (await self.records.game(table_id, "table_id")).seats

    async def find_seat(self, table_id: str, member_id: str) -> Seat:
        game = await self.records.game(table_id, "table_id")
        seat = game.seat_of(inputs.member_id(member_id))
        if seat is None:
            raise not_seated(game)
        return seat

    async def leave_game(self, game_id: str, member_id: str, request_id: str = "") -> Game | None:
        """In the lobby the member's seat is freed (the game is gone with its last person);
        once started a bot takes the seat over. None when the game is gone."""
        member_id = inputs.member_id(member_id)
        request = request_for("LeaveGame", member_id, request_id)
        try:
            return await self._leave(game_id, member_id, request)
        except AlreadyDone as already:
            game = await self.records.again(already.done)
            if game is not None:
                self.bot_seats.driver.drive(game)  # a started game's bots: told again (idempotent)
            return game

    async def _leave(self, game_id: str, member_id: str, request: Request | None) -> Game | None:
        if request is not None and (done := await self.store.done(request)) is not None:
            raise AlreadyDone(done)  # made already: the game may be gone since
        game = await self.records.game(game_id, "game_id")
        if game.started:
            seat = game.seat_of(member_id)
            if seat is None:
                raise not_seated(game)
            await self.records.starts.check_not_finished(game)
            return await self.bot_seats.take_over_seat(game.id, seat.index, request)
        at_ms = self.records.clock()

        def free_seat(game: Game) -> Game | None:
            if game.started:  # started meanwhile: the next call takes the seat over
                raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
            if game.seat_of(member_id) is None:
                raise not_seated(game)
            seats = tuple(s for s in game.seats if s.member_id != member_id or not s.is_person)
            if not any(s.is_person for s in seats):
                return None
            return replace(game, seats=seats, updated_at_ms=at_ms)

        left = await self.records.modify(game_id, free_seat, request)
        log.info("game %s: a member left the lobby%s", game.id, "" if left else "; the game is gone")
        return left

    async def return_seat(self, game_id: str, member_id: str, request_id: str = "") -> Game:
        """The member takes back the seat a bot took over from them."""
        member_id = inputs.member_id(member_id)
        request = request_for("ReturnSeat", member_id, request_id)
        try:
            game = await self._return_seat(game_id, member_id, request)
        except AlreadyDone as already:
            game = await self.records.done_again(already.done)
        self.bot_seats.driver.drive(game)
        return game

    async def _return_seat(self, game_id: str, member_id: str, request: Request | None) -> Game:
        game = await self.records.game(game_id, "game_id")
        if game.started:
            await self.records.starts.check_not_finished(game)

        def take_back(game: Game) -> Game:
            seat = game.seat_of(member_id)
            if seat is None:
                raise not_seated(game)
            if not seat.took_over:
                raise ServiceError(Reason.SEAT_NOT_TAKEN_OVER, "Seat not taken over",
                                   game_id=game.id)
            return with_seat(game, replace(seat, bot="", took_over=False))

        game = await self.records.modify(game_id, take_back, request)
        log.info("game %s: a member took their seat back", game.id)
        return game
