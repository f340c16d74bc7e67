"""Cards as CONTRACT.md writes them (``RRS``: rank 01..10, suit D/C/S/B) and their values.

Cards stay strings everywhere (state, moves, views) so the JSON is what a player reads.
"""

from __future__ import annotations

from game.fairness import DECK, SUITS

__all__ = ["DECK", "DENARI", "SETTEBELLO", "SUITS", "is_card", "join", "primiera_value", "rank", "suit"]

DENARI = "D"
SETTEBELLO = "07D"
_CARDS = frozenset(DECK)
# Primiera values by rank: 7=21, 6=18, ace=16, 5=15, 4=14, 3=13, 2=12, figures (8, 9, 10) 10.
_PRIMIERA = {1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10}


def is_card(value: object) -> bool:
    """True for one of the 40 card strings."""
    return isinstance(value, str) and value in _CARDS


def rank(card: str) -> int:
    return int(card[:2])


def suit(card: str) -> str:
    return card[2]


def primiera_value(card: str) -> int:
    return _PRIMIERA[rank(card)]


def join(cards: list[str]) -> str:
    """``["03S", "04C"]`` -> ``"03S+04C"``, the way messages name a capture."""
    return "+".join(cards)
