"""A Postgres that restarts under stats: calls fail UNAVAILABLE at worst, then work again.

The restart is simulated by terminating every connection of stats' database from an admin
connection (pg_terminate_backend) again and again while callers record, read and erase.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import asyncpg
import grpc
import pytest

from services.rpc.errors import Reason, ServiceError
from stats.repository import PostgresStatsRepository
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc
from testing.servers import terminate_connections
from tests.stats.helpers import BASE_MS, SCOPONE
from tests.stats.servers import postgres_repository, running_stack


def _report(table_id: str) -> stats_pb2.RecordMatchRequest:
    request = stats_pb2.RecordMatchRequest(
        table_id=table_id, game_type=SCOPONE, result_json='{"winner": "A"}',
        seats=[stats_pb2.SeatResult(seat=f"seat:{i}", seat_index=i, team="AB"[i % 2],
                                    won=i % 2 == 0, points=11 if i % 2 == 0 else 7)
               for i in range(4)])
    request.started_at.FromMilliseconds(BASE_MS)
    request.finished_at.FromMilliseconds(BASE_MS + 60_000)
    return request


async def test_calls_while_postgres_restarts_fail_unavailable_at_worst_then_succeed(
        postgres_dsn, fake_lobby):
    repository = await postgres_repository(postgres_dsn)
    codes: Counter[str] = Counter()
    async with running_stack(repository, fake_lobby) as stack:
        channel = grpc.aio.insecure_channel(stack.address)  # no retries: statuses as sent
        stub = stats_pb2_grpc.StatsServiceStub(channel)
        try:
            async def use(member: str, until: asyncio.Event) -> None:
                while not until.is_set():
                    table_id = stack.table(member, f"{member}-b", f"{member}-c", f"{member}-d")
                    try:
                        await stub.RecordMatch(_report(table_id))
                        await stub.GetRatings(stats_pb2.GetRatingsRequest(member_id=member))
                        await stub.ListMatches(stats_pb2.ListMatchesRequest(member_id=member))
                        await stub.GetLeaderboard(stats_pb2.GetLeaderboardRequest())
                        codes["OK"] += 1
                    except grpc.aio.AioRpcError as error:
                        codes[error.code().name] += 1

            done = asyncio.Event()
            users = [asyncio.create_task(use(f"m{i}", done)) for i in range(12)]
            terminated = 0
            for _ in range(15):
                await asyncio.sleep(0.05)
                terminated += await terminate_connections(postgres_dsn)
            await asyncio.sleep(0.2)
            done.set()
            await asyncio.gather(*users)
            assert terminated >= 15, "stats' connections were never cut"
            assert set(codes) <= {"OK", "UNAVAILABLE"}, codes
            assert codes["OK"] > 0

            # Afterwards every call works again: no broken connection is handed out.
            for i in range(12):
                await stub.RecordMatch(_report(stack.table(f"n{i}", f"n{i}-b", f"n{i}-c", f"n{i}-d")))
                assert await stack.client.ratings(f"n{i}")
                await stack.client.erase_member(f"n{i}")
        finally:
            await channel.close()
    await repository.close()


async def test_a_driver_error_is_unavailable():
    class Broken:
        async def fetchval(self, *args, **kwargs):
            raise asyncpg.InternalClientError(
                "cannot switch to state 12; another operation (2) is in progress")

        fetch = fetchval

        async def close(self):
            return None

    repository = PostgresStatsRepository(Broken())  # type: ignore[arg-type]
    with pytest.raises(ServiceError) as refused:
        await repository.erasure_mark()
    assert refused.value.reason is Reason.UNAVAILABLE
    with pytest.raises(ServiceError) as refused:
        await repository.ratings(str(uuid.uuid4()))
    assert refused.value.reason is Reason.UNAVAILABLE
