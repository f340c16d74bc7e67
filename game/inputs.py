"""Checks of what callers send the game service, each refusal a ServiceError naming the field."""

from __future__ import annotations

import re
import uuid
from typing import Any, NoReturn

from game.seats import check_seat
from services import jsontext
from services.rpc.errors import Reason, ServiceError

MAX_ACTION_CHARS = 256 * 1024


def table_id(value: object) -> str:
    """A table id: a lowercase canonical uuid."""
    if not isinstance(value, str) or not value:
        raise ServiceError(Reason.INVALID_ARGUMENT, "table_id is required", field="table_id")
    try:
        canonical = str(uuid.UUID(value))
    except ValueError:
        canonical = None
    if canonical != value:
        raise ServiceError(Reason.INVALID_ARGUMENT, "table_id must be a lowercase uuid", field="table_id")
    return value


def seats(values: list[str], players: int) -> tuple[str, ...]:
    """A table's seats: as many as the game has players, all different, none identifying."""
    values = list(values)
    if len(values) != players:
        raise ServiceError(Reason.INVALID_ARGUMENT,
                           f"seats: this game type has {players} seats, {len(values)} were given",
                           field="seats")
    for i, seat in enumerate(values):
        check_seat(seat, f"seats[{i}]")
    if len(set(values)) != len(values):
        raise ServiceError(Reason.INVALID_ARGUMENT, "seats: every seat must be different", field="seats")
    return tuple(values)


def action(text: str) -> dict[str, Any]:
    """A player's action: a JSON object with an "action" member (BAD_REQUEST otherwise)."""
    if len(text) > MAX_ACTION_CHARS:
        raise ServiceError(Reason.BAD_REQUEST, f"The action is too large (over {MAX_ACTION_CHARS} characters)",
                           field="action_json")
    value = json_object(text, Reason.BAD_REQUEST, "The action", "action_json")
    name = value.get("action")
    if not isinstance(name, str) or not name:
        raise ServiceError(Reason.BAD_REQUEST, "The action needs an \"action\" member, e.g. {\"action\": \"play\"}",
                           field="action_json")
    return value


def json_object(text: str, reason: Reason, what: str, field: str) -> dict[str, Any]:
    """``text`` parsed as a JSON object (NaN and Infinity are not JSON, nor are nesting too deep
    and unpaired surrogates: :func:`services.jsontext.loads`); ``reason`` about the request's
    ``field`` if it is not one."""
    try:
        value = jsontext.loads(text, parse_constant=_no_constant)
    except ValueError as error:
        raise ServiceError(reason, f"{what}: not valid JSON ({error})", field=field) from None
    if not isinstance(value, dict):
        raise ServiceError(reason, f"{what}: must be a JSON object", field=field)
    return value


def expected_revision(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise ServiceError(Reason.INVALID_ARGUMENT, "expected_revision must be 0 or more",
                           field="expected_revision")
    return value


MAX_REQUEST_ID_CHARS = 128
_REQUEST_ID = re.compile(rf"[\x21-\x7e]{{1,{MAX_REQUEST_ID_CHARS}}}")


def request_id(value: str) -> str | None:
    """An Act's request id: None when empty, else 1 to 128 printable ASCII characters."""
    if not value:
        return None
    if not _REQUEST_ID.fullmatch(value):
        raise ServiceError(Reason.INVALID_ARGUMENT,
                           f"request_id must be 1 to {MAX_REQUEST_ID_CHARS} printable ASCII "
                           "characters without spaces", field="request_id")
    return value


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")
