"""services.migrations and `tavolo migrate`: each file applied once with its checksum; an applied
file edited since stops the run before it changes anything; `--status` tells applied, pending,
edited and unknown apart, reading only."""

from __future__ import annotations

import os
import subprocess
import sys

import asyncpg
import pytest

from services.migrations import COMPONENTS, EditedMigration, State, apply, load, migrate, status
from testing.processes import free_address

EVERY = [m.label for component in COMPONENTS for m in load(component)]


def _tavolo(*args: str, dsn: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
    return subprocess.run([sys.executable, "-m", "launcher.cli", *args], capture_output=True, text=True,
                          env={**env, "DATABASE_URL": dsn, "LOG_LEVEL": "WARNING", **extra}, timeout=60)


async def _execute(dsn: str, sql: str, *args: object) -> None:
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(sql, *args)
    finally:
        await connection.close()


async def _fetch(dsn: str, sql: str) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(dsn)
    try:
        return await connection.fetch(sql)
    finally:
        await connection.close()


async def test_every_applied_migration_is_recorded_with_the_sha256_of_its_file(postgres_dsn):
    assert await migrate(postgres_dsn) == EVERY
    rows = await _fetch(postgres_dsn, "SELECT component, name, checksum FROM schema_migrations")
    expected = {(m.component, m.name): m.checksum for c in COMPONENTS for m in load(c)}
    assert {(r["component"], r["name"]): r["checksum"] for r in rows} == expected
    assert all(len(checksum) == 64 for checksum in expected.values())


async def test_a_database_without_the_ledger_has_every_migration_pending_and_status_makes_nothing(postgres_dsn):
    found = await status(postgres_dsn)
    assert [f"{m.component}/{m.name}" for m in found] == EVERY
    assert {m.state for m in found} == {State.PENDING}
    assert await _fetch(postgres_dsn, "SELECT to_regclass('schema_migrations') AS t") == [(None,)]


async def test_an_applied_migration_edited_since_stops_the_run_before_it_applies_anything(postgres_dsn):
    await migrate(postgres_dsn, components=("game",))
    await _execute(postgres_dsn, "UPDATE schema_migrations SET checksum = 'not the file' "
                                 "WHERE component = 'game' AND version = 2")

    with pytest.raises(EditedMigration) as raised:
        await migrate(postgres_dsn)

    assert raised.value.edited == ["game/0002_game_unfinished.sql"]
    assert "restore the file as it was applied and put the change in a new migration" in str(raised.value)
    components = {r["component"] for r in await _fetch(postgres_dsn, "SELECT component FROM schema_migrations")}
    assert components == {"game"}  # the lobby's, stats'... were not applied
    states = {f"{m.component}/{m.name}": m.state for m in await status(postgres_dsn)}
    assert states["game/0002_game_unfinished.sql"] is State.EDITED
    assert states["game/0001_game_log.sql"] is State.APPLIED
    assert states["lobby/0001_lobby_games.sql"] is State.PENDING


async def test_rows_applied_before_checksums_were_kept_are_adopted_at_the_next_run(postgres_dsn):
    """A database migrated by an older release: the ledger without the checksum column."""
    await _execute(postgres_dsn, """CREATE TABLE schema_migrations (
        component text NOT NULL, version integer NOT NULL, name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (component, version))""")
    connection = await asyncpg.connect(postgres_dsn)
    try:
        for migration in load("stats"):
            await connection.execute(migration.sql)
            await connection.execute("INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)",
                                     "stats", migration.version, migration.name)
    finally:
        await connection.close()
    before = {m.name: m.state for m in await status(postgres_dsn, components=("stats",))}
    assert set(before.values()) == {State.APPLIED}  # nothing to compare with yet

    assert await migrate(postgres_dsn, components=("stats",)) == []

    rows = await _fetch(postgres_dsn, "SELECT name, checksum FROM schema_migrations")
    assert {r["name"]: r["checksum"] for r in rows} == {m.name: m.checksum for m in load("stats")}


async def test_a_migration_of_another_release_is_unknown(postgres_dsn):
    connection = await asyncpg.connect(postgres_dsn)
    try:
        await apply(connection, ("bots",))
        await connection.execute("INSERT INTO schema_migrations (component, version, name, checksum) "
                                 "VALUES ('bots', 99, '0099_from_the_future.sql', 'x')")
    finally:
        await connection.close()
    found = await status(postgres_dsn, components=("bots",))
    states = [(m.name, m.state) for m in found]
    assert states[0] == ("0001_bot_tables.sql", State.APPLIED)
    assert states[-1] == ("0099_from_the_future.sql", State.UNKNOWN)
    assert all(m.state is State.APPLIED for m in found[:-1])


async def test_the_status_command_lists_each_state_and_exits_by_the_worst(postgres_dsn):
    pending = _tavolo("migrate", "--status", dsn=postgres_dsn)
    assert pending.returncode == 3, pending.stderr
    assert pending.stdout.splitlines()[-1] == f"0 applied, {len(EVERY)} pending, 0 edited, 0 unknown"

    migrated = _tavolo("migrate", dsn=postgres_dsn)
    assert migrated.returncode == 0, migrated.stderr
    assert migrated.stdout.splitlines()[0] == f"applied {len(EVERY)} migration(s)"
    current = _tavolo("migrate", "--status", dsn=postgres_dsn)
    assert current.returncode == 0, current.stderr
    lines = current.stdout.splitlines()
    assert lines[0].split() == ["COMPONENT", "MIGRATION", "STATE", "APPLIED", "AT"]
    assert lines[1].split()[:3] == ["game", "0001_game_log.sql", "applied"]
    assert lines[-1] == f"{len(EVERY)} applied, 0 pending, 0 edited, 0 unknown"

    await _execute(postgres_dsn, "UPDATE schema_migrations SET checksum = 'x' WHERE component = 'talk'")
    edited = _tavolo("migrate", "--status", dsn=postgres_dsn)
    assert edited.returncode == 1
    assert [line.split()[:3] for line in edited.stdout.splitlines() if " edited " in line] == [
        ["talk", "0001_talk.sql", "edited"]]
    refused = _tavolo("migrate", dsn=postgres_dsn)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("tavolo migrate: talk/0001_talk.sql: edited after it was applied")


async def test_a_service_starting_on_an_edited_migration_stops_with_one_line(postgres_dsn):
    await migrate(postgres_dsn, components=("bots",))
    await _execute(postgres_dsn, "UPDATE schema_migrations SET checksum = 'x' "
                                 "WHERE component = 'bots' AND version = 1")
    started = _tavolo("serve", "bots", dsn=postgres_dsn, BOTS_ADDR=free_address())
    assert started.returncode == 1 and "Traceback" not in started.stderr
    assert "tavolo serve bots: bots/0001_bot_tables.sql: edited after it was applied" in started.stderr
