"""``tavolo backfill-elo``: recompute every rating and every Elo delta from the match history.

Matches are replayed in finished order (finished_at, then id) in one transaction, through the
same settlement live recording uses, so the result equals what recording them in that order
produced. Recording waits while it runs; reads go on. Members erased meanwhile stay unrated.
"""

from __future__ import annotations

import asyncio
import sys

import asyncpg

from services.config import Database, Settings
from services.migrations import migrate
from services.rpc.errors import ServiceError
from services.stores import POSTGRES_DOWN, postgres_pool
from stats.model import RecalculationSummary
from stats.repository import PostgresStatsRepository


async def recalculate(database: Database) -> RecalculationSummary:
    """One transaction on the primary (DATABASE_URL; a transaction pooler will do): its cursor,
    temporary table (dropped at commit) and COPYs all live within it."""
    cache = database.statement_cache_size
    await migrate(database.url, components=("stats",), statement_cache_size=cache)
    # No command timeout: rewriting a long history may take longer than a request would.
    pool = await postgres_pool(database.url, min_size=1, max_size=1, name="stats_backfill", command_timeout=None,
                               statement_cache_size=cache)
    repository = PostgresStatsRepository(pool)
    try:
        return await repository.recalculate()
    finally:
        await repository.close()


def main(settings: Settings) -> int:
    database = settings.database
    if database is None:
        print("tavolo backfill-elo: no database configured (set DATABASE_URL or DATABASE_*)",
              file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(recalculate(database))
    except (ServiceError, *POSTGRES_DOWN, asyncpg.PostgresError) as error:  # down, or refusing
        print(f"tavolo backfill-elo: failed, nothing changed: {error}", file=sys.stderr)
        return 1
    print(f"replayed {summary.matches} match(es): {summary.ratings} rating(s) rewritten, "
          f"{summary.changed_deltas} Elo delta(s) corrected")
    return 0
