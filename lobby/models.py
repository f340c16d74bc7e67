"""The lobby's data: a game as the lobby knows it, its seats and the game types on offer.

Plain frozen dataclasses shared by the domain (service.py), the stores and the lobby's client
(client.py), so the gateway and stats read the same shapes the lobby keeps. A game type is the
game service's own (game.client.GameType), passed on as the game service describes it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from game.client import GameType as GameType

STATUS_LOBBY = "lobby"
STATUS_STARTED = "started"
DELETED_PLAYER = "deleted player"


def seat_id(index: int) -> str:
    """The opaque seat the game service knows: ``seat:<index>``."""
    return f"seat:{index}"


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

    @property
    def seat(self) -> str:
        return seat_id(self.index)

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

    @property
    def changed_at_ms(self) -> int:
        """When the game last changed in the lobby (created, a seat taken, started)."""
        return max(self.updated_at_ms, self.created_at_ms)

    @property
    def status(self) -> str:
        return STATUS_STARTED if self.started else STATUS_LOBBY

    @property
    def seats_open(self) -> int:
        return self.seats_total - len(self.seats)

    @property
    def full(self) -> bool:
        return self.seats_open <= 0

    @property
    def options(self) -> dict:
        return json.loads(self.options_json)

    def seat_of(self, member_id: str) -> Seat | None:
        return next((seat for seat in self.seats if seat.member_id == member_id), None)


@dataclass(frozen=True)
class JoinResult:
    """The game after a join; ``started`` only when this join took the last seat and created the table."""

    game: Game
    started: bool


@dataclass(frozen=True)
class RematchResult:
    """The new game of a rematch after the member was seated at it; ``created`` when this call
    made it (the member at seat 0), ``started`` when this call took its last seat."""

    game: Game
    created: bool
    started: bool
