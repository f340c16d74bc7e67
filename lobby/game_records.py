"""The lobby's games as every use case reaches them: looked up, changed, created with a free
join code, and answered again for a retried call; and the small rules on seats they share.

A retried call. The calls that make or change a seating and are not idempotent by their
arguments (CreateGame, QuickMatch, Rematch, AddBot, RemoveBot, LeaveGame, ReturnSeat) take a
request id: the store records what the call did with it, in the change's own transaction, and
refuses the same request again (lobby.store.AlreadyDone). The call sent again answers what the
first one did: the same game (as it is now, its table started if it waited only for that), the
same created and started. JoinGame, ChangeSeat, SetGameOpen, TakeOverSeat and EraseMember need
none: made again, they find their work done and change nothing.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from lobby import inputs
from lobby.codes import generate_code
from lobby.models import Game, GameType, Seat
from lobby.starts import GameService, Starts
from lobby.store import Done, LobbyStore, Request
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

CODE_ATTEMPTS = 20
WATCH_BACKSTOP_SECONDS = 30.0


def new_game_id() -> str:
    return str(uuid.uuid4())


class GameRecords:
    """The games in the store, with the game service's types and the tables' starts."""

    def __init__(self, store: LobbyStore, games: GameService, starts: Starts, *,
                 new_code: Callable[[], str] = generate_code,
                 new_game_id: Callable[[], str] = new_game_id,
                 clock: Callable[[], int],
                 code_attempts: int = CODE_ATTEMPTS):
        self.store = store
        self.games = games
        self.starts = starts
        self.new_code = new_code
        self.new_game_id = new_game_id
        self.clock = clock
        self.code_attempts = code_attempts

    async def game(self, game_id: str, field: str) -> Game:
        """The game with this id; looking it up keeps it alive (its TTL restarts)."""
        canonical = inputs.game_id(game_id, field)
        game = await self.store.touch(canonical) if canonical is not None else None
        if game is None:
            raise not_found()
        return game

    async def modify(self, game_id: str, change: Callable[[Game], Game | None],
                     request: Request | None = None) -> Game:
        canonical = inputs.game_id(game_id, "game_id")
        if canonical is None:
            raise not_found()
        return await self.store.modify(canonical, change, request)  # type: ignore[return-value]

    async def again(self, done: Done) -> Game | None:
        """The game a request made or changed, as it is now (started if it waited only for its
        table): what a call made again answers. None when the request deleted it."""
        if done.game_id is None:
            return None
        game = await self.store.touch(done.game_id)
        if game is None:
            raise not_found()
        return await self.starts.retry_start(game)

    async def done_again(self, done: Done) -> Game:
        game = await self.again(done)
        assert game is not None  # only a LeaveGame deletes a game
        return game

    async def kind_and_options(self, game_type: str, options_json: str) -> tuple[GameType, str]:
        """The game type (UNKNOWN_GAME_TYPE) and the options as the game service normalizes them."""
        game_type = inputs.game_type(game_type)
        options_json = inputs.options_json(options_json)
        kind = next((t for t in await self.games.list_game_types() if t.id == game_type), None)
        if kind is None:
            raise ServiceError(Reason.UNKNOWN_GAME_TYPE, f"Unknown game type: {game_type}",
                               field="game_type", game_type=game_type)
        return kind, json_text(await self.games.normalize_options(game_type, options_json))

    def new_game(self, game_id: str, member_id: str, display_name: str, game_type: str,
                 options_json: str, seats_total: int, seat_index: int = 0,
                 bots: Sequence[Seat] = (), open: bool = False, rating: int = 0,
                 spectators: bool = True) -> Game:
        """A game not stored yet, with a fresh join code."""
        created_at_ms = self.clock()
        return Game(id=game_id, game_type=game_type, join_code=self.new_code(),
                    options_json=options_json, seats_total=seats_total,
                    created_at_ms=created_at_ms, updated_at_ms=created_at_ms, open=open,
                    spectators=spectators,
                    seats=sorted_seats((Seat(seat_index, member_id, display_name, rating=rating),
                                        *bots)))

    async def create(self, game_id: str, member_id: str, display_name: str, game_type: str,
                     options_json: str, seats_total: int, seat_index: int = 0,
                     bots: Sequence[Seat] = (), open: bool = False,
                     rating: int = 0, request: Request | None = None,
                     spectators: bool = True) -> Game | None:
        """A new game ``game_id`` with the member at ``seat_index`` (and ``bots`` at theirs) and
        a free join code; None when a live game has that id already."""
        for _ in range(self.code_attempts):
            game = self.new_game(game_id, member_id, display_name, game_type, options_json,
                                 seats_total, seat_index, bots, open, rating, spectators)
            if await self.store.create(game, request):
                log.info("game %s created (%s), code %s", game.id, game_type, game.join_code)
                return await self.starts.retry_start(game)  # a one-seat game type starts at once
            if await self.store.get(game_id) is not None:
                return None
            log.info("join code %s is taken by a live game; drawing another", game.join_code)
        raise no_free_code(self.code_attempts)


def no_free_code(attempts: int) -> ServiceError:
    return ServiceError(Reason.UNAVAILABLE,
                        f"Could not find a free join code in {attempts} attempts; try again")


def json_text(options: dict[str, Any]) -> str:
    """Options as the lobby keeps them: JSON text as the game service writes it (compact)."""
    return json.dumps(options, separators=(",", ":"), ensure_ascii=False)


def not_found() -> ServiceError:
    return ServiceError(Reason.GAME_NOT_FOUND, "Game not found")


def not_seated(game: Game) -> ServiceError:
    return ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)


def blocked() -> ServiceError:
    """Two members of whom one blocked the other never sit at one game (lobby.relations)."""
    return ServiceError(Reason.BLOCKED, "Blocked")


def request_for(method: str, member_id: str, request_id: str) -> Request | None:
    """The call's request (None without an id); ``member_id`` already checked."""
    checked = inputs.request_id(request_id)
    return Request(method, member_id, checked) if checked else None


def check_creator(game: Game, member_id: str,
                  refusal: str = "Only the creator can seat a bot") -> None:
    """Refuse a change of a started game, or by anyone but its creator (``refusal``)."""
    if game.started:
        raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
    if game.seat_of(member_id) is None:
        raise not_seated(game)
    creator = game.creator
    if creator is None or creator.member_id != member_id:
        raise ServiceError(Reason.NOT_CREATOR, refusal, game_id=game.id)


def sorted_seats(seats: Sequence[Seat]) -> tuple[Seat, ...]:
    return tuple(sorted(seats, key=lambda seat: seat.index))


def with_seats(game: Game, old: Seat, new: Seat, at_ms: int) -> Game:
    """``game`` with ``old`` replaced by ``new`` (which may sit elsewhere)."""
    return replace(game, seats=sorted_seats((*(s for s in game.seats if s != old), new)),
                   updated_at_ms=at_ms)


def with_seat(game: Game, seat: Seat) -> Game:
    return replace(game, seats=tuple(seat if s.index == seat.index else s for s in game.seats))
