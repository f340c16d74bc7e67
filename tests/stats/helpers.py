"""Builders of matches and reports for the stats tests."""

from __future__ import annotations

import uuid
from dataclasses import replace

from stats.client import SeatOutcome
from stats.model import Match, Player

BASE_MS = 1_764_669_600_000  # 2025-12-02T10:00:00Z
SCOPONE = "scopone_scientifico"


def team_match(members: tuple[str, str, str, str], winner: str = "A", finished_ms: int = BASE_MS,
               game_type: str = SCOPONE, match_id: str | None = None,
               scores: tuple[int, int] = (11, 7)) -> Match:
    """A four-seat team match (A = seats 0, 2; B = seats 1, 3) ready for a repository."""
    points = {"A": scores[0] if winner == "A" else scores[1],
              "B": scores[0] if winner == "B" else scores[1]}
    players = tuple(
        Player(seat_index=seat, member_id=member, display_name=member.title(),
               team="A" if seat % 2 == 0 else "B", won=(seat % 2 == 0) == (winner == "A"),
               points=points["A" if seat % 2 == 0 else "B"], details={"seat": seat})
        for seat, member in enumerate(members))
    return Match(id=match_id or str(uuid.uuid4()), game_type=game_type,
                 started_ms=finished_ms - 600_000, finished_ms=finished_ms,
                 result={"scores": points, "winner": winner, "target_score": 11, "hands": 3,
                         "audit": [{"hand": 1, "scores": points}]},
                 players=players)


def team_seats(winner: str = "A", scores: tuple[int, int] = (11, 7)) -> list[SeatOutcome]:
    """What the game service reports for a four-seat team match."""
    def team(seat: int) -> str:
        return "A" if seat % 2 == 0 else "B"
    return [SeatOutcome(seat_index=seat, team=team(seat), won=team(seat) == winner,
                        points=scores[0] if team(seat) == winner else scores[1],
                        details={"scope": seat})
            for seat in range(4)]


def result_of(winner: str = "A", scores: tuple[int, int] = (11, 7)) -> dict:
    other = "B" if winner == "A" else "A"
    return {"scores": {winner: scores[0], other: scores[1]}, "winner": winner,
            "target_score": 11, "hands": 2, "audit": [{"hand": 1}, {"hand": 2}]}


def with_bots(match: Match, *seats: int, level: str = "esperto") -> Match:
    """The match with a bot from the start at ``seats``: no member, the lobby's bot name."""
    return replace(match, players=tuple(
        replace(p, member_id="", display_name="Expert", bot_level=level) if p.seat_index in seats
        else p for p in match.players))


def abandoned_at(match: Match, *seats: int) -> Match:
    """The match with the people at ``seats`` having left it to a bot for good."""
    return replace(match, players=tuple(replace(p, abandoned=True) if p.seat_index in seats else p
                                        for p in match.players))
