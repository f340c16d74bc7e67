"""A view cut where the gateway joins its own fields in, so it forwards the engine's text unparsed.

The gateway's `state` message is the seat's view with the names and who plays each seat (the
lobby's), whether each seat is ``connected``, the ``join_code`` and the number of
``spectators`` joined in (docs/live-path.md, "What the gateway joins"). It used to parse every
view, build the contract's models and dump them again; now the game renders the view in the
order the contract's models give their JSON (gateway.contract.table.GameView and Player,
gateway.contract.spectators.PublicGameView: the fields they name in their order, then the
engine's others in the engine's order) and cuts it at the places where those fields go:

    head     ``{"status":...,"options":{...},"players":[``
    players  per item: ``{"seat":0,...,"is_you":false`` (head) and the engine's own members
             the contract does not name (``,"x":1``, mostly empty): between the two go the
             gateway's ``name``, ``player``, ``bot``, ``took_over`` and ``connected``
    middle   ``],"you":0,...,"revision":7`` (then the gateway's ``join_code``, ``spectators``)
    tail     the engine's members the contract does not name (``,"totals":[...]``), or empty;
             the gateway closes the object.

tests/gateway/test_forwarded_views.py holds these orders to the models and the gateway's
output to the models' byte for byte, over whole matches. The fields the gateway joins in are
dropped from the engine's view here (the gateway's value is the one shown).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# gateway.contract.table.GameView's fields, in its order: those before ``players``, and those
# after it that the game renders (the platform's own ``id``..``revision`` included).
BEFORE_PLAYERS = ("status", "options")
AFTER_PLAYERS = ("you", "hand", "table", "turn", "hand_number", "dealer", "scores", "last_play",
                 "turn_deadline", "your_turn", "legal", "last_hand", "acknowledged",
                 "hand_end_deadline", "entropy", "winner", "seed", "id", "game_type",
                 "seed_commitment", "revision")
# What the gateway joins in (after ``revision``), and what the public view never shows.
GATEWAY_FIELDS = ("join_code", "spectators")
PRIVATE_FIELDS = ("you", "hand", "legal", "your_turn", "join_code")
# gateway.contract.table.Player's fields the engine renders, in order; then the gateway's.
PLAYER_FIELDS = ("seat", "team", "card_count", "captured_count", "scope", "is_you")
PLAYER_GATEWAY_FIELDS = ("name", "player", "bot", "took_over", "connected")

_NAMED = frozenset((*BEFORE_PLAYERS, "players", *AFTER_PLAYERS, *GATEWAY_FIELDS))
_PLAYER_NAMED = frozenset((*PLAYER_FIELDS, *PLAYER_GATEWAY_FIELDS))
_PUBLIC_AFTER = tuple(name for name in AFTER_PLAYERS if name not in PRIVATE_FIELDS)

# The game's JSON (game.engine.compact_json), one encoder for every view.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


@dataclass(frozen=True, slots=True)
class PlayerPart:
    """One players item: its seat, its text up to the gateway's fields (no closing brace), and
    the engine's members after them (``,"k":v``...; usually empty)."""

    seat: int
    head: str
    tail: str


@dataclass(frozen=True, slots=True)
class ViewParts:
    """A view cut for the gateway (the module's docstring)."""

    head: str
    players: tuple[PlayerPart, ...]
    middle: str
    tail: str


def cut(view: dict[str, Any], public: bool = False) -> ViewParts:
    """``view`` (the engine's, with the platform's fields) cut for the gateway; ``public``: the
    public view, without a seat's fields and with every ``is_you`` false."""
    after = _PUBLIC_AFTER if public else AFTER_PLAYERS
    head = {name: view[name] for name in BEFORE_PLAYERS if name in view}
    middle = {name: view[name] for name in after if name in view}
    tail = {name: value for name, value in view.items()
            if name not in _NAMED and not (public and name in PRIVATE_FIELDS)}
    items = view.get("players") or []
    parts: list[dict[str, Any]] = [head]
    seats = []
    for item in items:
        if public:
            item = {**item, "is_you": False}
        parts.append({name: item[name] for name in PLAYER_FIELDS if name in item})
        parts.append({name: value for name, value in item.items() if name not in _PLAYER_NAMED})
        seat = item.get("seat")
        seats.append(seat if isinstance(seat, int) and not isinstance(seat, bool) else -1)
    parts += (middle, tail)
    texts = _inner_texts(parts)
    head_text = "{" + texts[0] + ("," if texts[0] else "") + '"players":['
    players = tuple(PlayerPart(seat, "{" + texts[1 + 2 * i], _members(texts[2 + 2 * i]))
                    for i, seat in enumerate(seats))
    return ViewParts(head_text, players, "]" + _members(texts[-2]), _members(texts[-1]))


def _members(inner: str) -> str:
    """An object's members to follow others: ``,"k":v...``, or nothing."""
    return "," + inner if inner else ""


def _inner_texts(objects: list[dict[str, Any]]) -> list[str]:
    """Each object's JSON without its braces, encoded at once: a list of n objects always has
    n - 1 ``},{`` between them, so exactly that many means no string holds one, and the text
    splits there; else each is encoded alone."""
    text = _encode(objects)
    if text.count("},{") == len(objects) - 1:
        return text[2:-2].split("},{")
    return [_encode(one)[1:-1] for one in objects]


@dataclass(frozen=True, slots=True)
class Facts:
    """What the gateway reads of a revision besides forwarding it (the same in every seat's
    view): the latest play (abandonment, the bots' talk), the hand, and at the end the scores
    (as JSON text) and the winner of the ``game_over`` message."""

    last_play_seat: int | None
    last_play_auto: bool
    last_play_scopa: bool
    hand_number: int | None
    scores_json: str
    winner: str


def facts(view: dict[str, Any], finished: bool) -> Facts:
    """The facts of a revision, from any seat's view of it (or the public view)."""
    last = view.get("last_play")
    seat = last.get("seat") if isinstance(last, dict) else None
    known = isinstance(seat, int) and not isinstance(seat, bool)
    hand = view.get("hand_number")
    winner = view.get("winner")
    return Facts(
        last_play_seat=seat if known else None,
        last_play_auto=known and bool(last.get("auto")),  # type: ignore[union-attr]
        last_play_scopa=known and last.get("scopa") is True,  # type: ignore[union-attr]
        hand_number=hand if isinstance(hand, int) and not isinstance(hand, bool) else None,
        scores_json=_encode(view.get("scores")) if finished else "",
        winner=winner if finished and isinstance(winner, str) else "")
