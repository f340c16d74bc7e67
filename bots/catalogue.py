"""The bot levels on offer, weakest first: the one list the gateway, the lobby and the bots
service share (CONTRACT ``bot_levels``). How each level plays lives in bots.levels."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BotLevel:
    id: str
    name: str  # in English; the app names levels by id in every language


LEVELS = (
    BotLevel("principiante", "Beginner"),
    BotLevel("esperto", "Expert"),
    BotLevel("maestro", "Master"),
)
LEVEL_IDS = tuple(level.id for level in LEVELS)
TAKEOVER_LEVEL = "esperto"  # who plays for a person who left (CONTRACT, Bots)


def display_name(level_id: str) -> str:
    """The name a bot seated in the lobby shows to the players: its level, e.g. "Esperto"."""
    return level_id.capitalize()
