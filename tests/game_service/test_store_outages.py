"""A Postgres that restarts under the game service: calls fail UNAVAILABLE at worst, then work.

A restart is simulated by terminating every connection of the service's database from an admin
connection (pg_terminate_backend), as a restart or a failover does; the pool must not hand out
a connection the driver left broken.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import asyncpg
import grpc
import pytest

from game.cache import MemoryTableCache
from game.client import GameClient
from game.memory_log_store import MemoryLogStore
from game.postgres_log_store import PostgresLogStore
from game.registry import default_registry
from game.server import build_tables
from services.rpc.errors import Reason, ServiceError
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.servers import terminate_connections
from tests.game_service.conftest import SEATS, Backend, Replicas, start_service


@pytest.fixture
async def real(postgres_dsn, redis_url, redis_prefix):
    """Real Postgres and Redis only: an outage of the in-memory stores means nothing."""
    backend = Backend("real", dsn=postgres_dsn, redis_url=redis_url, prefix=redis_prefix)
    yield backend
    await backend.close()


async def test_a_connection_a_driver_error_left_broken_is_closed_not_handed_out_again(real):
    await real.open_log()  # migrated
    store = await PostgresLogStore.open(real.dsn, min_size=1, max_size=1)
    try:
        pid = await store._fetchval("SELECT pg_backend_pid()")
        # A statement the server refuses leaves a healthy connection: it is kept.
        with pytest.raises(asyncpg.DivisionByZeroError):
            await store._fetchval("SELECT 1 / 0")
        assert await store._fetchval("SELECT pg_backend_pid()") == pid
        # A driver error ("another operation is in progress") closes it.
        with pytest.raises(asyncpg.InternalClientError):
            async with store._connection():
                raise asyncpg.InternalClientError(
                    "cannot switch to state 15; another operation (2) is in progress")
        fresh = await store._fetchval("SELECT pg_backend_pid()")
        assert fresh != pid
        # So does a call cancelled mid-statement.
        sleeping = asyncio.create_task(store._fetchval("SELECT pg_sleep(30)"))
        await asyncio.sleep(0.3)
        sleeping.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sleeping
        assert await store._fetchval("SELECT pg_backend_pid()") not in (pid, fresh)
        assert await store.unrecorded() == []
    finally:
        await store.close()


async def test_a_driver_error_is_unavailable_not_unknown():
    class Broken(MemoryLogStore):
        async def header(self, table_id):
            raise asyncpg.InternalClientError(
                "cannot switch to state 15; another operation (2) is in progress")

    log_store = Broken()
    tables = build_tables(default_registry(dummy=True), log_store, MemoryTableCache())
    service = await start_service(tables)
    client = GameClient(service.address)
    try:
        table_id = (await client.create_table("dummy", SEATS))["table_id"]
        with pytest.raises(ServiceError) as refused:
            await client.get_view(table_id, "seat:0")
        assert refused.value.reason is Reason.UNAVAILABLE
        assert "another operation" not in refused.value.message  # the driver's text stays inside
    finally:
        await client.close()
        await service.stop()


async def test_calls_while_postgres_restarts_fail_unavailable_at_worst_then_succeed(real, fakes):
    replicas = Replicas(real, fakes)
    tables = await replicas.open(deadlines=False, stats=False)
    service = await start_service(tables)
    client = GameClient(service.address)
    channel = grpc.aio.insecure_channel(service.address)  # no retries: every status as the server sent it
    stub = game_pb2_grpc.GameServiceStub(channel)
    codes: Counter[str] = Counter()
    try:
        table_id = (await client.create_table("dummy", SEATS, {"target": 1_000_000}))["table_id"]

        async def use(seat: str, until: asyncio.Event) -> None:
            """Views and moves of one seat, counting how each call ended."""
            add = json.dumps({"action": "add", "n": 1})
            while not until.is_set():
                try:
                    await stub.GetView(game_pb2.GetViewRequest(table_id=table_id, seat=seat))
                    await stub.Act(game_pb2.ActRequest(table_id=table_id, seat=seat, action_json=add))
                    codes["OK"] += 1
                except grpc.aio.AioRpcError as error:
                    codes[error.code().name] += 1

        done = asyncio.Event()
        users = [asyncio.create_task(use(SEATS[i % 4], done)) for i in range(16)]
        terminated = 0
        for _ in range(20):  # twenty restarts, 50 ms apart, while sixteen callers go on
            await asyncio.sleep(0.05)
            terminated += await terminate_connections(real.dsn)
        await asyncio.sleep(0.2)
        done.set()
        await asyncio.gather(*users)
        assert terminated >= 20, "the service's connections were never cut"
        # FAILED_PRECONDITION: not the seat's turn (sixteen callers race for four turns).
        assert set(codes) <= {"OK", "UNAVAILABLE", "FAILED_PRECONDITION", "ABORTED"}, codes
        assert codes["OK"] > 0

        # Afterwards every call works again, at once: no broken connection is handed out.
        for seat in SEATS * 4:
            assert (await client.get_view(table_id, seat))["id"] == table_id
        view = await client.get_view(table_id, SEATS[0])
        moved = await client.act(table_id, SEATS[view["turn"]], {"action": "add", "n": 1})
        assert moved["revision"] == view["revision"] + 1
    finally:
        await channel.close()
        await client.close()
        await service.stop()
        await replicas.close()
