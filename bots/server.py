"""``tavolo serve bots``: the bots service on BOTS_ADDR.

With DATABASE_URL set it applies the bots migrations and keeps which tables bots play, and the
queue of match analyses, in Postgres, shared by every replica (a replica that dies leaves its
tables and its analysis to the others); without, it keeps them in memory for a single replica.
Beside BotsService it serves AnalysisService, and runs one analysis worker (bots.analysis).
"""

from __future__ import annotations

import logging

from bots.analysis import match
from bots.analysis import servicer as analysis_servicer
from bots.analysis.service import Analyses, WorkerSettings
from bots.analysis.store import AnalysisStore, MemoryAnalysisStore, PostgresAnalysisStore
from bots.driver import GameLinks
from bots.service import Bots
from bots.servicer import register
from bots.store import DriveStore, MemoryDriveStore, PostgresDriveStore
from game.client import GameClient
from game.live_link import LiveLink
from services.components import ANALYSIS_SERVICE, BOTS_SERVICE, Component
from services.config import Settings
from services.migrations import migrate
from services.observability import telemetry
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import postgres_pool, when_reachable

log = logging.getLogger(__name__)


async def open_stores(settings: Settings) -> tuple[DriveStore, AnalysisStore]:
    """The tables' store and the analyses' store: one Postgres pool, closed with the first."""
    database = settings.database
    if database is None:
        log.info("bots: DATABASE_URL unset, keeping the bots' tables and analyses in memory (one replica only)")
        return MemoryDriveStore(), MemoryAnalysisStore()
    cache = database.statement_cache_size

    async def open_postgres() -> tuple[DriveStore, AnalysisStore]:
        for name in await migrate(database.url, components=("bots",), statement_cache_size=cache):
            log.info("bots: applied migration %s", name)
        pool = await postgres_pool(database.url, name="bots", statement_cache_size=cache)
        return PostgresDriveStore(pool), PostgresAnalysisStore(pool, owns_pool=False)

    return await when_reachable("bots: Postgres", open_postgres)


async def build(settings: Settings) -> ServiceSpec:
    """The bots ServiceSpec with its store open; ``on_stop`` closes it."""
    store, analysis_store = await open_stores(settings)
    # A bot watches its seat and moves at the table's owner, as a gateway does
    # (GAME_REPLICAS_ADDR); only its reads of the log go to any replica.
    credentials = ClientCredentials.of(settings.grpc_security).for_service("game")
    game_client = GameClient(settings.game_addr, credentials=credentials)
    game = GameLinks(game_client,
                     LiveLink(settings.game_addr, replicas_address=settings.game_replicas_addr,
                              credentials=credentials))
    bots = Bots(store, game, settings.bot_think_ms)
    # The analyses read finished tables' public logs with the same client (GetLog).
    analyses = Analyses(analysis_store, game_client,
                        WorkerSettings(search=match.Settings(work=settings.analysis_work)))

    def register_both(server) -> None:
        register(server, bots)
        analysis_servicer.register(server, analyses)

    async def close() -> None:
        await game.close()
        await store.close()

    return ServiceSpec(name=Component.BOTS, full_names=(BOTS_SERVICE, ANALYSIS_SERVICE),
                       register=register_both, probe=store.probe, on_stop=close,
                       background=[bots.run, analyses.run])


async def run(settings: Settings) -> None:
    async with telemetry.running(settings, Component.BOTS):  # telemetry hook: before any channel opens
        await serve(await build(settings), settings.bots_addr, security=settings.grpc_security,
                    max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
