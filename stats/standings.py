"""A member's running standing per game type, and how one match moves it. Pure: no I/O.

Live recording and the backfill both go through :func:`settle`, so replaying the history in
finished order lands exactly where recording it in that order did.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, replace

from stats import elo
from stats.model import Match, Player


@dataclass
class Standing:
    """What player_rating holds for one (member, game type)."""

    rating: int = elo.START_RATING
    matches: int = 0
    wins: int = 0
    points: int = 0
    display_name: str = ""
    last_finished_ms: int | None = None


def side_of(player: Player) -> tuple[str, object]:
    """Team mates play together; without a team, each seat plays for itself."""
    return ("team", player.team) if player.team else ("seat", player.seat_index)


def settle(match: Match, standings: MutableMapping[str, Standing]) -> dict[str, int]:
    """Every player's Elo delta (by member id); ``standings`` (by member id) updated in place.

    Every player of the match must have an entry (a fresh ``Standing()`` for a first match).
    """
    participants = [elo.Participant(p.member_id, side_of(p), p.won) for p in match.players]
    ratings = {p.member_id: standings[p.member_id].rating for p in match.players}
    deltas = elo.match_deltas(participants, ratings)
    for player in match.players:
        standing = standings[player.member_id]
        standing.rating += deltas[player.member_id]
        standing.matches += 1
        standing.wins += int(player.won)
        standing.points += player.points
        if standing.last_finished_ms is None or match.finished_ms >= standing.last_finished_ms:
            standing.display_name = player.display_name
            standing.last_finished_ms = match.finished_ms
    return deltas


def with_deltas(match: Match, deltas: dict[str, int]) -> Match:
    players = tuple(replace(p, elo_delta=deltas[p.member_id]) for p in match.players)
    return replace(match, players=players)


class Ledger:
    """The standing of every (member id, game type), moved by one settled match at a time."""

    def __init__(self) -> None:
        self.standings: dict[tuple[str, str], Standing] = {}

    def settle(self, match: Match) -> dict[str, int]:
        """The match's Elo deltas by member id, its players' standings moved."""
        local = {p.member_id: self.standings.setdefault((p.member_id, match.game_type), Standing())
                 for p in match.players}
        return settle(match, local)


def history_order(match: Match) -> tuple[int, str]:
    """Finished order: by finish time, then id (the keyset of the history pages)."""
    return match.finished_ms, match.id
