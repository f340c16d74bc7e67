"""``lobby.server.run``: the real entry point, with each store, behind the health service."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lobby.client import LobbyClient
from lobby.players_client import PlayersClient
from lobby.server import run
from services.config import Settings, TelemetrySettings
from services.rpc.errors import Reason
from testing.processes import free_address
from testing.waiting import eventually
from tests.lobby.helpers import fails


async def _health(address: str, service: str = "tavolo.lobby.v1.LobbyService") -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return (await stub.Check(health_pb2.HealthCheckRequest(service=service))).status


async def _serving(address: str) -> bool:
    async def serving() -> bool:
        return await _health(address) == health_pb2.HealthCheckResponse.SERVING

    return await eventually(serving, timeout=5, interval=0.05, what="the lobby never served")


async def _running(settings: Settings):
    settings = replace(settings, telemetry=TelemetrySettings(metrics_port=0))  # no fixed port
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(run(settings, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    return task, stop


async def test_serves_a_whole_game_in_memory(game_service):
    fake, game_addr = game_service
    settings = Settings(lobby_addr=free_address(), game_addr=game_addr)
    task, stop = await _running(settings)
    try:
        assert await _serving(settings.lobby_addr)
        async with LobbyClient(settings.lobby_addr) as client:
            game = await client.create_game("alice", "Alice", "scopone_scientifico")
            for member in ("bob", "carol", "dave"):
                result = await client.join_game(member, member, game.join_code)
            assert result.started and list(fake.tables) == [game.id]
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_serves_players_at_the_lobbys_address(game_service):
    settings = Settings(lobby_addr=free_address(), game_addr=game_service[1])
    task, stop = await _running(settings)
    try:
        assert await _serving(settings.lobby_addr)
        assert await _health(settings.lobby_addr, "tavolo.lobby.v1.PlayersService") == \
            health_pb2.HealthCheckResponse.SERVING
        async with LobbyClient(settings.lobby_addr) as lobby, \
                PlayersClient(settings.lobby_addr) as players:
            await lobby.ensure_member("alice", "Alice")
            bob = await lobby.ensure_member("bob", "Bob")
            await players.follow("alice", bob)
            assert [p.display_name for p in await players.list_following("alice")] == ["Bob"]
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_the_players_client_reports_an_unreachable_lobby_as_unavailable():
    async with PlayersClient(free_address(), timeout_seconds=2) as client:
        await fails(client.list_following("alice"), Reason.UNAVAILABLE)


async def test_the_client_reports_an_unreachable_lobby_as_unavailable():
    async with LobbyClient(free_address(), timeout_seconds=2) as client:
        await fails(client.create_game("alice", "Alice", "scopone_scientifico"), Reason.UNAVAILABLE)


async def test_serves_on_postgres_when_a_database_is_configured(game_service, postgres_dsn):
    """With a database the seating is durable: the lobby migrates its tables and keeps games there."""
    import asyncpg

    settings = Settings(lobby_addr=free_address(), game_addr=game_service[1],
                        database_url=postgres_dsn)
    task, stop = await _running(settings)
    try:
        assert await _serving(settings.lobby_addr)
        async with LobbyClient(settings.lobby_addr) as client:
            game = await client.create_game("alice", "Alice", "scopone_scientifico")
        connection = await asyncpg.connect(postgres_dsn)
        try:
            stored = await connection.fetchval("SELECT join_code FROM lobby_game WHERE id = $1",
                                               game.id)
        finally:
            await connection.close()
        assert stored == game.join_code
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
