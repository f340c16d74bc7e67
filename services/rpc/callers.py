"""Who may call a tavolo gRPC service, and what (docs/grpc-auth.md).

A caller is named in the callers file (``GRPC_CALLERS_FILE``) and known by its bearer token
(the file holds its SHA-256, or names files holding the token, which the service hashes at
start) or by its client certificate's name. A caller may have two tokens at once, so that a
rotation never refuses a call. Each caller may call the
methods of its allow list: the file's ``methods``, or by default what the tavolo service of
the same name calls (for the built-in callers) and read-only history and ratings (for anyone
else). Health needs no credentials; reflection any known caller.

:class:`CallerCheck` is the server interceptor that enforces it.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import grpc
import yaml

from services.components import (
    BOTS_SERVICE,
    DEADLINE_SERVICE,
    GAME_SERVICE,
    LOBBY_SERVICE,
    PLAYERS_SERVICE,
    STATS_SERVICE,
    TALK_SERVICE,
    Component,
)
from services.config import ConfigError
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

VARIABLE = "GRPC_CALLERS_FILE"

_SERVICES = (LOBBY_SERVICE, GAME_SERVICE, DEADLINE_SERVICE, STATS_SERVICE, BOTS_SERVICE, TALK_SERVICE,
             PLAYERS_SERVICE)

# What each tavolo service calls, so what it may call by default (least privilege: a stolen
# game token cannot erase members). tests/services/test_callers.py plays whole matches with
# these lists, so a call a service starts making fails there first.
BUILT_IN_METHODS: Mapping[str, tuple[str, ...]] = {
    Component.GATEWAY: (
        *(f"{LOBBY_SERVICE}/{m}" for m in (
            "ListGameTypes", "CreateGame", "JoinGame", "PreviewGame", "GetGame", "WatchGame",
            "ListMemberGames", "EraseMember", "Rematch", "AddBot", "RemoveBot", "LeaveGame",
            "ReturnSeat", "TakeOverSeat", "TakeBack", "ChangeSeat", "ListOpenGames", "WatchOpenGames",
            "QuickMatch", "SetGameOpen", "EnsureMember", "GetPlayers", "ListWatchableGames")),
        f"{PLAYERS_SERVICE}/*",  # every call of it is the gateway's (player pages, friends)
        *(f"{GAME_SERVICE}/{m}" for m in ("ListGameTypes", "GetView", "Act", "WatchTable",
                                          "Relay", "GetLog")),
        *(f"{STATS_SERVICE}/{m}" for m in ("ListMatches", "GetRatings", "GetLeaderboard",
                                           "EraseMember")),
        # Not ListReports nor CloseReport: those are the operators' (docs/operations.md).
        *(f"{TALK_SERVICE}/{m}" for m in ("Say", "ListMessages", "Mute", "Unmute", "ListMutes",
                                          "Report", "EraseMember")),
    ),
    Component.LOBBY: (*(f"{GAME_SERVICE}/{m}" for m in ("ListGameTypes", "NormalizeOptions",
                                                        "CreateTable", "GetResult",
                                                        "TakeBack")),
                      f"{BOTS_SERVICE}/DriveTable"),
    Component.GAME: (f"{DEADLINE_SERVICE}/*", f"{STATS_SERVICE}/RecordMatch"),
    Component.DEADLINES: (f"{GAME_SERVICE}/FireDeadline",),
    Component.STATS: (f"{LOBBY_SERVICE}/GetSeating", f"{LOBBY_SERVICE}/MarkFinished"),
    # WatchViews only for a rolling upgrade: the bots of the release before watch with it while
    # the game service, rolled out first, runs this one (docs/operations.md, "Upgrading to
    # bots on the live link"). The next release drops it.
    Component.BOTS: tuple(f"{GAME_SERVICE}/{m}" for m in ("Act", "Relay", "GetLog", "WatchViews")),
}
# Another team's default: read history and ratings, nothing that changes a thing.
READ_ONLY_METHODS = tuple(f"{STATS_SERVICE}/{m}" for m in ("ListMatches", "GetRatings",
                                                           "GetLeaderboard"))

_HEALTH_PREFIX = "/grpc.health.v1.Health/"
_REFLECTION_PREFIX = "/grpc.reflection."
_SHA256 = re.compile(r"[0-9a-f]{64}")
_METHOD = re.compile(r"\*|[A-Za-z_][\w.]*\.[A-Za-z_]\w*/(\*|[A-Za-z_]\w*)")
_ENTRY_KEYS = {"name", "token_sha256", "token_files", "certificate", "methods"}


@dataclass(frozen=True)
class Caller:
    """One caller of the file: its name and the methods it may call."""

    name: str
    methods: frozenset[str]  # "/pkg.Service/Method", "/pkg.Service/*" or "*"

    def may_call(self, method: str) -> bool:
        if "*" in self.methods or method in self.methods:
            return True
        service, _, _ = method.rpartition("/")
        return f"{service}/*" in self.methods


class Callers:
    """The callers file, read once at start: tokens and certificate names to callers."""

    def __init__(self, by_token_hash: Mapping[str, Caller], by_certificate: Mapping[str, Caller]):
        self._by_token_hash = dict(by_token_hash)
        self._by_certificate = dict(by_certificate)

    @classmethod
    def load(cls, path: str) -> Callers:
        """The file at ``path``; a ConfigError naming GRPC_CALLERS_FILE if it is unfit."""
        try:
            document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as error:
            raise ConfigError(f"{VARIABLE}: cannot read {path}: {error.strerror}") from None
        except yaml.YAMLError as error:
            raise ConfigError(f"{VARIABLE}: {path} is not YAML: {error}") from None
        return cls.parse(document)

    @classmethod
    def parse(cls, document: Any) -> Callers:
        if not isinstance(document, dict) or set(document) != {"callers"} \
                or not isinstance(document["callers"], list):
            raise ConfigError(f"{VARIABLE}: the file must hold one key, 'callers', a list")
        by_token_hash: dict[str, Caller] = {}
        by_certificate: dict[str, Caller] = {}
        names: set[str] = set()
        for index, entry in enumerate(document["callers"]):
            caller, token_hashes, certificate = _entry(index, entry)
            if caller.name in names:
                raise ConfigError(f"{VARIABLE}: caller {caller.name!r} is listed twice")
            names.add(caller.name)
            for token_hash in token_hashes:
                if token_hash in by_token_hash:
                    raise ConfigError(f"{VARIABLE}: callers {by_token_hash[token_hash].name!r} "
                                      f"and {caller.name!r} have the same token")
                by_token_hash[token_hash] = caller
            if certificate is not None:
                if certificate in by_certificate:
                    raise ConfigError(f"{VARIABLE}: callers {by_certificate[certificate].name!r} "
                                      f"and {caller.name!r} have the same certificate name")
                by_certificate[certificate] = caller
        return cls(by_token_hash, by_certificate)

    def by_token(self, token: str) -> Caller | None:
        # A look-up by the token's digest: its timing tells nothing of the token itself.
        return self._by_token_hash.get(hashlib.sha256(token.encode()).hexdigest())

    def by_certificate(self, names: Iterable[str]) -> Caller | None:
        for name in names:
            caller = self._by_certificate.get(name)
            if caller is not None:
                return caller
        return None


def _entry(index: int, entry: Any) -> tuple[Caller, tuple[str, ...], str | None]:
    where = f"{VARIABLE}: callers[{index}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a mapping with name, token_sha256/token_files/"
                          "certificate, methods")
    unknown = sorted(set(map(str, entry)) - _ENTRY_KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: name, token_sha256, "
                          "token_files, certificate, methods)")
    name = entry.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise ConfigError(f"{where}: name must be 1 to 64 letters, digits, '.', '_' or '-'")
    where = f"{VARIABLE}: caller {name!r}"
    token_hashes = _token_hashes(where, entry.get("token_sha256"))
    token_files = entry.get("token_files")
    if token_files is not None:
        token_hashes += _token_file_hashes(where, name, token_files)
    certificate = entry.get("certificate")
    if certificate is not None and (not isinstance(certificate, str) or not certificate):
        raise ConfigError(f"{where}: certificate must be the name (DNS SAN or common name) of "
                          "its client certificate")
    if "token_sha256" not in entry and token_files is None and certificate is None:
        raise ConfigError(f"{where}: give token_sha256, token_files, certificate or some of "
                          "them, or it could never be recognised")
    token_hashes = tuple(dict.fromkeys(token_hashes))  # one token in both files mid-rotation
    methods = entry.get("methods")
    if methods is None:
        methods = BUILT_IN_METHODS.get(name, READ_ONLY_METHODS)
    elif not isinstance(methods, list) or not all(isinstance(m, str) for m in methods):
        raise ConfigError(f"{where}: methods must be a list of method names")
    for method in methods:
        _check_method(where, method)
    full = frozenset(m if m == "*" else f"/{m}" for m in methods)
    return Caller(name, full), token_hashes, certificate


def _token_hashes(where: str, given: Any) -> tuple[str, ...]:
    """token_sha256: one hex digest, or a list of them (two during a rotation)."""
    if given is None:
        return ()
    hashes = given if isinstance(given, list) else [given]
    if not hashes or not all(isinstance(h, str) and _SHA256.fullmatch(h.lower()) for h in hashes):
        raise ConfigError(f"{where}: token_sha256 must be the 64 hex digits of a SHA-256, or a "
                          "list of them")
    return tuple(h.lower() for h in hashes)


def _token_file_hashes(where: str, name: str, paths: Any) -> tuple[str, ...]:
    """The SHA-256 of the token in each of ``paths`` that exists. A file that does not exist is
    no error: a service mounts only its own callers' tokens, and a rotation's second token only
    while there is one (docs/grpc-auth.md)."""
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        raise ConfigError(f"{where}: token_files must be a list of paths")
    hashes = []
    for path in paths:
        try:
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            continue
        except OSError as error:
            raise ConfigError(f"{where}: cannot read token file {path}: {error.strerror}") from None
        token = raw.decode("utf-8", errors="replace").strip()
        if not token or any(c.isspace() or not c.isprintable() for c in token):
            raise ConfigError(f"{where}: token file {path} must hold one token: printable, "
                              "without spaces")
        hashes.append(hashlib.sha256(token.encode()).hexdigest())
    if not hashes:
        log.info("caller %r: none of its token files is here, so it cannot call this service "
                 "with a token", name)
    return tuple(hashes)


def _check_method(where: str, method: str) -> None:
    if not _METHOD.fullmatch(method):
        raise ConfigError(f"{where}: {method!r} is not '<package>.<Service>/<Method>', "
                          "'<package>.<Service>/*' or '*'")
    service, _, name = method.partition("/")
    if method != "*" and service not in _SERVICES:
        raise ConfigError(f"{where}: {method!r}: no tavolo service is called {service!r} "
                          f"(one of {', '.join(_SERVICES)})")
    if name not in ("", "*") and name not in _methods_of(service):
        raise ConfigError(f"{where}: {method!r}: {service} has no method {name!r}")


def _methods_of(service: str) -> tuple[str, ...]:
    from google.protobuf import descriptor_pool

    import tavolo.bots.v1.bots_pb2
    import tavolo.deadlines.v1.deadlines_pb2
    import tavolo.game.v1.game_pb2
    import tavolo.lobby.v1.lobby_pb2
    import tavolo.stats.v1.stats_pb2  # noqa: F401 - their services, in the default pool

    descriptor = descriptor_pool.Default().FindServiceByName(service)
    return tuple(method.name for method in descriptor.methods)


# A string: grpc.RpcMethodHandler is generic only in its stubs.
Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"


class CallerCheck(grpc.aio.ServerInterceptor):
    """Refuses a call from no known caller (UNAUTHENTICATED) and one outside the caller's allow
    list (PERMISSION_DENIED, METHOD_NOT_ALLOWED). Health is open to anyone.

    A bearer token is checked before the handler runs; a client certificate only inside the
    call, where gRPC shows it (the interceptor sees the metadata, not the TLS session).
    """

    def __init__(self, callers: Callers, certificates: bool):
        self._callers = callers
        self._certificates = certificates  # mutual TLS: callers may show a certificate

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(details)
        method: str = details.method
        if handler is None or method.startswith(_HEALTH_PREFIX):
            return handler
        token = _bearer_token(details.invocation_metadata)
        if token is not None:
            caller = self._callers.by_token(token)
            if caller is None:
                return _wrapped(handler, _refuse(_unauthenticated("The bearer token names no "
                                                                  "caller of this service")))
            error = _permission(caller, method)
            return handler if error is None else _wrapped(handler, _refuse(error))
        if not self._certificates:
            return _wrapped(handler, _refuse(_unauthenticated(
                "The call carries no credentials: send 'authorization: Bearer <token>'")))
        return _wrapped(handler, self._check_certificate(method))

    def _check_certificate(self, method: str) -> Callable[[grpc.aio.ServicerContext[Any, Any]], None]:
        def check(context: grpc.aio.ServicerContext[Any, Any]) -> None:
            auth = context.auth_context()
            names = [value.decode() for key in ("x509_subject_alternative_name",
                                                "x509_common_name")
                     for value in auth.get(key, ())]
            caller = self._callers.by_certificate(names)
            if caller is None:
                raise _unauthenticated("Neither a bearer token nor a client certificate that "
                                       "names a caller of this service")
            error = _permission(caller, method)
            if error is not None:
                raise error
        return check


def _bearer_token(metadata: Iterable[tuple[str, Any]] | None) -> str | None:
    for key, value in metadata or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def _unauthenticated(message: str) -> ServiceError:
    return ServiceError(Reason.UNAUTHENTICATED, message)


def _permission(caller: Caller, method: str) -> ServiceError | None:
    if method.startswith(_REFLECTION_PREFIX) or caller.may_call(method):
        return None
    return ServiceError(Reason.METHOD_NOT_ALLOWED,
                        f"Caller {caller.name!r} may not call {method}", caller=caller.name,
                        method=method)


def _refuse(error: ServiceError) -> Callable[[grpc.aio.ServicerContext[Any, Any]], None]:
    def check(context: grpc.aio.ServicerContext[Any, Any]) -> None:
        raise error
    return check


Check = Callable[[grpc.aio.ServicerContext[Any, Any]], None]


def _wrapped(handler: Handler, check: Check) -> Handler:
    """``handler``, of the same kind, running ``check(context)`` first: its ServiceError ends
    the call with its status."""
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(
            _checked_call(handler.unary_unary, check), handler.request_deserializer,
            handler.response_serializer)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(
            _checked_stream(handler.unary_stream, check), handler.request_deserializer,
            handler.response_serializer)
    if handler.stream_stream is not None:  # reflection
        return grpc.stream_stream_rpc_method_handler(
            _checked_stream(handler.stream_stream, check), handler.request_deserializer,
            handler.response_serializer)
    assert handler.stream_unary is not None  # the fourth kind, and the last
    return grpc.stream_unary_rpc_method_handler(
        _checked_call(handler.stream_unary, check), handler.request_deserializer,
        handler.response_serializer)


# grpc's stubs describe the sync handlers; the aio server's are coroutine functions (or async
# generator functions, or coroutine functions that write with context.write).
def _checked_call(inner: Callable[..., Any], check: Check) -> Callable[..., Awaitable[Any]]:
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        await _passes(check, context)
        return await inner(request, context)
    return call


def _checked_stream(inner: Callable[..., Any], check: Check) -> Callable[..., AsyncIterator[Any]]:
    async def stream(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        await _passes(check, context)
        responses = inner(request, context)
        if hasattr(responses, "__aiter__"):
            async for response in responses:
                yield response
        else:  # a handler that writes with context.write
            await responses
    return stream


async def _passes(check: Check, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    """Returns if ``check`` passes; otherwise ends the call with its refusal."""
    try:
        check(context)
    except ServiceError as error:
        log.info("refused a call: %s", error.message)
        status = error.to_status()
        await context.abort(status.code, status.details, status.trailing_metadata)
