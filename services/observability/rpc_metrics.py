"""``rpc.server.call.duration`` and ``rpc.client.call.duration``: gRPC call durations in seconds,
as OpenTelemetry's RPC semantic conventions (v1.44, the pinned opentelemetry-semantic-conventions)
name them, with their attributes: ``rpc.system.name`` (``grpc``), ``rpc.method`` (fully
qualified, ``tavolo.game.v1.GameService/Act``), ``rpc.response.status_code`` (the status's name,
``OK``, ``NOT_FOUND``...) and, when the call failed, ``error.type`` (that status's name): for a
client any status but OK, for a server only the failures of its own (:data:`_SERVER_ERRORS`).

OpenTelemetry's gRPC instrumentation makes spans only, so the durations are measured here, by
an interceptor on each side: one histogram record per call. gRPC's own services (health,
reflection) are left out, as they are from the spans; so are methods the server does not
serve. A streaming call's duration is the life of its stream.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

SERVER_DURATION = "rpc.server.call.duration"
CLIENT_DURATION = "rpc.client.call.duration"
# The conventions' advisory boundaries (seconds, from 5 ms), with 1 and 2.5 ms below them: a move
# (the gateway's Act, the game's) takes a few milliseconds end to end, and without finer low
# buckets every one of them would fall in the first and its percentiles could not be told apart.
_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
            7.5, 10.0)
_GRPC_INTERNAL = "/grpc."
# What a server counts as its own failure (the gRPC conventions' list); anything else it answers
# (NOT_FOUND, INVALID_ARGUMENT...) is the caller's problem. A client counts every status but OK.
_SERVER_ERRORS = frozenset({grpc.StatusCode.UNKNOWN, grpc.StatusCode.DEADLINE_EXCEEDED,
                            grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INTERNAL,
                            grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DATA_LOSS})


@functools.lru_cache(maxsize=1024)
def _attributes(method: str, code: grpc.StatusCode, server: bool) -> dict[str, str]:
    """A call's attributes, made once per method, status and side (never changed after)."""
    attributes = {"rpc.system.name": "grpc", "rpc.method": method.lstrip("/"),
                  "rpc.response.status_code": code.name}
    if code in _SERVER_ERRORS if server else code is not grpc.StatusCode.OK:
        attributes["error.type"] = code.name
    return attributes


class _Durations:
    """One side's histogram."""

    server: bool

    def __init__(self, meter: Any, name: str, description: str) -> None:
        self.duration = meter.create_histogram(name, unit="s", description=description,
                                               explicit_bucket_boundaries_advisory=_BUCKETS)

    def record(self, method: str, code: grpc.StatusCode, start: float) -> None:
        """A call to ``method`` (``/package.Service/Method``) that ended now with ``code``,
        started at ``start`` (time.perf_counter)."""
        self.duration.record(time.perf_counter() - start, _attributes(method, code, self.server))

    def record_seconds(self, method: str, code: grpc.StatusCode, seconds: float) -> None:
        self.duration.record(seconds, _attributes(method, code, self.server))


class ServerDurations(_Durations, grpc.aio.ServerInterceptor):
    """Records every served call's duration and status (place it outside the ErrorInterceptor,
    so that a refusal is seen with its status)."""

    server = True

    def __init__(self, meter: Any) -> None:
        super().__init__(meter, SERVER_DURATION, "Duration of incoming RPCs.")

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(_GRPC_INTERNAL):
            return handler
        record = self._recorder(method)
        if handler.unary_unary is not None:
            # grpc's stubs describe the sync handlers; the aio server's are coroutine functions.
            inner: Callable[..., Awaitable[Any]] = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                start = time.perf_counter()
                try:
                    response = await inner(request, context)
                except BaseException as error:
                    record(start, _failure(context, error))
                    raise
                record(start, _code(context))
                return response

            return grpc.unary_unary_rpc_method_handler(
                unary_unary, handler.request_deserializer, handler.response_serializer)
        if handler.unary_stream is not None:
            # An async generator function, or a coroutine function that writes with context.write.
            inner_stream: Callable[..., Any] = handler.unary_stream

            async def unary_stream(request: Any,
                                   context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                start = time.perf_counter()
                try:
                    responses = inner_stream(request, context)
                    if inspect.isawaitable(responses):  # a handler that writes with context.write
                        await responses
                    else:
                        async for response in responses:
                            yield response
                except BaseException as error:
                    record(start, _failure(context, error))
                    raise
                record(start, _code(context))

            return grpc.unary_stream_rpc_method_handler(
                unary_stream, handler.request_deserializer, handler.response_serializer)
        return handler

    def _recorder(self, method: str) -> Callable[[float, grpc.StatusCode], None]:
        def record(start: float, code: grpc.StatusCode) -> None:
            self.record(method, code, start)
        return record


def _code(context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK


def _failure(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> grpc.StatusCode:
    if isinstance(error, asyncio.CancelledError):
        return grpc.StatusCode.CANCELLED
    code = context.code()  # set by context.abort (the AbortError on its way out)
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN


class ClientDurations(_Durations):
    """Records every call's duration and status as its caller saw them, through
    :attr:`interceptors` (one per kind of call: grpc.aio files an interceptor under the first
    kind it implements only, so one object for both would never see a stream)."""

    server = False

    def __init__(self, meter: Any) -> None:
        super().__init__(meter, CLIENT_DURATION, "Duration of outgoing RPCs.")
        self._recording: set[asyncio.Task[None]] = set()  # held until done (the loop keeps weak refs)
        self.interceptors: list[grpc.aio.ClientInterceptor] = [_UnaryUnaryTimer(self),
                                                               _UnaryStreamTimer(self)]

    def when_done(self, call: grpc.aio.Call, details: grpc.aio.ClientCallDetails,
                  start: float) -> None:
        method = _method(details)
        if method.startswith(_GRPC_INTERNAL):
            return

        def done(finished: grpc.aio.Call) -> None:
            elapsed = time.perf_counter() - start
            # The status is known once the call is done, but only through a coroutine.
            task = asyncio.get_running_loop().create_task(self._record(finished, method, elapsed))
            self._recording.add(task)
            task.add_done_callback(self._recording.discard)

        call.add_done_callback(done)

    async def _record(self, call: grpc.aio.Call, method: str, seconds: float) -> None:
        try:
            code = await call.code()
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
        self.record_seconds(method, code, seconds)


class _UnaryUnaryTimer(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, durations: ClientDurations) -> None:
        self.durations = durations

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[grpc.aio.UnaryUnaryCall[Any, Any]]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> grpc.aio.UnaryUnaryCall[Any, Any]:
        start = time.perf_counter()
        call = await continuation(client_call_details, request)
        self.durations.when_done(call, client_call_details, start)
        return call


class _UnaryStreamTimer(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, durations: ClientDurations) -> None:
        self.durations = durations

    async def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[grpc.aio.UnaryStreamCall[Any, Any]]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> grpc.aio.UnaryStreamCall[Any, Any]:
        start = time.perf_counter()
        call = await continuation(client_call_details, request)
        self.durations.when_done(call, client_call_details, start)
        return call


def _method(details: grpc.aio.ClientCallDetails) -> str:
    method = details.method
    return method.decode() if isinstance(method, bytes) else method
