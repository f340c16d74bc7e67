"""What one seat knows when it is its turn to play: the only input a bot's decision may use.

A bot sees what a person at that seat sees: its game view (CONTRACT "Game view") and the public
move log. ``knowledge_from_view`` turns the two into a ``Knowledge``, the frozen record every
level decides from, so that no decision can reach another seat's cards or the seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game.status import TableStatus

_SEATS = 4
_DECK_SIZE = 40
_PLAY_TYPES = ("play", "auto_play")


@dataclass(frozen=True)
class Play:
    """One play of the current hand, public information."""

    seat: int
    card: str  # "07D"
    capture: tuple[str, ...]  # the table cards taken, sorted; () when laid down


@dataclass(frozen=True)
class Knowledge:
    """Everything ONE seat knows; nothing else may reach a decision."""

    seat: int
    hand: tuple[str, ...]
    table: tuple[str, ...]
    plays: tuple[Play, ...]  # every play of the current hand so far, in order
    card_counts: tuple[int, int, int, int]  # cards still in each seat's hand
    scores: Mapping[str, int]  # match scores {"A": .., "B": ..} before this hand
    options: Mapping[str, Any]  # target_score, napola, asso_pigliatutto
    legal: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]  # (card, captures), as the view's `legal`

    def choices(self) -> list[tuple[str, list[str]]]:
        """Every legal (card, capture), in the view's order (cards sorted, then captures)."""
        return [(card, list(capture)) for card, captures in self.legal for capture in captures]


def knowledge_from_view(view: Mapping[str, Any], moves: Sequence[Mapping[str, Any]]) -> Knowledge:
    """The Knowledge of the seat whose game ``view`` this is, with ``moves`` the table's move log.

    The current hand's plays are the last P play/auto_play entries of the log, P being the number
    of cards already played this hand (40 minus the cards in hands); acknowledgements, continues
    and any other entry types are skipped. ValueError when the view is not the seat's turn.
    """
    if view.get("status") != TableStatus.PLAYING or view.get("your_turn") is not True or "legal" not in view:
        raise ValueError("a bot decides only on a playing view with your_turn")
    seat = int(view["you"])
    counts = [0] * _SEATS
    for player in view["players"]:
        counts[int(player["seat"])] = int(player["card_count"])
    played = _DECK_SIZE - sum(counts)
    entries = [m for m in moves if m.get("type") in _PLAY_TYPES]
    if played < 0 or played > len(entries):
        raise ValueError(f"the log holds {len(entries)} plays, fewer than the {played} of this hand")
    plays = tuple(
        Play(_seat_number(m["seat"]), str(m["payload"]["card"]), tuple(sorted(m["payload"].get("capture") or ())))
        for m in entries[len(entries) - played :]
    )
    legal = tuple(
        (str(item["card"]), tuple(tuple(sorted(capture)) for capture in item["captures"])) for item in view["legal"]
    )
    return Knowledge(
        seat=seat,
        hand=tuple(sorted(view["hand"])),
        table=tuple(sorted(view["table"])),
        plays=plays,
        card_counts=(counts[0], counts[1], counts[2], counts[3]),
        scores=dict(view["scores"]),
        options=dict(view["options"]),
        legal=legal,
    )


def _seat_number(seat: object) -> int:
    """The log names seats "seat:0".."seat:3"; a bare number is accepted too."""
    if isinstance(seat, int):
        return seat
    text = str(seat)
    return int(text.rsplit(":", 1)[-1])
