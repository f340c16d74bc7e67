"""The status of a game, as the engines set it in their states and the contract shows it."""

from __future__ import annotations

from enum import StrEnum


class TableStatus(StrEnum):
    LOBBY = "lobby"        # seats still filling: the lobby's, no table yet
    SEEDING = "seeding"    # player entropy: the seats commit and reveal before hand 1 is dealt
    PLAYING = "playing"
    HAND_END = "hand_end"  # a hand is scored; the next deals when every seat acknowledged
    FINISHED = "finished"
