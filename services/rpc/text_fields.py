"""The string fields of a request that hold a NUL character, for every service at once.

Protobuf strings may hold U+0000, but Postgres text cannot (the driver refuses the query with
its own error, which became UNKNOWN and reached the caller), and no id, name, code or game type
of tavolo's has one. The server refuses such a request before any handler sees it
(services.rpc.server), so no service has to remember the check for each of its fields.
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from services.rpc.errors import FieldViolation

NUL = "\x00"
_DESCRIPTION = "must not contain NUL characters"


def nul_violations(message: Message) -> list[FieldViolation]:
    """One violation per string field (nested, repeated, map keys and values) holding a NUL,
    named by its path as :class:`FieldViolation` documents."""
    return [FieldViolation(path, f"{path} {_DESCRIPTION}") for path in _nul_paths(message, "")]


def _nul_paths(message: Message, prefix: str) -> Iterator[str]:
    for field, value in message.ListFields():  # set fields only: an empty string has no NUL
        path = f"{prefix}{field.name}"
        entry_type = field.message_type if _is_map(field) else None
        if entry_type is not None:
            entry = entry_type.fields_by_name
            for key, item in value.items():
                if _holds_nul(entry["key"], key) or _holds_nul(entry["value"], item):
                    yield path
                elif entry["value"].type == FieldDescriptor.TYPE_MESSAGE:
                    yield from _nul_paths(item, f"{path}[{key!r}].")
        elif field.is_repeated:
            for index, item in enumerate(value):
                yield from _item_paths(field, item, f"{path}[{index}]")
        else:
            yield from _item_paths(field, value, path)


def _item_paths(field: FieldDescriptor, value: object, path: str) -> Iterator[str]:
    if _holds_nul(field, value):
        yield path
    elif field.type == FieldDescriptor.TYPE_MESSAGE and isinstance(value, Message):
        yield from _nul_paths(value, f"{path}.")


def _holds_nul(field: FieldDescriptor, value: object) -> bool:
    return field.type == FieldDescriptor.TYPE_STRING and isinstance(value, str) and NUL in value


def _is_map(field: FieldDescriptor) -> bool:
    entry = field.message_type
    return entry is not None and field.is_repeated and entry.GetOptions().map_entry
