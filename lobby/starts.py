"""Starting a game: the table of a game whose seats are all taken is created at the game service.

A start that failed. The join that takes the last seat creates the table (CreateTable with
table_id = the game id). If that call fails, the seat is NOT given back: the game stays with
every seat taken and ``started`` false, and the creation is retried by whoever touches the game
next: any JoinGame on its code (the seated members, who get the started game, or anyone else,
who still gets "Game is full"), GetGame and PreviewGame. CreateTable is idempotent on the
table id, so retries racing each other (or a first call that did land but timed out) end with
one table. A JoinGame whose start fails answers UNAVAILABLE (its seat is kept: join again);
GetGame and PreviewGame answer the game as it is (status lobby, no seat open) so that reads
never depend on the game service. Rolling the seat back was rejected: a CreateTable that timed
out may have created the table, which would then run with a seat the lobby gave to someone else.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from lobby.bot_driver import BotDriver
from lobby.models import Game, GameType, seat_id
from lobby.store import LobbyStore
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)


class GameService(Protocol):
    """What the lobby asks of the game service."""

    async def list_game_types(self) -> Sequence[GameType]: ...

    async def normalize_options(self, game_type: str, options: str) -> dict[str, Any]: ...

    async def create_table(self, game_type: str, seats: Sequence[str], options: str,
                           table_id: str) -> object: ...

    async def get_result(self, table_id: str) -> object: ...

    async def take_back(self, table_id: str, expected_revision: int | None = None,
                        seat: str = "") -> int: ...


class Starts:
    """Creates the tables of full games, and asks whether a started one is finished."""

    def __init__(self, store: LobbyStore, games: GameService, driver: BotDriver,
                 clock: Callable[[], int]):
        self.store = store
        self.games = games
        self.driver = driver
        self.clock = clock

    async def start(self, game: Game) -> Game:
        """Create the table of a game whose seats are all taken; UNAVAILABLE when that fails."""
        seats = [seat_id(index) for index in range(game.seats_total)]
        try:
            await self.games.create_table(game.game_type, seats, game.options_json,
                                          table_id=game.id)
        except ServiceError as error:
            log.warning("game %s: CreateTable failed (%s: %s); the next join or read retries",
                        game.id, error.reason.name, error.message)
            raise ServiceError(
                Reason.UNAVAILABLE,
                f"The game could not be started yet ({error.message}); join again to retry",
                game_id=game.id) from None
        started = await self.store.mark_started(game.id, at_ms=self.clock())
        log.info("game %s started", game.id)
        started = started if started is not None else replace(game, started=True)
        if started.bot_seats:
            self.driver.drive(started)
        return started

    async def retry_start(self, game: Game) -> Game:
        """The game, started if it was waiting only for its table; unchanged if that fails again."""
        if game.started or not game.full:
            return game
        try:
            return await self.start(game)
        except ServiceError:
            return game

    async def check_not_finished(self, game: Game) -> None:
        """GAME_FINISHED when the started game's match has a result."""
        try:
            await self.games.get_result(game.id)
        except ServiceError as error:
            if error.reason is Reason.MATCH_NOT_FINISHED:
                return
            raise
        raise ServiceError(Reason.GAME_FINISHED, "Game is finished", table_id=game.id)
