"""Requests of a gRPC method with a NUL character in one string field, for the tests that every
service refuses them (services.rpc.text_fields)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

NUL_TEXT = "scopone\x00scientifico"


def nul_requests(method: MethodDescriptor) -> Iterator[tuple[str, Message]]:
    """(path, request) for each string field of the method's request, its own and those of
    its nested messages (the first item of a repeated one), map keys included: the request
    with a NUL there and nothing else set, and the path a BadRequest names it by."""
    for path, fill in _fills(method.input_type, ""):
        request = GetMessageClass(method.input_type)()
        fill(request)
        yield path, request


Fill = Callable[[Message], None]


def _fills(descriptor: Descriptor, prefix: str) -> Iterator[tuple[str, Fill]]:
    for field in descriptor.fields:
        path = f"{prefix}{field.name}"
        if field.type == FieldDescriptor.TYPE_STRING:
            if field.is_repeated:
                yield f"{path}[0]", lambda m, f=field: getattr(m, f.name).append(NUL_TEXT)
            else:
                yield path, lambda m, f=field: setattr(m, f.name, NUL_TEXT)
        elif field.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        elif field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["key"].type == FieldDescriptor.TYPE_STRING:
                yield path, lambda m, f=field: _map_key(getattr(m, f.name))
        elif field.message_type.full_name.startswith("tavolo."):  # not Timestamp and the like
            inner = f"{path}[0]" if field.is_repeated else path
            for nested, fill in _fills(field.message_type, f"{inner}."):
                yield nested, lambda m, f=field, fill=fill: fill(_nested(m, f))


def _nested(message: Message, field: FieldDescriptor) -> Message:
    """The field's message: a new first item of a repeated one."""
    value = getattr(message, field.name)
    return value.add() if field.is_repeated else value


def _map_key(values: Any) -> None:
    value_type = values.GetEntryClass().DESCRIPTOR.fields_by_name["value"]
    if value_type.type == FieldDescriptor.TYPE_MESSAGE:
        values.get_or_create(NUL_TEXT)
    else:
        values[NUL_TEXT] = value_type.default_value
