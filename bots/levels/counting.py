"""Card counting: the public facts of the hand so far, read from one seat's Knowledge.

Every level starts here. Replaying the hand's plays from the empty table gives who captured what,
the scope and the last capturer; what is in no play, not on the table and not in the seat's own
hand is *unseen* (somewhere in the other three hands). Card values for the heuristics live here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from bots.knowledge import Knowledge
from game.scopone import rules
from game.scopone.cards import DECK, SETTEBELLO, rank, suit

SEATS = 4
HAND_PLAYS = 40

# What a captured card is worth, in expected points of a hand. A card is ~0.1 toward carte (one
# point for 21+ of 40), a denaro ~0.25 toward denari (6+ of 10), the settebello a whole point of
# its own, and primiera is mostly decided by the 7s, then the 6s and aces. The ace, 2 and 3 of
# denari start a napola. The figures are rough on purpose: they rank plays, they do not score them.
_PRIMIERA_WORTH = {7: 0.30, 6: 0.12, 1: 0.07, 5: 0.03}
_NAPOLA_WORTH = {"01D": 0.08, "02D": 0.08, "03D": 0.08}


def _worth(card: str) -> float:
    value = 0.1 + _PRIMIERA_WORTH.get(rank(card), 0.0)
    if suit(card) == "D":
        value += 0.25 + _NAPOLA_WORTH.get(card, 0.0)
    if card == SETTEBELLO:
        value += 1.0
    return value


WORTH: dict[str, float] = {card: _worth(card) for card in DECK}
SCOPA = 1.0


def team(seat: int) -> int:
    """0 for team A (seats 0 and 2), 1 for team B (seats 1 and 3)."""
    return seat % 2


@dataclass(frozen=True)
class Hand:
    """The public state of the current hand plus the seat's own cards, as one seat counts it."""

    seat: int
    hand: tuple[str, ...]
    table: tuple[str, ...]
    asso: bool
    played: int  # cards played so far this hand
    leader: int  # the seat that led the hand; its team is the "coppia di mano"
    unseen: tuple[str, ...]  # cards in the other three hands, as far as this seat can tell
    counts: tuple[int, int, int, int]  # cards in each seat's hand
    captured: tuple[tuple[str, ...], tuple[str, ...]]  # per team (A, B)
    scope: tuple[int, int]
    last_capturer: int | None
    laid: tuple[tuple[int, str, bool], ...]  # (seat, card, onto an empty table) of every card laid down

    def unseen_of_rank(self, r: int) -> int:
        return sum(1 for c in self.unseen if rank(c) == r)

    def plays_left(self) -> int:
        return HAND_PLAYS - self.played


def read(knowledge: Knowledge) -> Hand:
    """Replay the hand's public plays from the empty table."""
    asso = bool(knowledge.options.get("asso_pigliatutto", False))
    table: list[str] = []
    captured: tuple[list[str], list[str]] = ([], [])
    scope = [0, 0]
    last: int | None = None
    laid: list[tuple[int, str, bool]] = []
    seen: set[str] = set()
    for play in knowledge.plays:
        seen.add(play.card)
        if rules.sweeps(play.card, table, asso):
            taken, table = list(table), []
        elif play.capture:
            taken = list(play.capture)
            table = [t for t in table if t not in play.capture]
            if not table:
                scope[team(play.seat)] += 1  # never the 40th play: that one ends the hand
        else:
            laid.append((play.seat, play.card, not table))
            table.append(play.card)
            continue
        captured[team(play.seat)].extend([play.card, *taken])
        last = play.seat
    known = seen | set(knowledge.hand) | set(knowledge.table)
    leader = knowledge.plays[0].seat if knowledge.plays else knowledge.seat
    return Hand(
        seat=knowledge.seat,
        hand=tuple(knowledge.hand),
        table=tuple(knowledge.table),
        asso=asso,
        played=HAND_PLAYS - sum(knowledge.card_counts),
        leader=leader,
        unseen=tuple(c for c in DECK if c not in known),
        counts=knowledge.card_counts,
        captured=(tuple(captured[0]), tuple(captured[1])),
        scope=(scope[0], scope[1]),
        last_capturer=last,
        laid=tuple(laid),
    )


def after(table: tuple[str, ...] | list[str], card: str, capture: tuple[str, ...] | list[str], asso: bool) -> list[str]:
    """The table once ``card`` was played with ``capture``."""
    if rules.sweeps(card, list(table), asso):
        return []
    if capture:
        return [t for t in table if t not in capture]
    return sorted([*table, card])


def taken(card: str, capture: tuple[str, ...] | list[str], table: tuple[str, ...] | list[str], asso: bool) -> list[str]:
    """The cards a play puts in its team's pile: the card and what it takes; [] when it is laid down."""
    if rules.sweeps(card, list(table), asso):
        return [card, *table]
    return [card, *capture] if capture else []


def is_scopa(card: str, capture: tuple[str, ...] | list[str], table: tuple[str, ...] | list[str], asso: bool,
             last_play: bool) -> bool:
    """A capture that clears the table, except on the hand's last play and an asso pigliatutto sweep."""
    return bool(capture) and len(capture) == len(table) and not last_play and not rules.sweeps(card, list(table), asso)


def holds_one(cards_in_hand: int, unseen_total: int, copies: int) -> float:
    """The chance that a hand of ``cards_in_hand`` unseen cards (drawn from ``unseen_total``) holds at
    least one of ``copies`` given cards: 1 - C(N - u, k) / C(N, k)."""
    if copies <= 0 or cards_in_hand <= 0 or unseen_total <= 0:
        return 0.0
    if unseen_total - copies < cards_in_hand:
        return 1.0
    return 1.0 - comb(unseen_total - copies, cards_in_hand) / comb(unseen_total, cards_in_hand)


def sweepable(table: list[str]) -> int:
    """The rank that would sweep this table (a scopa), or 0 when none can: a non-empty table is
    swept by the rank of its sum when that sum is at most 10 (a single card by its own rank)."""
    total = sum(rank(t) for t in table)
    return total if table and total <= 10 else 0
