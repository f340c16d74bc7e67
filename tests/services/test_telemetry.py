"""OpenTelemetry: what reaches a real OTLP/HTTP collector (a small one in this process).

The collector decodes the protobuf export requests with opentelemetry-proto. Servers are real:
the gateway under uvicorn, gRPC services through services.rpc.server.serve, channels through
services.rpc.channels.open_channel. Servers are stopped before each flush, so every span has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from game.cache import SnapshotWrite
from game.log_store import TableRecord
from game.server import build_service
from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, RedisSessionStore, Session, new_session_id
from lobby.client import LobbyClient
from services.config import Settings, TelemetrySettings
from services.observability import telemetry as otel
from services.rpc.channels import open_channel
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import ServiceSpec, serve
from services.stores import Keys, redis_client
from tavolo.lobby.v1 import lobby_pb2_grpc
from testing.processes import free_address, served
from testing.waiting import eventually

ROOT = Path(__file__).resolve().parents[2]
ECHO = "tavolo.test.v1.EchoService"
log = logging.getLogger("services.test_telemetry")


# -- the collector ------------------------------------------------------------------------------


@dataclass
class Exported:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class SpanSeen:
    service: str
    span: Span

    @property
    def name(self) -> str:
        return self.span.name

    @property
    def trace_id(self) -> str:
        return self.span.trace_id.hex()

    @property
    def attributes(self) -> dict:
        return _attributes(self.span.attributes)


@dataclass
class Collector:
    """An OTLP/HTTP receiver on 127.0.0.1 keeping every export request it gets."""

    received: list[Exported] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def bodies(self, path: str) -> list[bytes]:
        with self.lock:
            return [item.body for item in self.received if item.path == path]

    def raw(self) -> bytes:
        with self.lock:
            return b"".join(item.body for item in self.received)

    def spans(self) -> list[SpanSeen]:
        seen = []
        for body in self.bodies("/v1/traces"):
            for resource_spans in ExportTraceServiceRequest.FromString(body).resource_spans:
                service = _attributes(resource_spans.resource.attributes)["service.name"]
                for scope_spans in resource_spans.scope_spans:
                    seen += [SpanSeen(service, span) for span in scope_spans.spans]
        return seen

    def metrics(self, service: str) -> dict[str, list]:
        """The metrics ``service`` exported: name -> every export of it, in order."""
        found: dict[str, list] = {}
        for body in self.bodies("/v1/metrics"):
            for resource_metrics in ExportMetricsServiceRequest.FromString(body).resource_metrics:
                if _attributes(resource_metrics.resource.attributes)["service.name"] != service:
                    continue
                for scope_metrics in resource_metrics.scope_metrics:
                    for metric in scope_metrics.metrics:
                        found.setdefault(metric.name, []).append(metric)
        return found

    def gauge_values(self, service: str, name: str) -> list[float]:
        """The value of gauge ``name`` in each export that had one."""
        values = []
        for metric in self.metrics(service).get(name, []):
            for point in metric.gauge.data_points:
                values.append(point.as_int if point.HasField("as_int") else point.as_double)
        return values

    def logs(self) -> list[tuple[str, object]]:
        records = []
        for body in self.bodies("/v1/logs"):
            for resource_logs in ExportLogsServiceRequest.FromString(body).resource_logs:
                service = _attributes(resource_logs.resource.attributes)["service.name"]
                for scope_logs in resource_logs.scope_logs:
                    records += [(service, record) for record in scope_logs.log_records]
        return records


def _attributes(pairs) -> dict:
    values = {}
    for pair in pairs:
        kind = pair.value.WhichOneof("value")
        values[pair.key] = getattr(pair.value, kind) if kind else None
    return values


@pytest.fixture
def collector():
    received = Collector()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            with received.lock:
                received.received.append(Exported(self.path, dict(self.headers.items()), body))
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):  # keep the test output quiet
            pass

    received.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=received.server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    yield received
    received.server.shutdown()
    received.server.server_close()
    thread.join(5)


@pytest.fixture
def telemetry_settings(collector, monkeypatch) -> TelemetrySettings:
    # The exporters read the SDK's variables, as an operator sets them.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint + "/")
    # Long intervals: the tests flush by hand, nothing is exported on a timer meanwhile.
    return TelemetrySettings(enabled=True, service_name="tavolo",
                             excluded_paths=("/api/health",),
                             metric_export_interval_ms=600_000, metrics_poll_interval_s=600)


@pytest.fixture
def telemetries(telemetry_settings):
    """``make(component)``: a Telemetry set up now (the active one), shut down after the test."""
    made: list[otel.Telemetry] = []

    def make(component: str, settings: TelemetrySettings | None = None) -> otel.Telemetry:
        telemetry = otel.setup(settings or telemetry_settings, component)
        assert telemetry is not None
        made.append(telemetry)
        return telemetry

    yield make
    for telemetry in reversed(made):
        telemetry.shutdown()
    assert otel.active() is None


def flush(*telemetries: otel.Telemetry) -> None:
    for telemetry in telemetries:
        telemetry.force_flush()


# -- servers ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def grpc_service(spec: ServiceSpec, telemetry: otel.Telemetry | None) -> AsyncIterator[str]:
    """``spec`` served on a free port until the block ends (then stopped, calls finished)."""
    address = free_address()
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=2, started=started, stop=stop,
                                     telemetry=telemetry))
    await asyncio.wait_for(started.wait(), 5)
    try:
        yield address
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def _no_store() -> None:
    return None


class FakeLobby(lobby_pb2_grpc.LobbyServiceServicer):
    """A lobby that knows no game (and logs each look-up)."""

    async def GetGame(self, request, context):
        log.warning("lobby: game %s looked up", request.game_id)
        raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found", game_id=request.game_id)


@dataclass
class Gateway:
    address: str
    session: Session
    sessions: MemorySessionStore


@contextlib.asynccontextmanager
async def gateway_with_lobby(telemetries) -> AsyncIterator[Gateway]:
    """The gateway (telemetry ``gateway``) in front of a fake lobby (telemetry ``lobby``)."""
    lobby_telemetry = telemetries("lobby")
    gateway_telemetry = telemetries("gateway")   # the active one: the gateway's channels use it
    lobby_spec = ServiceSpec(
        name="lobby", full_names=("tavolo.lobby.v1.LobbyService",), probe=_no_store,
        register=lambda server: lobby_pb2_grpc.add_LobbyServiceServicer_to_server(FakeLobby(),
                                                                                  server))
    async with grpc_service(lobby_spec, lobby_telemetry) as lobby_address:
        settings = Settings(telemetry=gateway_telemetry.settings)
        sessions = MemorySessionStore()
        session = Session(id=new_session_id(), sub="sub-alice", name="Alice", provider="default")
        await sessions.save(session)
        auth = Auth(settings, sessions)
        lobby = LobbyClient(lobby_address)
        app = create_app(settings, Backends(lobby=lobby, game=None, stats=None, live=None), auth,
                         telemetry=gateway_telemetry)
        try:
            async with served(app) as address:
                yield Gateway(address, session, sessions)
        finally:
            await lobby.close()
            await auth.aclose()
    flush(gateway_telemetry, lobby_telemetry)


def _one(spans: list[SpanSeen], **match) -> SpanSeen:
    found = [s for s in spans if all(getattr(s, k) == v for k, v in match.items())]
    assert len(found) == 1, (match, [(s.service, s.name) for s in spans])
    return found[0]


# -- HTTP and WebSocket -------------------------------------------------------------------------


async def test_http_request_span_is_tagged_and_continues_over_grpc(collector, telemetries):
    async with gateway_with_lobby(telemetries) as gateway:
        session_id = gateway.session.id
        async with httpx.AsyncClient(base_url=f"http://{gateway.address}",
                                     cookies={COOKIE_NAME: session_id}) as client:
            response = await client.get("/api/games/g-1", params={"code": "one-time-code-xyz"})
        assert response.status_code == 404

    spans = collector.spans()
    http = _one(spans, service="tavolo-gateway", name="GET /api/games/{id}")
    assert http.span.kind == Span.SPAN_KIND_SERVER
    assert http.attributes["session.id"] == hashlib.sha256(session_id.encode()).hexdigest()[:16]
    assert http.attributes["user.id"] == "sub-alice"
    assert http.attributes["http.route"] == "/api/games/{id}"
    # The stable HTTP semantic conventions, as the duration metric's.
    assert http.attributes["http.response.status_code"] == 404
    assert http.attributes["http.request.method"] == "GET"
    assert http.attributes["url.path"] == "/api/games/g-1"
    assert http.attributes["url.query"] == "code=REDACTED"
    assert "http.status_code" not in http.attributes and "http.url" not in http.attributes

    method = "/tavolo.lobby.v1.LobbyService/GetGame"
    client_span = _one(spans, service="tavolo-gateway", name=method)
    server_span = _one(spans, service="tavolo-lobby", name=method)
    assert client_span.span.kind == Span.SPAN_KIND_CLIENT
    assert server_span.span.kind == Span.SPAN_KIND_SERVER
    # One trace: HTTP request -> gRPC client -> gRPC server (traceparent in the metadata).
    assert {http.trace_id, client_span.trace_id, server_span.trace_id} == {http.trace_id}
    assert client_span.span.parent_span_id == http.span.span_id
    assert server_span.span.parent_span_id == client_span.span.span_id
    assert server_span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0]

    # The lobby's log record of the look-up is exported within the same trace.
    looked_up = [r for service, r in collector.logs()
                 if service == "tavolo-lobby" and "looked up" in r.body.string_value]
    assert [r.trace_id.hex() for r in looked_up] == [http.trace_id]

    durations = collector.metrics("tavolo-gateway")["http.server.request.duration"]
    points = [p for metric in durations for p in metric.histogram.data_points]
    assert durations[0].unit == "s"
    assert [(_attributes(p.attributes)["http.route"],
             _attributes(p.attributes)["http.response.status_code"], p.count) for p in points] \
        == [("/api/games/{id}", 404, 1)]
    assert 0 < points[0].sum < 10   # seconds, not milliseconds

    exported = collector.raw()
    assert session_id.encode() not in exported   # not in a span, a metric or a log
    assert b"one-time-code-xyz" not in exported


async def test_excluded_paths_make_no_span_and_no_duration(collector, telemetries, monkeypatch):
    # The SDK's own variable (regexes) is honoured beside OTEL_EXCLUDED_PATHS (exact paths).
    monkeypatch.setenv("OTEL_PYTHON_ASGI_EXCLUDED_URLS", "/api/docs$")
    async with gateway_with_lobby(telemetries) as gateway:
        async with httpx.AsyncClient(base_url=f"http://{gateway.address}") as client:
            assert (await client.get("/api/health")).status_code == 200
            assert (await client.get("/api/me")).status_code == 401
            assert (await client.get("/api/docs")).status_code == 200

    names = [s.name for s in collector.spans() if s.service == "tavolo-gateway"]
    assert names == ["GET /api/me"]
    durations = collector.metrics("tavolo-gateway")["http.server.request.duration"]
    routes = [_attributes(p.attributes).get("http.route")
              for metric in durations for p in metric.histogram.data_points]
    assert routes == ["/api/me"]
    anonymous = _one(collector.spans(), name="GET /api/me")
    assert "session.id" not in anonymous.attributes and "user.id" not in anonymous.attributes


async def test_websocket_connection_is_one_span_tagged_with_the_member(collector, telemetries):
    async with gateway_with_lobby(telemetries) as gateway:
        session_id = gateway.session.id
        with pytest.raises(InvalidStatus) as refused:
            async with connect(f"ws://{gateway.address}/ws/games/g-2",
                               additional_headers={"Cookie": f"{COOKIE_NAME}={session_id}"}):
                pass
        assert refused.value.response.status_code == 404

    spans = collector.spans()
    socket_span = _one(spans, service="tavolo-gateway", name="/ws/games/{id}")
    assert socket_span.span.kind == Span.SPAN_KIND_SERVER
    assert socket_span.attributes["session.id"] == otel.session_tag(session_id)
    assert socket_span.attributes["user.id"] == "sub-alice"
    lookup = _one(spans, service="tavolo-lobby", name="/tavolo.lobby.v1.LobbyService/GetGame")
    assert lookup.trace_id == socket_span.trace_id
    # One span for the connection, none per message.
    assert [s.name for s in spans if s.service == "tavolo-gateway"
            and s.span.kind == Span.SPAN_KIND_INTERNAL] == []
    assert session_id.encode() not in collector.raw()


# -- gRPC ---------------------------------------------------------------------------------------


class _Echo:
    async def echo(self, request: bytes, context) -> bytes:
        log.warning("echo handled")
        return request

    async def count(self, request: bytes, context):
        for number in range(3):
            yield str(number).encode()

    async def fail(self, request: bytes, context) -> bytes:
        raise ServiceError(Reason.GAME_FULL, "Game is full")

    def register(self, server: grpc.aio.Server) -> None:
        handlers = {
            "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
            "Count": grpc.unary_stream_rpc_method_handler(self.count),
            "Fail": grpc.unary_unary_rpc_method_handler(self.fail),
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(ECHO, handlers),))


async def test_grpc_calls_make_client_and_server_spans_of_one_trace(collector, telemetries):
    server_telemetry = telemetries("game")
    client_telemetry = telemetries("gateway")   # active: open_channel takes its interceptors
    spec = ServiceSpec(name="echo", full_names=(ECHO,), register=_Echo().register,
                       probe=_no_store)
    async with grpc_service(spec, server_telemetry) as address:
        channel = open_channel(address, ECHO)
        try:
            assert await channel.unary_unary(f"/{ECHO}/Echo")(b"hello") == b"hello"
            assert [m async for m in channel.unary_stream(f"/{ECHO}/Count")(b"")] \
                == [b"0", b"1", b"2"]
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await channel.unary_unary(f"/{ECHO}/Fail")(b"")
            assert failed.value.code() is grpc.StatusCode.FAILED_PRECONDITION
            health = health_pb2_grpc.HealthStub(channel)
            await health.Check(health_pb2.HealthCheckRequest(service=ECHO))
        finally:
            await channel.close()
    flush(client_telemetry, server_telemetry)

    spans = collector.spans()
    traces = set()
    for method in ("Echo", "Count", "Fail"):
        client = _one(spans, service="tavolo-gateway", name=f"/{ECHO}/{method}")
        server = _one(spans, service="tavolo-game", name=f"/{ECHO}/{method}")
        assert (client.span.kind, server.span.kind) == (Span.SPAN_KIND_CLIENT,
                                                         Span.SPAN_KIND_SERVER)
        assert client.trace_id == server.trace_id
        assert server.span.parent_span_id == client.span.span_id
        assert client.span.parent_span_id == b""   # a call from no request: its own trace
        traces.add(client.trace_id)
    assert len(traces) == 3
    # A refusal (ServiceError) is the caller's error: the client span fails, the server's only
    # carries the code (gRPC's semantic conventions).
    failed_client = _one(spans, service="tavolo-gateway", name=f"/{ECHO}/Fail")
    failed_server = _one(spans, service="tavolo-game", name=f"/{ECHO}/Fail")
    assert failed_client.span.status.code == Status.STATUS_CODE_ERROR
    assert failed_server.span.status.code == Status.STATUS_CODE_UNSET
    for span in (failed_client, failed_server):
        assert span.attributes["rpc.grpc.status_code"] \
            == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert not [s.name for s in spans if "grpc.health" in s.name]

    echo_server = _one(spans, service="tavolo-game", name=f"/{ECHO}/Echo")
    handled = [r for service, r in collector.logs()
               if service == "tavolo-game" and r.body.string_value == "echo handled"]
    assert [(r.trace_id, r.span_id) for r in handled] \
        == [(echo_server.span.trace_id, echo_server.span.span_id)]

    # Their durations, in seconds, with the RPC conventions' attributes: the refusal is an
    # error (error.type) to the caller only; gRPC's own health check is not counted; a stream
    # is counted on both sides.
    for service, name, refusal_is_error in (("tavolo-game", "rpc.server.call.duration", False),
                                            ("tavolo-gateway", "rpc.client.call.duration", True)):
        (metric,) = collector.metrics(service)[name]
        assert metric.unit == "s"
        points = {_attributes(p.attributes)["rpc.method"]: p for p in metric.histogram.data_points}
        assert set(points) == {f"{ECHO}/{method}" for method in ("Echo", "Count", "Fail")}
        for method, point in points.items():
            status = "FAILED_PRECONDITION" if method.endswith("Fail") else "OK"
            assert _attributes(point.attributes) == {
                "rpc.system.name": "grpc", "rpc.method": method, "rpc.response.status_code": status,
                **({"error.type": status} if refusal_is_error and status != "OK" else {})}
            assert point.count == 1 and 0 < point.sum < 5
            assert list(point.explicit_bounds)[:3] == [0.001, 0.0025, 0.005]


# -- gauges -------------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def store_settings(request, redis_url, redis_prefix, telemetry_settings) -> Settings:
    if request.param == "memory":
        return Settings(telemetry=telemetry_settings)
    return Settings(redis_url=redis_url, redis_key_prefix=redis_prefix,
                    telemetry=telemetry_settings)


async def test_gauges_export_the_values_of_their_stores(collector, telemetries, store_settings):
    game_telemetry = telemetries("game")
    spec, tables = await build_service(store_settings)
    for table_id, score in (("t-1", 100), ("t-2", 200), ("t-3", None)):   # t-3 has finished
        await tables.cache.save(SnapshotWrite(table_id, 1, json.dumps({"revision": 1}), score,
                                              publish=False))
    for finished_ms, recorded_ms in ((2_000, None), (3_000, 4_000), (None, None)):
        await tables.log.create(TableRecord(   # finished and waiting for stats, recorded, playing
            table_id=str(uuid.uuid4()), game_type="dummy", engine_version="1", seed=bytes(32),
            seed_commitment="c0ffee", seats=("seat:0", "seat:1"), options_json="{}",
            status="finished" if finished_ms else "playing", created_ms=1_000,
            finished_ms=finished_ms, recorded_ms=recorded_ms))

    gateway_telemetry = telemetries("gateway")
    redis = redis_client(store_settings.redis_url) if store_settings.redis_url else None
    sessions = (RedisSessionStore(redis, Keys(store_settings.redis_key_prefix))
                if redis is not None else MemorySessionStore())
    for sub in ("sub-a", "sub-b", None):   # the third is only a login in progress
        await sessions.save(Session(id=new_session_id(), sub=sub))
    auth = Auth(store_settings, sessions)
    create_app(store_settings, Backends(None, None, None, None), auth, telemetry=gateway_telemetry)
    try:
        async with grpc_service(spec, game_telemetry):   # serve registers spec.gauges
            await game_telemetry.refresh_gauges()
            await gateway_telemetry.refresh_gauges()
            flush(game_telemetry, gateway_telemetry)
    finally:
        await auth.aclose()
        if redis is not None:
            await redis.aclose()

    assert collector.gauge_values("tavolo-game", "tavolo.ongoing_games") == [2]
    assert collector.gauge_values("tavolo-game", "tavolo.matches_unrecorded") == [1]
    assert collector.gauge_values("tavolo-gateway", "tavolo.active_users") == [2]
    game_metrics = collector.metrics("tavolo-game")
    memory = game_metrics["process.memory.usage"][0].sum.data_points[0].as_int
    assert memory > 10_000_000   # bytes of this very process
    assert game_metrics["process.cpu.time"][0].sum.data_points


async def test_gauges_report_the_polled_value_and_nothing_when_the_read_fails(collector,
                                                                            telemetries):
    telemetry = telemetries("stats")
    reads = []
    answers = [7, 9, RuntimeError("store down"), 11]

    async def read() -> int:
        reads.append(1)
        answer = answers[len(reads) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    telemetry.gauges([otel.Gauge("test.figure", read)])
    flush(telemetry)                 # not polled yet: nothing to report
    await telemetry.refresh_gauges()
    flush(telemetry)
    flush(telemetry)                 # the callback reads the cache: no store call
    assert len(reads) == 1
    for _ in range(3):               # 9, then a failure (no point), then 11
        await telemetry.refresh_gauges()
        flush(telemetry)
    assert collector.gauge_values("tavolo-stats", "test.figure") == [7, 7, 9, 11]


# -- set-up -------------------------------------------------------------------------------------


async def test_service_name_headers_and_logs(collector, telemetry_settings, telemetries,
                                             monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20s3cret,x-team=cards")
    settings = replace(telemetry_settings, service_name="acme")
    telemetry = telemetries("stats", settings)
    assert otel.active() is telemetry
    logging.getLogger("stats.example").warning("ready for %s", "business")
    flush(telemetry)

    records = collector.logs()
    assert [(service, r.body.string_value, r.severity_text) for service, r in records] \
        == [("acme-stats", "ready for business", "WARN")]
    logs_request = next(item for item in collector.received if item.path == "/v1/logs")
    assert logs_request.headers["authorization"] == "Bearer s3cret"
    assert logs_request.headers["x-team"] == "cards"
    assert logs_request.headers["content-type"] == "application/x-protobuf"


_DISABLED_SCRIPT = """
import asyncio, json, logging, sys, threading
import httpx
from gateway.server import build
from game.cache import SnapshotWrite
from game.log_store import TableRecord
from game.server import build_service
from services.observability import telemetry
from services.rpc.channels import open_channel
from services.config import Settings, TelemetrySettings
from services.rpc.server import serve

async def main(endpoint, address):
    settings = Settings(telemetry=TelemetrySettings(enabled=False, metrics_port=0,
                                                    metric_export_interval_ms=1,
                                                    metrics_poll_interval_s=1))
    handlers = list(logging.getLogger().handlers)
    async with telemetry.running(settings, "game") as made:
        assert made is None and telemetry.active() is None
        spec, _ = await build_service(settings)
        started, stop = asyncio.Event(), asyncio.Event()
        task = asyncio.create_task(serve(spec, address, started=started, stop=stop))
        await started.wait()
        channel = open_channel(address, "tavolo.game.v1.GameService")
        from tavolo.game.v1 import game_pb2, game_pb2_grpc
        await game_pb2_grpc.GameServiceStub(channel).ListGameTypes(game_pb2.ListGameTypesRequest())
        await channel.close()
        app, close = build(settings)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as client:
            assert (await client.get("/api/me")).status_code == 401
        await close()
        stop.set()
        await task
    print(json.dumps({
        "modules": sorted(m for m in sys.modules if m.startswith("opentelemetry")),
        "threads": sorted(t.name for t in threading.enumerate()),
        "handlers_added": len(logging.getLogger().handlers) - len(handlers),
    }))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def test_disabled_telemetry_imports_nothing_and_exports_nothing(collector):
    """OTEL_ENABLED off and METRICS_PORT=0: nothing of OpenTelemetry's."""
    assert otel.setup(Settings(telemetry=TelemetrySettings(metrics_port=0)), "game") is None
    result = subprocess.run([sys.executable, "-c", _DISABLED_SCRIPT, collector.endpoint,
                             free_address()],
                            env={**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint},
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    # redis-py probes for the OpenTelemetry API and metrics SDK when they are installed; tavolo
    # imports nothing of its own: no tracing SDK, exporter or instrumentation is loaded.
    loaded = [m for m in report["modules"]
              if m.startswith(("opentelemetry.sdk.trace", "opentelemetry.sdk._logs",
                               "opentelemetry.exporter", "opentelemetry.instrumentation"))]
    assert loaded == []
    assert not [name for name in report["threads"] if "otel" in name.lower()]
    assert report["handlers_added"] == 0
    assert collector.received == []


def test_every_component_process_exports_under_its_own_service_name(collector):
    """`tavolo serve <component>` with OTEL_ENABLED: each process sets up telemetry in its run()."""
    from testing.stack import SERVICES, Stack

    stack = Stack({"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
                   "OTEL_METRIC_EXPORT_INTERVAL_MILLIS": "200"})
    try:
        stack.start()
    finally:
        stack.stop()  # SIGTERM: each process flushes what it measured before it exits
    exporting = {_attributes(resource.resource.attributes)["service.name"]
                 for body in collector.bodies("/v1/metrics")
                 for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics}
    assert exporting == {f"tavolo-{name}" for name in (*SERVICES, "gateway")}


# -- a move, end to end -------------------------------------------------------------------------


async def _play_the_first_hand(stack) -> list[str]:
    """Four players at a new table play its first hand, card by card, and leave the hand end
    to its timer. Their session ids."""
    from game.scopone.rules import legal_plays
    from testing.players import Player, receive, seat_four

    async def seat(socket) -> None:
        while True:
            message = await receive(socket, timeout=30)
            if message["type"] == "game_over":
                return
            if message["type"] == "presence":  # who is connected: the game did not change
                continue
            game = message.get("game") or {}
            if message["type"] != "state" or game["status"] != "playing":
                return
            if game.get("your_turn"):
                card, capture = legal_plays(game["hand"], game["table"], False)[0]
                await socket.send(json.dumps({"action": "play", "card": card,
                                              "capture": capture, "revision": game["revision"]}))

    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        # Playing the first legal card, one first hand in twelve reaches 11 points (scope) and
        # ends the match; none of 3,000 simulated reached 21, so the next hand is always dealt.
        lobby = await seat_four(players, {"target_score": 21, "napola": False})
        sockets = [await player.socket(lobby["id"]) for player in players]
        await asyncio.gather(*(seat(socket) for socket in sockets))
        while True:  # the hand end's timer (1 s) fires: the next hand is dealt
            game = (await receive(sockets[0], "state", timeout=30))["game"]
            if game["status"] == "playing":
                break
        await asyncio.sleep(0.5)  # the background work after the fire settles
        for socket in sockets:
            await socket.close()
        return [player.cookie for player in players if player.cookie]
    finally:
        for player in players:
            await player.close()


@pytest.fixture
def traced_stack(collector):
    """The whole stack on real Redis and Postgres, exporting to the collector; hand ends wait
    one second for the players."""
    from testing.stack import real_stack

    with real_stack({"OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
                     "HAND_ACK_TIMEOUT_SECONDS": "1"}, label="trace") as stack:
        yield stack


MESSAGE = "WS /ws/games/{id} message"
ACT = "/tavolo.game.v1.GameService/Act"
HAND_OVER = "/tavolo.deadlines.v1.DeadlineService/SetTableDeadlines"


def _stores(trace: list[SpanSeen], service: str, system: str) -> list[SpanSeen]:
    return [s for s in trace if s.service == service and s.attributes.get("db.system") == system]


async def test_a_move_is_one_trace_from_its_message_to_the_stores_and_the_deadlines(
        collector, traced_stack):
    session_ids = await _play_the_first_hand(traced_stack)
    await asyncio.to_thread(traced_stack.stop)  # SIGTERM: every process flushes what it recorded

    spans = collector.spans()
    messages = [s for s in spans if s.service == "tavolo-gateway" and s.name == MESSAGE]
    assert len(messages) == 40   # a hand: forty cards, each sent in a message of its own
    assert len({m.trace_id for m in messages}) == 40
    sockets = {s.span.span_id: s for s in spans if s.name == "/ws/games/{id}"}
    for message in messages:
        assert message.span.kind == Span.SPAN_KIND_SERVER
        assert message.span.parent_span_id == b""       # the root of a trace of its own...
        (link,) = message.span.links                    # ...linked to its socket's span
        socket_span = sockets[link.span_id]
        assert socket_span.trace_id != message.trace_id
        assert message.attributes["user.id"] == socket_span.attributes["user.id"]

    def trace_of(span: SpanSeen) -> list[SpanSeen]:
        return [s for s in spans if s.trace_id == span.trace_id]

    # The first card: the message, the gateway's Act and the game's, the log's append in
    # Postgres, the snapshot and its signal in Redis.
    first = min(messages, key=lambda m: m.span.start_time_unix_nano)
    trace = trace_of(first)
    act_client = _one(trace, service="tavolo-gateway", name=ACT)
    act_server = _one(trace, service="tavolo-game", name=ACT)
    assert act_client.span.parent_span_id == first.span.span_id
    assert act_server.span.parent_span_id == act_client.span.span_id
    appended = _stores(trace, "tavolo-game", "postgresql")
    assert appended and all(s.span.kind == Span.SPAN_KIND_CLIENT for s in appended)
    assert _stores(trace, "tavolo-game", "redis"), "no Redis span (the snapshot, its signal)"
    # Nothing of the socket's other traffic (its view feed, its session checks) joined.
    assert not [s for s in trace if s.name.endswith("/WatchTable")]

    # The last card brought the hand-end deadline earlier than the deadline service's backstop
    # held: that move's trace goes on into the deadline service, and its Redis.
    (hand_over,) = [s for s in spans if s.service == "tavolo-game" and s.name == HAND_OVER
                    and any(m.trace_id == s.trace_id for m in messages)]
    trace = trace_of(hand_over)
    _one(trace, service="tavolo-gateway", name=MESSAGE)
    _one(trace, service="tavolo-game", name=ACT)
    assert _stores(trace, "tavolo-game", "postgresql")
    served = _one(trace, service="tavolo-deadlines", name=HAND_OVER)
    assert served.span.parent_span_id == hand_over.span.span_id
    assert _stores(trace, "tavolo-deadlines", "redis"), "no Redis span in the deadline service"

    # The hand end's timer fired in the game replica: a trace of its own, with its move.
    (fire,) = [s for s in spans if s.service == "tavolo-game" and s.name == "deadline fire"]
    assert fire.span.parent_span_id == b"" and fire.attributes["tavolo.deadline.kind"]
    assert _stores(trace_of(fire), "tavolo-game", "postgresql")

    # The Redis commands carry no key (a session's key holds its id): nowhere a session id.
    exported = collector.raw()
    assert len(session_ids) == 4
    assert not [sid for sid in session_ids if sid.encode() in exported]


# -- the SDK's own variables ---------------------------------------------------------------------


async def test_per_signal_endpoint_and_export_interval_of_the_sdk_are_honoured(collector,
                                                                                monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", collector.endpoint + "/own/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-signal=traces")
    monkeypatch.setenv("OTEL_METRIC_EXPORT_INTERVAL", "100")
    telemetry = otel.setup(TelemetrySettings(enabled=True, metrics_port=0), "game")
    assert telemetry is not None and telemetry.tracer is not None
    try:
        with telemetry.tracer.start_as_current_span("work"):
            pass
        telemetry.tracer_provider.force_flush()

        async def metrics_exported() -> bool:  # on the SDK's own timer, no flush
            return bool(collector.bodies("/v1/metrics"))

        await eventually(metrics_exported, timeout=10, what="no metrics within the interval")
    finally:
        telemetry.shutdown()
    traces = [item for item in collector.received if "traces" in item.path]
    assert {item.path for item in traces} == {"/own/traces"}
    assert {item.headers.get("x-signal") for item in traces} == {"traces"}


def test_sdk_disabled_wins_over_everything():
    settings = Settings.from_env({"OTEL_ENABLED": "true", "OTEL_SDK_DISABLED": "true",
                                  "METRICS_PORT": "9464"})
    assert otel.setup(settings, "game") is None and otel.active() is None
