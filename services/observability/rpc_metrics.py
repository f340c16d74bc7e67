"""``rpc.server.duration`` and ``rpc.client.duration``: gRPC call durations, as OpenTelemetry's
RPC semantic conventions name them (milliseconds; ``rpc.system``, ``rpc.service``,
``rpc.method``, ``rpc.grpc.status_code``).

OpenTelemetry's gRPC instrumentation makes spans only, so the durations are measured here, by
an interceptor on each side. gRPC's own services (health, reflection) are left out, as they are
from the spans. A streaming call's duration is the life of its stream.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

SERVER_DURATION = "rpc.server.duration"
CLIENT_DURATION = "rpc.client.duration"
# The RPC semantic conventions' advisory boundaries, in milliseconds.
_BUCKETS = (0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000)
_GRPC_INTERNAL = "/grpc."


def _attributes(method: str, code: grpc.StatusCode) -> dict[str, Any]:
    service, _, name = method.lstrip("/").rpartition("/")
    return {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name,
            "rpc.grpc.status_code": code.value[0]}


def record_duration(histogram: Any, method: str, code: grpc.StatusCode, start: float) -> None:
    """A call's duration since ``start`` (time.perf_counter), with its attributes."""
    histogram.record((time.perf_counter() - start) * 1000, _attributes(method, code))


def _histogram(meter: Any, name: str, side: str) -> Any:
    return meter.create_histogram(name, unit="ms", description=f"Duration of {side} RPCs.",
                                  explicit_bucket_boundaries_advisory=_BUCKETS)


class ServerDurations(grpc.aio.ServerInterceptor):
    """Records every served call's duration and status (place it outside the ErrorInterceptor,
    so that a refusal is seen with its status)."""

    def __init__(self, meter: Any) -> None:
        self.duration = _histogram(meter, SERVER_DURATION, "server")

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
            record_duration(self.duration, method, code, start)
        return record


def _code(context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK


def _failure(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> grpc.StatusCode:
    if isinstance(error, asyncio.CancelledError):
        return grpc.StatusCode.CANCELLED
    code = context.code()  # set by context.abort (the AbortError on its way out)
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.UNKNOWN


class ClientDurations(grpc.aio.UnaryUnaryClientInterceptor,
                      grpc.aio.UnaryStreamClientInterceptor):
    """Records every call's duration and status as its caller saw them."""

    def __init__(self, meter: Any) -> None:
        self.duration = _histogram(meter, CLIENT_DURATION, "client")
        self._recording: set[asyncio.Task[None]] = set()  # held until done (the loop keeps weak refs)

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[grpc.aio.UnaryUnaryCall[Any, Any]]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> grpc.aio.UnaryUnaryCall[Any, Any]:
        start = time.perf_counter()
        call = await continuation(client_call_details, request)
        self._when_done(call, _method(client_call_details), start)
        return call

    async def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[grpc.aio.UnaryStreamCall[Any, Any]]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> grpc.aio.UnaryStreamCall[Any, Any]:
        start = time.perf_counter()
        call = await continuation(client_call_details, request)
        self._when_done(call, _method(client_call_details), start)
        return call

    def _when_done(self, call: grpc.aio.Call, method: str, start: float) -> None:
        if method.startswith(_GRPC_INTERNAL):
            return

        def done(finished: grpc.aio.Call) -> None:
            elapsed = (time.perf_counter() - start) * 1000
            # The status is known once the call is done, but only through a coroutine.
            task = asyncio.get_running_loop().create_task(self._record(finished, method, elapsed))
            self._recording.add(task)
            task.add_done_callback(self._recording.discard)

        call.add_done_callback(done)

    async def _record(self, call: grpc.aio.Call, method: str, elapsed_ms: float) -> None:
        try:
            code = await call.code()
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
        self.duration.record(elapsed_ms, _attributes(method, code))


def _method(details: grpc.aio.ClientCallDetails) -> str:
    method = details.method
    return method.decode() if isinstance(method, bytes) else method
