"""Principiante (Beginner): one-ply greedy, the way a newcomer plays who knows the points.

Take the most points now; never hand the next player a scopa when it can be avoided; never
throw away the settebello. It looks at no card beyond the table and its own hand, except the
one count every beginner learns: a rank all four of whose cards are already seen is safe.
"""

from __future__ import annotations

from bots.knowledge import Knowledge
from bots.levels import counting
from bots.levels.counting import SCOPA, WORTH
from game.scopone.cards import SETTEBELLO, rank

# Leaving a sweepable table costs about a scopa plus the cards it takes.
_LEAVE_SCOPA = 1.3
# Laying the settebello down offers the hand's most valuable card: keep it for a capture.
_LAY_SETTEBELLO = 1.5
# Laying any card offers it to the next player, in proportion to what it is worth.
_LAY_WORTH = 0.4


def choose(knowledge: Knowledge) -> tuple[str, list[str]]:
    seen = {p.card for p in knowledge.plays} | set(knowledge.table) | set(knowledge.hand)
    last_play = sum(knowledge.card_counts) == 1
    asso = bool(knowledge.options.get("asso_pigliatutto", False))
    table = knowledge.table
    best: tuple[float, str, list[str]] | None = None
    for card, capture in knowledge.choices():
        taken = counting.taken(card, capture, table, asso)
        left = counting.after(table, card, capture, asso)
        score = sum(WORTH[c] for c in taken)
        if counting.is_scopa(card, capture, table, asso, last_play):
            score += SCOPA
        if not taken:
            score -= _LAY_WORTH * WORTH[card] + (_LAY_SETTEBELLO if card == SETTEBELLO else 0.0)
        danger = counting.sweepable(left)
        if danger and not last_play and sum(1 for c in seen if rank(c) == danger) < 4:
            score -= _LEAVE_SCOPA + sum(WORTH[c] for c in left)
        # Between equally good plays, leave a table with a high sum: the harder to sweep later.
        score += 0.001 * sum(rank(c) for c in left)
        if best is None or score > best[0]:
            best = (score, card, capture)
    assert best is not None, "a playing view always has a legal play"
    return best[1], best[2]
