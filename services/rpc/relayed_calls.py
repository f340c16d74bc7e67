"""Calls carried inside a multiplexed stream (GameService.Relay), observed as calls of their own.

A relayed Act must look to an operator like the unary Act it replaces: a client span in the
caller and a server span in the service, named after the method (``/tavolo.game.v1.GameService/
Act``) and joined by the W3C trace context the call carries (``RelayCall.trace_context``), and
its duration in ``rpc.client.call.duration`` / ``rpc.server.call.duration`` with the method's
attributes and the status it ended with. With telemetry off this costs one lookup.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, MutableMapping
from typing import Any

import grpc

from services.observability import telemetry
from services.rpc.errors import ServiceError


@contextlib.contextmanager
def observed(method: str, carrier: MutableMapping[str, str], *, server: bool) -> Iterator[None]:
    """One side of a relayed call to ``method`` (its full name, ``/package.Service/Method``),
    current for the block: the caller's span puts its context into ``carrier``, the service's
    continues the trace ``carrier`` holds."""
    active = telemetry.active()
    if active is None:
        yield
        return
    with _observed(active, method, server=server, carrier=carrier):
        yield


@contextlib.contextmanager
def _observed(active: Any, method: str, *, server: bool,
              carrier: MutableMapping[str, str]) -> Iterator[None]:
    start = time.perf_counter()
    code = grpc.StatusCode.OK
    span_context = _span(active, method, server, carrier) if active.tracing else None
    try:
        with span_context if span_context is not None else contextlib.nullcontext() as span:
            try:
                yield
            except ServiceError as error:
                code = error.code
                raise
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except BaseException:
                code = grpc.StatusCode.UNKNOWN
                raise
            finally:
                if span is not None:
                    span.set_attribute("rpc.grpc.status_code", code.value[0])
    finally:
        durations = active.server_durations if server else active.client_durations
        durations.record(method, code, start)


def _span(active: Any, method: str, server: bool,
          carrier: MutableMapping[str, str]) -> contextlib.AbstractContextManager[Any]:
    from opentelemetry import propagate, trace

    service, _, name = method.lstrip("/").rpartition("/")
    attributes = {"rpc.system": "grpc", "rpc.service": service, "rpc.method": name}
    if server:
        span: contextlib.AbstractContextManager[Any] = active.tracer.start_as_current_span(
            method, context=propagate.extract(carrier), kind=trace.SpanKind.SERVER,
            attributes=attributes)
        return span

    @contextlib.contextmanager
    def client_span() -> Iterator[Any]:
        with active.tracer.start_as_current_span(method, kind=trace.SpanKind.CLIENT,
                                                 attributes=attributes) as span:
            propagate.inject(carrier)
            yield span

    return client_span()
