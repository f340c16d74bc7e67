"""What a bot says at the table (issue 42, item 4): now and then a fitting quick phrase, never a text,
never anything about cards, never more often than a person would.

A bot is a player: what it says is decided from its own seat's view alone, and only from what
every player saw happen (a play that swept the table, the end of the match). The chance is drawn
from the table, the revision and the seat, not from a clock or a random source: every gateway that
follows the table decides the same, so a phrase is said once (the talk service keeps one message
per request id, gateway.bot_talk), and a replay of the match says the same.
"""

from __future__ import annotations

import hashlib

from game.status import TableStatus

CHANCE = 0.5  # of a fitting moment: "now and then"
GOOD_GAME = "good_game"


def _drawn(table_id: str, revision: int, seat: int) -> float:
    """A number in [0, 1) fixed by the table, the revision and the seat."""
    digest = hashlib.sha256(f"{table_id}/{revision}/{seat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def bot_phrase(view: dict, seat: int, table_id: str, revision: int) -> str | None:
    """The phrase the bot at ``seat`` says after ``revision``, as its own ``view`` shows the table,
    or None (most of the time). Fitting moments: its partner swept the table (a scopa), the
    other team did, the match ended. At most one phrase a revision, and a scopa or the end come
    a few times a match: a person says more."""
    last = view.get("last_play")
    status = view.get("status")
    if status == TableStatus.FINISHED:
        phrase = GOOD_GAME
    elif isinstance(last, dict) and last.get("scopa") is True and isinstance(last.get("seat"), int):
        if last["seat"] == (seat + 2) % 4:
            phrase = "well_played"
        elif last["seat"] % 2 != seat % 2:
            phrase = "nice_scopa"
        else:
            return None  # its own scopa: a bot does not boast
    else:
        return None
    return phrase if _drawn(table_id, revision, seat) < CHANCE else None


class Pace:
    """A person's pace at one table: at most one phrase a hand from each bot seat, and the
    match's last word (``good_game``) besides. A hand of many scope would otherwise have a bot
    praise the other team's every sweep. Kept by whoever follows the table's revisions in order
    (gateway.table_feed); followers that saw the same revisions decide the same."""

    def __init__(self) -> None:
        self._spoke_in: dict[int, int] = {}  # seat -> the hand it last said something in

    def allows(self, seat: int, view: dict, phrase: str) -> bool:
        if phrase == GOOD_GAME:
            return True
        hand = view.get("hand_number")
        if not isinstance(hand, int) or self._spoke_in.get(seat) == hand:
            return False
        self._spoke_in[seat] = hand
        return True
