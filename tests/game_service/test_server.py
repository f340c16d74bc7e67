"""`game.server`: the service as `tavolo serve game` builds it, here with the in-memory stores."""

from __future__ import annotations

import asyncio

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from game.client import GameClient
from game.server import build_service
from services.config import Settings
from services.rpc.channels import open_channel
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import serve
from testing.processes import free_port
from testing.waiting import eventually
from tests.game_service.conftest import SEATS


async def test_the_service_serves_health_and_moves_with_memory_stores(fakes):
    address = f"127.0.0.1:{free_port()}"
    settings = Settings(game_addr=address, deadlines_addr=fakes.deadlines_addr, dummy_game=True,
                        stats_addr=fakes.stats_addr, turn_timeout_seconds=2.5)
    spec, tables = await build_service(settings)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 10)
    client = GameClient(address)
    channel = open_channel(address, "grpc.health.v1.Health")
    try:
        health = health_pb2_grpc.HealthStub(channel)

        async def serving() -> bool:
            reply = await health.Check(health_pb2.HealthCheckRequest(service="tavolo.game.v1.GameService"))
            return reply.status == health_pb2.HealthCheckResponse.SERVING

        await eventually(serving, timeout=5, interval=0.05, what="the game service never served")
        table_id = (await client.create_table("dummy", SEATS, {"target": 1}))["table_id"]
        created_view = await client.get_view(table_id, "seat:0")
        state = (await tables.current(table_id)).state
        assert state["turn_timeout_ms"] == 2500  # the registry got TURN_TIMEOUT_SECONDS
        assert created_view["revision"] == 0
        assert (await client.act(table_id, "seat:0", {"action": "add", "n": 1}))["status"] == "finished"
        await asyncio.wait_for(fakes.stats.recorded.wait(), 10)
        assert table_id in fakes.stats.matches
    finally:
        await client.close()
        await channel.close()
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_the_dummy_game_is_offered_only_when_dummy_game_is_set():
    for enabled, offered in ((False, ["scopone_scientifico"]), (True, ["scopone_scientifico", "dummy"])):
        _, tables = await build_service(Settings(dummy_game=enabled))
        try:
            assert [engine.id for engine in tables.game_types()] == offered
        finally:
            await tables.close()
    _, production = await build_service(Settings())
    try:
        with pytest.raises(ServiceError) as refused:
            await production.create_table("", "dummy", "{}", tuple(SEATS))
        assert refused.value.reason is Reason.UNKNOWN_GAME_TYPE
    finally:
        await production.close()
