"""A tiny turn game that exercises the platform (turns, deadlines, randomness, take-backs) without scopone.

Seats play in turn 0, 1, 2, 3, 0, ...; each either ``add``s 1..3 (with an optional ``note`` of any
length, so benchmarks can make large moves) or ``roll``s uniform(3) + 1 from the seed (label
``roll:<m>``, m the move's number). A turn deadline rolls for the seat. The team whose total
first reaches ``target`` wins.
"""

from __future__ import annotations

from typing import Any

from game import fairness
from game.engine import (
    Deadline,
    Engine,
    GameError,
    MatchResult,
    Move,
    action_name,
    check_seat,
    seat_results,
    team_of,
)
from game.status import TableStatus
from services.timeutil import iso_from_ms

SEATS = 4

OPTIONS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "target": {
            "type": "integer",
            "minimum": 1,
            "maximum": 1_000_000,  # a bound even for tests: long tables for the benchmarks, none endless
            "default": 20,
            "title": "Target",
            "description": "The team total that wins.",
        },
    },
}


class DummyEngine(Engine):
    """The platform's test game; supports take-backs because its moves hide nothing."""

    id = "dummy"
    name = "Dummy"
    description = "A tiny turn game for testing the platform: add 1 to 3 or roll a die; first team to the target wins."
    seats = SEATS
    version = "1"
    supports_take_back = True
    options_schema = OPTIONS_SCHEMA

    def __init__(self, turn_timeout_ms: int = 30000):
        self.turn_timeout_ms = int(turn_timeout_ms)

    def new_state(self, options: dict[str, Any], seed: bytes, now_ms: int) -> dict[str, Any]:
        if not isinstance(seed, (bytes, bytearray)) or not seed:
            raise ValueError("seed must be non-empty bytes")
        return {
            "game": self.id,
            "version": self.version,
            "options": self.normalize_options(options),
            "seed": bytes(seed).hex(),
            "turn_timeout_ms": self.turn_timeout_ms,
            "moves": 0,
            "status": TableStatus.PLAYING,
            "turn": 0,
            "totals": [0] * SEATS,
            "turn_deadline_ms": now_ms + self.turn_timeout_ms,
            "last_play": None,
            "winner": None,
        }

    def decide(self, state: dict[str, Any], seat: int, action: dict[str, Any], now_ms: int) -> Move:
        name = action_name(action)
        if name not in ("add", "roll"):
            raise GameError("unknown_action", f"Unknown action {name!r}: expected 'add' or 'roll'")
        check_seat(seat, self.seats)
        if name == "add":
            n, note = _parse_add(action)
            self._check_turn(state, seat)
            payload = {"n": n} if note is None else {"n": n, "note": note}
            return Move("add", seat, payload)
        self._check_turn(state, seat)
        return Move("roll", seat, {"value": self._roll(state)}, random=True)

    def apply(self, state: dict[str, Any], move: Move, now_ms: int) -> dict[str, Any]:
        if move.type not in ("add", "roll"):
            raise GameError("unknown_action", f"Unknown move type {move.type!r}")
        seat = check_seat(move.seat, self.seats)
        self._check_turn(state, seat)
        if move.type == "add":
            n, _ = _parse_add(move.payload)
        else:
            value = move.payload.get("value")
            # ``True == 1`` in Python: without the type check a logged ``true`` would pass for a roll of 1.
            if not isinstance(value, int) or isinstance(value, bool) or value != self._roll(state):
                raise GameError("illegal_move", f"The roll {value!r} does not match the seed's")
            n = value
        new = dict(state)
        new["moves"] = state["moves"] + 1
        new["totals"] = totals = list(state["totals"])
        totals[seat] += n
        new["last_play"] = {"seat": seat, "type": move.type, "n": n, "auto": move.auto}
        team = team_of(seat)
        if _team_totals(totals)[team] >= state["options"]["target"]:
            new.update(status=TableStatus.FINISHED, winner=team, turn=None, turn_deadline_ms=None)
        else:
            new.update(turn=(seat + 1) % SEATS, turn_deadline_ms=now_ms + state["turn_timeout_ms"])
        return new

    def deadlines(self, state: dict[str, Any]) -> list[Deadline]:
        if state["status"] != TableStatus.PLAYING:
            return []
        return [Deadline("turn", state["turn_deadline_ms"], f"turn:{state['moves']}")]

    def fire(self, state: dict[str, Any], token: str, now_ms: int) -> Move | None:
        if not any(d.token == token for d in self.deadlines(state)):
            return None
        return Move("roll", state["turn"], {"value": self._roll(state)}, auto=True, random=True)

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        if seat is not None:
            check_seat(seat, self.seats)
        view = {
            "status": state["status"],
            "options": dict(state["options"]),
            "players": [{"seat": s, "team": team_of(s), "is_you": s == seat} for s in range(SEATS)],
            "you": seat,
            "turn": state["turn"],
            "totals": list(state["totals"]),
            "scores": _team_totals(state["totals"]),
            "last_play": dict(state["last_play"]) if state["last_play"] else None,
        }
        if state["status"] == TableStatus.PLAYING:
            view["turn_deadline"] = iso_from_ms(state["turn_deadline_ms"])
            if seat is not None and seat == state["turn"]:
                view["your_turn"] = True
        else:
            view["winner"] = state["winner"]
            view["seed"] = state["seed"]
        if seat is None:  # the public view: nobody is you
            del view["you"]
        return view

    def status(self, state: dict[str, Any]) -> str:
        status: str = state["status"]
        return status

    def turn_seat(self, state: dict[str, Any]) -> int | None:
        seat: int | None = state["turn"]
        return seat

    def result(self, state: dict[str, Any]) -> MatchResult | None:
        if state["status"] != TableStatus.FINISHED:
            return None
        scores = _team_totals(state["totals"])
        # Scopone's summary shape, so that the platform's consumers are exercised as for scopone.
        summary = {"scores": scores, "winner": state["winner"],
                   "target_score": state["options"]["target"], "hands": 1, "audit": []}
        return MatchResult(seat_results(scores, state["winner"], SEATS), summary)

    def _check_turn(self, state: dict[str, Any], seat: int) -> None:
        if state["status"] == TableStatus.FINISHED:
            raise GameError("game_finished", "The game is finished")
        if seat != state["turn"]:
            raise GameError("not_your_turn", "Not your turn")

    def _roll(self, state: dict[str, Any]) -> int:
        return fairness.choose(bytes.fromhex(state["seed"]), f"roll:{state['moves'] + 1}", 3) + 1


def _team_totals(totals: list[int]) -> dict[str, int]:
    return {"A": totals[0] + totals[2], "B": totals[1] + totals[3]}


def _parse_add(data: dict[str, Any]) -> tuple[int, str | None]:
    n, note = data.get("n"), data.get("note")
    if not isinstance(n, int) or isinstance(n, bool):
        raise GameError("bad_request", "'n' must be an integer from 1 to 3")
    if not 1 <= n <= 3:
        raise GameError("illegal_move", f"You may add 1, 2 or 3, not {n}")
    if note is not None and not isinstance(note, str):
        raise GameError("bad_request", "'note' must be a string")
    return n, note
