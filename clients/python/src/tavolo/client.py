"""Helpers for calling tavolo's gRPC APIs: a bearer token on every call, retries of the
idempotent calls, and the error details every failed call carries (protos/README.md).

    from tavolo.client import channel, error_details
    from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc

    with channel("stats.tavolo.svc:50054", token=token) as stats_channel:
        stats = stats_pb2_grpc.StatsServiceStub(stats_channel)
        try:
            board = stats.GetLeaderboard(stats_pb2.GetLeaderboardRequest(limit=10), timeout=10)
        except grpc.RpcError as error:
            details = error_details(error)  # details.reason, details.retry_delay ...

Only grpcio, protobuf and googleapis-common-protos: nothing else is imported.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, NamedTuple

import grpc
from google.protobuf import descriptor
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped,unused-ignore]

__all__ = [
    "ErrorDetails",
    "IDEMPOTENT_BY_ARGUMENTS",
    "TokenInterceptor",
    "channel",
    "error_details",
    "idempotent_methods",
    "retry_service_config",
    "token_call_credentials",
]

DOMAIN = "tavolo.dev"
_STATUS_DETAILS = "grpc-status-details-bin"
_SERVICES = ("lobby", "game", "deadlines", "stats", "bots", "talk")


# -- the token ----------------------------------------------------------------------------------

class _TokenPlugin(grpc.AuthMetadataPlugin):
    def __init__(self, token: str) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),)

    def __call__(self, context: grpc.AuthMetadataContext,
                 callback: grpc.AuthMetadataPluginCallback) -> None:
        callback(self._metadata, None)


def _checked(token: str) -> str:
    token = token.strip()
    if not token or any(c.isspace() or not c.isprintable() for c in token):
        raise ValueError("a tavolo token is one word of printable characters")
    return token


def token_call_credentials(token: str) -> grpc.CallCredentials:
    """Call credentials sending ``authorization: Bearer <token>`` with every call. gRPC sends
    call credentials over TLS only (or a local connection): compose them with the channel's
    (``grpc.composite_channel_credentials``), or use :func:`channel`, which does."""
    return grpc.metadata_call_credentials(_TokenPlugin(_checked(token)), name="tavolo-token")


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Sequence[tuple[str, str | bytes]] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


class TokenInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds the bearer token to every call of a plaintext channel, where gRPC sends no call
    credentials (inside a cluster whose NetworkPolicies admit the caller, as the chart's)."""

    def __init__(self, token: str) -> None:
        self._metadata = ("authorization", f"Bearer {_checked(token)}")

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = [*(details.metadata or ()), self._metadata]
        return _CallDetails(details.method, details.timeout, metadata, details.credentials,
                            getattr(details, "wait_for_ready", None),
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation: Callable[..., Any],
                              client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation: Callable[..., Any],
                               client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        return continuation(self._details(client_call_details), request)


# -- retries ------------------------------------------------------------------------------------

# Calls that change something but, made again with the same arguments, find their work done
# (protos/README.md, Retries). Reads (Get*, List*, PreviewGame, FindSeat, NormalizeOptions) are
# found by their names. Calls that are safe only with a request_id (CreateGame, Act, Say ...)
# are not retried by the transport: give the id and retry them yourself.
IDEMPOTENT_BY_ARGUMENTS = frozenset({
    "JoinGame", "EnsureMember", "ChangeSeat", "SetGameOpen", "TakeOverSeat", "EraseMember",
    "Mute", "Unmute", "CloseReport", "RecordMatch", "MarkFinished", "FireDeadline",
    "DriveTable", "CreateTable",
})
_READ = re.compile(r"(Get|List)[A-Z]\w*|PreviewGame|FindSeat|NormalizeOptions")


def _service_descriptors() -> Iterator[descriptor.ServiceDescriptor]:
    for name in _SERVICES:
        try:
            package = importlib.import_module(f"tavolo.{name}.v1")
        except ImportError:
            continue
        for module in pkgutil.iter_modules(package.__path__):
            if module.name.endswith("_pb2"):
                loaded = importlib.import_module(f"{package.__name__}.{module.name}")
                yield from loaded.DESCRIPTOR.services_by_name.values()


def idempotent_methods() -> dict[str, tuple[str, ...]]:
    """{full service name: its unary methods the transport may send again}: the reads and the
    calls idempotent by their arguments, and every call of the deadline service."""
    methods: dict[str, tuple[str, ...]] = {}
    for service in _service_descriptors():
        names = tuple(sorted(
            method.name for method in service.methods
            if not method.client_streaming and not method.server_streaming
            and (_READ.fullmatch(method.name) or method.name in IDEMPOTENT_BY_ARGUMENTS
                 or service.full_name.startswith("tavolo.deadlines."))))
        if names:
            methods[service.full_name] = names
    return methods


def retry_service_config(attempts: int = 5, initial_backoff: float = 0.1,
                         max_backoff: float = 2.0, timeout: float | None = 10.0) -> str:
    """A gRPC service config (JSON, for the ``grpc.service_config`` channel option) retrying
    the idempotent calls on UNAVAILABLE, as tavolo's own clients do: 0.1, 0.2, 0.4, 0.8 s
    between ``attempts`` tries. An UNAVAILABLE that outlasts them carries a RetryInfo
    (:func:`error_details`): wait that long before trying again. ``timeout``: the deadline of
    those calls when the call gives none."""
    if attempts < 2 or attempts > 5:
        raise ValueError("gRPC allows 2 to 5 attempts")
    config: dict[str, Any] = {
        "name": [{"service": service, "method": method}
                 for service, methods in sorted(idempotent_methods().items()) for method in methods],
        "retryPolicy": {
            "maxAttempts": attempts,
            "initialBackoff": f"{initial_backoff:g}s",
            "maxBackoff": f"{max_backoff:g}s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE"],
        },
    }
    if timeout is not None:
        config["timeout"] = f"{timeout:g}s"
    return json.dumps({"methodConfig": [config]})


def channel(address: str, *, token: str | None = None,
            tls: grpc.ChannelCredentials | None = None, retries: bool = True,
            options: Sequence[tuple[str, Any]] = ()) -> grpc.Channel:
    """A channel to a tavolo service: TLS when ``tls`` is given (``grpc.ssl_channel_credentials``),
    else plaintext; ``token`` sent with every call (as call credentials over TLS, by
    :class:`TokenInterceptor` over plaintext); the idempotent calls retried on UNAVAILABLE."""
    all_options = list(options)
    if retries:
        all_options += [("grpc.enable_retries", 1), ("grpc.service_config", retry_service_config())]
    if tls is not None:
        credentials = tls if token is None else grpc.composite_channel_credentials(
            tls, token_call_credentials(token))
        return grpc.secure_channel(address, credentials, options=all_options)
    opened = grpc.insecure_channel(address, options=all_options)
    return opened if token is None else grpc.intercept_channel(opened, TokenInterceptor(token))


# -- errors -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ErrorDetails:
    """What a failed call says (protos/README.md, Error model): its code and message, the
    ErrorInfo's reason (e.g. "NOT_YOUR_TURN", "" when none came) and metadata, how long to wait
    before trying again (RetryInfo, None when trying again would fail the same way), and the
    BadRequest's {field path: description}."""

    code: grpc.StatusCode
    message: str
    reason: str = ""
    domain: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)
    retry_delay: timedelta | None = None
    field_violations: Mapping[str, str] = field(default_factory=dict)

    @property
    def retryable(self) -> bool:
        return self.retry_delay is not None


def error_details(error: grpc.RpcError) -> ErrorDetails:
    """The details of a failed call (a ``grpc.RpcError`` of a sync or an asyncio stub)."""
    code = error.code() if callable(getattr(error, "code", None)) else grpc.StatusCode.UNKNOWN
    message = error.details() if callable(getattr(error, "details", None)) else str(error)
    trailing = error.trailing_metadata() if callable(getattr(error, "trailing_metadata", None)) else ()
    reason, domain, metadata = "", "", {}
    retry_delay: timedelta | None = None
    violations: dict[str, str] = {}
    pairs: Sequence[tuple[str, str | bytes]] = tuple(trailing or ())  # type: ignore[arg-type,unused-ignore]
    for key, value in pairs:
        if key != _STATUS_DETAILS or not isinstance(value, bytes):
            continue
        for detail in status_pb2.Status.FromString(value).details:
            info, retry, bad = (error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo(),
                                error_details_pb2.BadRequest())
            if detail.Unpack(info):
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.Unpack(retry):
                retry_delay = retry.retry_delay.ToTimedelta()
            elif detail.Unpack(bad):
                violations.update((v.field, v.description) for v in bad.field_violations)
    return ErrorDetails(code, message or "", reason, domain, metadata, retry_delay, violations)
