"""What each seat sees of a scopone table (CONTRACT game view), and the match result.

The platform adds id, game_type, join_code, names, seed_commitment and revision. Fields that
CONTRACT ties to a phase are present only in it: ``turn_deadline``, and ``your_turn`` with
``legal`` for the seat on turn, while a hand is played, ``last_hand``/``acknowledged``/
``hand_end_deadline`` in ``hand_end``, and ``last_hand``/``winner``/``seed`` once finished.
``turn`` is null outside play, ``dealer`` before hand 1 is dealt.
"""

from __future__ import annotations

import copy
from typing import Any

from game.engine import MatchResult, seat_results, team_of
from game.scopone import rules
from game.scopone.state import SEATS, current_dealer
from game.status import TableStatus
from services.timeutil import iso_from_ms


def render(state: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The view of ``seat``; ``seat=None`` is the public view, a spectator's: no ``you``, no
    ``hand``, no ``legal`` nor ``your_turn``, nobody is you. In every phase it holds no card of
    any hand: only counts of each seat's cards, the table, the plays made and the scoring."""
    players = [
        {
            "seat": s,
            "team": team_of(s),
            "card_count": len(state["hands"][s]),
            "captured_count": len(state["captured"][s]),
            "scope": state["scope"][s],
            "is_you": s == seat,
        }
        for s in range(SEATS)
    ]
    last_play = state["last_play"]
    view = {
        "status": state["status"],
        "options": dict(state["options"]),
        "players": players,
        "you": seat,
        "hand": sorted(state["hands"][seat]) if seat is not None else [],
        "table": list(state["table"]),
        "turn": state["turn"],
        "hand_number": state["hand_number"],
        "dealer": current_dealer(state),
        "scores": dict(state["scores"]),
        "last_play": copy.deepcopy(last_play),
    }
    if seat is None:  # the public view
        del view["you"], view["hand"]
    status = state["status"]
    if status == TableStatus.PLAYING:
        view["turn_deadline"] = iso_from_ms(state["turn_deadline_ms"])
        if seat is not None and seat == state["turn"]:
            view["your_turn"] = True
            view["legal"] = legal(state, seat)
    elif status == TableStatus.HAND_END:
        view["last_hand"] = copy.deepcopy(state["audit"][-1])
        view["acknowledged"] = sorted(state["acknowledged"])
        view["hand_end_deadline"] = iso_from_ms(state["hand_end_deadline_ms"])
    elif status == TableStatus.SEEDING:
        entropy = state["entropy"]
        view["entropy"] = {
            "phase": entropy["phase"],
            "committed": [s for s, digest in enumerate(entropy["commits"]) if digest],
            "revealed": [s for s, value in enumerate(entropy["values"]) if value is not None],
            "deadline": iso_from_ms(entropy["deadline_ms"]),
        }
    elif status == TableStatus.FINISHED:
        view["last_hand"] = copy.deepcopy(state["audit"][-1])
        view["winner"] = state["winner"]
        view["seed"] = state["seed"]
    return view


def legal(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """CONTRACT ``legal``: every card of the seat's hand with the captures it may make, so that a
    client never re-implements the rules. Cards sorted, each capture sorted, a card's captures
    sorted as lists; ``[[]]`` lays the card down taking nothing."""
    asso = state["options"]["asso_pigliatutto"]
    return [
        {"card": card, "captures": sorted(sorted(c) for c in rules.captures(card, state["table"], asso))}
        for card in sorted(state["hands"][seat])
    ]


def result(state: dict[str, Any]) -> MatchResult | None:
    """The match result once finished: every seat's outcome, and a summary of the final scores,
    winner, target, hands played and the per-hand audit."""
    if state["status"] != TableStatus.FINISHED:
        return None
    scores = dict(state["scores"])
    summary = {
        "scores": scores,
        "winner": state["winner"],
        "target_score": state["options"]["target_score"],
        "hands": state["hand_number"],
        "audit": copy.deepcopy(state["audit"]),
    }
    if state.get("entropy"):  # player entropy: the seats that kept their value back, for history
        summary["withheld"] = [s for s, value in enumerate(state["entropy"]["values"]) if value is None]
    return MatchResult(seat_results(scores, state["winner"], SEATS), summary)
