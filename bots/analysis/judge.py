"""Judging one play: the maestro's search over every legal play of the position, the best one,
the expected points the play made lost against it, and a verdict by fixed thresholds.

The search (bots.levels.maestro.evaluate) samples the other hands from what the seat could not
see and plays every candidate out in the same worlds to the hand's end; a play's value is the
mean of the hand's points margin (the seat's team's points less the others') over those worlds.
It reads only the Knowledge, so the judgement cannot depend on a hidden card. docs/analysis.md
explains the thresholds and the accuracy figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from bots.knowledge import Knowledge
from bots.levels import maestro

# Expected points lost (rounded to 2 decimals) below each bound: the verdict. 0 exactly is best.
GOOD_BELOW = 0.15
INACCURACY_BELOW = 0.40
MISTAKE_BELOW = 1.00
# A play's accuracy is 100 * exp(-loss / ACCURACY_SCALE): 100 for no loss, 37 for a whole point.
ACCURACY_SCALE = 1.0
# Simulated plays per position (the maestro spends 30,000 on a decision of its own) and the
# bounds of the sampled worlds: docs/analysis.md, "Cost".
WORK = 80_000
MAX_SAMPLES = 500
MIN_SAMPLES = 16


@dataclass(frozen=True)
class Judgement:
    best: tuple[str, tuple[str, ...]]  # (card, capture) the search rates best
    loss: float  # expected points lost against it, >= 0, rounded to 2 decimals
    verdict: str  # best | good | inaccuracy | mistake | blunder


def judge(knowledge: Knowledge, card: str, capture: tuple[str, ...], *, seed: int = 0, work: int = WORK,
          max_samples: int = MAX_SAMPLES) -> Judgement:
    """The judgement of playing (card, capture) in ``knowledge``'s position. A play that was the
    only legal one is best with loss 0; ValueError when the play is not legal there."""
    choices = [(c, tuple(cap)) for c, cap in knowledge.choices()]
    played = (card, tuple(sorted(capture)))
    if played not in choices:
        raise ValueError(f"{card} taking {list(capture)} is not a legal play of the position")
    if len(choices) == 1:
        return Judgement(played, 0.0, "best")
    values = maestro.evaluate(knowledge, work, seed=seed, max_samples=max_samples, min_samples=MIN_SAMPLES)
    means = [mean for mean, _ in values]
    mine = means[choices.index(played)]
    best_index = max(range(len(choices)), key=lambda i: means[i])
    loss = round(max(0.0, means[best_index] - mine), 2)
    if loss == 0:
        return Judgement(played, 0.0, "best")
    return Judgement(choices[best_index], loss, verdict(loss))


def verdict(loss: float) -> str:
    """The verdict of a play that lost ``loss`` expected points (rounded to 2 decimals)."""
    if loss <= 0:
        return "best"
    if loss < GOOD_BELOW:
        return "good"
    if loss < INACCURACY_BELOW:
        return "inaccuracy"
    if loss < MISTAKE_BELOW:
        return "mistake"
    return "blunder"


def accuracy(losses: Iterable[float]) -> int:
    """The mean of each judged play's accuracy, rounded: 100 when none was judged."""
    values = [100.0 * math.exp(-loss / ACCURACY_SCALE) for loss in losses]
    return round(sum(values) / len(values)) if values else 100
