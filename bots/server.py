"""``tavolo serve bots``: the bots service on BOTS_ADDR.

With DATABASE_URL set it applies the bots migrations and keeps which tables bots play in
Postgres, shared by every replica (a replica that dies leaves its tables to the others);
without, it keeps them in memory for a single replica.
"""

from __future__ import annotations

import logging

from bots.driver import GameLinks
from bots.service import Bots
from bots.servicer import register
from bots.store import DriveStore, MemoryDriveStore, PostgresDriveStore
from game.client import GameClient
from game.live_link import LiveLink
from services.components import BOTS_SERVICE, Component
from services.config import Settings
from services.migrations import migrate
from services.observability import telemetry
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import postgres_pool, when_reachable

log = logging.getLogger(__name__)


async def open_store(settings: Settings) -> DriveStore:
    database = settings.database
    if database is None:
        log.info("bots: DATABASE_URL unset, keeping the bots' tables in memory (one replica only)")
        return MemoryDriveStore()
    cache = database.statement_cache_size

    async def open_postgres() -> DriveStore:
        for name in await migrate(database.url, components=("bots",), statement_cache_size=cache):
            log.info("bots: applied migration %s", name)
        return PostgresDriveStore(await postgres_pool(database.url, name="bots",
                                                      statement_cache_size=cache))

    return await when_reachable("bots: Postgres", open_postgres)


async def build(settings: Settings) -> ServiceSpec:
    """The bots ServiceSpec with its store open; ``on_stop`` closes it."""
    store = await open_store(settings)
    # A bot watches its seat and moves at the table's owner, as a gateway does
    # (GAME_REPLICAS_ADDR); only its reads of the log go to any replica.
    credentials = ClientCredentials.of(settings.grpc_security).for_service("game")
    game = GameLinks(GameClient(settings.game_addr, credentials=credentials),
                     LiveLink(settings.game_addr, replicas_address=settings.game_replicas_addr,
                              credentials=credentials))
    bots = Bots(store, game, settings.bot_think_ms)

    async def close() -> None:
        await game.close()
        await store.close()

    return ServiceSpec(name=Component.BOTS, full_names=(BOTS_SERVICE,),
                       register=lambda server: register(server, bots),
                       probe=store.probe, on_stop=close, background=[bots.run])


async def run(settings: Settings) -> None:
    async with telemetry.running(settings, Component.BOTS):  # telemetry hook: before any channel opens
        await serve(await build(settings), settings.bots_addr, security=settings.grpc_security,
                    max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
