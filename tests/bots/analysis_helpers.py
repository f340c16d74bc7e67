"""Matches played in process on the scopone engine, for the analysis tests: the public log as the
game service writes it, and what each seat's bot saw at each of its plays."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bots.knowledge import Knowledge, knowledge_from_view
from bots.levels import esperto, principiante
from game.scopone import ScoponeEngine, rules

T0 = 1_796_205_600_000
Decide = Callable[[int, Knowledge], tuple[str, list[str]]]


@dataclass
class Played:
    moves: list[dict[str, Any]] = field(default_factory=list)  # the public log
    options: dict[str, Any] = field(default_factory=dict)
    seen: dict[int, list[tuple[int, Knowledge]]] = field(default_factory=dict)  # seat -> (move number, Knowledge)
    state: dict[str, Any] = field(default_factory=dict)


def mixed_levels(seat: int, knowledge: Knowledge) -> tuple[str, list[str]]:
    return (esperto.choose if seat % 2 else principiante.choose)(knowledge)


def play_match(name: str, options: dict[str, Any] | None = None, decide: Decide = mixed_levels) -> Played:
    """A whole match from the seed named ``name``: each seat plays what ``decide`` says from its
    Knowledge, and every hand end is acknowledged at once."""
    engine = ScoponeEngine()
    state = engine.new_state(options or {}, hashlib.sha256(name.encode()).digest(), T0)
    played = Played(options=dict(state["options"]))
    now = T0
    while engine.status(state) != "finished":
        now += 1000
        if engine.status(state) == "playing":
            seat = state["turn"]
            knowledge = knowledge_from_view(engine.view(state, seat), played.moves)
            played.seen.setdefault(seat, []).append((len(played.moves) + 1, knowledge))
            card, capture = decide(seat, knowledge)
            move = engine.decide(state, seat, {"action": "play", "card": card, "capture": capture}, now)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = engine.decide(state, seat, {"action": "ack"}, now)
        state = engine.apply(state, move, now)
        played.moves.append({"number": len(played.moves) + 1, "type": move.type, "seat": f"seat:{move.seat}",
                             "payload": move.payload, "auto": move.auto})
    played.state = state
    return played


def random_hand(hands: list[list[str]], leader: int, rng: random.Random, prefix: list[dict[str, Any]] = (),
                asso: bool = False) -> list[dict[str, Any]]:
    """One whole hand dealt as ``hands`` (ten cards each), led by ``leader``: the ``prefix`` plays
    as logged, then each seat plays a random legal play. The log entries, numbered from 1."""
    hands = [list(h) for h in hands]
    table: list[str] = []
    moves = []
    seat = leader
    for number in range(1, 41):
        if number <= len(prefix):
            card, capture = prefix[number - 1]["payload"]["card"], prefix[number - 1]["payload"]["capture"]
        else:
            card, capture = rng.choice(rules.legal_plays(hands[seat], table, asso))
        hands[seat].remove(card)
        table = [] if rules.sweeps(card, table, asso) else (
            [t for t in table if t not in capture] if capture else sorted([*table, card]))
        moves.append({"number": number, "type": "play", "seat": f"seat:{seat}",
                      "payload": {"card": card, "capture": list(capture)}, "auto": False})
        seat = (seat + 1) % 4
    return moves
