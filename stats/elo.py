"""Elo for team games, exactly as CONTRACT.md fixes it. Pure: no I/O.

Everyone starts at 1500 per game type; a side's rating is the mean of its members'; the expected
score is E = 1 / (1 + 10 ** ((R_opp - R_side) / 400)); K = 32; every member of a side gets the
side's delta, rounded half-to-even; the sides' deltas sum to zero.

A side is a team, or a single seat when the game has no teams. With two sides the second delta is
the negation of the first (so rounding can never break the zero sum). With more sides each pair is
scored as a two-side match at K / (n - 1) and any rounding residue is settled on the sides whose
rounding lost the most, so the sum stays zero there too.

:func:`loss_delta` is what a side would get for a loss against the others: the cost of an
abandonment (CONTRACT.md, Bots).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

START_RATING = 1500
K_FACTOR = 32


@dataclass(frozen=True)
class Participant:
    member_id: str
    side: Hashable  # members with equal sides play together
    won: bool


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def round_half_even(value: float) -> int:
    """Python's round() on a float is already half-to-even; named so the rule is visible."""
    return round(value)


def actual_score(won: bool, opponent_won: bool) -> float:
    """1 for a win over the other side, 0 for a loss, 0.5 when both or neither won (a draw)."""
    if won == opponent_won:
        return 0.5
    return 1.0 if won else 0.0


def match_deltas(participants: Sequence[Participant], ratings: Mapping[str, int],
                 k: float = K_FACTOR) -> dict[str, int]:
    """The rating change of every participant (by member id), given their ratings before."""
    sides: dict[Hashable, list[Participant]] = {}
    for participant in participants:
        sides.setdefault(participant.side, []).append(participant)
    keys = sorted(sides, key=repr)  # a stable order, whatever the side keys are
    mean = {key: sum(ratings[p.member_id] for p in sides[key]) / len(sides[key]) for key in keys}
    won = {key: sides[key][0].won for key in keys}
    side_delta = _side_deltas(keys, mean, won, k)
    return {p.member_id: side_delta[key] for key in keys for p in sides[key]}


def loss_delta(participants: Sequence[Participant], ratings: Mapping[str, int], side: Hashable,
               k: float = K_FACTOR) -> int:
    """What losing would cost ``side``: its delta had it lost to every other side (which then
    draw among themselves), whatever the match's real outcome. 0 with no other side."""
    lost = [Participant(p.member_id, p.side, p.side != side) for p in participants]
    deltas = match_deltas(lost, ratings, k)
    return next((deltas[p.member_id] for p in participants if p.side == side), 0)


def _side_deltas(keys: list, mean: dict, won: dict, k: float) -> dict:
    if len(keys) < 2:
        return dict.fromkeys(keys, 0)
    if len(keys) == 2:
        first, second = keys
        delta = round_half_even(
            k * (actual_score(won[first], won[second]) - expected_score(mean[first], mean[second])))
        return {first: delta, second: -delta}
    pair_k = k / (len(keys) - 1)
    raw = {
        key: sum(pair_k * (actual_score(won[key], won[other]) - expected_score(mean[key], mean[other]))
                 for other in keys if other != key)
        for key in keys
    }
    rounded = {key: round_half_even(raw[key]) for key in keys}
    residue = -sum(rounded.values())
    step = 1 if residue > 0 else -1
    # Settle the residue one point at a time on the sides whose rounding moved them furthest
    # against the needed direction; ties go to the earlier side, so the result is deterministic.
    candidates = sorted(keys, key=lambda key: (-step * (raw[key] - rounded[key]), keys.index(key)))
    for key in candidates[: abs(residue)]:
        rounded[key] += step
    return rounded
