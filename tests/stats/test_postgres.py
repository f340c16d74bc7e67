"""What only the Postgres store has: its migrations, its locks, the backfill command."""

from __future__ import annotations

import asyncio
import uuid
from importlib import resources

import asyncpg
import pytest

from services.config import Settings
from services.errors import Reason, ServiceError
from services.migrations import migrate
from stats import backfill
from stats.repository import PostgresStatsRepository
from tests.stats.servers import postgres_repository
from tests.stats.helpers import BASE_MS, SCOPONE, team_match

TABLES = {"match", "match_player", "player_rating"}


async def _tables(dsn: str) -> set[str]:
    connection = await asyncpg.connect(dsn)
    try:
        rows = await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {row[0] for row in rows}
    finally:
        await connection.close()


async def test_migrations_build_the_schema_from_empty_and_apply_once(postgres_dsn):
    assert await _tables(postgres_dsn) == set()
    assert await migrate(postgres_dsn, components=("stats",)) == ["stats/0001_match_history.sql"]
    assert await _tables(postgres_dsn) == TABLES | {"schema_migrations"}
    assert await migrate(postgres_dsn, components=("stats",)) == []


async def test_concurrent_migrations_apply_each_file_once(postgres_dsn):
    results = await asyncio.gather(*(migrate(postgres_dsn, components=("stats",)) for _ in range(4)))
    assert sorted(len(applied) for applied in results) == [0, 0, 0, 1]
    connection = await asyncpg.connect(postgres_dsn)
    try:
        assert await connection.fetchval(
            "SELECT count(*) FROM schema_migrations WHERE component = 'stats'") == 1
    finally:
        await connection.close()


async def test_a_schema_made_by_hand_is_adopted(postgres_dsn):
    sql = (resources.files("stats") / "migrations" / "0001_match_history.sql").read_text()
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()
    assert await migrate(postgres_dsn, components=("stats",)) == ["stats/0001_match_history.sql"]


async def test_concurrent_records_leave_exactly_one_match_row(postgres_dsn):
    # Separate pools: separate sessions racing for the same table id.
    repositories = [await postgres_repository(postgres_dsn) for _ in range(3)]
    match = team_match(("alice", "bob", "carol", "dave"))
    try:
        outcomes = await asyncio.gather(*(repo.record_match(match)
                                          for repo in repositories for _ in range(3)))
    finally:
        for repo in repositories:
            await repo.close()
    assert sum(created for _, created in outcomes) == 1
    connection = await asyncpg.connect(postgres_dsn)
    try:
        counts = await connection.fetchrow("""SELECT (SELECT count(*) FROM match) AS matches,
            (SELECT count(*) FROM match_player) AS players,
            (SELECT sum(matches) FROM player_rating) AS rated""")
    finally:
        await connection.close()
    assert tuple(counts) == (1, 4, 4)


async def _rows(dsn: str):
    connection = await asyncpg.connect(dsn)
    try:
        deltas = await connection.fetch(
            "SELECT match_id, seat, elo_delta FROM match_player ORDER BY match_id, seat")
        ratings = await connection.fetch(
            "SELECT member_id, game_type, rating, matches, wins, points, display_name, "
            "last_finished_at FROM player_rating ORDER BY member_id, game_type")
        return [tuple(r) for r in deltas], [tuple(r) for r in ratings]
    finally:
        await connection.close()


async def test_backfill_command_restores_what_live_recording_wrote(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    members = ["m0", "m1", "m2", "m3", "m4", "m5", "m6"]
    try:
        for i in range(12):
            table = tuple(members[(i * 3 + j) % 7] for j in range(4))
            await repository.record_match(team_match(table, winner="AB"[i % 2 or i % 3 == 0],
                                                     finished_ms=BASE_MS + i * 1000,
                                                     game_type=(SCOPONE, "dummy")[i % 4 == 3]))
    finally:
        await repository.close()
    live = await _rows(postgres_dsn)
    connection = await asyncpg.connect(postgres_dsn)
    try:  # wreck what the backfill must rebuild
        await connection.execute("UPDATE match_player SET elo_delta = elo_delta + 7")
        await connection.execute("UPDATE player_rating SET rating = 0, wins = 99, display_name = 'x'")
        await connection.execute("DELETE FROM player_rating WHERE member_id = 'm0'")
    finally:
        await connection.close()
    status = await asyncio.to_thread(backfill.main, Settings(database_url=postgres_dsn))
    assert status == 0
    assert await _rows(postgres_dsn) == live


def test_backfill_without_a_database_says_so(capsys):
    assert backfill.main(Settings(database_url=None)) == 2
    assert "DATABASE_URL" in capsys.readouterr().err


def test_backfill_of_an_unreachable_database_fails_cleanly(capsys):
    assert backfill.main(Settings(database_url="postgresql://postgres@127.0.0.1:9/none")) == 1
    assert "nothing changed" in capsys.readouterr().err


async def test_an_unreachable_database_is_unavailable():
    pool = await asyncpg.create_pool("postgresql://postgres@127.0.0.1:9/none", min_size=0)
    repository = PostgresStatsRepository(pool)
    try:
        for call in (repository.get_match(str(uuid.uuid4())),
                     repository.record_match(team_match(("a", "b", "c", "d"))),
                     repository.leaderboard(SCOPONE, 10), repository.erase_member("a", "z")):
            with pytest.raises(ServiceError) as caught:
                await call
            assert caught.value.reason is Reason.UNAVAILABLE
        with pytest.raises(OSError):
            await repository.probe()
    finally:
        await repository.close()


async def test_history_pages_come_from_an_index(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    await repository.close()
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute("SET enable_seqscan = off")
        plan = "\n".join(row[0] for row in await connection.fetch(
            """EXPLAIN SELECT match_id FROM match_player WHERE member_id = 'a'
               AND (finished_at, match_id) < (now(), gen_random_uuid())
               ORDER BY finished_at DESC, match_id DESC LIMIT 21"""))
    finally:
        await connection.close()
    assert "match_player_history_idx" in plan and "Sort" not in plan
