"""Scopone scientifico behind the engine contract: it checks actions and moves, then delegates.

Checks live here (what a player may do now); the table's transitions live in state.py, the
capture rules in rules.py, the points in scoring.py and what each seat sees in view.py.

Decisions the contract leaves open, pinned by tests:
- A second ``ack`` by a seat that already acknowledged is refused (``illegal_move``, "You
  already acknowledged hand N"): an error never changes the game, so a retried ack is harmless
  and the log holds one ack per seat.
- A ``card`` or ``capture`` entry that is not a card string at all ("7D", 7) is ``bad_request``;
  a real card the player does not hold, or that is not on the table, is ``illegal_move``.
- ``capture`` omitted, null and ``[]`` mean the same. An asso pigliatutto sweep may list the
  whole table or leave it out; the move's payload always lists what was taken.
- Unknown extra fields of an action are ignored (clients may add fields).
- ``fire`` does not look at the clock: the deadline queue decides when a deadline is due; the
  engine only checks that the token is still current.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from game import fairness
from game.engine import Deadline, Engine, GameError, MatchResult, Move, action_name, check_seat
from game.pace import LIVE, PACES, Paces, Timeouts
from game.scopone import rules
from game.scopone import state as table
from game.scopone import view as seat_view
from game.scopone.cards import is_card
from game.status import TableStatus

_ACTIONS = ("play", "ack", "commit", "reveal")
_MOVES = ("play", "auto_play", "ack", "continue", "commit", "reveal", "entropy_deadline")
_HEX64 = re.compile(r"[0-9a-f]{64}")
DAY_MS = 24 * 3600 * 1000  # DAILY_TURN_HOURS' default

OPTIONS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "target_score": {
            "type": "integer",
            "minimum": 1,
            "maximum": 121,  # a bound, so that no match runs for ever; classic targets are 11, 21, 31
            "default": 11,
            "title": "Target score",
            "description": "The match ends when a team reaches it with a clear lead (a tie plays another hand).",
        },
        "napola": {
            "type": "boolean",
            "default": True,
            "title": "Napola",
            "description": "A run of denari from the ace scores its length from three cards; all ten win the match.",
        },
        "asso_pigliatutto": {
            "type": "boolean",
            "default": False,
            "title": "Asso pigliatutto",
            "description": "An ace facing no ace on the table takes the whole table (never a scopa).",
        },
        "player_entropy": {
            "type": "boolean",
            "default": False,
            "title": "Player entropy",
            "description": "Every player adds a secret random value to the shuffle before the deal, so that "
                           "nobody, the server included, chooses the cards (docs/fairness.md).",
        },
        "first_dealer": {
            "type": "string",
            "const": table.DRAWN,
            "default": table.DRAWN,
            "readOnly": True,  # set by the server: no form field; a body may leave it out
            "title": "First dealer",
            "description": "Set by the server: the first dealer is drawn from the seed, and the seat after "
                           "it leads hand 1 (docs/fairness.md). A game without it was created before the "
                           "draw: seat 0 led its hand 1.",
        },
        "pace": {
            "type": "string",
            "enum": list(PACES),
            "default": LIVE,
            "title": "Pace",
            "description": "`live`: one sitting, each turn a few seconds. `daily`: turn-based, every deadline "
                           "(a turn, the end of a hand, the seeding phase) is DAILY_TURN_HOURS hours, so "
                           "each player moves when they can. A game without it is live.",
        },
    },
}


class ScoponeEngine(Engine):
    """Four players in two teams (A = seats 0 and 2, B = seats 1 and 3), forty cards, ten each."""

    id = table.GAME_ID
    name = "Scopone scientifico"
    description = (
        "The Italian partnership card game: four players in two teams, ten cards each and an empty "
        "table; capture by equal rank or by sum, sweep the table for a scopa, and score carte, denari, "
        "settebello, primiera and napola."
    )
    seats = table.SEATS
    version = table.VERSION
    # A practice match lets its one person take back their last play (the gateway checks who
    # may); replaying the log without it gives the state before, deals and all.
    supports_take_back = True
    options_schema = OPTIONS_SCHEMA

    def __init__(self, turn_timeout_ms: int = 30000, hand_ack_timeout_ms: int = 30000,
                 entropy_timeout_ms: int = 10000, daily_timeout_ms: int = DAY_MS):
        self.paces = Paces(Timeouts(int(turn_timeout_ms), int(hand_ack_timeout_ms), int(entropy_timeout_ms)),
                           int(daily_timeout_ms))

    # -- building and changing a table ------------------------------------------------------

    def new_state(self, options: dict[str, Any], seed: bytes, now_ms: int) -> dict[str, Any]:
        """The table of ``options`` as the log keeps them (a new game's are ``normalize_options``'):
        options without ``first_dealer`` are a game's from before the draw, which replays by the
        old rule (seat 0 leads hand 1)."""
        if not isinstance(seed, (bytes, bytearray)) or not seed:
            raise ValueError("seed must be non-empty bytes")
        normalized = self.normalize_options(options)
        # Options as a game from before a rule logged them replay by the old rule: no draw of the
        # first dealer, a live pace.
        for rule in ("first_dealer", "pace"):
            if rule not in (options or {}):
                del normalized[rule]
        timeouts = self.paces.timeouts(normalized)  # the table keeps them: the pace is fixed at creation
        return table.new_table(
            normalized, bytes(seed), timeouts.turn_ms, timeouts.hand_ack_ms, now_ms, timeouts.entropy_ms,
        )

    def decide(self, state: dict[str, Any], seat: int, action: dict[str, Any], now_ms: int) -> Move:
        name = action_name(action)
        if name not in _ACTIONS:
            expected = "'play', 'ack', 'commit' or 'reveal'" if state.get("entropy") else "'play' or 'ack'"
            raise GameError("unknown_action", f"Unknown action {name!r}: expected {expected}")
        check_seat(seat, self.seats)
        if name == "commit":
            digest = _hex64(action, "hash")
            self._check_commit(state, seat)
            return Move("commit", seat, {"hash": digest})
        if name == "reveal":
            value = _hex64(action, "value")
            self._check_reveal(state, seat, value)
            entropy = state["entropy"]
            last = all(v is not None or s == seat or not c
                       for s, (v, c) in enumerate(zip(entropy["values"], entropy["commits"])))
            return Move("reveal", seat, {"value": value}, random=last)
        _check_not_seeding(state)
        if name == "play":
            card, capture = _parse_play(action)
            capture = self._check_play(state, seat, card, capture)
            return Move("play", seat, {"card": card, "capture": capture})
        self._check_ack(state, seat)
        deals = len(state["acknowledged"]) == self.seats - 1
        return Move("ack", seat, {}, random=deals)

    def apply(self, state: dict[str, Any], move: Move, now_ms: int) -> dict[str, Any]:
        if move.type not in _MOVES:
            raise GameError("unknown_action", f"Unknown move type {move.type!r}")
        _check_not_finished(state)
        new = table.clone(state)
        new["moves"] += 1
        if move.type in ("play", "auto_play"):
            seat = check_seat(move.seat, self.seats)
            card, capture = _parse_play(move.payload)
            capture = self._check_play(state, seat, card, capture)
            if move.type == "auto_play" and [card, capture] != list(self._auto_choice(state)):
                raise GameError("illegal_move", f"The auto-play {card} does not match the seed's choice")
            table.play(new, seat, card, capture, move.type == "auto_play", now_ms)
        elif move.type == "ack":
            seat = check_seat(move.seat, self.seats)
            self._check_ack(state, seat)
            table.acknowledge(new, seat, now_ms)
        elif move.type == "commit":
            seat = check_seat(move.seat, self.seats)
            self._check_commit(state, seat)
            table.commit(new, seat, _hex64(move.payload, "hash"), now_ms)
        elif move.type == "reveal":
            seat = check_seat(move.seat, self.seats)
            value = _hex64(move.payload, "value")
            self._check_reveal(state, seat, value)
            table.reveal(new, seat, value, now_ms)
        elif move.type == "entropy_deadline":
            if state["status"] != TableStatus.SEEDING:
                raise GameError("illegal_move", "The seeding phase is over")
            table.entropy_deadline(new, now_ms)
        else:
            if state["status"] != TableStatus.HAND_END:
                raise GameError("illegal_move", "There is no finished hand to continue from")
            table.start_hand(new, state["hand_number"] + 1, now_ms)
        return new

    # -- deadlines ---------------------------------------------------------------------------

    def deadlines(self, state: dict[str, Any]) -> list[Deadline]:
        tag = f"{state['hand_number']}:{state['moves']}"
        if state["status"] == TableStatus.PLAYING:
            return [Deadline("turn", state["turn_deadline_ms"], f"turn:{tag}")]
        if state["status"] == TableStatus.HAND_END:
            return [Deadline("hand_end", state["hand_end_deadline_ms"], f"hand_end:{tag}")]
        if state["status"] == TableStatus.SEEDING:
            entropy = state["entropy"]
            return [Deadline("entropy", entropy["deadline_ms"], f"entropy:{entropy['phase']}:{state['moves']}")]
        return []

    def fire(self, state: dict[str, Any], token: str, now_ms: int) -> Move | None:
        for deadline in self.deadlines(state):
            if deadline.token != token:
                continue
            if deadline.kind == "turn":
                card, capture = self._auto_choice(state)
                return Move("auto_play", state["turn"], {"card": card, "capture": capture}, auto=True, random=True)
            if deadline.kind == "entropy":
                return Move("entropy_deadline", None, {}, auto=True, random=True)
            return Move("continue", None, {}, auto=True, random=True)
        return None

    # -- reading a table ---------------------------------------------------------------------

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        if seat is not None:
            check_seat(seat, self.seats)
        return seat_view.render(state, seat)

    def status(self, state: dict[str, Any]) -> str:
        status: str = state["status"]
        return status

    def turn_seat(self, state: dict[str, Any]) -> int | None:
        seat: int | None = state["turn"]
        return seat

    def awaited_seats(self, state: dict[str, Any]) -> frozenset[int]:
        """The seat on turn, or while seeding the seats that may still commit (or reveal)."""
        if state["status"] == TableStatus.SEEDING:
            entropy = state["entropy"]
            if entropy["phase"] == table.COMMIT:
                return frozenset(s for s, digest in enumerate(entropy["commits"]) if not digest)
            if entropy["phase"] == table.REVEAL:
                return frozenset(s for s, (digest, value) in enumerate(zip(entropy["commits"], entropy["values"],
                                                                           strict=True))
                                 if digest and value is None)
            return frozenset()
        return super().awaited_seats(state)

    def result(self, state: dict[str, Any]) -> MatchResult | None:
        return seat_view.result(state)

    def legal_plays(self, state: dict[str, Any]) -> list[tuple[str, list[str]]]:
        """Every legal (card, capture) of the seat on turn, in auto-play order; [] when nobody is to play."""
        if state["status"] != TableStatus.PLAYING:
            return []
        hand = state["hands"][state["turn"]]
        return rules.legal_plays(hand, state["table"], state["options"]["asso_pigliatutto"])

    # -- checks ------------------------------------------------------------------------------

    def _check_play(self, state: dict[str, Any], seat: int, card: str, capture: list[str]) -> list[str]:
        _check_not_finished(state)
        if state["status"] == TableStatus.HAND_END:
            raise GameError("illegal_move", "The hand is over: acknowledge it to continue")
        if seat != state["turn"]:
            raise GameError("not_your_turn", "Not your turn")
        hand = state["hands"][seat]
        return rules.check_play(hand, state["table"], card, capture, state["options"]["asso_pigliatutto"])

    def _check_commit(self, state: dict[str, Any], seat: int) -> None:
        entropy = _seeding(state)
        if entropy["phase"] != table.COMMIT:
            raise GameError("illegal_move", "Commitments are closed: reveal your value")
        if entropy["commits"][seat]:
            raise GameError("illegal_move", "You already committed")

    def _check_reveal(self, state: dict[str, Any], seat: int, value: str) -> None:
        entropy = _seeding(state)
        if entropy["phase"] != table.REVEAL:
            raise GameError("illegal_move", "Reveal once every seat committed or the commit time ran out")
        commitment = entropy["commits"][seat]
        if not commitment:
            raise GameError("illegal_move", "You did not commit: your seat contributes zeros")
        if entropy["values"][seat] is not None:
            raise GameError("illegal_move", "You already revealed")
        if hashlib.sha256(bytes.fromhex(value)).hexdigest() != commitment:
            raise GameError("illegal_move", "That value does not match your commitment")

    def _check_ack(self, state: dict[str, Any], seat: int) -> None:
        _check_not_finished(state)
        if state["status"] != TableStatus.HAND_END:
            raise GameError("illegal_move", "There is no hand to acknowledge: the hand is still being played")
        if seat in state["acknowledged"]:
            raise GameError("illegal_move", f"You already acknowledged hand {state['hand_number']}")

    def _auto_choice(self, state: dict[str, Any]) -> tuple[str, list[str]]:
        """CONTRACT: the legal plays sorted, index uniform(len) from label ``auto:<m>``, m the move's number."""
        plays = self.legal_plays(state)
        index = fairness.choose(table.key_of(state), f"auto:{state['moves'] + 1}", len(plays))
        return plays[index]


def _seeding(state: dict[str, Any]) -> dict[str, Any]:
    """The entropy record of a table in its seeding phase."""
    if state["status"] != TableStatus.SEEDING:
        _check_not_finished(state)
        raise GameError("illegal_move", "The seeding phase is over" if state.get("entropy")
                        else "This game has no seeding phase (the option player_entropy)")
    entropy: dict[str, Any] = state["entropy"]
    return entropy


def _check_not_seeding(state: dict[str, Any]) -> None:
    if state["status"] == TableStatus.SEEDING:
        raise GameError("illegal_move", "The cards are not dealt yet: commit, then reveal your value")


def _hex64(data: dict[str, Any], field: str) -> str:
    """A 64-character lowercase hex field of an action or payload (``bad_request`` otherwise)."""
    value = data.get(field)
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise GameError("bad_request", f"'{field}' must be 64 lowercase hex characters (32 bytes)")
    return value


def _check_not_finished(state: dict[str, Any]) -> None:
    if state["status"] == TableStatus.FINISHED:
        raise GameError("game_finished", "The game is finished")


def _parse_play(data: dict[str, Any]) -> tuple[str, list[str]]:
    """(card, capture) from a play action or payload; GameError('bad_request') on the wrong shape."""
    card = data.get("card")
    if card is None:
        raise GameError("bad_request", "A play needs a 'card', such as \"07D\"")
    if not isinstance(card, str) or not is_card(card):
        raise GameError("bad_request", f"Not a card: {card!r} (cards are written like \"07D\")")
    capture = data.get("capture")
    if capture is None:
        return card, []
    if not isinstance(capture, list):
        raise GameError("bad_request", "'capture' must be a list of cards, such as [\"03S\", \"04C\"]")
    for taken in capture:
        if not is_card(taken):
            raise GameError("bad_request", f"Not a card in 'capture': {taken!r} (cards are written like \"07D\")")
    return card, list(capture)
