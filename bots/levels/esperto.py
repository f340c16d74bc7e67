"""Esperto (Expert): the classic play rules of the scopone literature, as a scored heuristic.

Each legal play gets the sum of named rules (Chitarrella's code, Saracino's book), and the best
sum is played. The rules look one turn ahead by counting the cards: a rank whose copies are all
seen cannot take anything, and a rank with u copies out is in the next player's hand with a
probability the counts give (hypergeometric). What a player laid down is read as the classic
signal ("accusare"): a player leads from a rank of which he holds another copy.
"""

from __future__ import annotations

from collections.abc import Iterable

from bots.knowledge import Knowledge
from bots.levels import counting
from bots.levels.counting import SCOPA, WORTH, Hand
from game.scopone import rules
from game.scopone.cards import DECK, rank

_RANKS = range(1, 11)
# Never leave a scopa: what a scopa the next opponent may make costs, in the count of his reply.
# More than its point: after it we must lay a card on the empty table and offer him another one.
_SCOPA_RISK = 2.2
# Play to the partner: how much of what he can take from the table we leave, when the opponent
# in between passes, counts for us. Only part of it: his card may be better used elsewhere.
_PARTNER_SHARE = 0.2
# Spariglio (Chitarrella 28): breaking the pairs of ranks helps the team that leads the hand
# (coppia di mano), keeping them paired helps the dealer's team, which plays the last card.
_SPARIGLIO = 0.08
_PARIGLIO = 0.05
# Accusare: leading from a rank you hold twice tells the partner, and leaves one copy fewer out.
_ACCUSA = 0.05
# Rispondere: lay the rank the partner accused; he holds its pair and can take it back.
_RISPOSTA = 0.12


def choose(knowledge: Knowledge) -> tuple[str, list[str]]:
    best: tuple[float, str, list[str]] | None = None
    for score, card, capture in ranked(knowledge):
        if best is None or score > best[0]:
            best = (score, card, capture)
    assert best is not None, "a playing view always has a legal play"
    return best[1], best[2]


def ranked(knowledge: Knowledge) -> Iterable[tuple[float, str, list[str]]]:
    """(score, card, capture) of every legal play, in the view's order."""
    hand = counting.read(knowledge)
    reader = _Reader(hand)
    for card, capture in knowledge.choices():
        yield reader.score(card, capture), card, capture


class _Reader:
    """The counts one decision needs, computed once for all its candidate plays."""

    def __init__(self, hand: Hand):
        self.h = hand
        self.me = hand.seat
        self.opponent = (hand.seat + 1) % 4
        self.partner = (hand.seat + 2) % 4
        self.last_play = hand.plays_left() == 1
        # The partner's signals: ranks he led onto an empty table this hand (accusare: he leads from
        # a pair), whose other copy may still be in his hand.
        self.accused = {rank(card) for seat, card, empty in hand.laid if seat == self.partner and empty}
        self.unseen = {r: hand.unseen_of_rank(r) for r in _RANKS}
        self.sample = {r: next((c for c in DECK if rank(c) == r), "") for r in _RANKS}
        self.unseen_worth = {
            r: (sum(WORTH[c] for c in hand.unseen if rank(c) == r) / self.unseen[r]) if self.unseen[r] else 0.0
            for r in _RANKS
        }

    def score(self, card: str, capture: list[str]) -> float:
        h = self.h
        taken = counting.taken(card, capture, h.table, h.asso)
        left = counting.after(h.table, card, capture, h.asso)
        # Points now: the cards taken (denari, settebello, 7s and 6s weigh most) and a scopa.
        score = sum(WORTH[c] for c in taken)
        if counting.is_scopa(card, capture, h.table, h.asso, self.last_play):
            score += SCOPA
        if self.last_play:
            # The 40th card: what is left goes to the last capturer.
            if taken:
                return score + sum(WORTH[c] for c in left)
            ours = h.last_capturer is not None and counting.team(h.last_capturer) == counting.team(self.me)
            return WORTH[card] if ours else -WORTH[card]
        # Never leave a scopa, guard denari and primiera cards: what the next opponent is expected
        # to take from the table we leave, counting which ranks can still be in his hand.
        loss, passes = self._reply(left, self.opponent, counting.HAND_PLAYS - h.plays_left() + 2, _SCOPA_RISK)
        score -= loss
        # Play to the partner: when the opponent is likely to leave the table as it is, what the
        # partner can take from it is ours.
        gain, _ = self._reply(left, self.partner, counting.HAND_PLAYS - h.plays_left() + 3, SCOPA)
        score += _PARTNER_SHARE * passes * gain
        score += self._style(card, capture, taken)
        return score

    def _style(self, card: str, capture: list[str], taken: list[str]) -> float:
        """The rules of the literature that are about how, not how much."""
        h = self.h
        bonus = 0.0
        mano = counting.team(self.me) == counting.team(h.leader)
        if len(capture) >= 2:
            bonus += _SPARIGLIO if mano else -_SPARIGLIO
        elif len(capture) == 1 and not mano:
            bonus += _PARIGLIO
        if not taken:
            r = rank(card)
            copies = sum(1 for c in h.hand if rank(c) == r)
            if not h.table and copies >= 2:
                bonus += _ACCUSA * (copies - 1)
            if r in self.accused and self.unseen[r] > 0:
                bonus += _RISPOSTA
        return bonus

    def _reply(self, left: list[str], seat: int, play_number: int, scopa: float) -> tuple[float, float]:
        """The expected best capture ``seat`` makes on ``left`` with its next card, and the chance
        that it can take nothing: for every rank it may hold (probability from the counts), the best
        capture that rank makes, best rank first."""
        h = self.h
        if h.counts[seat] == 0 or not left:
            return 0.0, 1.0
        unseen_total = len(h.unseen)
        can_sweep = play_number < counting.HAND_PLAYS
        options: list[tuple[float, float]] = []
        for r in _RANKS:
            copies = self.unseen[r]
            p = counting.holds_one(h.counts[seat], unseen_total, copies)
            if r in self.accused and copies:
                # A signal, not a certainty: halfway between the count and what the signal says
                # (the partner holds one copy, the opponents share the others).
                if seat == self.partner:
                    signalled = 1.0
                else:
                    signalled = counting.holds_one(h.counts[seat], unseen_total, copies - 1)
                p = (p + signalled) / 2
            if p <= 0.0:
                continue
            best = 0.0
            sample = self.sample[r]
            for capture in rules.captures(sample, left, h.asso):
                took = left if rules.sweeps(sample, left, h.asso) else capture
                if not took and not rules.sweeps(sample, left, h.asso):
                    continue
                value = self.unseen_worth[r] + sum(WORTH[c] for c in took)
                if can_sweep and capture and len(capture) == len(left) and not rules.sweeps(sample, left, h.asso):
                    value += scopa
                best = max(best, value)
            if best > 0.0:
                options.append((best, p))
        options.sort(reverse=True)
        expected, none_yet = 0.0, 1.0
        for value, p in options:
            expected += none_yet * p * value
            none_yet *= 1.0 - p
        return expected, none_yet
