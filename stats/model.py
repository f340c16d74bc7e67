"""The stats domain's records: plain immutable data, shared by the stores, the service and the client.

Times are integer milliseconds since the Unix epoch, as everywhere inside the platform.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from typing import Any

ERASED_NAME = "deleted player"


def erased_member_id() -> str:
    """A fresh id for one erased row: random, never reused, recognisably nobody's login
    (the shape of the lobby's and of Postgres's ``'deleted-' || <32 hex>``)."""
    return f"deleted-{secrets.token_hex(16)}"


@dataclass(frozen=True)
class Player:
    """One participant of a match: who sat at which seat and how it went for them."""

    seat_index: int
    member_id: str  # "" for a bot's seat (bot_level): a bot is nobody's member
    display_name: str
    team: str | None  # None when the game has no teams (each seat plays for itself)
    won: bool
    points: int
    elo_delta: int = 0  # filled in when the match is recorded
    details: dict[str, Any] = field(default_factory=dict)
    # Anonymized (a fresh member_id per row, ERASED_NAME). Erased before the match was
    # recorded: never rated (elo_delta 0, see stats.standings); after: the delta stays.
    erased: bool = False
    # The level of a bot that played this seat from the start ("esperto"); None for a person.
    # Such a match is practice: nobody's rating moves (see stats.standings).
    bot_level: str | None = None
    # A bot took this person's seat over and they did not take it back: the match is unrated,
    # but this member loses what a lost match would have cost them (see stats.standings).
    abandoned: bool = False
    # The member's public player id (the lobby's seating) when the match was recorded; "" for a
    # bot, for an erased member, and in matches recorded before there were player ids.
    player: str = ""

    def anonymized(self, new_member_id: str) -> Player:
        return replace(self, member_id=new_member_id, display_name=ERASED_NAME, erased=True,
                       player="")


@dataclass(frozen=True)
class Match:
    """A finished match; its id is the table id (also the lobby game id)."""

    id: str
    game_type: str
    started_ms: int
    finished_ms: int
    result: dict[str, Any]
    players: tuple[Player, ...]  # in seat order
    # The match moved ratings as a whole: no bot from the start, nobody abandoned. Set when the
    # match is recorded (stats.standings.with_deltas).
    rated: bool = True


@dataclass(frozen=True)
class SeatHolder:
    """Who sits at one opaque seat of a table, as the lobby's seating says."""

    seat: str  # "seat:2"
    seat_index: int
    member_id: str
    display_name: str
    erased: bool = False  # the lobby erased the member: the id stands for nobody
    bot_level: str = ""  # a bot plays the seat (lobby.models.Seat.bot)
    took_over: bool = False  # that bot took the seat over from the member named here
    player: str = ""  # the member's public player id (lobby.models.Seat.player); "" unknown


@dataclass(frozen=True)
class Rating:
    """A member's standing in one game type."""

    game_type: str
    rating: int
    matches: int


@dataclass(frozen=True)
class LeaderboardRow:
    member_id: str
    display_name: str  # as of the member's latest recorded match
    rating: int
    wins: int
    matches: int
    points: int
    player: str = ""  # the public player id as of the latest match that carried one; "" unknown


@dataclass(frozen=True)
class Position:
    """Where a page of a member's history ends: the keyset (finished_ms, match id)."""

    finished_ms: int
    match_id: str


@dataclass(frozen=True)
class RecalculationSummary:
    """What a backfill did."""

    matches: int
    ratings: int
    changed_deltas: int
