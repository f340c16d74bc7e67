"""``tavolo serve lobby``: the store the settings name, a client of the game service, the server."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from bots.client import BotsClient
from game.client import GameClient
from lobby import players_servicer
from lobby.memory_store import MemoryLobbyStore
from lobby.players import Players
from lobby.postgres_store import PostgresLobbyStore
from lobby.service import Lobby
from lobby.servicer import register
from lobby.store import LobbyStore
from services.components import LOBBY_SERVICE, PLAYERS_SERVICE, TALK_SERVICE, Component
from services.config import Settings
from services.migrations import migrate
from services.observability import telemetry
from services.rpc.channels import PEOPLE_CALLS
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import postgres_pool, when_reachable
from talk import servicer as talk_servicer
from talk.memory_store import MemoryTalkStore
from talk.postgres_store import PostgresTalkStore
from talk.service import ChatRetention, Talk
from talk.store import TalkStore

log = logging.getLogger(__name__)


async def build_store(settings: Settings) -> LobbyStore:
    """Postgres when a database is configured (durable: the seating is what a match is recorded
    with), else memory (one replica)."""
    database = settings.database
    if database is not None:
        cache = database.statement_cache_size

        async def open_postgres() -> LobbyStore:
            for name in await migrate(database.url, components=("lobby",),
                                      statement_cache_size=cache):
                log.info("lobby: applied migration %s", name)
            return PostgresLobbyStore(
                await postgres_pool(database.url, name="lobby", statement_cache_size=cache),
                database.listen_url, settings.game_ttl_seconds, statement_cache_size=cache)

        return await when_reachable("lobby: Postgres", open_postgres)
    log.info("DATABASE_URL is unset: games are kept in memory (one replica only)")
    return MemoryLobbyStore(settings.game_ttl_seconds)


async def build_talk_store(settings: Settings) -> TalkStore:
    """Table talk's store: the lobby's process serves TalkService too (docs/architecture.md),
    with tables of its own (talk/migrations) in the same database."""
    database = settings.database
    if database is not None:
        cache = database.statement_cache_size

        async def open_postgres() -> TalkStore:
            for name in await migrate(database.url, components=("talk",), statement_cache_size=cache):
                log.info("talk: applied migration %s", name)
            return PostgresTalkStore(await postgres_pool(database.url, name="talk",
                                                         statement_cache_size=cache))

        return await when_reachable("talk: Postgres", open_postgres)
    return MemoryTalkStore()


async def run(settings: Settings, *, started: asyncio.Event | None = None,
              stop: asyncio.Event | None = None) -> None:
    """Serve LobbyService, PlayersService and TalkService on LOBBY_ADDR until SIGTERM (or
    ``stop``)."""
    async with telemetry.running(settings, Component.LOBBY):  # telemetry hook: before any channel opens
        await _serve(settings, started=started, stop=stop)


async def _serve(settings: Settings, *, started: asyncio.Event | None,
                 stop: asyncio.Event | None) -> None:
    store = await build_store(settings)
    talk_store = await build_talk_store(settings)
    talk = Talk(talk_store)
    credentials = ClientCredentials.of(settings.grpc_security)
    # Creating and joining are people waiting at the gateway: a dead game service must cost
    # them well under a second of retries (the gateway does not retry a create or a join).
    # No read deadline of its own: the gateway's calls to the lobby have theirs.
    games = GameClient(settings.game_addr, policy=replace(PEOPLE_CALLS, read_deadline_seconds=None),
                       named_tables=True,
                       credentials=credentials.for_service("game"))
    bots = BotsClient(settings.bots_addr, credentials=credentials.for_service("bots"))
    lobby = Lobby(store, games, bots)

    async def close() -> None:
        await lobby.close()
        await bots.close()
        await games.close()
        await store.close()
        await talk_store.close()

    def register_all(server) -> None:
        register(server, lobby)
        players_servicer.register(server, Players(lobby))
        talk_servicer.register(server, talk)

    async def probe() -> None:
        await store.ping()
        await talk_store.ping()

    spec = ServiceSpec(name=Component.LOBBY, full_names=(LOBBY_SERVICE, PLAYERS_SERVICE, TALK_SERVICE),
                       register=register_all, probe=probe, on_stop=close,
                       background=[ChatRetention(talk_store, settings.chat_retention_days).run])
    await serve(spec, settings.lobby_addr, started=started, stop=stop,
                security=settings.grpc_security,
                max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
