"""DATABASE_READ_URL: the stats service reads history, ratings and the leaderboard from a read
replica and writes only to the primary.

The replica is a second database that refuses writes as a hot standby does
(``default_transaction_read_only``), with the primary's schema; the test plays the replication
itself, copying the primary's rows across when it chooses, so that what each read returns
shows which database answered it.
"""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import pytest

from services.config import Settings
from services.migrations import migrate
from services.rpc.server import serve
from stats import server
from stats.client import StatsClient
from testing.processes import free_address
from testing.servers import scratch_database
from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_seats

STATS_TABLES = ("match", "match_player", "player_rating", "erased_member")


@pytest.fixture
async def replica_dsn():
    """A database with the stats schema that, like a standby, takes no writes."""
    async with scratch_database("replica") as dsn:
        await migrate(dsn, components=("stats",))
        connection = await asyncpg.connect(dsn)
        try:
            database = dsn.rpartition("/")[2]
            await connection.execute(f'ALTER DATABASE "{database}" SET default_transaction_read_only = on')
        finally:
            await connection.close()
        yield dsn


async def _replicate(primary: str, replica: str) -> None:
    """The replica catches up: the primary's stats rows, copied across (as its owner may)."""
    source, target = await asyncpg.connect(primary), await asyncpg.connect(replica)
    try:
        async with target.transaction(readonly=False):
            await target.execute("SET TRANSACTION READ WRITE")
            await target.execute(f"TRUNCATE {', '.join(STATS_TABLES)}")
            for table in STATS_TABLES:
                rows = await source.fetch(f"SELECT * FROM {table}")
                if rows:
                    await target.copy_records_to_table(table, records=rows, columns=list(rows[0].keys()))
    finally:
        await source.close()
        await target.close()


async def _count(dsn: str, query: str) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        return await connection.fetchval(query)
    finally:
        await connection.close()


@contextlib.asynccontextmanager
async def _stats(settings: Settings):
    """The stats service built from ``settings``, on a socket, and a client of it."""
    spec = await server.build(settings)
    address = free_address()
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    try:
        async with StatsClient(address) as client:
            yield client
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def test_reads_come_from_the_replica_and_writes_go_to_the_primary(postgres_dsn, replica_dsn,
                                                                        fake_lobby):
    settings = Settings.from_env({"DATABASE_URL": postgres_dsn, "DATABASE_READ_URL": replica_dsn,
                                  "LOBBY_ADDR": fake_lobby.address})
    table = "0b7e3a52-95a6-4c43-8f5e-2f1e9a3c7d10"
    fake_lobby.seat(table, "alice", "bob", "carol", "dave")
    async with _stats(settings) as client:
        recorded = await client.record_match(table, SCOPONE, BASE_MS, BASE_MS + 1, result_of(),
                                             team_seats())
        assert recorded.created
        assert await _count(postgres_dsn, "SELECT count(*) FROM match") == 1
        assert await _count(replica_dsn, "SELECT count(*) FROM match") == 0
        # The replica has not caught up: every read says so.
        assert (await client.list_matches("alice")).matches == []
        assert await client.ratings("alice") == []
        assert (await client.leaderboard()).entries == []
        # Recording again reads the primary, which has it: once, not twice.
        again = await client.record_match(table, SCOPONE, BASE_MS, BASE_MS + 1, result_of(),
                                          team_seats())
        assert not again.created

        await _replicate(postgres_dsn, replica_dsn)
        assert [m.id for m in (await client.list_matches("alice")).matches] == [table]
        assert [(r.game_type, r.rating) for r in await client.ratings("alice")] == [(SCOPONE, 1516)]
        assert {row.member_id for row in (await client.leaderboard()).entries} == {
            "alice", "bob", "carol", "dave"}

        # An erasure writes the primary; the replica shows dave until it catches up again.
        assert await client.erase_member("dave") == 1
        assert [r.member_id for r in (await client.leaderboard()).entries].count("dave") == 1
        await _replicate(postgres_dsn, replica_dsn)
        assert "dave" not in {r.member_id for r in (await client.leaderboard()).entries}
    assert await _count(postgres_dsn, "SELECT count(*) FROM match_player WHERE member_id = 'dave'") == 0


async def test_without_a_read_url_the_reads_see_the_writes_at_once(postgres_dsn, fake_lobby):
    settings = Settings.from_env({"DATABASE_URL": postgres_dsn, "LOBBY_ADDR": fake_lobby.address})
    assert settings.database is not None and not settings.database.separate_reads
    table = "3c1f2d0e-7b9a-4e55-a1c2-9d8e7f6a5b40"
    fake_lobby.seat(table, "alice", "bob", "carol", "dave")
    async with _stats(settings) as client:
        await client.record_match(table, SCOPONE, BASE_MS, BASE_MS + 1, result_of(), team_seats())
        assert [m.id for m in (await client.list_matches("alice")).matches] == [table]
