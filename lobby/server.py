"""``tavolo serve lobby``: the store the settings name, a channel to the game service, the server."""

from __future__ import annotations

import asyncio
import logging

from lobby.game_api import IDEMPOTENT, GameApi
from lobby.game_api import SERVICE as GAME_SERVICE
from lobby.service import Lobby
from lobby.servicer import SERVICE, register
from lobby.store import LobbyStore, MemoryLobbyStore, RedisLobbyStore
from services.channels import open_channel
from services import telemetry
from services.config import Settings
from services.server import ServiceSpec, serve
from services.stores import Keys, redis_client

log = logging.getLogger(__name__)


def build_store(settings: Settings) -> LobbyStore:
    """Redis when REDIS_URL is set (replicas share it), else memory (one replica)."""
    if settings.redis_url is None:
        log.info("REDIS_URL is unset: games are kept in memory (one replica only)")
        return MemoryLobbyStore(settings.game_ttl_seconds)
    return RedisLobbyStore(redis_client(settings.redis_url), Keys(settings.redis_key_prefix),
                           settings.game_ttl_seconds)


async def run(settings: Settings, *, started: asyncio.Event | None = None,
              stop: asyncio.Event | None = None) -> None:
    """Serve LobbyService on LOBBY_ADDR until SIGTERM (or ``stop``)."""
    async with telemetry.running(settings, "lobby"):  # telemetry hook: before any channel opens
        await _serve(settings, started=started, stop=stop)


async def _serve(settings: Settings, *, started: asyncio.Event | None,
                 stop: asyncio.Event | None) -> None:
    store = build_store(settings)
    channel = open_channel(settings.game_addr, GAME_SERVICE, idempotent=IDEMPOTENT)
    lobby = Lobby(store, GameApi(channel))

    async def close() -> None:
        await channel.close()
        await store.close()

    spec = ServiceSpec(name="lobby", full_names=(SERVICE,),
                       register=lambda server: register(server, lobby),
                       probe=store.ping, on_stop=close)
    await serve(spec, settings.lobby_addr, started=started, stop=stop)
