"""A view cut where the gateway joins its own fields in, so it forwards the engine's text unparsed.

The gateway's `state` message is the seat's view with the names and who plays each seat (the
lobby's), whether each seat is ``connected``, the ``join_code`` and the number of
``spectators`` joined in (docs/live-path.md, "What the gateway joins"). It used to parse every
view, build the contract's models and dump them again; now the game renders the view in the
order the contract's models give their JSON (gateway.contract.table.GameView and Player,
gateway.contract.spectators.PublicGameView: the fields they name in their order, then the
engine's others in the engine's order), a JSON object, and says where those fields go in it
(:class:`ViewCut`): in each players item after ``is_you`` (the gateway's ``name``, ``player``,
``bot``, ``took_over`` and ``connected``), and after ``revision`` (``join_code``,
``spectators``). The gateway copies the text with its fields put in at those places.

tests/gateway/test_forwarded_views.py holds these orders to the models and the gateway's
output to the models' byte for byte, over whole matches. The fields the gateway joins in are
dropped from the engine's view here (the gateway's value is the one shown).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

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
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                           check_circular=False).encode  # a view is a tree
# Between two objects encoded at once (_inner_texts): no engine writes it in a view.
_MARKER = "\x00view-cut\x00"
_MARKER_TOKEN = _encode(_MARKER)
_MARKER_TEXT = "," + _MARKER_TOKEN + ","


class ViewCut(NamedTuple):
    """A view cut for the gateway (the module's docstring): its text, and where the gateway's
    fields go in it: ``at`` holds an offset (in characters) in each players item, in order,
    then one after ``revision``; ``seats`` the seat of each item. Tuples: made for every view."""

    text: str
    at: tuple[int, ...]
    seats: tuple[int, ...]


def cut(view: dict[str, Any], public: bool = False) -> ViewCut:
    """``view`` (the engine's, with the platform's fields) cut for the gateway; ``public``: the
    public view, without a seat's fields and with every ``is_you`` false."""
    return _cut_as_it_is(view, public) or _cut_reordered(view, public)


def _in_order(keys: tuple[str, ...], order: dict[str, int]) -> bool:
    """Whether ``keys`` are some of ``order``'s, in its order (remembered: an engine renders a
    few key lists, the same again and again)."""
    known = _ordered.get(keys)
    if known is None:
        ranks = [order.get(key, -1) for key in keys]
        known = _ordered[keys] = -1 not in ranks and ranks == sorted(set(ranks))
    return known


_VIEW_ORDER = {name: rank for rank, name in enumerate((*BEFORE_PLAYERS, "players", *AFTER_PLAYERS))}
_PUBLIC_ORDER = {name: rank for rank, name in enumerate((*BEFORE_PLAYERS, "players", *_PUBLIC_AFTER))}
_PLAYER_ORDER = {name: rank for rank, name in enumerate(PLAYER_FIELDS)}
_ordered: dict[tuple[str, ...], bool] = {}


def _cut_as_it_is(view: dict[str, Any], public: bool) -> ViewCut | None:
    """The common case, fast: an engine that renders the contract's fields in its order and
    nothing else (scopone does). The view is encoded once with a marker before, between and
    after the players items, and split at the markers; None when the view is not such a one."""
    items = view.get("players")
    if not isinstance(items, list) or not _in_order(tuple(view), _PUBLIC_ORDER if public else _VIEW_ORDER):
        return None
    marked: list[Any] = [_MARKER]
    seats = []
    for item in items:
        if (not isinstance(item, dict) or not _in_order(tuple(item), _PLAYER_ORDER)
                or (public and item.get("is_you") is not False)):
            return None
        marked += (item, _MARKER)
        seats.append(_seat(item))
    pieces = _encode({**view, "players": marked}).split(_MARKER_TOKEN)
    if len(pieces) != len(items) + 2:  # the engine wrote a marker itself
        return None
    # pieces: '{..."players":[', then ',{"seat":0,...},' per item, then '],...,"revision":7}'
    at, position = [], len(pieces[0]) - 1
    for piece in pieces[1:-1]:
        position += len(piece) - 1
        at.append(position - 1)  # before the item's closing brace
    text = pieces[0] + ",".join([piece[1:-1] for piece in pieces[1:-1]]) + pieces[-1]
    at.append(len(text) - 1)
    return ViewCut(text, tuple(at), tuple(seats))


def _seat(item: dict[str, Any]) -> int:
    seat = item.get("seat")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else -1


def _cut_reordered(view: dict[str, Any], public: bool) -> ViewCut:
    """Any view: its fields put in the contract's order, the others after them."""
    after = _PUBLIC_AFTER if public else AFTER_PLAYERS
    head = {name: view[name] for name in BEFORE_PLAYERS if name in view}
    middle = {name: view[name] for name in after if name in view}
    tail = {name: value for name, value in view.items()
            if name not in _NAMED and not (public and name in PRIVATE_FIELDS)}
    items = view.get("players") or []
    parts: list[dict[str, Any]] = [head]
    for item in items:
        if public:
            item = {**item, "is_you": False}
        parts.append({name: item[name] for name in PLAYER_FIELDS if name in item})
        parts.append({name: value for name, value in item.items() if name not in _PLAYER_NAMED})
    parts += (middle, tail)
    inner = _inner_texts(parts)
    text = "{" + inner[0] + ("," if inner[0] else "") + '"players":['
    at = []
    for index in range(len(items)):
        text += ("," if index else "") + "{" + inner[1 + 2 * index]
        at.append(len(text))
        text += _members(inner[2 + 2 * index]) + "}"
    text += "]" + _members(inner[-2])
    at.append(len(text))
    text += _members(inner[-1]) + "}"
    return ViewCut(text, tuple(at), tuple(_seat(item) for item in items))


def _members(inner: str) -> str:
    """An object's members to follow others: ``,"k":v...``, or nothing."""
    return "," + inner if inner else ""


def _inner_texts(objects: list[dict[str, Any]]) -> list[str]:
    """Each object's JSON without its braces, encoded at once: the objects go in a list with a
    marker string between each two, so the text splits at the markers; a marker's text is only
    ever a whole token (a quote inside a string is escaped), so exactly one fewer than the
    objects means the engine wrote none itself, and else each object is encoded alone."""
    listed: list[Any] = [objects[0]]
    for one in objects[1:]:
        listed += (_MARKER, one)
    text = _encode(listed)
    if text.count(_MARKER_TEXT) == len(objects) - 1:
        return [one[1:-1] for one in text[1:-1].split(_MARKER_TEXT)]
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
