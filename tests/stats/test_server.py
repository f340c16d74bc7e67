"""``stats.server``: migrations at start, health from the store, the real servicer behind it."""

from __future__ import annotations

import asyncio
import dataclasses

import asyncpg
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.config import Settings
from services.rpc.server import serve
from stats import server
from stats.client import StatsClient
from testing.processes import free_address
from testing.waiting import eventually
from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_seats


async def _serving(settings: Settings):
    spec = await server.build(settings)
    address = free_address()
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    return address, stop, task


async def _health(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)

        async def serving():
            response = await stub.Check(health_pb2.HealthCheckRequest(
                service="tavolo.stats.v1.StatsService"))
            return response.status == health_pb2.HealthCheckResponse.SERVING and response

        return (await eventually(serving, timeout=5, interval=0.05, what="stats never served")).status


async def test_with_a_database_it_migrates_at_start_and_serves(postgres_dsn, fake_lobby):
    settings = Settings(database_url=postgres_dsn, lobby_addr=fake_lobby.address)
    address, stop, task = await _serving(settings)
    try:
        assert await _health(address) == health_pb2.HealthCheckResponse.SERVING
        table = "5a1d0c52-6f0e-4a55-9d2b-4c7b1c0f3e21"
        fake_lobby.seat(table, "alice", "bob", "carol", "dave")
        async with StatsClient(address) as client:
            recorded = await client.record_match(table, SCOPONE, BASE_MS, BASE_MS + 1,
                                                 result_of(), team_seats())
            assert recorded.created
            page = await client.list_matches("alice")
            assert [m.id for m in page.matches] == [table]
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
    connection = await asyncpg.connect(postgres_dsn)
    try:
        assert await connection.fetchval("SELECT count(*) FROM match") == 1
    finally:
        await connection.close()


async def test_without_a_database_it_serves_from_memory(fake_lobby):
    address, stop, task = await _serving(Settings(database_url=None, lobby_addr=fake_lobby.address))
    try:
        assert await _health(address) == health_pb2.HealthCheckResponse.SERVING
        async with StatsClient(address) as client:
            assert (await client.leaderboard()).entries == []
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


def test_the_page_token_key_comes_from_the_settings_when_present():
    assert server.cursor_secret(Settings()) == server.DEV_CURSOR_SECRET

    @dataclasses.dataclass(frozen=True)
    class WithSecret(Settings):
        stats_cursor_secret: str | None = None

    assert server.cursor_secret(WithSecret(stats_cursor_secret="s3cret-s3cret-s3cret")) == \
        b"s3cret-s3cret-s3cret"
