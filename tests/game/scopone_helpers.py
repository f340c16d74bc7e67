"""Shared builders for the scopone tests: crafted tables, one-call plays, whole random matches."""

from __future__ import annotations

import itertools
import random

from game.engine import Move
from game.fairness import DECK
from game.scopone import ScoponeEngine
from game.scopone.cards import rank

SEED = bytes(range(32))
T0 = 1_796_205_600_000  # 2026-12-02T10:00:00.000Z
TURN_MS = 30_000
ACK_MS = 20_000
ENGINE = ScoponeEngine(turn_timeout_ms=TURN_MS, hand_ack_timeout_ms=ACK_MS)


def crafted(hands, table=(), turn=0, options=None, captured=None, scope=None, last_capturer=None, scores=None):
    """A playing state with these hands and this table; ``plays`` is set so that the hand ends when they are empty."""
    state = ENGINE.new_state(options or {}, SEED, T0)
    hands = [sorted(h) for h in hands] + [[] for _ in range(4 - len(hands))]
    state["hands"] = hands
    state["table"] = sorted(table)
    state["turn"] = turn
    state["plays"] = 40 - sum(len(h) for h in hands)
    state["captured"] = [list(c) for c in captured] if captured else [[], [], [], []]
    state["scope"] = list(scope) if scope else [0, 0, 0, 0]
    state["last_capturer"] = last_capturer
    if scores:
        state["scores"] = dict(scores)
    return state


def play(state, seat, card, capture=None, now=T0 + 1000, engine=ENGINE):
    """decide + apply of one play action."""
    action = {"action": "play", "card": card}
    if capture is not None:
        action["capture"] = capture
    move = engine.decide(state, seat, action, now)
    return engine.apply(state, move, now)


def ack(state, seat, now=T0 + 2000, engine=ENGINE):
    move = engine.decide(state, seat, {"action": "ack"}, now)
    return engine.apply(state, move, now)


def oracle_plays(hand, table, asso):
    """The legal plays restated independently of game.scopone.rules, by brute force over subsets."""
    plays = set()
    for card in hand:
        r = rank(card)
        if asso and r == 1 and not any(rank(t) == 1 for t in table):
            plays.add((card, tuple(sorted(table))))
            continue
        equal = [t for t in table if rank(t) == r]
        if equal:
            plays.update((card, (t,)) for t in equal)
            continue
        sums = [
            combo
            for k in range(2, len(table) + 1)
            for combo in itertools.combinations(sorted(table), k)
            if sum(rank(c) for c in combo) == r
        ]
        plays.update((card, combo) for combo in sums) if sums else plays.add((card, ()))
    return plays


def random_match(seed, options, choices, engine=ENGINE, on_step=None, p_fire=0.2):
    """Play a whole match with random legal actions and random deadline fires.

    Returns (final_state, [(move, now_ms)]). ``on_step(state, rng)`` runs before every move.
    """
    rng = random.Random(choices)
    state = engine.new_state(options, seed, T0)
    now = T0
    log = []
    while engine.status(state) != "finished":
        if on_step:
            on_step(state, rng)
        now += rng.randrange(1, 5000)
        if rng.random() < p_fire:
            move = engine.fire(state, engine.deadlines(state)[0].token, now)
        elif engine.status(state) == "playing":
            card, capture = rng.choice(engine.legal_plays(state))
            action = {"action": "play", "card": card, "capture": capture}
            move = engine.decide(state, engine.turn_seat(state), action, now)
        else:
            seat = rng.choice([s for s in range(4) if s not in state["acknowledged"]])
            move = engine.decide(state, seat, {"action": "ack"}, now)
        state = engine.apply(state, move, now)
        log.append((move, now))
        assert len(log) < 10_000, "a match that never ends"
    return state, log


def replay(log, seed, options, engine=ENGINE):
    """Rebuild a state from new_state and the moves, going through their JSON form like the log does."""
    state = engine.new_state(options, seed, T0)
    for move, now in log:
        state = engine.apply(state, Move.from_json(move.to_json()), now)
    return state


def all_cards_of(state):
    cards = list(state["table"])
    for seat in range(4):
        cards += state["hands"][seat] + state["captured"][seat]
    return cards


__all__ = [
    "ACK_MS",
    "DECK",
    "ENGINE",
    "SEED",
    "T0",
    "TURN_MS",
    "ack",
    "all_cards_of",
    "crafted",
    "oracle_plays",
    "play",
    "random_match",
    "replay",
]
