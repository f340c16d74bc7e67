"""The lobby's data: a game as the lobby knows it, its seats and the game types on offer.

Plain frozen dataclasses shared by the domain (service.py), the stores and the lobby's client
(client.py), so the gateway and stats read the same shapes the lobby keeps. A game type is the
game service's own (game.client.GameType), passed on as the game service describes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from game.client import GameType as GameType
from game.pace import DAILY, pace_of

DELETED_PLAYER = "deleted player"
MAX_OPEN_GAMES = 5  # open games a member may have waiting at once
MAX_DAILY_GAMES = 20  # unfinished daily games a member may sit at (CONTRACT, Turn-based games)
NEW_PLAYER_RATING = 1500  # a person seated without a rating counts as a new player


def seat_id(index: int) -> str:
    """The opaque seat the game service knows: ``seat:<index>``."""
    return f"seat:{index}"


def bot_member_id(index: int) -> str:
    """The member id of a bot seated in the lobby: no login can have it (ids come from the
    identity provider as ``<provider>:<sub>``), and it is unique at its game."""
    return f"bot:{index}"


def team_of(index: int) -> str:
    """CONTRACT teams: A = seats 0 and 2, B = seats 1 and 3."""
    return "A" if index % 2 == 0 else "B"


@dataclass(frozen=True)
class Seat:
    """One member at one seat: the only place that ties a member to an opaque seat."""

    index: int
    member_id: str
    display_name: str
    erased: bool = False  # the member was erased: member_id is a fresh id that is nobody's
    bot: str = ""  # the level of the bot that plays the seat; "" while a person plays it
    took_over: bool = False  # the bot replaced the person named here, who may take it back
    rating: int = 0  # the person's rating for the game type when seated; 0: not known
    player: str = ""  # the person's public player id (lobby.members); "" for a bot or the erased

    @property
    def seat(self) -> str:
        return seat_id(self.index)

    @property
    def is_person(self) -> bool:
        """A person sits here (a bot may be playing for them: took_over)."""
        return not self.bot or self.took_over

    @property
    def played_by_person(self) -> bool:
        """A person plays this seat now."""
        return not self.bot

    @property
    def team(self) -> str:
        return team_of(self.index)


@dataclass(frozen=True)
class Game:
    """A lobby game. ``started`` is true once the table exists in the game service.

    Every seat taken but ``started`` false: the table is being created, or its creation failed
    and is retried (see service.py, "A start that failed").
    """

    id: str
    game_type: str
    join_code: str
    options_json: str
    seats_total: int
    created_at_ms: int
    seats: tuple[Seat, ...] = ()
    started: bool = False
    updated_at_ms: int = 0  # the last seat taken or the start; 0 read as created_at_ms
    open: bool = False  # listed for anyone to join (ListOpenGames, QuickMatch)
    spectators: bool = True  # anyone logged in may watch it (fixed at creation)
    finished: bool = False  # its table finished (MarkFinished: stats recorded its match)

    @property
    def changed_at_ms(self) -> int:
        """When the game last changed in the lobby (created, a seat taken, started)."""
        return max(self.updated_at_ms, self.created_at_ms)

    @property
    def seats_open(self) -> int:
        return self.seats_total - len(self.seats)

    @property
    def full(self) -> bool:
        return self.seats_open <= 0

    @property
    def options(self) -> dict:
        return json.loads(self.options_json)

    @property
    def pace(self) -> str:
        """``live`` or ``daily`` (game.pace): a game type without the option is live."""
        return pace_of(self.options)

    @property
    def counts_daily(self) -> bool:
        """A daily game not finished: one of the MAX_DAILY_GAMES its people may sit at."""
        return self.pace == DAILY and not self.finished

    def seat_of(self, member_id: str) -> Seat | None:
        """The member's seat; a bot's own seat is nobody's."""
        return next((seat for seat in self.seats if seat.member_id == member_id and seat.is_person),
                    None)

    def at(self, index: int) -> Seat | None:
        return next((seat for seat in self.seats if seat.index == index), None)

    @property
    def creator(self) -> Seat | None:
        """Who may seat bots: the lowest-seated person (the creator sits at 0; when they leave,
        the next person takes their place)."""
        return next((seat for seat in sorted(self.seats, key=lambda s: s.index) if seat.is_person),
                    None)

    @property
    def free_index(self) -> int | None:
        """The lowest empty seat, None when the game is full."""
        taken = {seat.index for seat in self.seats}
        return next((index for index in range(self.seats_total) if index not in taken), None)

    @property
    def waiting_open(self) -> bool:
        """Listed for anyone: open, not started, a seat free."""
        return self.open and not self.started and not self.full

    @property
    def rating(self) -> int:
        """The mean rating of the seated people (bots do not count), for matching players."""
        people = [seat.rating or NEW_PLAYER_RATING for seat in self.seats if seat.is_person]
        return round(sum(people) / len(people)) if people else NEW_PLAYER_RATING

    @property
    def watchable(self) -> bool:
        """Started, open to spectators and not known to be finished (ListWatchableGames; a
        table that finished a moment ago is marked once stats has recorded its match)."""
        return self.started and self.spectators and not self.finished

    @property
    def bot_seats(self) -> tuple[Seat, ...]:
        """The seats bots play now."""
        return tuple(seat for seat in self.seats if seat.bot)


@dataclass(frozen=True)
class PlayerName:
    """A public player id (lobby.members) and the name its member last logged in with."""

    player: str
    name: str


@dataclass(frozen=True)
class JoinResult:
    """The game after a join; ``started`` only when this join took the last seat and created the table."""

    game: Game
    started: bool


@dataclass(frozen=True)
class QuickMatchResult:
    """The game a quick match seated the member at; ``created`` when this call made it (the
    member at seat 0), ``started`` when this call took its last seat."""

    game: Game
    created: bool
    started: bool


@dataclass(frozen=True)
class RematchResult:
    """The new game of a rematch after the member was seated at it; ``created`` when this call
    made it (the member at seat 0), ``started`` when this call took its last seat."""

    game: Game
    created: bool
    started: bool
