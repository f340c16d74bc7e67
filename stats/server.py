"""``tavolo serve stats``: the stats service on STATS_ADDR.

With DATABASE_URL set it applies the stats migrations, then keeps matches in Postgres (health
follows ``SELECT 1``); without, it keeps them in memory for a single replica.
"""

from __future__ import annotations

import logging

from lobby.client import LobbyClient
from services.components import STATS_SERVICE, Component
from services.config import Settings
from services.migrations import migrate
from services.observability import telemetry
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import postgres_pool, when_reachable
from stats.cursor import CursorCodec
from stats.repository import MemoryStatsRepository, PostgresStatsRepository, StatsRepository
from stats.service import StatsService
from stats.servicer import StatsServicer, register

log = logging.getLogger(__name__)

# DEVELOPMENT DEFAULT ONLY, used when STATS_CURSOR_SECRET is unset. This constant is public, so
# tokens it signs are forgeable by anyone who reads this file; production sets the variable.
DEV_CURSOR_SECRET = b"tavolo-dev-only-stats-cursor-secret-do-not-use-in-production"


def cursor_secret(settings: Settings) -> bytes:
    """The key that signs page tokens: STATS_CURSOR_SECRET, shared by every replica."""
    if settings.stats_cursor_secret:
        return settings.stats_cursor_secret.encode()
    log.warning("stats: page tokens signed with the development default key "
                "(set STATS_CURSOR_SECRET in production)")
    return DEV_CURSOR_SECRET


async def open_repository(settings: Settings) -> StatsRepository:
    database = settings.database
    if database is None:
        log.info("stats: DATABASE_URL unset, keeping matches in memory (one replica only)")
        return MemoryStatsRepository()
    cache = database.statement_cache_size

    async def open_postgres() -> StatsRepository:
        for name in await migrate(database.url, components=("stats",), statement_cache_size=cache):
            log.info("stats: applied migration %s", name)
        pool = await postgres_pool(database.url, name="stats", statement_cache_size=cache)
        if not database.separate_reads:
            return PostgresStatsRepository(pool)
        try:
            reads = await postgres_pool(database.read_url, name="stats_reads", statement_cache_size=cache)
        except BaseException:
            await pool.close()
            raise
        log.info("stats: history, ratings and leaderboard are read from DATABASE_READ_URL")
        return PostgresStatsRepository(pool, read_pool=reads)

    return await when_reachable("stats: Postgres", open_postgres)


async def build(settings: Settings) -> ServiceSpec:
    """The stats ServiceSpec with its stores open; ``on_stop`` closes them."""
    repository = await open_repository(settings)
    lobby = LobbyClient(settings.lobby_addr, timeout_seconds=5.0,
                        credentials=ClientCredentials.of(settings.grpc_security)
                        .for_service("lobby"))
    service = StatsService(repository, lobby, CursorCodec(cursor_secret(settings)))

    async def close() -> None:
        await lobby.close()
        await repository.close()

    return ServiceSpec(
        name=Component.STATS,
        full_names=(STATS_SERVICE,),
        register=register(StatsServicer(service)),
        probe=repository.probe,
        on_stop=close,
    )


async def run(settings: Settings) -> None:
    async with telemetry.running(settings, Component.STATS):  # telemetry hook: before any channel opens
        await serve(await build(settings), settings.stats_addr, security=settings.grpc_security,
                    max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
