"""Numbered SQL migrations, applied once each, safely from many replicas at once.

Each component that owns Postgres tables keeps ``<component>/migrations/NNNN_name.sql``.
:func:`migrate` takes a transaction-level advisory lock, so two replicas starting together
apply each file exactly once; ``schema_migrations`` records what is applied, with the SHA-256 of
the file as applied. The files use ``CREATE ... IF NOT EXISTS`` so a database made by hand is
adopted, not broken.

A file edited after it was applied would leave databases that ran the old text apart from those
that run the new one, silently: :func:`migrate` refuses to run (:class:`EditedMigration`) until
the file is restored, and :func:`status` reports it (``tavolo migrate --status``). A change goes
into a new file. Rows applied before checksums were recorded get the file's checksum at the next
run (their text cannot be known any more).
"""

from __future__ import annotations

import enum
import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import datetime
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
);
ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text
"""

COMPONENTS = ("game", "lobby", "stats", "bots", "talk")


@dataclass(frozen=True)
class Migration:
    component: str
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        """SHA-256 of the file's text: what the ledger keeps of it."""
        return hashlib.sha256(self.sql.encode()).hexdigest()

    @property
    def label(self) -> str:
        return f"{self.component}/{self.name}"


class State(enum.StrEnum):
    APPLIED = "applied"
    PENDING = "pending"
    EDITED = "edited"  # applied, and the file changed since
    UNKNOWN = "unknown"  # applied by another release: this one has no such file


@dataclass(frozen=True)
class MigrationStatus:
    component: str
    version: int
    name: str
    state: State
    applied_at: datetime | None = None


class EditedMigration(RuntimeError):
    """Migrations whose files changed after they were applied: the run stops before it changes
    anything."""

    def __init__(self, edited: list[str]):
        self.edited = edited
        super().__init__(
            f"{', '.join(edited)}: edited after it was applied (its SHA-256 differs from the one "
            "recorded in schema_migrations); restore the file as it was applied and put the "
            "change in a new migration")


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
        pending: list[Migration] = []
        edited: list[str] = []
        for component in components:
            done = {
                row["version"]: row["checksum"]
                for row in await connection.fetch(
                    "SELECT version, checksum FROM schema_migrations WHERE component = $1", component
                )
            }
            for migration in load(component):
                if migration.version not in done:
                    pending.append(migration)
                elif done[migration.version] is None:  # applied before checksums were kept
                    await connection.execute(
                        "UPDATE schema_migrations SET checksum = $3 WHERE component = $1 AND version = $2",
                        component, migration.version, migration.checksum)
                elif done[migration.version] != migration.checksum:
                    edited.append(migration.label)
        if edited:
            raise EditedMigration(edited)
        for migration in pending:
            await connection.execute(migration.sql)
            await connection.execute(
                "INSERT INTO schema_migrations (component, version, name, checksum) VALUES ($1, $2, $3, $4)",
                migration.component, migration.version, migration.name, migration.checksum,
            )
            log.info("applied migration %s", migration.label)
            applied.append(migration.label)
    return applied


async def status(dsn: str, components: tuple[str, ...] = COMPONENTS, *,
                 statement_cache_size: int = STATEMENT_CACHE_SIZE) -> list[MigrationStatus]:
    """Every migration of ``components`` and the database's ledger, compared: applied, pending,
    edited since applied, or unknown to this release. Reads only (no lock, no ledger made)."""
    connection = await postgres_connection(dsn, statement_cache_size=statement_cache_size)
    try:
        return await read_status(connection, components)
    finally:
        await connection.close()


async def read_status(connection: asyncpg.Connection,
                      components: tuple[str, ...]) -> list[MigrationStatus]:
    rows: list[asyncpg.Record] = []
    if await connection.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL"):
        has_checksum = await connection.fetchval(
            """SELECT EXISTS (SELECT 1 FROM information_schema.columns
                               WHERE table_schema = current_schema() AND table_name = 'schema_migrations'
                                 AND column_name = 'checksum')""")
        checksum = "checksum" if has_checksum else "NULL::text AS checksum"
        rows = await connection.fetch(
            f"SELECT component, version, name, applied_at, {checksum} FROM schema_migrations "
            "WHERE component = ANY($1::text[])", list(components))
    recorded = {(row["component"], row["version"]): row for row in rows}
    found: list[MigrationStatus] = []
    for component in components:
        for migration in load(component):
            row = recorded.pop((component, migration.version), None)
            if row is None:
                found.append(MigrationStatus(component, migration.version, migration.name, State.PENDING))
                continue
            same = row["checksum"] is None or row["checksum"] == migration.checksum
            found.append(MigrationStatus(component, migration.version, migration.name,
                                         State.APPLIED if same else State.EDITED, row["applied_at"]))
    for (component, version), row in recorded.items():
        found.append(MigrationStatus(component, version, row["name"], State.UNKNOWN, row["applied_at"]))
    found.sort(key=lambda m: (components.index(m.component), m.version))
    return found
