"""Maestro (Master): determinized Monte Carlo search (perfect-information Monte Carlo).

The seat cannot see the other hands, so it samples them: the unseen cards dealt at random to
the other three seats, each getting as many as it holds. That is every world consistent with
what the seat saw: no play in scopone proves that a player lacks a card (any card may be played,
only the played card must capture), so no world can be ruled out. In every sampled world each legal play
is played out to the end of the hand by the greedy policy of playout.py, and scored by the
hand's points difference for the maestro's team. The same worlds serve every candidate (common
random numbers), so that the comparison between two plays is sharper than either estimate.

The work per decision is fixed in simulated plays (WORK), so that a decision is a deterministic
function of the Knowledge: the random worlds come from an RNG seeded with a hash of it. BUDGET_S
is a CPU-time safety stop for a machine much slower than the one the budget was measured on. It
counts the CPU time of the deciding thread (time.thread_time), not the process's: a service that
decides in a thread pool must not bill one table's decision with the others running beside it.
"""

from __future__ import annotations

import hashlib
import math
import random
import time

from bots.knowledge import Knowledge
from bots.levels import counting, esperto, playout
from game.scopone import rules

# Simulated plays per decision: ~75 ms of CPU at the start of a hand on the reference machine (2 cores).
WORK = 30_000
# The CPU-time stop: a decision never runs longer than this, whatever WORK says.
BUDGET_S = 0.8
MAX_SAMPLES = 400
MIN_SAMPLES = 8
# The heuristic breaks ties between plays the search cannot tell apart (points are integers).
_TIE_BREAK = 0.01


def choose(knowledge: Knowledge, budget_s: float = BUDGET_S, work: int = WORK) -> tuple[str, list[str]]:
    """The play with the best mean over sampled worlds, by successive halving: every round plays
    the surviving candidates out in fresh worlds, then keeps the better half, so that most of the
    work goes to the plays worth telling apart."""
    started = time.thread_time()
    choices = knowledge.choices()
    if len(choices) == 1:
        return choices[0]
    search = _Search(knowledge)
    alive = list(range(len(choices)))
    rounds = max(1, math.ceil(math.log2(len(choices))))
    for round_number in range(rounds):
        samples = max(MIN_SAMPLES, (work // rounds) // (len(alive) * search.plays_left))
        for _ in range(min(samples, MAX_SAMPLES)):
            search.sample(alive)
            if time.thread_time() - started > budget_s:
                break
        if time.thread_time() - started > budget_s or round_number == rounds - 1:
            break
        alive.sort(key=search.mean, reverse=True)
        alive = alive[: max(2, (len(alive) + 1) // 2)]
    heuristic = [score for score, _, _ in esperto.ranked(knowledge)]
    best = max(alive, key=lambda i: search.mean(i) + _TIE_BREAK * heuristic[i])
    return choices[best]


def evaluate(knowledge: Knowledge, work: int, *, seed: int = 0, max_samples: int = MAX_SAMPLES,
             min_samples: int = MIN_SAMPLES) -> list[tuple[float, int]]:
    """(mean, samples) of every legal play in ``knowledge.choices()`` order: the hand's points
    difference for the seat's team, each play played out in the same sampled worlds, none
    dropped (the analysis of a match needs the estimate of the play made, not only of the best).
    Deterministic: the worlds come from ``seed`` and a hash of the Knowledge; ``work`` is the
    simulated plays to spend, within ``min_samples``..``max_samples`` worlds."""
    choices = knowledge.choices()
    search = _Search(knowledge, seed=seed)
    samples = work // (len(choices) * search.plays_left)
    everyone = list(range(len(choices)))
    for _ in range(max(min_samples, min(samples, max_samples))):
        search.sample(everyone)
    return [(search.mean(i), search.counts[i]) for i in everyone]


class _Search:
    """The sampled worlds of one decision and the points each candidate play scored in them."""

    def __init__(self, knowledge: Knowledge, seed: int = 0):
        hand = counting.read(knowledge)
        self.base = _world_without_hands(knowledge, hand)
        self.candidates = [
            (playout.INDEX[card], playout.mask_of(capture), rules.sweeps(card, list(knowledge.table), hand.asso))
            for card, capture in knowledge.choices()
        ]
        self.plays_left = counting.HAND_PLAYS - hand.played
        self.unseen = [playout.INDEX[c] for c in hand.unseen]
        self.others = [((knowledge.seat + i) % 4, knowledge.card_counts[(knowledge.seat + i) % 4]) for i in (1, 2, 3)]
        self.rng = random.Random(_seed(knowledge) ^ seed)
        self.sign = 1 if counting.team(knowledge.seat) == 0 else -1
        self.totals = [0.0] * len(self.candidates)
        self.counts = [0] * len(self.candidates)

    def sample(self, alive: list[int]) -> None:
        """Deal one world consistent with what the seat knows and play every ``alive`` candidate out in it."""
        world = self.base.copy()
        self.rng.shuffle(self.unseen)
        start = 0
        for seat, count in self.others:
            world.hands[seat] = self.unseen[start : start + count]
            start += count
        for i in alive:
            line = world.copy()
            line.play(*self.candidates[i])
            line.finish()
            pa, pb = line.points()
            self.totals[i] += self.sign * (pa - pb)
            self.counts[i] += 1

    def mean(self, i: int) -> float:
        return self.totals[i] / self.counts[i] if self.counts[i] else float("-inf")


def _world_without_hands(knowledge: Knowledge, hand: counting.Hand) -> playout.Deal:
    """The public part of the world, with the seat's own hand; the other hands are filled per sample."""
    seen = [0] * 11
    for play in knowledge.plays:
        seen[playout.RANK[playout.INDEX[play.card]]] += 1
    hands: list[list[int]] = [[], [], [], []]
    hands[knowledge.seat] = [playout.INDEX[c] for c in knowledge.hand]
    last = -1 if hand.last_capturer is None else counting.team(hand.last_capturer)
    return playout.Deal(
        hands=hands,
        table=playout.mask_of(knowledge.table),
        piles=[playout.mask_of(hand.captured[0]), playout.mask_of(hand.captured[1])],
        scope=list(hand.scope),
        seen=seen,
        played=hand.played,
        turn=knowledge.seat,
        last_team=last,
        asso=hand.asso,
        napola=bool(knowledge.options.get("napola", True)),
    )


def _seed(knowledge: Knowledge) -> int:
    """A hash of every field of the Knowledge (never Python's salted hash(): it differs per process)."""
    text = repr((
        knowledge.seat, knowledge.hand, knowledge.table, knowledge.plays, knowledge.card_counts,
        sorted(knowledge.scores.items()), sorted((k, repr(v)) for k, v in knowledge.options.items()), knowledge.legal,
    ))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
