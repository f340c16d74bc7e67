"""Reading request input strictly: JSON objects with known fields of known types, bounded in size."""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

MAX_BODY_BYTES = 64 * 1024

_TYPE_NAMES = {str: "string", int: "integer", bool: "boolean", dict: "object", list: "array"}


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The raw body, refusing more than ``limit`` bytes before reading them all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HTTPException(413, "Request body too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise HTTPException(413, "Request body too large")
    return bytes(body)


async def json_object(request: Request, fields: dict[str, type], *, optional: bool = False) -> dict:
    """Parse the body as a JSON object whose keys are among ``fields`` with those types.

    An empty body is ``{}`` when the body is ``optional``, otherwise invalid JSON.
    """
    raw = await read_body(request)
    if not raw.strip() and optional:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise HTTPException(400, "Invalid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "Request body must be a JSON object")
    for key, value in data.items():
        if key not in fields:
            raise HTTPException(400, f"Unknown field: {key}")
        check_type(key, value, fields[key])
    return data


def check_type(name: str, value: Any, expected: type) -> None:
    # bool is an int in Python; JSON keeps them apart, so must we.
    wrong = not isinstance(value, expected) or (expected is int and isinstance(value, bool))
    if wrong:
        raise HTTPException(400, f"{name} must be a{'n' if expected in (int, dict, list) else ''} "
                                 f"{_TYPE_NAMES[expected]}")
