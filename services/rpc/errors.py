"""One mapping between tavolo's domain errors and gRPC statuses, both ways.

Services raise :class:`ServiceError` with a :class:`Reason`; the server interceptor
(:mod:`services.rpc.server`) sends it as a gRPC status whose details carry a
``google.rpc.ErrorInfo`` (domain ``tavolo.dev``, reason = the name below), a
``google.rpc.BadRequest`` naming the request field on every INVALID_ARGUMENT, and a
``google.rpc.RetryInfo`` where waiting and trying again helps (:data:`RETRY_DELAY_SECONDS`).
Clients call :func:`from_rpc_error` to get the same :class:`ServiceError` back, so the gateway
can map a reason to CONTRACT.md's HTTP status without parsing free text. The reasons are
documented for other teams in ``protos/tavolo/common/v1/errors.proto`` (a test keeps the two
lists equal).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

# Loads tavolo/common/v1/errors.proto (ErrorReason) into the default descriptor pool, which the
# servers' reflection serves from: no service imports that file, and without this grpcurl's
# `describe tavolo.common.v1.ErrorReason` finds nothing. Every server imports this module.
from tavolo.common.v1 import errors_pb2  # noqa: F401

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
    NOT_CREATOR = grpc.StatusCode.PERMISSION_DENIED
    SEAT_TAKEN = grpc.StatusCode.FAILED_PRECONDITION
    GAME_STARTED = grpc.StatusCode.FAILED_PRECONDITION
    NO_BOT = grpc.StatusCode.NOT_FOUND
    SEAT_NOT_TAKEN_OVER = grpc.StatusCode.FAILED_PRECONDITION
    UNKNOWN_BOT_LEVEL = grpc.StatusCode.INVALID_ARGUMENT
    TOO_MANY_OPEN_GAMES = grpc.StatusCode.FAILED_PRECONDITION
    PLAYER_NOT_FOUND = grpc.StatusCode.NOT_FOUND
    BLOCKED = grpc.StatusCode.PERMISSION_DENIED
    SELF_RELATION = grpc.StatusCode.FAILED_PRECONDITION
    TOO_MANY_RELATIONS = grpc.StatusCode.FAILED_PRECONDITION
    TOO_MANY_DAILY_GAMES = grpc.StatusCode.FAILED_PRECONDITION
    TOO_MANY_ANALYSES = grpc.StatusCode.FAILED_PRECONDITION
    NO_ANALYSIS = grpc.StatusCode.NOT_FOUND

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
        code: grpc.StatusCode = self.value[1]
        return code

    @property
    def retry_delay_seconds(self) -> float | None:
        """How long a caller should wait before trying again (RetryInfo), None: no RetryInfo."""
        return RETRY_DELAY_SECONDS.get(self)


# google.rpc.RetryInfo.retry_delay, documented with each reason in errors.proto.
RETRY_DELAY_SECONDS = {
    # A store or a service behind this one does not answer. For an idempotent call the
    # caller's transport has retried already (services.rpc.channels: 0.1 + 0.2 + 0.4 + 0.8 s);
    # 2 s is where that backoff goes on (its next step, 1.6 s, and its cap, max_backoff_seconds)
    # and the channels' longest wait before reconnecting to a peer (max_reconnect_backoff_ms),
    # so a retry sooner would most likely meet the same outage. Back off further after it.
    Reason.UNAVAILABLE: 2.0,
    # Another move landed first: nothing has to recover, the caller re-reads the view and
    # decides again. The winning move is committed before the loser hears of it, so the short
    # wait only keeps two contenders (a player and an auto-play, two bots) from colliding again
    # at once: a quiet table's move takes 5-24 ms (the README's p50 to p99), and 0.1 s is the
    # channels' first retry backoff.
    Reason.CONCURRENT_MOVE: 0.1,
}


@dataclass(frozen=True)
class FieldViolation:
    """One field of a request that broke its documented shape (google.rpc.BadRequest).

    ``field`` is the path of the field in the request message: proto field names, dotted into
    nested messages, ``[i]`` for an element of a repeated field (``options_json``,
    ``seats[2]``, ``tables[0].deadlines[1].due_at``); ``""`` is the request as a whole (bytes
    that are not a message of the method). ``description`` says what is wrong, for people.
    """

    field: str
    description: str


class ServiceError(Exception):
    """A failure a caller can act on: a reason, a message fit for a user, optional metadata.

    An INVALID_ARGUMENT names the request field it is about: ``field="page_size"`` (also kept
    in the ErrorInfo's metadata as ``field``, as before), or ``field_violations`` for several;
    one without either is a programming error (TypeError), so that every such status carries a
    google.rpc.BadRequest. ``field=""`` is the request as a whole.
    """

    def __init__(self, reason: Reason, message: str, *, field: str | None = None,
                 field_violations: Iterable[FieldViolation] = (),
                 retry_delay_seconds: float | None = None,
                 status_code: grpc.StatusCode | None = None, **metadata: str):
        super().__init__(message)
        self.reason = reason
        self.message = message
        # Where an API documents another code for a reason (FindSeat's NOT_SEATED is NOT_FOUND).
        self.code = status_code or reason.code
        self.metadata = {key: str(value) for key, value in metadata.items()}
        if field:
            self.metadata.setdefault("field", field)
        violations = tuple(field_violations)
        invalid = self.code == grpc.StatusCode.INVALID_ARGUMENT
        if invalid and not violations and field is not None:
            violations = (FieldViolation(field, message),)
        if invalid and not violations:
            raise TypeError(f"ServiceError({reason.name}) is INVALID_ARGUMENT: name the request "
                            "field it is about (field=...; \"\" for the request as a whole)")
        self.field_violations = violations
        # The reason's delay unless the error says otherwise (a peer's RetryInfo, relayed).
        self.retry_delay_seconds = (retry_delay_seconds if retry_delay_seconds is not None
                                    else reason.retry_delay_seconds)

    def __repr__(self) -> str:
        return f"ServiceError({self.reason.name}, {self.message!r})"

    def to_status(self) -> grpc.Status:
        """The gRPC status, with the ErrorInfo, and the BadRequest and RetryInfo where there
        are any, in the ``grpc-status-details-bin`` trailer."""
        status: grpc.Status = rpc_status.to_status(self.to_status_message())  # grpc_status is untyped
        return status

    def to_status_message(self) -> status_pb2.Status:
        """The google.rpc.Status of :meth:`to_status` (for a call carried in a stream)."""
        metadata = {key: clipped(value, METADATA_VALUE_LIMIT)
                     for key, value in self.metadata.items()}
        details: list[Message] = [
            error_details_pb2.ErrorInfo(reason=self.reason.name, domain=DOMAIN, metadata=metadata)
        ]
        if self.field_violations:
            details.append(error_details_pb2.BadRequest(field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=clipped(v.field, METADATA_VALUE_LIMIT),
                    description=clipped(v.description, MESSAGE_LIMIT))
                for v in self.field_violations
            ]))
        if self.retry_delay_seconds is not None:
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(round(self.retry_delay_seconds * 1e9))
            details.append(error_details_pb2.RetryInfo(retry_delay=delay))
        return status_pb2.Status(
            code=self.code.value[0], message=clipped(self.message, MESSAGE_LIMIT),
            details=[_packed(detail) for detail in details]
        )


def _packed(detail: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(detail)
    return packed


_CODES = {code.value[0]: code for code in grpc.StatusCode}


def from_rpc_error(error: grpc.RpcError) -> ServiceError:
    """Turn a failed call back into the ServiceError the server raised, its field violations
    (BadRequest) and retry delay (RetryInfo) included.

    A status without tavolo's ErrorInfo (a dead peer, a deadline) becomes UNAVAILABLE or
    INVALID_ARGUMENT (about the request as a whole) by its code, so callers always get a reason.
    """
    code = error.code()
    try:
        status = rpc_status.from_call(error)
    except ValueError:
        status = None
    return _from_status(code, error.details() or code.name, status)


def from_status_message(status: status_pb2.Status) -> ServiceError:
    """The ServiceError of a google.rpc.Status (a call carried in a stream), as
    :func:`from_rpc_error` makes it of a failed call."""
    code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
    return _from_status(code, status.message or code.name, status)


def _from_status(code: grpc.StatusCode, message: str,
                status: status_pb2.Status | None) -> ServiceError:
    """The ServiceError of a status ``code`` and ``message``, with what the details of
    ``status`` (when there is one) say: its reason, field violations and retry delay."""
    info: error_details_pb2.ErrorInfo | None = None
    violations: list[FieldViolation] = []
    retry_delay: float | None = None
    for detail in status.details if status is not None else ():
        found = error_details_pb2.ErrorInfo()
        bad_request = error_details_pb2.BadRequest()
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(found) and found.domain == DOMAIN and info is None:
            info = found
        elif detail.Unpack(bad_request):
            violations += [FieldViolation(v.field, v.description)
                           for v in bad_request.field_violations]
        elif detail.Unpack(retry) and retry.HasField("retry_delay"):
            retry_delay = retry.retry_delay.ToNanoseconds() / 1e9
    reason = Reason.__members__.get(info.reason) if info is not None else None
    if status is not None and info is not None and reason is not None:
        metadata = dict(info.metadata)
        field = metadata.pop("field", None)
        if not violations and field is None and reason.code == grpc.StatusCode.INVALID_ARGUMENT:
            field = ""  # a peer that named no field: the request as a whole
        return ServiceError(reason, status.message, field=field, field_violations=violations,
                            retry_delay_seconds=retry_delay, **metadata)
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE):
        return ServiceError(Reason.INVALID_ARGUMENT, message, field="",
                            field_violations=violations)
    return ServiceError(Reason.UNAVAILABLE, f"{code.name}: {message}",
                        retry_delay_seconds=retry_delay)
