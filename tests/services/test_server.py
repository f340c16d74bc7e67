"""The shared gRPC server: errors both ways, health following the stores, graceful shutdown."""

from __future__ import annotations

import asyncio
import gc
import re
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.rpc.errors import FieldViolation, Reason, ServiceError, from_rpc_error
from services.rpc.server import LIVENESS_SERVICE, ServiceSpec, bind_address, serve
from testing.processes import free_port
from testing.waiting import eventually

SERVICE = "tavolo.test.v1.EchoService"
PROTO = Path(__file__).resolve().parents[2] / "protos" / "tavolo" / "common" / "v1" / "errors.proto"


class _Echo:
    """A raw-bytes service: ``Echo`` answers, ``Fail`` raises, ``Slow`` takes its time."""

    def __init__(self):
        self.slow_started = asyncio.Event()

    async def echo(self, request: bytes, context) -> bytes:
        return request

    async def fail(self, request: bytes, context) -> bytes:
        raise ServiceError(Reason.GAME_FULL, "Game is full", game_id="g1")

    async def fail_long(self, request: bytes, context) -> bytes:
        echoed = "\u00e9" * 20_000  # what a caller sent, echoed back: 40 KB of UTF-8
        raise ServiceError(Reason.UNKNOWN_GAME_TYPE, f"Unknown game type: {echoed}",
                           field="game_type", game_type=echoed)

    async def slow(self, request: bytes, context) -> bytes:
        self.slow_started.set()
        await asyncio.sleep(0.5)
        return b"finished"

    async def stream_fail(self, request: bytes, context):
        yield b"first"
        raise ServiceError(Reason.NOT_SEATED, "Not seated at this game")

    async def hold(self, request: bytes, context):
        yield b"ready"
        await asyncio.Event().wait()  # a quiet stream: a table where nobody moves
        yield b"never"

    def register(self, server: grpc.aio.Server) -> None:
        handlers = {
            "Echo": grpc.unary_unary_rpc_method_handler(self.echo),
            "Fail": grpc.unary_unary_rpc_method_handler(self.fail),
            "FailLong": grpc.unary_unary_rpc_method_handler(self.fail_long),
            "Slow": grpc.unary_unary_rpc_method_handler(self.slow),
            "StreamFail": grpc.unary_stream_rpc_method_handler(self.stream_fail),
            "Hold": grpc.unary_stream_rpc_method_handler(self.hold),
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


class _Store:
    def __init__(self, up: bool):
        self.up = up

    async def probe(self) -> None:
        if not self.up:
            raise ConnectionError("store down")


@pytest.fixture
async def running():
    """Start a server with the echo service; yields (address, echo, store, stop event, task)."""
    echo, store = _Echo(), _Store(up=True)
    address = f"127.0.0.1:{free_port()}"
    spec = ServiceSpec(name="echo", full_names=(SERVICE,), register=echo.register,
                       probe=store.probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=5, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    yield address, echo, store, stop, task
    stop.set()
    await asyncio.wait_for(task, 10)


async def _health(channel, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    response = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
    return response.status


async def test_a_service_error_reaches_the_client_as_the_same_reason(running):
    address, *_ = running
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(f"/{SERVICE}/Fail")
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await call(b"")
    assert raised.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    error = from_rpc_error(raised.value)
    assert error.reason is Reason.GAME_FULL
    assert error.message == "Game is full"
    assert error.metadata == {"game_id": "g1"}


async def test_an_error_echoing_a_huge_input_arrives_clipped_with_its_reason(running):
    """Not RESOURCE_EXHAUSTED from trailers over gRPC's 16 KiB cap, which callers would take for
    an outage."""
    address, *_ = running
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await channel.unary_unary(f"/{SERVICE}/FailLong")(b"")
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    error = from_rpc_error(raised.value)
    assert error.reason is Reason.UNKNOWN_GAME_TYPE
    assert error.message.startswith("Unknown game type: \u00e9\u00e9") and len(error.message) == 500
    assert error.message.endswith("\u2026") and len(error.metadata["game_type"]) == 200
    [violation] = error.field_violations
    assert violation.field == "game_type" and violation.description == error.message


async def test_a_request_that_is_not_its_message_is_invalid_argument_not_unknown(running):
    address, *_ = running
    garbage = b"\xff\xff\xff\xff"  # not a HealthCheckRequest (nor any message)
    async with grpc.aio.insecure_channel(address) as channel:
        for method in ("Check", "Watch"):
            call = (channel.unary_unary if method == "Check" else channel.unary_stream)(
                f"/grpc.health.v1.Health/{method}")
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                response = call(garbage)
                if method == "Check":
                    await response
                else:
                    async for _ in response:
                        pass
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            error = from_rpc_error(raised.value)
            assert error.reason is Reason.INVALID_ARGUMENT
            assert error.message.startswith("The request is not a valid message of this method")
            # About the request as a whole (field ""), the description naming its type.
            [violation] = error.field_violations
            assert violation.field == "" and "grpc.health.v1.HealthCheckRequest" in violation.description


async def test_a_stream_error_arrives_after_the_messages_sent_before_it(running):
    address, *_ = running
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_stream(f"/{SERVICE}/StreamFail")(b"")
        received = []
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            async for message in call:
                received.append(message)
    assert received == [b"first"]
    assert from_rpc_error(raised.value).reason is Reason.NOT_SEATED


async def test_an_error_without_details_gets_a_reason_from_its_code():
    address = f"127.0.0.1:{free_port()}"  # nobody listens
    async with grpc.aio.insecure_channel(address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await channel.unary_unary(f"/{SERVICE}/Echo")(b"", timeout=0.5)
    assert from_rpc_error(raised.value).reason is Reason.UNAVAILABLE


@pytest.mark.parametrize("reason", list(Reason))
def test_every_reason_round_trips_through_a_status(reason):
    invalid = reason.code == grpc.StatusCode.INVALID_ARGUMENT
    status = ServiceError(reason, "message", field="seats[1]" if invalid else None).to_status()
    assert status.code == reason.code

    class _Failed(grpc.RpcError):
        def code(self):
            return status.code

        def details(self):
            return status.details

        def trailing_metadata(self):
            return status.trailing_metadata

    back = from_rpc_error(_Failed())
    assert (back.reason, back.message) == (reason, "message")
    assert back.field_violations == (
        (FieldViolation("seats[1]", "message"),) if invalid else ())
    assert back.retry_delay_seconds == reason.retry_delay_seconds


def test_the_reasons_are_the_ones_documented_in_the_protos():
    documented = set(re.findall(r"ERROR_REASON_([A-Z_]+)\s*=", PROTO.read_text())) - {"UNSPECIFIED"}
    assert documented == {reason.name for reason in Reason}


async def test_health_is_serving_only_while_the_store_answers(running):
    address, _, store, *_ = running
    async with grpc.aio.insecure_channel(address) as channel:
        await eventually(lambda: _is(channel, health_pb2.HealthCheckResponse.SERVING), timeout=5, interval=0.05,
                         what="never SERVING")
        assert await _health(channel, SERVICE) == health_pb2.HealthCheckResponse.SERVING
        store.up = False
        await eventually(lambda: _is(channel, health_pb2.HealthCheckResponse.NOT_SERVING), timeout=5, interval=0.05,
                         what="never NOT_SERVING")
        store.up = True
        await eventually(lambda: _is(channel, health_pb2.HealthCheckResponse.SERVING), timeout=5, interval=0.05,
                         what="never SERVING")


async def _is(channel, status) -> bool:
    return await _health(channel) == status


async def test_liveness_stays_serving_while_the_stores_are_down_until_the_server_stops():
    store = _Store(up=False)
    address = f"127.0.0.1:{free_port()}"
    spec = ServiceSpec(name="echo", full_names=(SERVICE,), register=_Echo().register,
                       probe=store.probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=2, started=started, stop=stop))
    await started.wait()
    serving, not_serving = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert await _health(channel, LIVENESS_SERVICE) == serving
        assert await _health(channel) == not_serving and await _health(channel, SERVICE) == not_serving
        watch = health.Watch(health_pb2.HealthCheckRequest(service=LIVENESS_SERVICE))
        assert (await watch.read()).status == serving
        stop.set()  # shutting down: liveness turns too, before the calls in flight end
        assert (await asyncio.wait_for(watch.read(), 5)).status == not_serving
        watch.cancel()
    await asyncio.wait_for(task, 10)


async def test_health_is_not_serving_before_the_store_first_answers():
    store = _Store(up=False)
    address = f"127.0.0.1:{free_port()}"
    spec = ServiceSpec(name="echo", full_names=(SERVICE,), register=_Echo().register,
                       probe=store.probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, started=started, stop=stop))
    await started.wait()
    try:
        async with grpc.aio.insecure_channel(address) as channel:
            await asyncio.sleep(0.3)
            assert await _health(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
            store.up = True
            await eventually(lambda: _is(channel, health_pb2.HealthCheckResponse.SERVING), timeout=5, interval=0.05,
                         what="never SERVING")
    finally:
        stop.set()
        await task


async def test_reflection_lists_the_service(running):
    address, *_ = running
    async with grpc.aio.insecure_channel(address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        async for response in responses:
            names = {s.name for s in response.list_services_response.service}
            break
    assert {SERVICE, "grpc.health.v1.Health"} <= names


async def test_stopping_finishes_the_calls_in_flight(running):
    address, echo, _, stop, task = running
    async with grpc.aio.insecure_channel(address) as channel:
        call = asyncio.ensure_future(channel.unary_unary(f"/{SERVICE}/Slow")(b"", timeout=5))
        await asyncio.wait_for(echo.slow_started.wait(), 5)
        stop.set()
        assert await call == b"finished"
        await asyncio.wait_for(task, 10)
        with pytest.raises(grpc.aio.AioRpcError):
            await channel.unary_unary(f"/{SERVICE}/Echo")(b"x", timeout=0.5)


def test_bind_address_listens_everywhere_only_for_dns_names():
    assert bind_address("127.0.0.1:50051") == "127.0.0.1:50051"
    assert bind_address("localhost:50051") == "localhost:50051"
    assert bind_address("[::1]:50051") == "[::1]:50051"
    assert bind_address("tavolo-game:50052") == "[::]:50052"


def test_an_api_may_send_a_reason_with_another_documented_code():
    error = ServiceError(Reason.NOT_SEATED, "Not seated", status_code=grpc.StatusCode.NOT_FOUND)
    status = error.to_status()
    assert status.code == grpc.StatusCode.NOT_FOUND

    class _Failed(grpc.RpcError):
        def code(self):
            return status.code

        def details(self):
            return status.details

        def trailing_metadata(self):
            return status.trailing_metadata

    assert from_rpc_error(_Failed()).reason is Reason.NOT_SEATED


# -- keepalive: the clients' pings and the server's ping policy agree --------------------------


async def _quiet_stream_survives(address: str, time_ms: int, intervals: int) -> grpc.RpcError | None:
    """Open a stream that stays quiet on a channel pinging every ``time_ms`` (services.rpc.channels'
    settings, scaled down), for ``intervals`` pings; the error that ended it, or None."""
    from services.rpc.channels import keepalive_options

    channel = grpc.aio.insecure_channel(address, options=list(keepalive_options(time_ms)))
    hold = channel.unary_stream(f"/{SERVICE}/Hold")
    call = hold(b"")
    try:
        assert await asyncio.wait_for(call.read(), 5) == b"ready"
        try:
            await asyncio.wait_for(call.read(), time_ms * intervals / 1000)
        except TimeoutError:
            # Still open after the pings: the channel works for new calls too.
            echo = channel.unary_unary(f"/{SERVICE}/Echo")
            assert await echo(b"ping?", timeout=5) == b"ping?"
            return None
        except grpc.RpcError as error:
            return error
        raise AssertionError("the quiet stream sent a second message")
    finally:
        call.cancel()
        await channel.close()


async def test_a_client_pinging_at_its_rate_keeps_its_quiet_stream_open():
    """The clients ping every KEEPALIVE_TIME_MS while a call is open; a server that refuses
    such pings (gRPC's default: one per 5 minutes) sends GOAWAY too_many_pings, which ends
    every stream of the channel. Here at one ping a second (gRPC's fastest), for 5 pings."""
    echo, store = _Echo(), _Store(up=True)
    address = f"127.0.0.1:{free_port()}"
    spec = ServiceSpec(name="echo", full_names=(SERVICE,), register=echo.register,
                       probe=store.probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop,
                                     client_keepalive_ms=1000))
    try:
        await asyncio.wait_for(started.wait(), 5)
        assert await _quiet_stream_survives(address, time_ms=1000, intervals=5) is None
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_without_the_agreement_the_same_client_gets_too_many_pings():
    """The control: the same client against a server with gRPC's default ping policy."""
    echo = _Echo()
    server = grpc.aio.server()
    echo.register(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        error = await _quiet_stream_survives(f"127.0.0.1:{port}", time_ms=1000,
                                             intervals=5)
    finally:
        await server.stop(None)
    assert error is not None and error.code() == grpc.StatusCode.UNAVAILABLE
    assert "ping" in (error.details() or "").lower()


async def test_what_start_up_made_is_left_out_of_later_collections():
    """gc.freeze() once serving: the collector's full passes skip the start-up heap."""
    gc.unfreeze()
    spec = ServiceSpec(name="echo", full_names=(SERVICE,), register=_Echo().register,
                       probe=_Store(up=True).probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, f"127.0.0.1:{free_port()}", grace_seconds=1,
                                     started=started, stop=stop))
    try:
        await asyncio.wait_for(started.wait(), 5)
        assert gc.get_freeze_count() > 0
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


def test_the_servers_accept_pings_at_least_as_often_as_the_clients_send_them():
    from services.rpc.channels import KEEPALIVE_TIME_MS, keepalive_options
    from services.rpc.server import server_keepalive_options

    for time_ms in (200, 10_000, KEEPALIVE_TIME_MS, 120_000):
        client = dict(keepalive_options(time_ms))
        server = dict(server_keepalive_options(time_ms))
        assert client["grpc.keepalive_time_ms"] == time_ms
        assert server["grpc.http2.min_ping_interval_without_data_ms"] < time_ms
        assert server["grpc.keepalive_permit_without_calls"] == 1
        assert client["grpc.http2.max_pings_without_data"] == 0  # a quiet stream stays checked
