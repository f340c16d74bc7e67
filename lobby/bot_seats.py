"""Bots at a game: the creator seats and unseats them in the lobby, and a bot takes a person's
seat of a started game over (they left, or stayed away)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bots.catalogue import LEVEL_IDS, TAKEOVER_LEVEL, bot_name
from lobby import inputs
from lobby.bot_driver import BotDriver
from lobby.game_records import (
    GameRecords,
    check_creator,
    request_for,
    sorted_seats,
    with_seat,
)
from lobby.models import Game, JoinResult, Seat, bot_member_id
from lobby.store import AlreadyDone, Request
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)


class BotSeats:
    """AddBot, RemoveBot and TakeOverSeat."""

    def __init__(self, records: GameRecords, driver: BotDriver):
        self.records = records
        self.driver = driver

    async def add_bot(self, game_id: str, member_id: str, seat_index: int, level: str,
                      request_id: str = "") -> JoinResult:
        """The creator seats a bot of ``level`` at an empty seat; the bot that fills the last
        seat starts the table."""
        member_id = inputs.member_id(member_id)
        request = request_for("AddBot", member_id, request_id)
        if level not in LEVEL_IDS:
            raise ServiceError(Reason.UNKNOWN_BOT_LEVEL, f"Unknown bot level: {level}",
                               field="level", level=level)
        at_ms = self.records.clock()

        def seat_bot(game: Game) -> Game:
            check_creator(game, member_id)
            if not 0 <= seat_index < game.seats_total or game.at(seat_index) is not None:
                raise ServiceError(Reason.SEAT_TAKEN, "Seat taken", game_id=game.id)
            name = bot_name(game.id, seat_index, [s.display_name for s in game.seats])
            bot = Seat(seat_index, bot_member_id(seat_index), name, bot=level)
            return replace(game, seats=sorted_seats((*game.seats, bot)), updated_at_ms=at_ms)

        try:
            game = await self.records.modify(game_id, seat_bot, request)
        except AlreadyDone as already:
            return JoinResult(await self.records.done_again(already.done),
                              started=already.done.filled)
        log.info("game %s: a bot (%s) sits at seat %d", game.id, level, seat_index)
        if game.full and not game.started:
            return JoinResult(await self.records.starts.start(game), started=True)
        return JoinResult(game, started=False)

    async def remove_bot(self, game_id: str, member_id: str, seat_index: int,
                         request_id: str = "") -> Game:
        """The creator takes a bot off a game still in the lobby."""
        member_id = inputs.member_id(member_id)
        request = request_for("RemoveBot", member_id, request_id)
        at_ms = self.records.clock()

        def unseat_bot(game: Game) -> Game:
            check_creator(game, member_id)
            seat = game.at(seat_index)
            if seat is None or seat.is_person:
                raise ServiceError(Reason.NO_BOT, "No bot at that seat", game_id=game.id)
            return replace(game, seats=tuple(s for s in game.seats if s.index != seat_index),
                           updated_at_ms=at_ms)

        try:
            game = await self.records.modify(game_id, unseat_bot, request)
        except AlreadyDone as already:
            return await self.records.done_again(already.done)
        assert game is not None  # a game with a creator is never deleted here
        return game

    async def take_over_seat(self, game_id: str, seat_index: int,
                             request: Request | None = None) -> Game:
        """A bot plays the person's seat of a started game from now on (idempotent);
        ``request``: the LeaveGame this is made for."""
        def take_over(game: Game) -> Game:
            seat = game.at(seat_index)
            if not game.started or seat is None:
                raise ServiceError(Reason.INVALID_ARGUMENT, "Only a person's seat of a started "
                                   "game can be taken over", field="seat_index")
            if seat.bot:
                return game
            taken.append(seat_index)
            return with_seat(game, replace(seat, bot=TAKEOVER_LEVEL, took_over=True))

        taken: list[int] = []
        game = await self.records.modify(game_id, take_over, request)
        if taken:
            metrics.bot_took_over()
            log.info("game %s: a bot took seat %d over", game.id, seat_index)
        self.driver.drive(game)
        return game
