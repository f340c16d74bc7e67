"""A member's running standing per game type, and how one match moves it. Pure: no I/O.

Live recording and the backfill both go through :func:`settle`, so replaying the history in
finished order lands exactly where recording it in that order did.

Erased players. A player already erased when the match is recorded (the lobby's seat says so,
or the erasure raced the recording) is not rated: no standing, elo_delta 0, and the Elo of the
others is computed among the real players only (a team's rating is the mean of its remaining
members; a side with nobody left drops out, and with a single side left nobody moves). Their
real rating is gone with the erasure, so any stand-in (1500, the partner's) would be invented;
leaving them out keeps the team deltas zero-sum.

The backfill cannot recompute a match that has an erased player: each erased row has its own
random id, so the erased member's rating at the time is unknowable (that is the point), and a
player erased after recording was rated with it. :meth:`Ledger.replay` therefore applies such a
match as recorded (its stored deltas, to the real players only), which is what live recording
did; every other match is settled afresh.

Bots and abandonment (CONTRACT.md, Bots). A match where a bot sat from the start (a player with
a ``bot_level``) is practice: nobody's standing moves, every delta is 0; a bot is nobody, so it
never has a standing. A match where a person abandoned (a bot took their seat over and they did
not take it back) is unrated too, except that each abandoner (not erased) loses what a lost
match would have cost them: their side's delta for a loss against the other side(s), with the
sides' ratings computed from the seated people as usual (:func:`stats.elo.loss_delta`). Their
standing counts that match as played and lost, with no points; the others' standings do not
count it. Abandonment moves nobody in a practice match. Everything else is rated as always.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    player: str = ""  # the public player id, as of the latest match that carried one


def side_of(player: Player) -> tuple[str, object]:
    """Team mates play together; without a team, each seat plays for itself."""
    return ("team", player.team) if player.team else ("seat", player.seat_index)


def members(match: Match) -> list[Player]:
    """The players that stand for a member: all but bots and the erased."""
    return [p for p in match.players if p.bot_level is None and not p.erased]


def is_rated(match: Match) -> bool:
    """The match moves ratings as a whole: no bot from the start, nobody abandoned."""
    return not any(p.bot_level is not None or p.abandoned for p in match.players)


def counted(match: Match) -> list[Player]:
    """The players whose ratings make the sides' ratings: the members, none in practice."""
    if any(p.bot_level is not None for p in match.players):
        return []
    return members(match)


def moved(match: Match) -> list[Player]:
    """The players whose standings the match moves: every counted player of a rated match,
    only the abandoners of an abandoned one."""
    players = counted(match)
    return players if is_rated(match) else [p for p in players if p.abandoned]


def settle(match: Match, standings: Mapping[str, Standing]) -> dict[str, int]:
    """Every player's Elo delta (by member id; 0 for those the match does not move, bots under
    ""), the standings of the :func:`moved` players updated in place.

    ``standings`` (by member id) holds an entry for every :func:`counted` player (a fresh
    ``Standing()`` for a first match); the entries of players not moved are only read.
    """
    players = counted(match)
    participants = [elo.Participant(p.member_id, side_of(p), p.won) for p in players]
    ratings = {p.member_id: standings[p.member_id].rating for p in players}
    if is_rated(match):
        deltas = elo.match_deltas(participants, ratings)
    else:
        deltas = {p.member_id: elo.loss_delta(participants, ratings, side_of(p))
                  for p in players if p.abandoned}
    for player in moved(match):
        _move(standings[player.member_id], player, deltas[player.member_id], match.finished_ms)
    return {p.member_id: deltas.get(p.member_id, 0) for p in match.players}


def apply_recorded(match: Match, standings: Mapping[str, Standing]) -> dict[str, int]:
    """The match's stored deltas, applied to its moved players' ``standings`` as recorded."""
    for player in moved(match):
        _move(standings[player.member_id], player, player.elo_delta, match.finished_ms)
    return {p.member_id: p.elo_delta for p in match.players}


def _move(standing: Standing, player: Player, delta: int, finished_ms: int) -> None:
    standing.rating += delta
    standing.matches += 1
    if not player.abandoned:  # an abandonment counts as a match lost, with no points
        standing.wins += int(player.won)
        standing.points += player.points
    if standing.last_finished_ms is None or finished_ms >= standing.last_finished_ms:
        standing.display_name = player.display_name
        standing.last_finished_ms = finished_ms
        standing.player = player.player or standing.player


def with_deltas(match: Match, deltas: dict[str, int]) -> Match:
    """The match as recorded: every player's delta, and whether it is rated."""
    players = tuple(replace(p, elo_delta=deltas[p.member_id]) for p in match.players)
    return replace(match, players=players, rated=is_rated(match))


class Ledger:
    """The standing of every (member id, game type), moved by one settled match at a time."""

    def __init__(self) -> None:
        self.standings: dict[tuple[str, str], Standing] = {}

    def settle(self, match: Match) -> dict[str, int]:
        """The match's Elo deltas by member id, its moved players' standings moved."""
        return settle(match, self._local(match))

    def replay(self, match: Match) -> dict[str, int]:
        """A recorded match again, for the backfill: settled afresh, or, when it has an erased
        player, applied as recorded (see the module's docstring)."""
        if any(p.erased for p in match.players):
            return apply_recorded(match, self._local(match))
        return settle(match, self._local(match))

    def _local(self, match: Match) -> dict[str, Standing]:
        """The standings the match reads; only those of its moved players are kept (made)."""
        local = {p.member_id: self.standings.get((p.member_id, match.game_type), Standing())
                 for p in counted(match)}
        local.update({p.member_id: self.standings.setdefault((p.member_id, match.game_type),
                                                             Standing())
                      for p in moved(match)})
        return local


def history_order(match: Match) -> tuple[int, str]:
    """Finished order: by finish time, then id (the keyset of the history pages)."""
    return match.finished_ms, match.id
