"""The bot levels on offer, weakest first: the one list the gateway, the lobby and the bots
service share (CONTRACT ``bot_levels``). How each level plays lives in bots.levels."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
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


# What a bot is called at the table: first names that read the same in Italian and in English,
# short enough for a phone's side seats, none a prefix of another. The level is not in the name:
# the players item carries it ("bot": "<level>") and the app shows it beside the name.
BOT_NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Franco", "Gina", "Luca", "Marta", "Nino",
             "Paola", "Rocco")


def bot_name(game_id: str, seat_index: int, taken: Collection[str] = ()) -> str:
    """The name of the bot seated at ``seat_index`` of game ``game_id``: the same every time for
    that seat of that game, another at each seat of one table (consecutive names from a start
    drawn from the game's id), and none of ``taken`` (the names seated there already)."""
    start = int.from_bytes(hashlib.sha256(game_id.encode()).digest()[:4], "big")
    names = [BOT_NAMES[(start + seat_index + step) % len(BOT_NAMES)] for step in range(len(BOT_NAMES))]
    folded = {name.casefold() for name in taken}
    return next((name for name in names if name.casefold() not in folded), names[0])
