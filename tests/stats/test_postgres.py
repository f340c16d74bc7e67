"""What only the Postgres store has: its migrations, its locks, the backfill command."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from importlib import resources

import asyncpg
import pytest

from services.config import Settings
from services.migrations import migrate
from services.rpc.errors import Reason, ServiceError
from stats import backfill
from stats.model import erased_member_id
from stats.repository import PostgresStatsRepository, member_hash
from testing.waiting import eventually
from tests.stats.helpers import BASE_MS, SCOPONE, abandoned_at, team_match, with_bots
from tests.stats.servers import postgres_repository

TABLES = {"match", "match_player", "player_rating", "erased_member"}
MIGRATIONS = ["stats/0001_match_history.sql", "stats/0002_erasure.sql",
              "stats/0003_bots_and_abandonment.sql", "stats/0004_player_ids.sql"]


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
    assert await migrate(postgres_dsn, components=("stats",)) == MIGRATIONS
    assert await _tables(postgres_dsn) == TABLES | {"schema_migrations"}
    assert await migrate(postgres_dsn, components=("stats",)) == []


async def test_concurrent_migrations_apply_each_file_once(postgres_dsn):
    results = await asyncio.gather(*(migrate(postgres_dsn, components=("stats",)) for _ in range(4)))
    assert sorted(len(applied) for applied in results) == [0, 0, 0, len(MIGRATIONS)]
    connection = await asyncpg.connect(postgres_dsn)
    try:
        assert await connection.fetchval(
            "SELECT count(*) FROM schema_migrations WHERE component = 'stats'") == len(MIGRATIONS)
    finally:
        await connection.close()


async def test_a_schema_made_by_hand_is_adopted(postgres_dsn):
    folder = resources.files("stats") / "migrations"
    connection = await asyncpg.connect(postgres_dsn)
    try:
        for name in MIGRATIONS:
            await connection.execute((folder / name.removeprefix("stats/")).read_text())
    finally:
        await connection.close()
    assert await migrate(postgres_dsn, components=("stats",)) == MIGRATIONS


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
                     repository.leaderboard(SCOPONE, 10), repository.erase_member("a"), repository.erasure_mark()):
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


# -- erasure ----------------------------------------------------------------------------------


async def test_an_erasure_committing_while_the_recording_waits_is_seen(postgres_dsn):
    """The recording's lock serializes it with erasures: an erasure that holds the lock when the
    recording reaches it, and commits then, is seen by the recording's check."""
    repository = await postgres_repository(postgres_dsn)
    eraser = await asyncpg.connect(postgres_dsn)
    try:
        mark = await repository.erasure_mark()
        erasure = eraser.transaction()
        await erasure.start()
        await eraser.execute("LOCK TABLE player_rating IN SHARE ROW EXCLUSIVE MODE")
        recording = asyncio.create_task(
            repository.record_match(team_match(("alice", "bob", "carol", "dave")),
                                    erasures_after=mark))

        async def recording_waits() -> bool:  # for the erasure's lock, in this database
            return await eraser.fetchval(
                "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'player_rating'::regclass"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())") > 0

        await eventually(recording_waits, timeout=10, interval=0.02, what="the recording never reached the lock")
        assert not recording.done()
        await eraser.execute("INSERT INTO erased_member (member_hash) VALUES ($1)",
                             member_hash("bob"))
        await erasure.commit()
        stored, _ = await recording
        assert [p.erased for p in stored.players] == [False, True, False, False]
        assert await eraser.fetchval(
            "SELECT count(*) FROM player_rating WHERE member_id = 'bob'") == 0
        # What is kept of the erasure is a hash, never the id.
        assert await eraser.fetchval("SELECT count(*) FROM erased_member") == 1
        assert bytes(await eraser.fetchval("SELECT member_hash FROM erased_member")) != b"bob"
    finally:
        await eraser.close()
        await repository.close()


async def test_the_migration_gives_every_erased_row_its_own_id(postgres_dsn):
    """Rows erased before 0002 shared one replacement id per member: no longer."""
    folder = resources.files("stats") / "migrations"
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await connection.execute((folder / "0001_match_history.sql").read_text())
        for _ in range(3):
            match_id = uuid.uuid4()
            await connection.execute(
                "INSERT INTO match (id, game_type, started_at, finished_at, result) "
                "VALUES ($1, 'scopone_scientifico', now(), now(), '{}')", match_id)
            for seat, (member, erased) in enumerate([("pseudonym", True), ("alice", False)]):
                await connection.execute(
                    "INSERT INTO match_player (match_id, member_id, display_name, seat, won, "
                    "points, elo_delta, erased, game_type, finished_at) VALUES ($1, $2, 'x', $3, "
                    "false, 0, 0, $4, 'scopone_scientifico', now())",
                    match_id, member, seat, erased)
        assert await migrate(postgres_dsn, components=("stats",)) == MIGRATIONS
        erased = [r[0] for r in await connection.fetch(
            "SELECT member_id FROM match_player WHERE erased")]
        assert len(set(erased)) == 3 and all(m.startswith("deleted-") for m in erased)
        assert await connection.fetchval(
            "SELECT count(*) FROM match_player WHERE member_id = 'alice'") == 3
    finally:
        await connection.close()


async def test_backfill_command_agrees_with_live_recording_of_erased_players(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    members = ["m0", "m1", "m2", "m3", "m4", "m5", "m6"]
    try:
        for i in range(10):
            match = team_match(tuple(members[(i * 3 + j) % 7] for j in range(4)),
                               winner="AB"[i % 2 or i % 3 == 0], finished_ms=BASE_MS + i * 1000)
            if i in (3, 6):  # the seat's member was erased while the match was played
                erased = match.players[i % 4].anonymized(erased_member_id())
                match = replace(match, players=tuple(erased if p.seat_index == i % 4 else p
                                                     for p in match.players))
            await repository.record_match(match)
            if i == 4:
                await repository.erase_member("m2")  # after some rated matches of theirs
    finally:
        await repository.close()
    live = await _rows(postgres_dsn)
    connection = await asyncpg.connect(postgres_dsn)
    try:  # wreck what the backfill can rebuild: every rating, the deltas of the other matches
        await connection.execute("""UPDATE match_player SET elo_delta = elo_delta + 7
            WHERE match_id NOT IN (SELECT match_id FROM match_player WHERE erased)""")
        await connection.execute("UPDATE player_rating SET rating = 0, wins = 99")
        await connection.execute("DELETE FROM player_rating WHERE member_id = 'm0'")
    finally:
        await connection.close()
    assert await asyncio.to_thread(backfill.main, Settings(database_url=postgres_dsn)) == 0
    assert await _rows(postgres_dsn) == live


# -- bots and abandonment -------------------------------------------------------------------------


async def test_a_bot_row_has_no_member_and_nobody_unmoved_gets_a_rating_row(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    try:
        practice = with_bots(team_match(("alice", "bob", "carol", "dave")), 1, 3)
        left = abandoned_at(team_match(("erin", "frank", "gina", "hal")), 1)
        await repository.record_match(practice)
        await repository.record_match(left)
    finally:
        await repository.close()
    connection = await asyncpg.connect(postgres_dsn)
    try:
        rows = await connection.fetch(
            "SELECT seat, member_id, bot_level, abandoned FROM match_player WHERE match_id = $1 "
            "ORDER BY seat", uuid.UUID(practice.id))
        assert [tuple(r) for r in rows] == [(0, "alice", None, False), (1, None, "esperto", False),
                                            (2, "carol", None, False), (3, None, "esperto", False)]
        assert [tuple(r) for r in await connection.fetch(
            "SELECT id::text, rated FROM match ORDER BY rated")] == [(practice.id, False),
                                                                     (left.id, False)]
        # Only the leaver's rating moved, so only the leaver has a rating row.
        assert [tuple(r) for r in await connection.fetch(
            "SELECT member_id, rating, matches FROM player_rating")] == [("frank", 1484, 1)]
    finally:
        await connection.close()


@pytest.mark.parametrize("member, level, abandoned", [
    ("alice", "esperto", False),  # a bot is nobody
    (None, None, False),          # a person has a member id
    (None, "", False),            # a level is not empty
    (None, "esperto", True),      # a bot from the start abandons nothing
])
async def test_the_schema_refuses_a_row_neither_a_persons_nor_a_bots(postgres_dsn, member, level,
                                                                      abandoned):
    await migrate(postgres_dsn, components=("stats",))
    connection = await asyncpg.connect(postgres_dsn)
    try:
        match_id = uuid.uuid4()
        await connection.execute(
            "INSERT INTO match (id, game_type, started_at, finished_at, result) "
            "VALUES ($1, 'scopone_scientifico', now(), now(), '{}')", match_id)
        with pytest.raises(asyncpg.CheckViolationError):
            await connection.execute(
                "INSERT INTO match_player (match_id, member_id, display_name, seat, won, points, "
                "elo_delta, game_type, finished_at, bot_level, abandoned) VALUES ($1, $2, 'x', 0, "
                "false, 0, 0, 'scopone_scientifico', now(), $3, $4)",
                match_id, member, level, abandoned)
    finally:
        await connection.close()


async def test_matches_recorded_before_0003_read_as_rated_with_people_only(postgres_dsn):
    folder = resources.files("stats") / "migrations"
    connection = await asyncpg.connect(postgres_dsn)
    try:
        for name in ("0001_match_history.sql", "0002_erasure.sql"):
            await connection.execute((folder / name).read_text())
        match = team_match(("alice", "bob", "carol", "dave"))
        await connection.execute(
            "INSERT INTO match (id, game_type, started_at, finished_at, result) "
            "VALUES ($1, 'scopone_scientifico', now(), now(), '{}')", uuid.UUID(match.id))
        for p in match.players:
            await connection.execute(
                "INSERT INTO match_player (match_id, member_id, display_name, seat, team, won, "
                "points, elo_delta, game_type, finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7, "
                "$8, 'scopone_scientifico', now())", uuid.UUID(match.id), p.member_id,
                p.display_name, p.seat_index, p.team, p.won, p.points, 16 if p.won else -16)
    finally:
        await connection.close()
    assert await migrate(postgres_dsn, components=("stats",)) == MIGRATIONS
    repository = await postgres_repository(postgres_dsn)
    try:
        stored = await repository.get_match(match.id)
    finally:
        await repository.close()
    assert stored.rated
    assert [(p.bot_level, p.abandoned, p.elo_delta) for p in stored.players] == [
        (None, False, 16), (None, False, -16), (None, False, 16), (None, False, -16)]


async def test_backfill_command_agrees_with_live_recording_of_bots_and_abandonments(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    members = ["m0", "m1", "m2", "m3", "m4", "m5", "m6"]
    try:
        for i in range(12):
            match = team_match(tuple(members[(i * 3 + j) % 7] for j in range(4)),
                               winner="AB"[i % 2 or i % 3 == 0], finished_ms=BASE_MS + i * 1000)
            if i in (2, 7):
                match = with_bots(match, 1, 3)
            if i in (4, 5, 9):
                match = abandoned_at(match, i % 4)
            await repository.record_match(match)
    finally:
        await repository.close()
    live = await _rows(postgres_dsn)
    connection = await asyncpg.connect(postgres_dsn)
    try:  # wreck what the backfill must rebuild
        await connection.execute("UPDATE match_player SET elo_delta = elo_delta + 7")
        await connection.execute("UPDATE player_rating SET rating = 0, wins = 99, points = 0")
    finally:
        await connection.close()
    assert await asyncio.to_thread(backfill.main, Settings(database_url=postgres_dsn)) == 0
    assert await _rows(postgres_dsn) == live
