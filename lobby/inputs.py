"""Checks of what callers send, each failing with a message that names the field.

The gateway passes the OIDC subject as the member id and the login name as the display name;
other teams call the gRPC API directly, so nothing here trusts either.
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from collections.abc import Mapping

from services import jsontext
from services.rpc.errors import Reason, ServiceError

MAX_MEMBER_ID = 512
MAX_DISPLAY_NAME = 64
MAX_OPTIONS_BYTES = 16 * 1024
# Beyond the C0/C1 controls (category Cc): line breaks that are not Cc, and the bidirectional
# overrides and isolates, which let a name display as something else than it is.
_FORBIDDEN = frozenset("\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _invalid(message: str, field: str) -> ServiceError:
    return ServiceError(Reason.INVALID_ARGUMENT, message, field=field)


def _has_control(text: str) -> bool:
    return any(ch in _FORBIDDEN or unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def member_id(value: str, field: str = "member_id") -> str:
    """An opaque member id: non-empty, at most 512 characters, no control characters."""
    if not value:
        raise _invalid(f"{field} is required", field)
    if len(value) > MAX_MEMBER_ID:
        raise _invalid(f"{field} is longer than {MAX_MEMBER_ID} characters", field)
    if _has_control(value):
        raise _invalid(f"{field} contains control characters", field)
    return value


def display_name(value: str) -> str:
    """A name shown to others, blanks around it trimmed: 1..64 characters, no control characters."""
    name = value.strip()
    if not name:
        raise _invalid("display_name is required", "display_name")
    if len(name) > MAX_DISPLAY_NAME:
        raise _invalid(f"display_name is longer than {MAX_DISPLAY_NAME} characters", "display_name")
    if _has_control(name):
        raise _invalid("display_name contains control characters", "display_name")
    return name


def shown_name(value: str) -> str:
    """``value`` made into a name :func:`display_name` accepts, or "" when nothing is left: for
    names that come from elsewhere (an OIDC provider's claims), which may be anything.

    Line breaks and tabs become spaces, the other forbidden characters go, runs of blanks become
    one, and the name is cut to 64 characters.
    """
    kept = []
    for ch in value:
        if ch.isspace():
            kept.append(" ")
        elif not _has_control(ch):
            kept.append(ch)
    return " ".join("".join(kept).split())[:MAX_DISPLAY_NAME].strip()


def game_type(value: str) -> str:
    if not value.strip():
        raise _invalid("game_type is required", "game_type")
    return value.strip()


MAX_GAME_TYPE_CHARS = 64


def optional_game_type(value: str) -> str:
    """A game type to filter by, "" for every type; an unknown one simply finds nothing."""
    if len(value) > MAX_GAME_TYPE_CHARS:
        raise _invalid(f"game_type is longer than {MAX_GAME_TYPE_CHARS} characters", "game_type")
    return value.strip()


MAX_RATING = 10_000


def rating(value: int) -> int:
    """A member's rating as the caller gives it: 0 (not known) to MAX_RATING."""
    if not 0 <= value <= MAX_RATING:
        raise _invalid(f"rating must be from 0 to {MAX_RATING}", "rating")
    return value


def ratings(values: Mapping[str, int]) -> dict[str, int]:
    """A member's ratings by game type, each as :func:`rating`."""
    return {game_type: rating(value) for game_type, value in values.items()}


def options_json(value: str) -> str:
    """The options as compact JSON text of an object; empty text means ``{}``.

    Only the shape is checked here; what the options may say is the game service's schema.
    """
    if not value.strip():
        return "{}"
    if len(value.encode("utf-8")) > MAX_OPTIONS_BYTES:
        raise ServiceError(Reason.INVALID_OPTIONS,
                           f"Invalid options: longer than {MAX_OPTIONS_BYTES} bytes",
                           field="options_json")
    try:
        options = jsontext.loads(value, parse_constant=_refuse_constant)
    except ValueError as error:
        raise ServiceError(Reason.INVALID_OPTIONS,
                           f"Invalid options: not valid JSON ({error})", field="options_json") from None
    if not isinstance(options, dict):
        raise ServiceError(Reason.INVALID_OPTIONS, "Invalid options: must be a JSON object",
                           field="options_json")
    return json.dumps(options, separators=(",", ":"))


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def game_id(value: str, field: str = "game_id") -> str | None:
    """The canonical (lowercase) game id, or None when the text cannot be one (no game has it)."""
    if not value.strip():
        raise _invalid(f"{field} is required", field)
    try:
        parsed = uuid.UUID(value.strip())
    except ValueError:
        return None
    canonical = str(parsed)
    return canonical if canonical == value.strip().lower() else None


MAX_REQUEST_ID_CHARS = 128
_REQUEST_ID = re.compile(rf"[\x21-\x7e]{{1,{MAX_REQUEST_ID_CHARS}}}")


def request_id(value: str) -> str:
    """A call's request id: "" (none), or 1 to 128 printable ASCII characters (as Act's)."""
    if value and not _REQUEST_ID.fullmatch(value):
        raise _invalid(f"request_id must be 1 to {MAX_REQUEST_ID_CHARS} printable ASCII characters "
                       "without spaces", "request_id")
    return value


def join_code(value: str) -> str:
    if not value.strip():
        raise _invalid("join_code is required", "join_code")
    return value
