"""Reading CONTRACT.md's tables and examples, and validating JSON against the OpenAPI document's schemas."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from game.client import GameType
from game.registry import default_registry

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_BASE = "urn:tavolo:openapi"
REPO_DOCS = Path(__file__).resolve().parents[2] / "docs"

# -- CONTRACT.md ----------------------------------------------------------------------------


def _openapi_path(path: str) -> str:
    """``/auth/<provider>/login?x=`` -> ``/auth/{provider}/login``."""
    return re.sub(r"<(\w+)>", r"{\1}", path.split("?", 1)[0])


def contract_endpoints(contract: str) -> set[tuple[str, str]]:
    """Every (METHOD, path) of the contract: its tables' rows, the WebSocket heading, the public list."""
    rows = re.findall(r"^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(/[^\s|]*)\s*\|", contract, re.MULTILINE)
    endpoints = {(method, _openapi_path(path)) for method, path in rows}
    endpoints |= {("GET", path) for path in re.findall(r"^## WebSocket (/\S+)", contract, re.MULTILINE)}
    endpoints |= {("GET", pattern) for pattern in public_patterns(contract) if "*" not in pattern}
    endpoints |= {(method, _openapi_path(path)) for line in re.findall(r"^- .*$", contract, re.MULTILINE)
                  if "not built here yet" not in line for method, path in _BULLET_ENDPOINTS.findall(line)}
    return endpoints


# An endpoint named in a section's bullets rather than a table ("- GET /api/phrases (no session
# needed): ...", "Report: POST /api/games/{id}/chat/{message_id}/report, body ..."), as the
# section Table talk writes them; a bullet noted "(not built here yet)" is skipped.
_BULLET_ENDPOINTS = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/api/[\w/{}-]+)")


def public_patterns(contract: str) -> list[str]:
    """The paths the contract exempts from authentication (``/auth/*`` is a glob)."""
    found = re.search(r"Everything except(.*?)answers 401", contract, re.DOTALL)
    assert found, "the contract's list of public endpoints was not found"
    return [*re.findall(r"`(/[^`]*)`", found.group(1)),
            # "- GET /api/phrases (no session needed)", "- Web Push: GET /api/push/key (no session needed)"
            *re.findall(r"^- (?:[\w ]+: )?GET (/\S+) \(no session needed\)", contract, re.MULTILINE)]


def is_public(path: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)


def contract_error_details(contract: str) -> set[str]:
    """Every ``{"detail": "..."}`` text of the contract; ``<what>`` marks a variable part."""
    return set(re.findall(r'\{"detail": "([^"]+)"\}', contract))


def detail_matches(template: str, detail: str) -> bool:
    pattern = "".join(".+" if re.fullmatch(r"<[^>]+>", part) else re.escape(part)
                      for part in re.split(r"(<[^>]+>)", template))
    return re.fullmatch(pattern, detail) is not None


def ws_error_codes(contract: str) -> set[str]:
    """The codes of the contract's WebSocket ``error`` message."""
    found = re.search(r"; codes:(.*?)An error never", contract, re.DOTALL)
    assert found, "the contract's list of WebSocket error codes was not found"
    return set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", found.group(1))))


def contract_line(contract: str, start: str) -> str:
    """The first line of the contract that starts with ``start``."""
    for line in contract.splitlines():
        if line.startswith(start):
            return line
    raise AssertionError(f"no line of the contract starts with {start!r}")


def key_names(text: str) -> set[str]:
    """The object keys of a JSON-like shape in prose: ``{"id", "players": [{"seat"}]}`` -> id, players, seat.

    Error bodies (``{"detail": ...}``) in the same text are left out.
    """
    return set(re.findall(r'[{,]\s*"(\w+)"', re.sub(r'\{"detail": "[^"]*"\}', "", text)))


def json_examples(markdown: str) -> list[Any]:
    """Every JSON value of the ```json blocks: a block is one value, or one value per line."""
    values = []
    for block in re.findall(r"```json\n(.*?)```", markdown, re.DOTALL):
        try:
            values.append(json.loads(block))
        except ValueError:
            values.extend(json.loads(line) for line in block.splitlines() if line.strip())
    return values


def keys_of(value: Any, skip: tuple[str, ...] = ("options", "payload", "result")) -> set[str]:
    """Every key of every object inside ``value``, not looking into engine-defined parts."""
    if isinstance(value, list):
        return set().union(*(keys_of(item, skip) for item in value)) if value else set()
    if not isinstance(value, dict):
        return set()
    keys = set(value)
    for key, item in value.items():
        if key not in skip:
            keys |= keys_of(item, skip)
    return keys


# -- the OpenAPI document -------------------------------------------------------------------


def registry_game_types() -> list[GameType]:
    """The catalogue of the game service's registry, as ListGameTypes answers it (the gateway asks
    the game service; a test may build it here)."""
    return [GameType(id=engine.id, name=engine.name, description=engine.description, players=engine.seats,
                     options_schema_json=json.dumps(engine.options_schema))
            for engine in default_registry().list()]



def resolve(document: dict, node: dict) -> dict:
    """Follow a local ``$ref`` (of a response, a schema) to what it names."""
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def operations(document: dict) -> Iterator[tuple[str, str, dict]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield method.upper(), path, operation


def property_names(document: dict, schema: dict, seen: set[int] | None = None) -> set[str]:
    """Every property name reachable from ``schema`` (through refs, items, properties, anyOf/oneOf)."""
    seen = set() if seen is None else seen
    schema = resolve(document, schema)
    if id(schema) in seen:
        return set()
    seen.add(id(schema))
    names = set(schema.get("properties", {}))
    children = list(schema.get("properties", {}).values())
    children += [schema["items"]] if isinstance(schema.get("items"), dict) else []
    children += schema.get("anyOf", []) + schema.get("oneOf", [])
    for child in children:
        names |= property_names(document, child, seen)
    return names


def _rebased(node: Any) -> Any:
    """A copy whose local refs point into the registered document, so a piece validates on its own."""
    if isinstance(node, list):
        return [_rebased(item) for item in node]
    if isinstance(node, dict):
        return {key: (_BASE + value if key == "$ref" and value.startswith("#") else _rebased(value))
                for key, value in node.items()}
    return node


def validator(document: dict, schema: dict) -> Draft202012Validator:
    registry = Registry().with_resource(_BASE, Resource.from_contents(document, default_specification=DRAFT202012))
    return Draft202012Validator(_rebased(schema), registry=registry, format_checker=FormatChecker())


def errors_of(document: dict, schema: dict, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(document, schema).iter_errors(value)]


def schema_ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def documented_examples(document: dict) -> Iterator[tuple[str, dict, Any]]:
    """(where, schema, example) for every example of a request, a response or a component schema."""
    for method, path, operation in operations(document):
        bodies = [("request", operation["requestBody"])] if "requestBody" in operation else []
        bodies += [(status, resolve(document, response)) for status, response in operation["responses"].items()]
        for where, body in bodies:
            for media_type, media in body.get("content", {}).items():
                values = [media["example"]] if "example" in media else []
                values += [example["value"] for example in media.get("examples", {}).values()]
                for value in values:
                    yield f"{method} {path} {where} {media_type}", media["schema"], value
    yield from _schema_examples(document["components"]["schemas"], "#/components/schemas")


def _schema_examples(node: Any, where: str) -> Iterator[tuple[str, dict, Any]]:
    if isinstance(node, dict):
        if isinstance(node.get("examples"), list) and ("type" in node or "$ref" in node or "properties" in node):
            for value in node["examples"]:
                yield where, node, value
        for key, child in node.items():
            if key != "examples":
                yield from _schema_examples(child, f"{where}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _schema_examples(child, f"{where}/{index}")
