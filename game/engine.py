"""The engine contract: what the game service codes against, whatever the game.

An engine is pure and deterministic. States are plain JSON data the platform stores but never
reads; every change is a ``Move`` (the move log is the truth of a table), so replaying the log
from ``new_state`` rebuilds the state exactly. Randomness comes only from the seed (fairness.py).

The flow for a player action is ``move = decide(state, seat, action, now)`` then
``state = apply(state, move, now)``; for a due deadline ``move = fire(state, token, now)`` and,
when it is not None, ``state = apply(state, move, now)``. A finished match's ``result`` is a
typed :class:`MatchResult`: every seat's outcome, which stats rates, and the engine's summary.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import orjson

from game.status import TableStatus

ERROR_CODES = frozenset({"illegal_move", "not_your_turn", "bad_request", "unknown_action", "game_finished"})


class GameError(Exception):
    """A refused action or move; engines raise only the codes of ERROR_CODES (CONTRACT's WebSocket codes)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"GameError({self.code!r}, {self.message!r})"


class OptionsError(ValueError):
    """Options that break the engine's schema; ``message`` names the option (CONTRACT: 422)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Move:
    """One entry of the move log. ``seat`` is None for a system move (a hand-end continue)."""

    type: str
    seat: int | None
    payload: dict[str, Any] = field(default_factory=dict)
    auto: bool = False  # made by a deadline, not by the player
    random: bool = False  # drew randomness from the seed (a deal, an auto-play choice)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "payload": self.payload, "auto": self.auto, "random": self.random}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Move:
        """The inverse of ``to_json``; raises ValueError on a malformed entry."""
        if not isinstance(data, dict):
            raise ValueError("a move must be a JSON object")
        kind, seat, payload = data.get("type"), data.get("seat"), data.get("payload", {})
        auto, rnd = data.get("auto", False), data.get("random", False)
        if not isinstance(kind, str):
            raise ValueError("move type must be a string")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise ValueError("move seat must be an integer or null")
        if not isinstance(payload, dict):
            raise ValueError("move payload must be an object")
        if not isinstance(auto, bool) or not isinstance(rnd, bool):
            raise ValueError("move auto and random must be booleans")
        return cls(type=kind, seat=seat, payload=payload, auto=auto, random=rnd)


@dataclass(frozen=True)
class Deadline:
    """A pending deadline; ``token`` goes stale after any move, so a late or repeated fire is a no-op."""

    kind: str
    due_ms: int
    token: str


def team_of(seat: int) -> str:
    """CONTRACT teams: A = seats 0 and 2, B = seats 1 and 3."""
    return "A" if seat % 2 == 0 else "B"


@dataclass(frozen=True)
class SeatResult:
    """One seat's outcome of a finished match; ``details`` are the engine's own extras for the
    seat (JSON data, e.g. a personal score), which stats keeps with the seat."""

    seat_index: int
    team: str
    won: bool
    points: int
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The seat's entry of the published result: seat, team, won, points, then the details."""
        return {"seat": self.seat_index, "team": self.team, "won": self.won, "points": self.points,
                **self.details}


_SEAT_KEYS = frozenset({"seat", "team", "won", "points"})


@dataclass(frozen=True)
class MatchResult:
    """A finished match's result: one outcome per seat, in seat order, and the engine's summary
    (scores, winner, audit...: JSON data the platform publishes but never reads).

    Built only whole: a result without every seat, or whose summary or details would overwrite
    the seat fields when published, raises ValueError here rather than reach stats as
    "every seat lost with 0 points".
    """

    seats: tuple[SeatResult, ...]
    summary: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        if [s.seat_index for s in self.seats] != list(range(len(self.seats))) or not self.seats:
            raise ValueError("a match result lists every seat once, in seat order, from seat 0; got "
                             f"{[s.seat_index for s in self.seats]}")
        if "seats" in self.summary:
            raise ValueError("the summary of a match result may not have a 'seats' member")
        for seat in self.seats:
            if _SEAT_KEYS & seat.details.keys():
                raise ValueError(f"the details of seat {seat.seat_index} may not be named "
                                 f"{sorted(_SEAT_KEYS & seat.details.keys())}")

    def to_json(self) -> dict[str, Any]:
        """The published result (GetResult, RecordMatch): the summary's members, then ``seats``."""
        return {**self.summary, "seats": [seat.to_json() for seat in self.seats]}

    def to_json_text(self) -> str:
        return compact_json(self.to_json())


def seat_results(scores: Mapping[str, int], winner: str, seats: int = 4) -> tuple[SeatResult, ...]:
    """Every seat's outcome in a team game: its team, whether it won, and its team's final score."""
    return tuple(SeatResult(s, team_of(s), team_of(s) == winner, scores[team_of(s)]) for s in range(seats))


def compact_json(value: object) -> str:
    """Engine data (options, moves, views, results) as the game service writes it: compact,
    non-ASCII text as is, never NaN or Infinity (not JSON). Callers compare these bytes.

    orjson writes it in a tenth of the time of ``json.dumps``, and the same bytes for all that
    the engines hold: objects with string keys, arrays, strings, integers of 64 bits, booleans
    and null (tests/game_service/test_compact_json.py, over whole matches). What orjson cannot
    write (a longer integer, a key that is not a string, another type) is written by the
    standard library, as before, or refused with its TypeError or ValueError. Floats are the
    one difference, and no engine here keeps one: orjson writes its own shortest form
    (``1e-7`` where ``json.dumps`` wrote ``1e-07``), and NaN and Infinity as null where
    ``json.dumps`` refused them."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# The types json.dumps refuses are handed to ``default`` (none: TypeError), not written by orjson.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME


def action_name(action: object) -> str:
    """The ``action`` of a client message; GameError('bad_request') when it is not there."""
    if not isinstance(action, dict):
        raise GameError("bad_request", "An action must be a JSON object")
    name = action.get("action")
    if name is None:
        raise GameError("bad_request", "Missing 'action'")
    if not isinstance(name, str):
        raise GameError("bad_request", "'action' must be a string")
    return name


def check_seat(seat: object, seats: int) -> int:
    """The seat, or GameError('bad_request') when it is not one of the table's."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        raise GameError("bad_request", f"Unknown seat {seat!r}")
    return seat


def normalize_with_schema(schema: dict[str, Any], options: Any) -> dict[str, Any]:
    """Validate ``options`` against ``schema`` (draft 2020-12) and fill the defaults.

    Errors are rewritten so that a player reads which option is wrong and what it must be.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise OptionsError("options: must be an object")
    properties = schema.get("properties", {})
    for key in options:
        if key not in properties:
            raise OptionsError(f"unknown option {key!r}")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(options), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        error = errors[0]
        name = str(error.absolute_path[0]) if error.absolute_path else None
        if name in properties:
            raise OptionsError(f"{name}: {_expectation(properties[name])}")
        raise OptionsError(error.message)
    out = {}
    for name, spec in properties.items():
        value = options.get(name, spec.get("default"))
        if spec.get("type") == "integer" and isinstance(value, float):
            value = int(value)  # JSON Schema counts 11.0 as an integer; the state keeps an int
        out[name] = value
    return out


def _expectation(spec: dict[str, Any]) -> str:
    """'must be an integer >= 1', 'must be true or false', ... from one property's schema."""
    if "const" in spec:
        return f"must be {json.dumps(spec['const'])}"
    if "enum" in spec:
        choices = [json.dumps(value) for value in spec["enum"]]
        return "must be " + (" or ".join(choices) if len(choices) <= 2
                             else ", ".join(choices[:-1]) + " or " + choices[-1])
    kind = spec.get("type")
    if kind == "boolean":
        return "must be true or false"
    if kind == "integer":
        low, high = spec.get("minimum"), spec.get("maximum")
        if low is not None and high is not None:
            return f"must be an integer from {low} to {high}"
        if low is not None:
            return f"must be an integer >= {low}"
        if high is not None:
            return f"must be an integer <= {high}"
        return "must be an integer"
    if kind == "string":
        return "must be a string"
    return "is not valid"


class Engine(ABC):
    """A game the platform can host. Subclasses set the class attributes and implement the methods."""

    id: str
    name: str
    description: str
    seats: int
    version: str  # recorded in the log header: a replay needs the same rules
    supports_take_back: bool
    options_schema: dict[str, Any]

    def normalize_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        """The options with defaults filled in; raises OptionsError naming the bad option."""
        return normalize_with_schema(self.options_schema, options)

    @abstractmethod
    def new_state(self, options: dict[str, Any], seed: bytes, now_ms: int) -> dict[str, Any]:
        """The initial state (plain JSON data) of a table with these options and this seed."""

    @abstractmethod
    def decide(self, state: dict[str, Any], seat: int, action: dict[str, Any], now_ms: int) -> Move:
        """Validate a player's action and return its Move; raises GameError; never mutates state."""

    @abstractmethod
    def apply(self, state: dict[str, Any], move: Move, now_ms: int) -> dict[str, Any]:
        """The state after ``move`` (a new object); raises GameError when the move is illegal."""

    @abstractmethod
    def deadlines(self, state: dict[str, Any]) -> list[Deadline]:
        """The pending deadlines of the state."""

    @abstractmethod
    def fire(self, state: dict[str, Any], token: str, now_ms: int) -> Move | None:
        """The move a due deadline makes, or None when ``token`` is stale."""

    @abstractmethod
    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (CONTRACT game view, without the fields the platform adds);
        ``seat`` None: the public view, a spectator's, without ``you`` nor anything of any hand
        (CONTRACT, Spectators)."""

    @abstractmethod
    def status(self, state: dict[str, Any]) -> str:
        """'playing', 'hand_end' or 'finished'."""

    @abstractmethod
    def turn_seat(self, state: dict[str, Any]) -> int | None:
        """The seat expected to play, or None."""

    def awaited_seats(self, state: dict[str, Any]) -> frozenset[int]:
        """The seats the table waits for now (a daily game tells their players: game.turn_notices);
        by default the seat on turn."""
        seat = self.turn_seat(state) if self.status(state) == TableStatus.PLAYING else None
        return frozenset() if seat is None else frozenset({seat})

    @abstractmethod
    def result(self, state: dict[str, Any]) -> MatchResult | None:
        """The match result once finished, else None."""

    def catalogue_entry(self) -> dict[str, Any]:
        """The CONTRACT ``/api/game-types`` item of this engine."""
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "players": self.seats,
            "options_schema": self.options_schema,
        }
