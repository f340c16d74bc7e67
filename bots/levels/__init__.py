"""The bot levels, weakest first: CONTRACT's ``bot_levels`` with the decision each one makes.

A decision is a pure function of one seat's Knowledge: deterministic, always one of its legal
plays, and blind to everything the seat cannot see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bots.knowledge import Knowledge
from bots.levels import esperto, maestro, principiante


@dataclass(frozen=True)
class Level:
    id: str  # "principiante" | "esperto" | "maestro"
    name: str  # CONTRACT bot_levels name
    choose: Callable[[Knowledge], tuple[str, list[str]]]  # a legal (card, capture)


LEVELS: tuple[Level, ...] = (
    Level("principiante", "Beginner", principiante.choose),
    Level("esperto", "Expert", esperto.choose),
    Level("maestro", "Master", maestro.choose),
)
_BY_ID = {lv.id: lv for lv in LEVELS}


def level(level_id: str) -> Level:
    """The level with this id; KeyError when there is none."""
    return _BY_ID[level_id]
