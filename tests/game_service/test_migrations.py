"""The game service's migrations: applied once through services.migrations, safe to run again."""

from __future__ import annotations

import asyncpg

from services.migrations import load, migrate


async def test_the_game_migrations_apply_once_and_create_the_log_tables(postgres_dsn):
    assert await migrate(postgres_dsn, components=("game",)) == ["game/0001_game_log.sql", "game/0002_game_unfinished.sql",
                                                                 "game/0003_move_request_id.sql",
                                                                 "game/0004_game_archive.sql"]
    assert await migrate(postgres_dsn, components=("game",)) == []
    connection = await asyncpg.connect(postgres_dsn)
    try:
        tables = {row["tablename"] for row in await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        key = await connection.fetchval(
            """SELECT string_agg(a.attname, ',' ORDER BY array_position(i.indkey, a.attnum))
                 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                WHERE i.indrelid = 'game_move'::regclass AND i.indisprimary""")
    finally:
        await connection.close()
    assert {"game_table", "game_move", "game_archive", "schema_migrations"} <= tables
    assert key == "table_id,number"


async def test_the_sql_itself_is_idempotent_on_a_database_made_by_hand(postgres_dsn):
    connection = await asyncpg.connect(postgres_dsn)
    try:
        for migration in load("game"):
            await connection.execute(migration.sql)
            await connection.execute(migration.sql)
    finally:
        await connection.close()
    assert await migrate(postgres_dsn, components=("game",)) == ["game/0001_game_log.sql", "game/0002_game_unfinished.sql",
                                                                 "game/0003_move_request_id.sql",
                                                                 "game/0004_game_archive.sql"]
