"""The gRPC server every tavolo service runs in.

It adds what each service would otherwise repeat: the standard health service (NOT_SERVING
until the service's stores answer, and again if they stop answering), server reflection, the
translation of :class:`~services.rpc.errors.ServiceError` into gRPC statuses, and a graceful stop
on SIGTERM/SIGINT that lets in-flight calls finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import ipaddress
import logging
import signal
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.cancellation import raise_if_cancelled
from services.config import GrpcSecurity

# telemetry hook (services.observability.telemetry imports no OpenTelemetry)
from services.observability.telemetry import Gauge, Telemetry, active
from services.rpc.channels import KEEPALIVE_TIME_MS, KEEPALIVE_TIMEOUT_MS
from services.rpc.errors import Reason, ServiceError
from services.rpc.text_fields import nul_violations
from services.rpc.transport_security import ServerSecurity

log = logging.getLogger(__name__)


def server_keepalive_options(client_time_ms: int = KEEPALIVE_TIME_MS
                             ) -> tuple[tuple[str, object], ...]:
    """The server's side of the keepalive agreement with clients pinging every
    ``client_time_ms`` (services.rpc.channels.keepalive_options).

    gRPC servers refuse pings more often than every 5 minutes by default: a client pinging
    faster collects strikes and gets GOAWAY ENHANCE_YOUR_CALM too_many_pings, which ends every
    stream of its channel at once (a gateway's table feeds, a waiting room's watch). Pings are
    accepted at three times the clients' rate (timers drift), and never refused above 10 s,
    gRPC Java's and Go's floor, so the other teams' clients are welcome too. The server pings
    idle connections itself too (``client_time_ms`` x 2): the streams of a caller that vanished
    without closing its connection end, and their subscriptions with them.
    """
    return (
        ("grpc.http2.min_ping_interval_without_data_ms", min(10_000, client_time_ms // 3)),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.keepalive_time_ms", client_time_ms * 2),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    )


# How long the calls still open on a connection the server asked to close (at its maximum age)
# get before it is closed under them: three times the longest deadline of a unary call (10 s),
# so that only streams are ever cut. A cut stream ends UNAVAILABLE, and its caller opens it
# again (every caller's stream loop does, as after a replica's restart), on a new connection,
# at whichever replica the balancer picks.
CONNECTION_AGE_GRACE_SECONDS = 30.0


def connection_age_options(max_age_seconds: float,
                           grace_seconds: float = CONNECTION_AGE_GRACE_SECONDS
                           ) -> tuple[tuple[str, object], ...]:
    """The server's limit on the age of a caller's connection (0: none).

    Past it (give or take gRPC's 10 % of jitter, so that one replica's callers do not all come
    back at once) the server sends GOAWAY: the caller's channel stops opening calls on that
    connection, opens another and resolves the service's name again, so a long-lived channel
    finds the replicas that came since it connected (services.rpc.channels: round robin over
    every address). Without it a channel keeps its connections as long as they last, and a
    replica the autoscaler adds gets no call from the callers already connected.
    """
    if not max_age_seconds:
        return ()
    return (("grpc.max_connection_age_ms", max(1, round(max_age_seconds * 1000))),
            ("grpc.max_connection_age_grace_ms", max(1, round(grace_seconds * 1000))))


Probe = Callable[[], Awaitable[None]]
# What a servicer's method is handed: grpc's aio context, whatever its messages (the handlers
# neither read nor write through it, and game.relay hands Relay's to the calls it carries).
Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]


@dataclass
class ServiceSpec:
    """What a service brings to the shared server."""

    name: str                                  # e.g. "game", for logs
    full_names: tuple[str, ...]                # e.g. ("tavolo.game.v1.GameService",)
    register: Callable[[grpc.aio.Server], None]  # adds the servicers
    probe: Probe                               # raises while a store does not answer
    on_stop: Callable[[], Awaitable[None]] | None = None
    background: list[Callable[[], Coroutine[Any, Any, None]]] = field(default_factory=list)
    gauges: list[Gauge] = field(default_factory=list)  # telemetry hook: polled while serving


# Young collections every 10,000 new container objects instead of Python's 700. A move makes a
# few thousand (coroutines, frames' cells, dicts), nearly all freed by reference counting
# within the move: at 700 the collector ran several times a move and promoted whatever was
# in flight, which filled the old generation and brought full passes of 0.2-0.3 s with 2,000
# sockets open. `make bench`: pauses of 1 ms or more in the gateway 154-189 -> 10, no full pass.
YOUNG_COLLECTION_THRESHOLD = 10_000


def freeze_start_up_heap() -> None:
    """Leave what start-up made (modules, stubs, stores: most of a service's objects, kept for
    its whole life) out of every later garbage collection: the collector's full passes then
    walk only what serving made, so its pauses stay short. And collect the young generation
    less often (above)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, old)


class CannotListen(OSError):
    """The service's address cannot be bound; the message names the variable that sets it."""

    def __init__(self, service: str, address: str, reason: str, variable: str | None = None):
        super().__init__(f"cannot listen on {address} ({variable or service.upper() + '_ADDR'}): "
                         f"{reason}")


def bind_address(address: str) -> str:
    """Where to listen for the ``host:port`` callers dial.

    An IP literal or ``localhost`` is bound as given; a DNS name (a Kubernetes Service, say)
    names the service from outside, so the server listens on every interface of that port.
    """
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if host == "localhost":
        return address
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return f"[::]:{port}"
    return address


def _server_options(client_keepalive_ms: int,
                    connection_age: tuple[tuple[str, object], ...] = ()
                    ) -> list[tuple[str, object]]:
    return [("grpc.max_receive_message_length", 4 * 1024 * 1024),
            *server_keepalive_options(client_keepalive_ms), *connection_age]


def _listen(server: grpc.aio.Server, service: str, bound: str,
            credentials: grpc.ServerCredentials | None, variable: str | None = None) -> None:
    try:
        port = (server.add_insecure_port(bound) if credentials is None
                else server.add_secure_port(bound, credentials))
    except RuntimeError as error:  # grpcio raises where it used to return 0
        raise CannotListen(service, bound, str(error), variable) from None
    if port == 0:
        raise CannotListen(service, bound, "the port is taken or the address is not local",
                           variable)


class _Refused:
    """What a request that is refused before its handler decodes to: one that is not its
    message, or one with a NUL in a string field (services.rpc.text_fields). Answered
    INVALID_ARGUMENT, not grpcio's UNKNOWN (which callers could not tell from a crash)."""

    def __init__(self, error: ServiceError) -> None:
        self.error = error

    @classmethod
    def undecodable(cls, error: Exception) -> _Refused:
        # field "": the request as a whole (its type is in the message, from the DecodeError)
        return cls(ServiceError(Reason.INVALID_ARGUMENT,
                                f"The request is not a valid message of this method: {error}",
                                field=""))


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:
        return None

    def deserialize(data: bytes) -> Any:
        try:
            request = deserializer(data)
        except DecodeError as error:
            return _Refused.undecodable(error)
        # A NUL in a string is a zero byte on the wire: most requests have none, and skip the walk.
        violations = nul_violations(request) if b"\x00" in data and isinstance(request, Message) else []
        if violations:
            return _Refused(ServiceError(Reason.INVALID_ARGUMENT,
                                         "; ".join(v.description for v in violations),
                                         field=violations[0].field, field_violations=violations))
        return request

    return deserialize


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Turns a ServiceError raised by any handler into its gRPC status with ErrorInfo, and a
    request that cannot be decoded into INVALID_ARGUMENT."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        # grpc's stubs describe the sync handlers; the aio server's are coroutine functions (or
        # async generator functions, or coroutine functions that write with context.write).
        if handler.unary_unary is not None:
            inner: Callable[..., Awaitable[Any]] = handler.unary_unary

            async def unary_unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
                try:
                    if isinstance(request, _Refused):
                        raise request.error
                    return await inner(request, context)
                except ServiceError as error:
                    await _abort(context, error)

            return grpc.unary_unary_rpc_method_handler(
                unary_unary, _tolerant(handler.request_deserializer), handler.response_serializer
            )
        if handler.unary_stream is not None:
            inner_stream: Callable[..., Any] = handler.unary_stream

            async def unary_stream(request: Any,
                                   context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                try:
                    if isinstance(request, _Refused):
                        raise request.error
                    async for response in _responses_of(inner_stream(request, context)):
                        yield response
                except ServiceError as error:
                    await _abort(context, error)

            return grpc.unary_stream_rpc_method_handler(
                unary_stream, _tolerant(handler.request_deserializer), handler.response_serializer
            )
        if handler.stream_stream is not None:
            inner_streams: Callable[..., Any] = handler.stream_stream

            async def stream_stream(requests: AsyncIterable[Any],
                                    context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
                try:
                    async for response in _responses_of(inner_streams(_decoded(requests),
                                                                      context)):
                        yield response
                except ServiceError as error:
                    await _abort(context, error)

            return grpc.stream_stream_rpc_method_handler(
                stream_stream, _tolerant(handler.request_deserializer), handler.response_serializer
            )
        return handler


async def _responses_of(responses: AsyncIterable[Any] | Awaitable[object]) -> AsyncIterator[Any]:
    """A stream handler's responses, whether it yields them or writes them with context.write
    (grpc's own, e.g. Health.Watch)."""
    if inspect.isawaitable(responses):
        await responses
        return
    async for response in responses:
        yield response


async def _decoded(requests: AsyncIterable[Any]) -> AsyncIterator[Any]:
    """A request stream's messages; one that cannot be decoded ends the call (INVALID_ARGUMENT)."""
    async for request in requests:
        if isinstance(request, _Refused):
            raise request.error
        yield request


async def _abort(context: grpc.aio.ServicerContext[Any, Any], error: ServiceError) -> None:
    status = error.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)


# The health service name that says only "this process is up and serving calls", whatever its
# stores do: for liveness probes, so that a Redis or Postgres outage takes pods out of their
# Service (readiness, on "" and the API names) without restarting them all.
LIVENESS_SERVICE = "liveness"


class HealthReporter:
    """Keeps the health service true to whether the stores answer (``""`` and the API names)."""

    def __init__(self, servicer: health.aio.HealthServicer, names: Iterable[str], probe: Probe):
        self.servicer = servicer
        self.names = ("", *names)
        self.probe = probe
        self.serving = False

    async def check_once(self) -> bool:
        try:
            await asyncio.wait_for(self.probe(), timeout=5)
        except Exception as error:  # noqa: BLE001 - any failure of a store means not serving
            if self.serving:
                log.warning("stores stopped answering: %s", error)
            await self._set(False)
        else:
            if not self.serving:
                log.info("stores answer: SERVING")
            await self._set(True)
        return self.serving

    async def run(self, interval: float = 2.0) -> None:
        while True:
            raise_if_cancelled()
            await self.check_once()
            await asyncio.sleep(interval if self.serving else 0.5)

    async def shutdown(self) -> None:
        await self.servicer.enter_graceful_shutdown()

    async def _set(self, serving: bool) -> None:
        self.serving = serving
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if serving
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in self.names:
            await self.servicer.set(name, status)


async def serve(spec: ServiceSpec, address: str, grace_seconds: float = 10.0,
                started: asyncio.Event | None = None, stop: asyncio.Event | None = None,
                telemetry: Telemetry | None = None,
                client_keepalive_ms: int = KEEPALIVE_TIME_MS,
                security: GrpcSecurity | None = None,
                max_connection_age_seconds: float = 0,
                connection_age_grace_seconds: float = CONNECTION_AGE_GRACE_SECONDS) -> None:
    """Run a service until SIGTERM/SIGINT (or ``stop``), then stop gracefully.

    ``telemetry`` defaults to the process's active one (services.observability.telemetry), if any.
    ``client_keepalive_ms``: how often the clients ping (server_keepalive_options).
    ``max_connection_age_seconds``: GRPC_MAX_CONNECTION_AGE_SECONDS, with its grace
    (connection_age_options); 0, connections last as long as their callers keep them.
    ``security``: TLS, the caller check and the health port (``GRPC_*``,
    docs/grpc-auth.md); None, plaintext and every caller welcome.
    """
    security = security or GrpcSecurity()
    listening = ServerSecurity.of(security)
    # telemetry hook: a span per call and its duration (outside the caller check and
    # ErrorInterceptor, so that they see the status those set)
    telemetry = telemetry or active()
    interceptors: list[grpc.aio.ServerInterceptor] = [ErrorInterceptor()]
    if listening.caller_check is not None:
        interceptors.insert(0, listening.caller_check)
    if telemetry is not None:
        interceptors[:0] = telemetry.server_interceptors()
    server = grpc.aio.server(interceptors=interceptors, options=_server_options(
        client_keepalive_ms, connection_age_options(max_connection_age_seconds,
                                                    connection_age_grace_seconds)))
    spec.register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reporter = HealthReporter(health_servicer, spec.full_names, spec.probe)
    await reporter._set(False)
    reflection.enable_server_reflection(
        (*spec.full_names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    bound = bind_address(address)
    _listen(server, spec.name, bound, listening.credentials)
    servers = [server]
    if security.health_port is not None:
        # The kubelet's gRPC probes can neither do TLS nor send a token: health alone, in the
        # clear, on a port of its own (the same servicer, so both ports tell the same).
        health_server = grpc.aio.server(options=_server_options(client_keepalive_ms))
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, health_server)
        _listen(health_server, spec.name, f"{bound.rpartition(':')[0]}:{security.health_port}", None,
                variable="GRPC_HEALTH_PORT")
        servers.append(health_server)
    for each in servers:
        await each.start()
    listening.warn_if_open(spec.name, bound)
    await health_servicer.set(LIVENESS_SERVICE, health_pb2.HealthCheckResponse.SERVING)
    freeze_start_up_heap()
    log.info("%s service listening on %s (%s)", spec.name, bound, listening.describe())

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop.set)
    tasks = [asyncio.create_task(reporter.run())]
    tasks += [asyncio.create_task(job()) for job in spec.background]
    if telemetry is not None and spec.gauges:  # telemetry hook: the gauges' poll loop
        tasks.append(asyncio.create_task(telemetry.gauges(spec.gauges).run()))
    if started is not None:
        started.set()
    try:
        await stop.wait()
    finally:
        log.info("%s service stopping: finishing in-flight calls (up to %ss)", spec.name,
                 grace_seconds)
        await reporter.shutdown()
        for task in tasks:
            task.cancel()
        # A background job stuck past its cancellation must not hold the process forever.
        await asyncio.wait(tasks, timeout=grace_seconds)
        await asyncio.gather(*(each.stop(grace_seconds) for each in servers))
        if spec.on_stop is not None:
            await spec.on_stop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)
        log.info("%s service stopped", spec.name)
