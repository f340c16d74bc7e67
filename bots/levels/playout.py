"""A fast simulation of the rest of one hand, for the maestro's Monte Carlo search.

Cards are the ints 0..39 in DECK order (suit * 10 + rank - 1), and a set of cards is a 40-bit
mask, so that a table, a capture and a team's pile are ints and the scoring is a few table
lookups. ``Deal`` is one complete world (every hand known); ``finish`` plays it to the end with
a cheap greedy policy (``pick``) that, like a real player, sees only its own hand, the public
cards and how many cards the next player holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bots.levels.counting import SCOPA, WORTH, holds_one
from game.scopone.cards import DECK, primiera_value

HAND_PLAYS = 40
RANK = tuple(c % 10 + 1 for c in range(40))
BIT = tuple(1 << c for c in range(40))
INDEX = {card: i for i, card in enumerate(DECK)}
_SUIT_MASKS = range(1 << 10)
_RANK_SUM = tuple(sum(r + 1 for r in range(10) if m >> r & 1) for m in _SUIT_MASKS)
_PRIMIERA = tuple(max((primiera_value(DECK[r]) for r in range(10) if m >> r & 1), default=0) for m in _SUIT_MASKS)
_WORTH = tuple(tuple(sum(WORTH[DECK[s * 10 + r]] for r in range(10) if m >> r & 1) for m in _SUIT_MASKS)
               for s in range(4))


def _run(m: int) -> int:
    n = 0
    while m >> n & 1:
        n += 1
    return n if n >= 3 else 0


_NAPOLA = tuple(_run(m) for m in _SUIT_MASKS)
_CARD_WORTH = tuple(WORTH[card] for card in DECK)
_ACES = BIT[0] | BIT[10] | BIT[20] | BIT[30]

# The policy's prices, each times the chance that the next player holds the rank that does it:
# leaving a table he can sweep (a scopa is worth more than its point: the empty table it leaves
# must be led onto), and laying a card he can take with its own rank. A laid card also costs a
# little of its worth whoever takes it. Tuned by playing the policy alone against esperto.
_LEAVE_SCOPA = 2.2
_LAY_EXPOSURE = 1.5
_LAY_WORTH = 0.2
# _HOLD[k][n][u]: the chance that a hand of k cards, out of n unknown, holds one of u given cards.
_HOLD = tuple(tuple(tuple(holds_one(k, n, u) for u in range(5)) for n in range(41)) for k in range(11))


def mask_of(cards: Sequence[str]) -> int:
    m = 0
    for card in cards:
        m |= BIT[INDEX[card]]
    return m


def cards_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def rank_sum(mask: int) -> int:
    return _RANK_SUM[mask & 1023] + _RANK_SUM[mask >> 10 & 1023] + _RANK_SUM[mask >> 20 & 1023] + _RANK_SUM[mask >> 30]


def worth(mask: int) -> float:
    return _WORTH[0][mask & 1023] + _WORTH[1][mask >> 10 & 1023] + _WORTH[2][mask >> 20 & 1023] + _WORTH[3][mask >> 30]


_CAPTURES: dict[int, tuple[tuple[int, int, float], ...]] = {}
_CACHE_LIMIT = 15_000  # ~10 MB; tables recur within a decision far more than across decisions


def captures(table: int, r: int) -> tuple[tuple[int, int, float], ...]:
    """(mask, rank sum, worth) of every capture a card of rank ``r`` may make on ``table`` under the
    normal rules (no asso pigliatutto); () when it takes nothing. Cached: tables recur across worlds."""
    key = table << 4 | r
    found = _CAPTURES.get(key)
    if found is not None:
        return found
    cards = cards_of(table)
    equal = [BIT[c] for c in cards if RANK[c] == r]
    if not equal:
        small = [c for c in cards if RANK[c] < r]

        def walk(start: int, remaining: int, chosen: int) -> None:
            for i in range(start, len(small)):
                c = small[i]
                if RANK[c] == remaining:
                    equal.append(chosen | BIT[c])
                elif RANK[c] < remaining:
                    walk(i + 1, remaining - RANK[c], chosen | BIT[c])

        walk(0, r, 0)
    found = tuple((m, rank_sum(m), worth(m)) for m in equal)
    if len(_CAPTURES) > _CACHE_LIMIT:
        _CAPTURES.clear()
    _CAPTURES[key] = found
    return found


@dataclass
class Deal:
    """One complete world of the current hand, at the moment ``turn`` is to play."""

    hands: list[list[int]]
    table: int
    piles: list[int]  # per team (0 = A, 1 = B)
    scope: list[int]
    seen: list[int]  # cards of each rank played so far this hand (index 1..10)
    played: int
    turn: int
    last_team: int  # the team that captured last, -1 for none
    asso: bool
    napola: bool

    def copy(self) -> Deal:
        return Deal([list(h) for h in self.hands], self.table, list(self.piles), list(self.scope), list(self.seen),
                    self.played, self.turn, self.last_team, self.asso, self.napola)

    def play(self, card: int, capture: int, sweep: bool) -> None:
        seat = self.turn
        self.hands[seat].remove(card)
        self.played += 1
        self.seen[RANK[card]] += 1
        team = seat & 1
        if capture or sweep:
            self.table &= ~capture
            self.piles[team] |= capture | BIT[card]
            self.last_team = team
            if not self.table and not sweep and self.played < HAND_PLAYS:
                self.scope[team] += 1
        else:
            self.table |= BIT[card]
        self.turn = (seat + 1) & 3

    def finish(self) -> None:
        """Play the hand to its end with the greedy policy (``pick``); leftovers to the last capturer."""
        hands, seen, piles, scope, asso = self.hands, self.seen, self.piles, self.scope, self.asso
        table, played, turn, last_team = self.table, self.played, self.turn, self.last_team
        table_sum, table_worth = rank_sum(table), worth(table)
        while played < HAND_PLAYS:
            hand = hands[turn]
            best_card, best_cap, best_sum, best_worth, best_sweep = pick(
                hand, len(hands[(turn + 1) & 3]), table, table_sum, table_worth, seen, played, asso)
            hand.remove(best_card)
            played += 1
            seen[RANK[best_card]] += 1
            team = turn & 1
            if best_cap or best_sweep:
                table &= ~best_cap
                table_sum -= best_sum
                table_worth -= best_worth
                piles[team] |= best_cap | BIT[best_card]
                last_team = team
                if not table and not best_sweep and played < HAND_PLAYS:
                    scope[team] += 1
            else:
                table |= BIT[best_card]
                table_sum += RANK[best_card]
                table_worth += _CARD_WORTH[best_card]
            turn = (turn + 1) & 3
        if table and last_team >= 0:
            piles[last_team] |= table
            table = 0
        self.table, self.played, self.turn, self.last_team = table, played, turn, last_team

    def greedy(self) -> tuple[int, int, bool]:
        """The greedy policy's (card, capture, sweep) for the seat on turn."""
        card, capture, _, _, sweep = pick(self.hands[self.turn], len(self.hands[(self.turn + 1) & 3]), self.table,
                                          rank_sum(self.table), worth(self.table), self.seen, self.played, self.asso)
        return card, capture, sweep

    def points(self) -> tuple[int, int]:
        """The hand's points of team A and team B (carte, denari, settebello, primiera, scope, napola)."""
        a, b = self.piles
        pa, pb = self.scope[0], self.scope[1]
        ca, cb = a.bit_count(), b.bit_count()
        pa += ca > cb
        pb += cb > ca
        da, db = (a & 1023).bit_count(), (b & 1023).bit_count()
        pa += da > db
        pb += db > da
        pa += a >> 6 & 1
        pb += b >> 6 & 1
        qa, qb = _primiera(a), _primiera(b)
        pa += qa > qb
        pb += qb > qa
        if self.napola:
            pa += _NAPOLA[a & 1023]
            pb += _NAPOLA[b & 1023]
        return pa, pb


def pick(hand: list[int], next_count: int, table: int, table_sum: int, table_worth: float, seen: list[int],
         played: int, asso: bool) -> tuple[int, int, int, float, bool]:
    """The greedy policy: (card, capture, its rank sum, its worth, sweep) of the play with the most
    worth now (a scopa counts one more), less the price of leaving a table the next player may sweep
    times the chance that he holds the rank that sweeps it, as this player can count it (his own
    hand and the cards played)."""
    last = played == HAND_PLAYS - 1
    # The next player can sweep what we leave unless his play is the hand's last.
    hold = _HOLD[next_count][HAND_PLAYS - played - len(hand)]
    exposed = played < HAND_PLAYS - 2
    # Copies of each rank nobody but this player can know of: 4 - played - his own.
    unknown = [4 - n for n in seen]
    for card in hand:
        unknown[RANK[card]] -= 1
    best_score = -1e9
    best = (-1, 0, 0, 0.0, False)
    for card in hand:
        r = RANK[card]
        w = _CARD_WORTH[card]
        if asso and r == 1 and not table & _ACES:
            # Asso pigliatutto: the whole table, never a scopa.
            score = table_worth + w
            if score > best_score:
                best_score, best = score, (card, table, table_sum, table_worth, True)
            continue
        caps = _CAPTURES.get(table << 4 | r)
        if caps is None:
            caps = captures(table, r)
        if caps:
            for cap, cap_sum, cap_worth in caps:
                score = cap_worth + w
                left_sum = table_sum - cap_sum
                if cap == table:
                    if not last:
                        score += SCOPA
                elif left_sum <= 10 and exposed:
                    score -= hold[unknown[left_sum]] * (_LEAVE_SCOPA + table_worth - cap_worth)
                if score > best_score:
                    best_score, best = score, (card, cap, cap_sum, cap_worth, False)
        else:
            score = -(_LAY_WORTH + _LAY_EXPOSURE * hold[unknown[r]]) * w
            left_sum = table_sum + r
            if left_sum <= 10 and exposed:
                score -= hold[unknown[left_sum]] * (_LEAVE_SCOPA + table_worth + w)
            if score > best_score:
                best_score, best = score, (card, 0, 0, 0.0, False)
    return best


def _primiera(pile: int) -> int:
    best = (_PRIMIERA[pile & 1023], _PRIMIERA[pile >> 10 & 1023], _PRIMIERA[pile >> 20 & 1023], _PRIMIERA[pile >> 30])
    return 0 if 0 in best else sum(best)
