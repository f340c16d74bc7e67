"""Reading request input strictly: JSON objects with known fields of known types, bounded in size."""

from __future__ import annotations

import functools
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.requests import Request

from services import jsontext

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


def parse_json(raw: str | bytes) -> Any:
    """JSON text as Python values; ValueError when it is not JSON we can pass on (also nesting
    too deep and lone surrogates: :func:`services.jsontext.loads`)."""
    return jsontext.loads(raw)


def _json_media_type(request: Request) -> bool:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return media_type in ("", "application/json") or media_type.endswith("+json")


async def json_object(request: Request, model: type[BaseModel], *, optional: bool = False) -> dict:
    """Parse the body as a JSON object whose keys are among ``model``'s fields (a request of
    gateway.contract), each of its JSON type.

    An empty body (no byte at all) is ``{}`` when the body is ``optional``, otherwise invalid JSON. A body of a
    declared type other than JSON is refused with 415, an empty one too: a form or text/plain
    post is what a cross-site page can send without a CORS preflight, so it never reaches the
    handlers. The errors name the field (``Unknown field: x``, ``seat must be an integer``);
    what a field's value means (a seat that is taken, a code that is blank) the handler decides.
    """
    fields = field_types(model)
    raw = await read_body(request)
    if not _json_media_type(request):
        raise HTTPException(415, "Content-Type must be application/json")
    if not raw and optional:  # no body at all; blanks are not JSON
        return {}
    try:
        data = parse_json(raw)
    except ValueError:
        raise HTTPException(400, "Invalid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "Request body must be a JSON object")
    for key, value in data.items():
        if key not in fields:
            raise HTTPException(400, f"Unknown field: {key}")
        check_type(key, value, fields[key])
    return data


@functools.cache
def field_types(model: type[BaseModel]) -> dict[str, type]:
    """The request's fields and the Python type of their JSON values: ``object`` for any value
    (an object, or null, whose meaning the handler checks: 422 Invalid options)."""
    return {name: _json_type(field.annotation) for name, field in model.model_fields.items()}


def _json_type(annotation: Any) -> type:
    # A named type (typing_extensions.TypeAliasType, a component of the document) is its value.
    annotation = getattr(annotation, "__value__", annotation)
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation if annotation in _TYPE_NAMES else object


def check_type(name: str, value: Any, expected: type) -> None:
    # bool is an int in Python; JSON keeps them apart, so must we.
    wrong = not isinstance(value, expected) or (expected is int and isinstance(value, bool))
    if wrong:
        raise HTTPException(400, f"{name} must be a{'n' if expected in (int, dict, list) else ''} "
                                 f"{_TYPE_NAMES[expected]}")
