"""OpenTelemetry for every tavolo process: traces, metrics and logs over OTLP/HTTP (OTEL_*),
and the same metrics for Prometheus to scrape (METRICS_PORT).

Two switches: OTEL_ENABLED exports over OTLP, METRICS_PORT (on by default) serves the metrics
at ``/metrics`` on a small HTTP port of each process's own, the gateway's included (never on
its public port). Both read the one meter provider (one pipeline, two readers). With neither,
or with the SDK's OTEL_SDK_DISABLED, :func:`setup` returns None, nothing of OpenTelemetry is
imported and the hooks below cost nothing (no middleware, no interceptors, no query loggers,
no sampling task). When on, a process gets:

- metrics: ``http.server.request.duration`` (seconds; services.observability.http_telemetry),
  ``rpc.server.call.duration`` and ``rpc.client.call.duration`` (seconds;
  services.observability.rpc_metrics), ``db.client.operation.duration`` and
  ``db.client.connection.count`` for its Postgres pools (services.observability.db_metrics),
  ``tavolo.event_loop.lag`` and ``tavolo.gc.pause.duration``
  (services.observability.runtime_metrics), tavolo's own figures
  (services.observability.metrics), process CPU and memory (the system-metrics
  instrumentation) and the global gauges (:class:`Gauge`), read by a poll loop every
  OTEL_METRICS_POLL_INTERVAL_SECONDS so that a scrape or an export never waits for a store;

and, exporting, also:

- a span per HTTP request and per WebSocket connection (http_telemetry, which the gateway wraps around
  OpenTelemetry's ASGI middleware: named by the route template, with the stable HTTP semantic
  conventions; OTEL_EXCLUDED_PATHS and the SDK's OTEL_PYTHON_ASGI_EXCLUDED_URLS /
  OTEL_PYTHON_EXCLUDED_URLS are left out of traces and metrics), tagged
  with ``session.id`` (a truncated SHA-256 of the session id, never the cookie) and ``user.id``
  (the OIDC sub once the request's member is known);
- a trace per WebSocket message (:meth:`Telemetry.message_span`), linked to its connection's
  span: a move is one trace, however long the socket lives;
- a span per gRPC call on both sides (OpenTelemetry's grpc.aio interceptors), the W3C
  ``traceparent`` carried in the call metadata so one trace follows a request across services;
- a span per Redis command and per Postgres query (OpenTelemetry's redis and asyncpg
  instrumentations);
- the process's log records, with the trace and span they were written in.

The exporters are configured by the SDK's own environment (OTEL_EXPORTER_OTLP_ENDPOINT and
_HEADERS, their per-signal forms, OTEL_METRIC_EXPORT_INTERVAL...): nothing here overrides it,
but OTEL_METRIC_EXPORT_INTERVAL_MILLIS, tavolo's older name, when it is set.

The providers are handed to each instrumentation, never installed globally, so a process may
hold several :class:`Telemetry` (tests do) and a shut-down one leaves nothing behind. The
exceptions are process-wide by nature: the asyncpg and system-metrics instrumentations patch
their libraries, so the first Telemetry of a process has them. The one process-wide thing
of tavolo's is the *active* telemetry that :func:`setup` registers: the gRPC server and client
channels, the Redis clients, the Postgres pools and services.observability.metrics pick it up
(:func:`active`, :func:`client_interceptors`, :func:`database_metrics`), so set it up before any
channel or store is opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import ipaddress
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from services.background import in_background
from services.cancellation import raise_if_cancelled
from services.config import Settings, TelemetrySettings

if TYPE_CHECKING:  # type names only: OpenTelemetry is imported when telemetry is on
    import grpc
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
    from opentelemetry.instrumentation.system_metrics import SystemMetricsInstrumentor
    from opentelemetry.metrics import CallbackOptions, Meter, Observation
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import MetricReader
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    from services.observability.db_metrics import DatabaseMetrics

log = logging.getLogger(__name__)

SESSION_ID = "session.id"
USER_ID = "user.id"
_PROCESS_METRICS: dict[str, list[str] | None] = {
    "process.cpu.time": ["user", "system"],
    "process.cpu.utilization": None,
    "process.memory.usage": None,
    "process.memory.virtual": None,
    "process.thread.count": None,
    "process.open_file_descriptor.count": None,
}
# Loggers of the export path itself: their records are not exported (a collector that is down
# would otherwise feed its own failures back into the queue).
_EXPORT_LOGGERS = ("opentelemetry", "urllib3", "requests")

_active: Telemetry | None = None
# A member lookup (connection -> member with ``.sub``, or None): see Telemetry.user_tagging.
_Lookup = TypeVar("_Lookup", bound=Callable[[Any], Awaitable[Any]])


def session_tag(session_id: str) -> str:
    """What spans carry as ``session.id``: 16 hex characters of the id's SHA-256."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Gauge:
    """A figure read from a store, polled and cached (the exporter only reads the cache).

    Global figures (the same for every replica) are reported by each replica: aggregate them
    with max, not sum.
    """

    name: str
    read: Callable[[], Awaitable[int | float]]
    description: str = ""
    unit: str = "1"


def active_users(count: Callable[[], Awaitable[int]]) -> Gauge:
    """``tavolo.active_users``: logged-in sessions in the session store (the gateway's)."""
    return Gauge("tavolo.active_users", count,
                 "Logged-in sessions in the session store (global: aggregate replicas with max)",
                 unit="{session}")


def ongoing_games(count: Callable[[], Awaitable[int]]) -> Gauge:
    """``tavolo.ongoing_games``: live matches not finished (the game service's running set)."""
    return Gauge("tavolo.ongoing_games", count,
                 "Live matches not finished (global: aggregate replicas with max)",
                 unit="{game}")


def matches_unrecorded(count: Callable[[], Awaitable[int]]) -> Gauge:
    """``tavolo.matches_unrecorded``: finished matches stats has not recorded yet (the game
    service's log); above zero for long, stats or the lobby is out of reach."""
    return Gauge("tavolo.matches_unrecorded", count,
                 "Finished matches waiting to be recorded with stats (global: aggregate replicas "
                 "with max)", unit="{match}")


def deadline_queue_depth(counts: Callable[[], Awaitable[Any]]) -> list[Gauge]:
    """``tavolo.deadline.queue.depth`` and ``...in_flight``: entries waiting for their due
    time, and claimed by a replica that is firing them (the deadline service's queue)."""

    async def pending() -> int:
        count: int = (await counts()).pending
        return count

    async def in_flight() -> int:
        count: int = (await counts()).in_flight
        return count

    return [Gauge("tavolo.deadline.queue.depth", pending,
                  "Deadlines waiting in the queue (global: aggregate replicas with max)",
                  unit="{deadline}"),
            Gauge("tavolo.deadline.queue.in_flight", in_flight,
                  "Deadlines claimed and being fired (global: aggregate replicas with max)",
                  unit="{deadline}")]


def setup(settings: Settings | TelemetrySettings, component: str) -> Telemetry | None:
    """The process's telemetry as ``<OTEL_SERVICE_NAME>-<component>``, or None when neither
    exported (OTEL_ENABLED) nor scraped (METRICS_PORT), or when OTEL_SDK_DISABLED.

    The new telemetry becomes the active one (see :func:`active`).
    """
    config = settings.telemetry if isinstance(settings, Settings) else settings
    if not (config.exporting or config.scraped):
        return None
    global _active
    _active = Telemetry(config, component)
    log.info("telemetry on for %s: %s", _active.service_name,
             ", ".join(filter(None, ("exporting over OTLP/HTTP" if config.exporting else "",
                                     "metrics at /metrics" if config.scraped else ""))))
    return _active


@contextlib.asynccontextmanager
async def running(settings: Settings, component: str) -> AsyncIterator[Telemetry | None]:
    """:func:`setup` for the life of a component's ``run()``, flushed and shut down after it.

    Meanwhile the event loop's lag and the collector's pauses are sampled, and the metrics are
    served on METRICS_PORT: a gRPC service's on the interfaces its gRPC address is bound to
    (services.rpc.server.bind_address), the gateway's on APP_HOST's.
    """
    telemetry = setup(settings, component)
    try:
        if telemetry is None:
            yield None
            return
        if telemetry.scraped:
            host = (settings.app_host if component == "gateway"
                    else _metrics_host(getattr(settings, f"{component}_addr")))
            telemetry.serve_metrics(host, settings.telemetry.metrics_port)
        async with telemetry.runtime.sampling():
            yield telemetry
    finally:
        if telemetry is not None:
            await asyncio.to_thread(telemetry.shutdown)


def active() -> Telemetry | None:
    """The telemetry :func:`setup` last registered in this process (None: telemetry is off)."""
    return _active


def client_interceptors() -> list[grpc.aio.ClientInterceptor] | None:
    """The active telemetry's gRPC client interceptors, None when telemetry is off."""
    return None if _active is None else _active.client_interceptors


def database_metrics() -> DatabaseMetrics | None:
    """The active telemetry's Postgres metrics, which services.stores.postgres_pool hooks each
    pool into; None when telemetry is off."""
    return None if _active is None else _active.database


def instrument_redis(client: Any) -> None:
    """A span per command of ``client`` (a redis-py client), when the active telemetry traces."""
    if _active is not None and _active.tracing:
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        RedisInstrumentor.instrument_client(client, tracer_provider=_active.tracer_provider)


def job_span(name: str, attributes: dict[str, Any] | None = None
             ) -> contextlib.AbstractContextManager[Any]:
    """A span for work no request started (a timer's fire), current for the block: the root of
    a trace of its own, whatever context the work inherited. Nothing when not tracing."""
    if _active is None or not _active.tracing:
        return contextlib.nullcontext()
    from opentelemetry.context import Context

    span: contextlib.AbstractContextManager[Any] = _active.tracer.start_as_current_span(
        name, context=Context(), attributes=attributes)
    return span


class CannotServeMetrics(OSError):
    """METRICS_PORT cannot be bound; the message names the variable."""


class Telemetry:
    """The exporters and providers of one component, and the hooks the servers plug in."""

    def __init__(self, settings: TelemetrySettings, component: str) -> None:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource

        from services.observability import metrics, rpc_metrics, runtime_metrics

        self.settings = settings
        self.tracing = settings.exporting
        self.scraped = settings.scraped
        self.service_name = f"{settings.service_name}-{component}"
        # The instrumentations read the opt-in once, from the environment only: tavolo's
        # default is the stable HTTP conventions (spans and metrics agree); an operator's own
        # OTEL_SEMCONV_STABILITY_OPT_IN (e.g. http/dup) is what the settings carry then.
        os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", settings.semconv_opt_in)
        resource = Resource.create({SERVICE_NAME: self.service_name,
                                    SERVICE_VERSION: _tavolo_version()})

        readers: list[MetricReader] = []
        self.registry = None
        if self.scraped:
            from opentelemetry.exporter.prometheus import PrometheusMetricReader
            from prometheus_client import CollectorRegistry

            self.registry = CollectorRegistry(auto_describe=True)  # this Telemetry's alone
            readers.append(PrometheusMetricReader(registry=self.registry))
        if self.tracing:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                OTLPMetricExporter,
            )
            from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

            readers.append(PeriodicExportingMetricReader(
                OTLPMetricExporter(), export_interval_millis=settings.metric_export_interval_ms))
        self.meter_provider: MeterProvider = MeterProvider(resource=resource,
                                                           metric_readers=readers)
        self.meter = self.meter_provider.get_meter("tavolo")
        self.instruments = metrics.bind(self.meter)
        self.server_durations = rpc_metrics.ServerDurations(self.meter)
        self.client_durations = rpc_metrics.ClientDurations(self.meter)
        self.client_interceptors: list[grpc.aio.ClientInterceptor] = list(
            self.client_durations.interceptors)
        self.runtime = runtime_metrics.RuntimeMetrics(self.meter)
        self._gauges: list[PolledGauges] = []
        self._metrics_server: Any = None
        self._process_metrics = _process_metrics(self.meter_provider)

        self.tracer: Any = None
        self.tracer_provider: TracerProvider | None = None
        self.logger_provider: LoggerProvider | None = None
        self._log_handler: logging.Handler | None = None
        self._asyncpg: AsyncPGInstrumentor | None = None
        if self.tracing:
            self._start_tracing(resource)

    def _start_tracing(self, resource: Resource) -> None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.instrumentation.grpc import aio_client_interceptors
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        # No endpoint or headers here: the exporters read the SDK's variables, per signal.
        self.tracer_provider = TracerProvider(resource=resource)
        self.tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        self.logger_provider = LoggerProvider(resource=resource)
        self.logger_provider.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter()))
        self.tracer = self.tracer_provider.get_tracer("tavolo")
        # Outermost: the span wraps the duration, and carries the traceparent to the server.
        self.client_interceptors[:0] = aio_client_interceptors(
            tracer_provider=self.tracer_provider, filter_=_not_grpc_internal())
        self._log_handler = _log_handler(self.logger_provider)
        logging.getLogger().addHandler(self._log_handler)
        self._asyncpg = _instrument_asyncpg(self.tracer_provider)

    # -- gRPC ---------------------------------------------------------------------------------

    def server_interceptors(self) -> list[grpc.aio.ServerInterceptor]:
        """grpc.aio server interceptors: a span per call (when tracing), its duration (health
        and reflection left out); put them before the ErrorInterceptor."""
        interceptors: list[grpc.aio.ServerInterceptor] = [self.server_durations]
        if self.tracing:
            from opentelemetry.instrumentation.grpc import aio_server_interceptor

            interceptors.insert(0, aio_server_interceptor(tracer_provider=self.tracer_provider,
                                                          filter_=_not_grpc_internal()))
        return interceptors

    # -- HTTP and WebSocket -------------------------------------------------------------------

    def user_tagging(self, lookup: _Lookup) -> _Lookup:
        """``lookup`` (connection -> member with ``.sub``, or None), also tagging the current
        span (the request's or the WebSocket's) with ``user.id``."""
        if not self.tracing:
            return lookup
        from opentelemetry import trace

        @functools.wraps(lookup)
        async def member(connection: Any) -> Any:
            found = await lookup(connection)
            if found is not None:
                trace.get_current_span().set_attribute(USER_ID, found.sub)
            return found

        return cast(_Lookup, member)  # functools.wraps: the same signature as ``lookup``

    def message_span(self, name: str) -> contextlib.AbstractContextManager[Any]:
        """A span for one WebSocket message, made current for the block: the root of a trace
        of its own, linked to the connection's span (the current one) and tagged like it.

        A trace per message keeps a move's spans together and small; a trace per socket would
        last the whole match.
        """
        if not self.tracing:
            return contextlib.nullcontext()
        from opentelemetry import trace
        from opentelemetry.context import Context

        socket_span = trace.get_current_span()
        context = socket_span.get_span_context()
        attributes = {}
        if context.is_valid:
            socket_attributes = getattr(socket_span, "attributes", None) or {}
            attributes = {key: socket_attributes[key] for key in (SESSION_ID, USER_ID, "http.route")
                          if key in socket_attributes}
        span: contextlib.AbstractContextManager[Any] = self.tracer.start_as_current_span(
            name, context=Context(), kind=trace.SpanKind.SERVER, attributes=attributes,
            links=[trace.Link(context)] if context.is_valid else None)
        return span

    # -- Postgres -----------------------------------------------------------------------------

    @functools.cached_property
    def database(self) -> DatabaseMetrics:
        """The Postgres instruments, made when the process opens its first pool."""
        from services.observability.db_metrics import DatabaseMetrics

        return DatabaseMetrics(self.meter)

    # -- Prometheus ---------------------------------------------------------------------------

    def serve_metrics(self, host: str, port: int) -> int:
        """Serve ``/metrics`` on ``host:port`` from a thread of its own (collecting walks every
        instrument: never on the event loop); the port bound."""
        from prometheus_client import start_http_server

        assert self.registry is not None, "metrics are not scraped (METRICS_PORT=0)"
        try:
            server, _ = start_http_server(port, addr=host, registry=self.registry)
        except OSError as error:
            raise CannotServeMetrics(
                f"cannot serve metrics on {host}:{port} (METRICS_PORT): {error}") from None
        self._metrics_server = server
        log.info("metrics at http://%s:%d/metrics", host, server.server_port)
        return server.server_port

    # -- gauges -------------------------------------------------------------------------------

    def gauges(self, gauges: list[Gauge]) -> PolledGauges:
        """Register ``gauges`` as observable gauges; run the result's poll loop to feed them."""
        polled = PolledGauges(self.meter, gauges, self.settings.metrics_poll_interval_s)
        self._gauges.append(polled)
        return polled

    async def refresh_gauges(self) -> None:
        """Poll every registered gauge now (tests; the poll loops do it on their own)."""
        for polled in self._gauges:
            await polled.refresh()

    # -- life ---------------------------------------------------------------------------------

    def _providers(self) -> list[TracerProvider | MeterProvider | LoggerProvider]:
        return [p for p in (self.tracer_provider, self.meter_provider, self.logger_provider)
                if p is not None]

    def force_flush(self) -> None:
        """Export everything recorded so far (blocks: call it off the event loop in servers)."""
        for provider in self._providers():
            provider.force_flush()

    def shutdown(self) -> None:
        """Flush and stop the exporters (together: a collector that is down costs one timeout)."""
        from services.observability import metrics

        global _active
        if _active is self:
            _active = None
        metrics.unbind(self.instruments)
        if self._log_handler is not None:
            logging.getLogger().removeHandler(self._log_handler)
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
        for instrumentor in (self._process_metrics, self._asyncpg):
            if instrumentor is not None:
                instrumentor.uninstrument()
        providers = self._providers()
        with ThreadPoolExecutor(len(providers)) as pool:
            for done in [pool.submit(provider.shutdown) for provider in providers]:
                done.result()


class PolledGauges:
    """Observable gauges fed by a poll loop: the exporter's callbacks only read cached values.

    A figure that cannot be read is not reported (a gap, rather than a stale value) until it
    can be read again.
    """

    def __init__(self, meter: Meter, gauges: list[Gauge], interval_seconds: float) -> None:
        from opentelemetry.metrics import Observation

        self.gauges = list(gauges)
        self.interval_seconds = interval_seconds
        self.values: dict[str, int | float | None] = {gauge.name: None for gauge in self.gauges}
        self._failing: set[str] = set()

        def observer(name: str) -> Callable[[CallbackOptions], list[Observation]]:
            def observe(options: CallbackOptions) -> list[Observation]:
                value = self.values[name]
                return [] if value is None else [Observation(value)]
            return observe

        for gauge in self.gauges:
            meter.create_observable_gauge(gauge.name, callbacks=[observer(gauge.name)],
                                          unit=gauge.unit, description=gauge.description)

    async def refresh(self) -> None:
        for gauge in self.gauges:
            try:
                value = await asyncio.wait_for(gauge.read(), timeout=self.interval_seconds)
            except Exception as error:  # noqa: BLE001 - a store that does not answer: report nothing for now
                if gauge.name not in self._failing:
                    log.warning("%s cannot be read (%s); not reported until it can", gauge.name,
                                error)
                    self._failing.add(gauge.name)
                self.values[gauge.name] = None
            else:
                self._failing.discard(gauge.name)
                self.values[gauge.name] = value

    async def run(self) -> None:
        """Refresh now and every OTEL_METRICS_POLL_INTERVAL_SECONDS, until cancelled."""
        while True:
            raise_if_cancelled()
            await self.refresh()
            await asyncio.sleep(self.interval_seconds)

    @contextlib.asynccontextmanager
    async def polling(self) -> AsyncIterator[None]:
        """The poll loop as a background task for the life of the block."""
        async with in_background(self.run(), "telemetry-gauges"):
            yield

    def lifespan(self, app: Any) -> contextlib.AbstractAsyncContextManager[None]:
        """A Starlette ``lifespan``: the poll loop runs while the application does."""
        return self.polling()


def _metrics_host(address: str) -> str:
    """Where a service serves its metrics: the host its gRPC address binds, every interface for
    a DNS name (services.rpc.server.bind_address)."""
    host, _, _ = address.rpartition(":")
    host = host.strip("[]")
    if host == "localhost":
        return host
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return "::"
    return host


def _instrument_asyncpg(provider: TracerProvider) -> AsyncPGInstrumentor | None:
    """A span per Postgres query. The instrumentor patches asyncpg itself, for the process: a
    second Telemetry in the same process (tests) goes without; None then."""
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor

    instrumentor = AsyncPGInstrumentor()
    if instrumentor.is_instrumented_by_opentelemetry:
        return None
    instrumentor.instrument(tracer_provider=provider)
    return instrumentor


def _not_grpc_internal() -> Callable[[Any], bool]:
    """A gRPC filter: every call but those of gRPC's own services (health, reflection) and the
    streams that carry calls (GameService.Relay: a span for its whole life would hold nothing;
    each call it carries gets its own, services.rpc.relayed_calls)."""
    from opentelemetry.instrumentation.grpc.filters import (
        any_of,
        method_name,
        negate,
        service_prefix,
    )

    return negate(any_of(service_prefix("grpc."), method_name("Relay")))


class _NotExportPath(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.name.startswith(_EXPORT_LOGGERS)


def _log_handler(provider: LoggerProvider) -> logging.Handler:
    """A root handler sending records to ``provider`` (the loggers' levels decide what passes)."""
    from opentelemetry.instrumentation.logging.handler import LoggingHandler

    handler = LoggingHandler(logger_provider=provider)
    handler.addFilter(_NotExportPath())
    return handler


def _process_metrics(provider: MeterProvider) -> SystemMetricsInstrumentor | None:
    """Process CPU and memory, from the system-metrics instrumentation.

    The instrumentor is a process-wide singleton: a second Telemetry in the same process (tests)
    goes without; None then.
    """
    from opentelemetry.instrumentation.system_metrics import SystemMetricsInstrumentor

    instrumentor = SystemMetricsInstrumentor(config=_PROCESS_METRICS)
    if instrumentor.is_instrumented_by_opentelemetry:
        return None
    instrumentor.instrument(meter_provider=provider)
    return instrumentor


@functools.cache
def _tavolo_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tavolo")
    except PackageNotFoundError:
        return "unknown"
