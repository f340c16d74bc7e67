"""The points of a hand and the end of a match.

Categories: carte (more cards), denara (more denari), settebello, primiera (a team lacking a
suit cannot win it), one point per scopa, and napola (a run of denari from the ace scores its
length from three cards). A tie in a category awards nothing. With napola on, all ten denari
win the match at once; otherwise a match ends when a team reaches the target with a clear lead.
"""

from __future__ import annotations

from typing import Any

from game.scopone.cards import DENARI, SETTEBELLO, SUITS, primiera_value, rank, suit

TEAMS = ("A", "B")
CATEGORIES = ("carte", "denara", "settebello", "primiera", "napola")
ALL_DENARI = 10


def primiera(cards: list[str]) -> int:
    """The best card of each suit summed; 0 when a suit is missing (such a team cannot win it)."""
    best = dict.fromkeys(SUITS, 0)
    for card in cards:
        value = primiera_value(card)
        if value > best[suit(card)]:
            best[suit(card)] = value
    return 0 if 0 in best.values() else sum(best.values())


def napola(cards: list[str]) -> int:
    """The length of the run of denari from the ace (01D, 02D, 03D, ...), 0 when shorter than three."""
    denari = {rank(c) for c in cards if suit(c) == DENARI}
    run = 0
    while run + 1 in denari:
        run += 1
    return run if run >= 3 else 0


def _more(a: int, b: int) -> str | None:
    """The team with more, None on a tie."""
    return "A" if a > b else "B" if b > a else None


def score_hand(captured: dict[str, list[str]], scope: dict[str, int], with_napola: bool
               ) -> tuple[dict[str, dict[str, Any]], dict[str, str | None]]:
    """(teams, award) of CONTRACT's ``last_hand`` for each team's captured cards and scope."""
    teams = {}
    for team in TEAMS:
        cards = captured[team]
        teams[team] = {
            "cards": len(cards),
            "denari": sum(1 for c in cards if suit(c) == DENARI),
            "settebello": SETTEBELLO in cards,
            "primiera": primiera(cards),
            "scope": scope[team],
            "napola": napola(cards) if with_napola else 0,
        }
    a, b = teams["A"], teams["B"]
    award = {
        "carte": _more(a["cards"], b["cards"]),
        "denara": _more(a["denari"], b["denari"]),
        "settebello": "A" if a["settebello"] else "B" if b["settebello"] else None,
        "primiera": _more(a["primiera"], b["primiera"]),
        "napola": "A" if a["napola"] else "B" if b["napola"] else None,
    }
    for team in TEAMS:
        won = sum(1 for category in ("carte", "denara", "settebello", "primiera") if award[category] == team)
        teams[team]["points"] = won + teams[team]["scope"] + teams[team]["napola"]
    return teams, award


def match_winner(scores: dict[str, int], target: int, teams: dict[str, dict[str, Any]]) -> str | None:
    """The winner once the match is over, else None: all ten denari (napola), or the target with a lead."""
    for team in TEAMS:
        if teams[team]["napola"] == ALL_DENARI:
            return team
    leader = _more(scores["A"], scores["B"])
    if leader is not None and scores[leader] >= target:
        return leader
    return None
