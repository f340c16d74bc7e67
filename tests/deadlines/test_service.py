"""The deadline service end to end in this process: DeadlinesClient -> gRPC -> queue -> consumer
-> a fake game service, on Redis and in memory; and every bad request's error."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from deadlines.client import DeadlinesClient
from deadlines.server import build_service
from services.config import Settings
from services.rpc.errors import Reason, ServiceError, from_rpc_error
from services.rpc.server import serve
from tavolo.deadlines.v1 import deadlines_pb2, deadlines_pb2_grpc
from testing.processes import free_port, wait_serving
from tests.deadlines.fakes import due_token


@pytest.fixture(params=["memory", "redis"])
async def service(request, redis_url, redis_prefix, game_server):
    """The service on a free port; yields (address, client, fake game)."""
    settings = Settings(
        redis_url=redis_url if request.param == "redis" else None,
        redis_key_prefix=redis_prefix,
        deadlines_addr=f"127.0.0.1:{free_port()}",
        game_addr=game_server.address,
    )
    spec, _ = build_service(settings, lease_ms=5_000)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, settings.deadlines_addr, grace_seconds=1,
                                     started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    # SERVING means the first health probe is done; stopping mid-probe can hang the kit's
    # server on Python 3.11 (see services/cancellation.py)
    await wait_serving(settings.deadlines_addr)
    client = DeadlinesClient(settings.deadlines_addr)
    try:
        yield settings.deadlines_addr, client, game_server.game
    finally:
        await client.close()
        stop.set()
        await asyncio.wait_for(task, 10)


def now_ms() -> int:
    return int(time.time() * 1000)


async def test_scheduled_entries_fire_at_the_game_service(service):
    _, client, game = service
    due = now_ms() + 100
    token = due_token(due)
    await client.schedule("table-1", "hand_end", token, due)
    [call] = await game.wait_for(token)
    assert (call.table_id, call.kind, call.answer) == ("table-1", "hand_end", "fired")
    assert call.at_ms >= due


async def test_cancel_and_cancel_table_report_what_they_removed(service):
    _, client, _game = service
    due = now_ms() + 60_000
    await client.schedule("t1", "turn", "a", due)
    await client.schedule("t1", "turn", "a", due + 1)  # the same entry, moved
    await client.schedule("t1", "turn", "b", due)
    await client.schedule("t2", "turn", "a", due)
    assert await client.cancel("t1", "turn", "a") is True
    assert await client.cancel("t1", "turn", "a") is False
    assert await client.cancel("t1", "hand_end", "b") is False  # the kind is part of the entry
    assert await client.cancel_table("t1") == 1
    assert await client.cancel_table("t1") == 0
    assert await client.cancel_table("t2") == 1


async def test_set_table_deadlines_replaces_a_batch_of_tables_entries(service):
    _, client, game = service
    due = now_ms() + 60_000
    await client.schedule("t1", "turn", "old", due)
    soon = now_ms() + 100
    token = due_token(soon)
    await client.set_table_deadlines({"t1": [("turn", token, soon)],
                                      "t2": [("turn", "a", due), ("hand_end", "b", due)]})
    assert await client.cancel("t1", "turn", "old") is False  # replaced
    [call] = await game.wait_for(token)
    assert (call.table_id, call.kind, call.answer) == ("t1", "turn", "fired")
    await client.set_table_deadlines({"t2": []})
    assert await client.cancel_table("t2") == 0


def _batch(*tables: tuple[str, list[tuple[str, str, int | None]]]):
    request = deadlines_pb2.SetTableDeadlinesRequest()
    for table_id, deadlines in tables:
        table = request.tables.add(table_id=table_id)
        for kind, token, due_ms in deadlines:
            deadline = table.deadlines.add(kind=kind, token=token)
            if due_ms is not None:
                deadline.due_at.FromMilliseconds(due_ms)
    return request


@pytest.mark.parametrize("request_, message", [
    (_batch(*[(f"t{i}", []) for i in range(1001)]), "at most 1000 tables"),
    (_batch(("t", []), ("t", [])), "table t is listed twice"),
    (_batch(("t", [("turn", f"x{i}", 1) for i in range(17)])), "at most 16 deadlines"),
    (_batch(("", [])), "table_id"),
    (_batch(("t", [("", "x", 1)])), "kind"),
    (_batch(("t", [("turn", "x" * 257, 1)])), "token"),
    (_batch(("t", [("turn", "x", None)])), "due_at must be set"),
])
async def test_set_table_deadlines_refuses_a_bad_batch_and_changes_nothing(service, request_,
                                                                           message):
    address, client, _ = service
    due = now_ms() + 60_000
    await client.schedule("t", "turn", "kept", due)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = deadlines_pb2_grpc.DeadlineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            await stub.SetTableDeadlines(request_, timeout=5)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details()
    assert await client.cancel("t", "turn", "kept") is True


@pytest.mark.parametrize("table_id, kind, token, missing", [
    ("", "turn", "x", "table_id"), ("t", "", "x", "kind"), ("t", "turn", "", "token"),
    ("t" * 257, "turn", "x", "table_id"), ("t", "turn", "x" * 257, "token"),
])
async def test_schedule_and_cancel_refuse_an_empty_or_oversized_field(service, table_id, kind,
                                                                      token, missing):
    _, client, _ = service
    for call in (client.schedule(table_id, kind, token, now_ms()),
                 client.cancel(table_id, kind, token)):
        with pytest.raises(ServiceError, match=missing) as caught:
            await call
        assert caught.value.reason is Reason.INVALID_ARGUMENT


async def test_cancel_table_refuses_an_empty_table_id(service):
    _, client, _ = service
    with pytest.raises(ServiceError, match="table_id") as caught:
        await client.cancel_table("")
    assert caught.value.reason is Reason.INVALID_ARGUMENT


@pytest.mark.parametrize("due_at, message", [
    (None, "due_at must be set"),
    ({"seconds": 10, "nanos": -1}, "nanos"),
    ({"seconds": 10, "nanos": 1_000_000_000}, "nanos"),
    ({"seconds": 10**13, "nanos": 0}, "range"),
])
async def test_schedule_refuses_an_unset_or_malformed_due_at(service, due_at, message):
    address, _, _ = service
    request = deadlines_pb2.ScheduleRequest(table_id="t", kind="turn", token="x")
    if due_at is not None:
        request.due_at.seconds = due_at["seconds"]
        request.due_at.nanos = due_at["nanos"]
    async with grpc.aio.insecure_channel(address) as channel:
        stub = deadlines_pb2_grpc.DeadlineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            await stub.Schedule(request, timeout=5)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in caught.value.details()


async def test_the_service_reports_serving_on_the_health_protocol(service):
    address, _, _ = service
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", "tavolo.deadlines.v1.DeadlineService"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_a_redis_that_does_not_answer_is_unavailable_not_internal(game_server):
    settings = Settings(redis_url="redis://127.0.0.1:1/0", redis_key_prefix="test-none:tavolo",
                        deadlines_addr=f"127.0.0.1:{free_port()}", game_addr=game_server.address)
    spec, _ = build_service(settings, lease_ms=5_000)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, settings.deadlines_addr, grace_seconds=1,
                                     started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    await asyncio.sleep(0.1)  # let the first (failing) health probe finish before stopping
    try:
        # the raw stub: DeadlinesClient's channel would retry UNAVAILABLE a few times first
        async with grpc.aio.insecure_channel(settings.deadlines_addr) as channel:
            stub = deadlines_pb2_grpc.DeadlineServiceStub(channel)
            schedule = deadlines_pb2.ScheduleRequest(table_id="t", kind="turn", token="x")
            schedule.due_at.FromMilliseconds(now_ms())
            for call in (stub.Schedule(schedule, timeout=5),
                         stub.Cancel(deadlines_pb2.CancelRequest(table_id="t", kind="turn",
                                                                 token="x"), timeout=5),
                         stub.CancelTable(deadlines_pb2.CancelTableRequest(table_id="t"),
                                          timeout=5)):
                with pytest.raises(grpc.RpcError) as caught:
                    await call
                assert from_rpc_error(caught.value).reason is Reason.UNAVAILABLE
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
