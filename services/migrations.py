"""Numbered SQL migrations, applied once each, safely from many replicas at once.

Each component that owns Postgres tables keeps ``<component>/migrations/NNNN_name.sql``.
:func:`migrate` takes a transaction-level advisory lock, so two replicas starting together
apply each file exactly once; ``schema_migrations`` records what is applied. The files use
``CREATE ... IF NOT EXISTS`` so a database made by hand is adopted, not broken.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources

import asyncpg

from services.stores import STATEMENT_CACHE_SIZE, postgres_connection

log = logging.getLogger(__name__)

_FILE = re.compile(r"(\d{4})_[a-z0-9_]+\.sql")
_LOCK_KEY = 0x7461766F6C6F  # "tavolo": one advisory lock for every migration run

_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    component  text        NOT NULL,
    version    integer     NOT NULL,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (component, version)
)
"""

COMPONENTS = ("game", "lobby", "stats", "bots", "talk")


@dataclass(frozen=True)
class Migration:
    component: str
    version: int
    name: str
    sql: str


def load(component: str) -> list[Migration]:
    """The migrations of one component package, in version order."""
    folder = resources.files(component) / "migrations"
    found = []
    for entry in folder.iterdir():
        match = _FILE.fullmatch(entry.name)
        if match:
            found.append(Migration(component, int(match.group(1)), entry.name, entry.read_text()))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"{component}: two migrations share a version number")
    return found


async def migrate(dsn: str, components: tuple[str, ...] = COMPONENTS, *,
                  statement_cache_size: int = STATEMENT_CACHE_SIZE) -> list[str]:
    """Apply every pending migration of ``components``; returns the names applied.

    The run is one transaction under a transaction-level lock, so it works through a transaction
    pooler (DATABASE_URL behind PgBouncer) as well as direct."""
    connection = await postgres_connection(dsn, statement_cache_size=statement_cache_size)
    try:
        return await apply(connection, components)
    finally:
        await connection.close()


async def apply(connection: asyncpg.Connection, components: tuple[str, ...]) -> list[str]:
    applied: list[str] = []
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", _LOCK_KEY)
        await connection.execute(_LEDGER)
        for component in components:
            done = {
                row["version"]
                for row in await connection.fetch(
                    "SELECT version FROM schema_migrations WHERE component = $1", component
                )
            }
            for migration in load(component):
                if migration.version in done:
                    continue
                await connection.execute(migration.sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)",
                    component, migration.version, migration.name,
                )
                log.info("applied migration %s/%s", component, migration.name)
                applied.append(f"{component}/{migration.name}")
    return applied
