"""One mapping between tavolo's domain errors and gRPC statuses, both ways.

Services raise :class:`ServiceError` with a :class:`Reason`; the server interceptor
(:mod:`services.server`) sends it as a gRPC status whose details carry a
``google.rpc.ErrorInfo`` (domain ``tavolo.dev``, reason = the name below). Clients call
:func:`from_rpc_error` to get the same :class:`ServiceError` back, so the gateway can map a
reason to CONTRACT.md's HTTP status without parsing free text. The reasons are documented for
other teams in ``protos/tavolo/common/v1/errors.proto`` (a test keeps the two lists equal).
"""

from __future__ import annotations

import enum

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

DOMAIN = "tavolo.dev"

# A status travels in HTTP/2 trailers (the message twice: grpc-message and the ErrorInfo's
# Status), which gRPC caps at 16 KiB: a message echoing what a caller sent (an unknown game
# type of 20,000 characters) would turn the error into RESOURCE_EXHAUSTED. Clipped to these.
MESSAGE_LIMIT = 500
METADATA_VALUE_LIMIT = 200


def clipped(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis when it is longer."""
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


class Reason(enum.Enum):
    """A machine-readable reason and the gRPC status code it travels with."""

    UNKNOWN_GAME_TYPE = grpc.StatusCode.INVALID_ARGUMENT
    INVALID_OPTIONS = grpc.StatusCode.INVALID_ARGUMENT
    GAME_NOT_FOUND = grpc.StatusCode.NOT_FOUND
    TABLE_NOT_FOUND = grpc.StatusCode.NOT_FOUND
    GAME_FULL = grpc.StatusCode.FAILED_PRECONDITION
    NOT_SEATED = grpc.StatusCode.PERMISSION_DENIED
    ILLEGAL_MOVE = grpc.StatusCode.FAILED_PRECONDITION
    NOT_YOUR_TURN = grpc.StatusCode.FAILED_PRECONDITION
    BAD_REQUEST = grpc.StatusCode.INVALID_ARGUMENT
    UNKNOWN_ACTION = grpc.StatusCode.INVALID_ARGUMENT
    CONCURRENT_MOVE = grpc.StatusCode.ABORTED
    GAME_FINISHED = grpc.StatusCode.FAILED_PRECONDITION
    IDENTIFYING_SEAT = grpc.StatusCode.INVALID_ARGUMENT
    TAKE_BACK_UNSUPPORTED = grpc.StatusCode.FAILED_PRECONDITION
    INVALID_ARGUMENT = grpc.StatusCode.INVALID_ARGUMENT
    INVALID_PAGE_TOKEN = grpc.StatusCode.INVALID_ARGUMENT
    MATCH_NOT_FINISHED = grpc.StatusCode.FAILED_PRECONDITION
    UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
    CORRUPT_LOG = grpc.StatusCode.DATA_LOSS
    TABLE_EXISTS = grpc.StatusCode.ALREADY_EXISTS
    UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
    METHOD_NOT_ALLOWED = grpc.StatusCode.PERMISSION_DENIED

    @property
    def transient(self) -> bool:
        """Whether the same call may succeed later: only when something was out of reach."""
        return self is Reason.UNAVAILABLE

    # Enum members with equal values would alias each other; keep each reason distinct.
    def __new__(cls, code: grpc.StatusCode) -> Reason:
        member = object.__new__(cls)
        member._value_ = (len(cls.__members__), code)
        return member

    @property
    def code(self) -> grpc.StatusCode:
        return self.value[1]


class ServiceError(Exception):
    """A failure a caller can act on: a reason, a message fit for a user, optional metadata."""

    def __init__(self, reason: Reason, message: str, *, status_code: grpc.StatusCode | None = None,
                 **metadata: str):
        super().__init__(message)
        self.reason = reason
        self.message = message
        # Where an API documents another code for a reason (FindSeat's NOT_SEATED is NOT_FOUND).
        self.code = status_code or reason.code
        self.metadata = {key: str(value) for key, value in metadata.items()}

    def __repr__(self) -> str:
        return f"ServiceError({self.reason.name}, {self.message!r})"

    def to_status(self) -> grpc.Status:
        """The gRPC status, with the ErrorInfo in the ``grpc-status-details-bin`` trailer."""
        metadata = {key: clipped(value, METADATA_VALUE_LIMIT)
                     for key, value in self.metadata.items()}
        info = error_details_pb2.ErrorInfo(reason=self.reason.name, domain=DOMAIN,
                                           metadata=metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(
            code=self.code.value[0], message=clipped(self.message, MESSAGE_LIMIT),
            details=[detail]
        )
        return rpc_status.to_status(status)


def from_rpc_error(error: grpc.RpcError) -> ServiceError:
    """Turn a failed call back into the ServiceError the server raised.

    A status without tavolo's ErrorInfo (a dead peer, a deadline) becomes UNAVAILABLE or
    INVALID_ARGUMENT by its code, so callers always get a reason.
    """
    code = error.code()
    message = error.details() or code.name
    try:
        status = rpc_status.from_call(error)
    except ValueError:
        status = None
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Is(info.DESCRIPTOR) and detail.Unpack(info) and info.domain == DOMAIN:
            reason = Reason.__members__.get(info.reason)
            if reason is not None:
                return ServiceError(reason, status.message, **dict(info.metadata))
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE):
        return ServiceError(Reason.INVALID_ARGUMENT, message)
    return ServiceError(Reason.UNAVAILABLE, f"{code.name}: {message}")
