"""``tavolo serve gateway``: the Starlette app under uvicorn, wired to the services; a stop signal
drains it before uvicorn shuts down (gateway.draining)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
from collections.abc import Callable, Coroutine, Iterator
from types import FrameType

import uvicorn

from bots.analysis_client import AnalysisClient
from game.client import GameClient
from game.live_link import LiveLink
from gateway.app import Backends, close_live, create_app
from gateway.auth import Auth
from gateway.draining import REQUESTS_FINISH_SECONDS
from gateway.online import MemoryOnline, RedisOnline
from gateway.presence import MemoryPresence, RedisPresence
from gateway.rate_limits import rate_limits
from gateway.sessions import SESSION_TTL_SECONDS, MemorySessionStore, RedisSessionStore
from gateway.turn_notices import RedisThrottle, TurnStream
from gateway.watchers import MemoryWatchers, RedisWatchers
from gateway.ws import MAX_MESSAGE_BYTES
from lobby.client import LobbyClient
from lobby.players_client import PlayersClient
from services.components import Component
from services.config import Settings
from services.observability import telemetry as otel
from services.rpc.channels import PEOPLE_CALLS
from services.rpc.server import freeze_start_up_heap
from services.rpc.transport_security import ClientCredentials
from services.stores import Keys, redis_for
from stats.client import StatsClient
from talk.client import TalkClient

log = logging.getLogger(__name__)


def build(settings: Settings, telemetry: otel.Telemetry | None = None):
    """The app and what must be closed after it (``telemetry``: services.observability.telemetry, or None)."""
    redis = redis_for(settings)
    if redis is None:
        log.info("gateway: REDIS_URL unset, keeping sessions in memory (one replica only)")
    sessions = (RedisSessionStore(redis, Keys(settings.redis_key_prefix), SESSION_TTL_SECONDS)
                if redis is not None else MemorySessionStore())
    # People wait for these answers: a service that is down is a 503 within a second.
    credentials = ClientCredentials.of(settings.grpc_security)
    backends = Backends(
        lobby=LobbyClient(settings.lobby_addr, policy=PEOPLE_CALLS,
                          credentials=credentials.for_service("lobby")),
        game=GameClient(settings.game_addr, policy=PEOPLE_CALLS,
                        credentials=credentials.for_service("game")),
        stats=StatsClient(settings.stats_addr, policy=PEOPLE_CALLS,
                          credentials=credentials.for_service("stats")),
        live=LiveLink(settings.game_addr, replicas_address=settings.game_replicas_addr,
                      policy=PEOPLE_CALLS, credentials=credentials.for_service("game")),
        # TalkService is served by the lobby's process (docs/architecture.md).
        talk=TalkClient(settings.lobby_addr, policy=PEOPLE_CALLS,
                        credentials=credentials.for_service("lobby")),
        # So is PlayersService.
        players=PlayersClient(settings.lobby_addr, policy=PEOPLE_CALLS,
                              credentials=credentials.for_service("lobby")),
        # AnalysisService is served by the bots' process.
        analysis=AnalysisClient(settings.bots_addr, policy=PEOPLE_CALLS,
                                credentials=credentials.for_service("bots")),
    )
    auth = Auth(settings, sessions, directory=backends.lobby)
    if settings.web_push is None:
        log.warning("gateway: WEB_PUSH_VAPID_PRIVATE_KEY is unset: Web Push is disabled "
                    "(docs/operations.md, Web Push)")
    presence = (RedisPresence(redis, Keys(settings.redis_key_prefix)) if redis is not None
                else MemoryPresence())
    watchers = (RedisWatchers(redis, Keys(settings.redis_key_prefix)) if redis is not None
                else MemoryWatchers())
    online = (RedisOnline(redis, Keys(settings.redis_key_prefix)) if redis is not None
              else MemoryOnline())
    limits = rate_limits(settings.rate_limits, redis, Keys(settings.redis_key_prefix))
    # Daily tables' turns come from the game service over Redis: without it, none (gateway.turn_notices).
    turns, throttle = ((TurnStream(redis, Keys(settings.redis_key_prefix)),
                        RedisThrottle(redis, Keys(settings.redis_key_prefix))) if redis is not None
                       else (None, None))
    if redis is None:
        log.warning("gateway: REDIS_URL unset, no your_turn notices of daily games")
    app = create_app(settings, backends, auth, telemetry=telemetry, presence=presence,
                     limits=limits, watchers=watchers, online=online, turns=turns, push_throttle=throttle)

    async def close() -> None:
        await close_live(app)
        await app.state.game_types.aclose()
        for client in (backends.lobby, backends.game, backends.stats, backends.live, backends.talk,
                       backends.players, backends.analysis):
            if client is not None:
                await client.close()
        await auth.aclose()
        if redis is not None:
            await redis.aclose()

    return app, close


async def run(settings: Settings) -> None:
    async with otel.running(settings, Component.GATEWAY) as telemetry:  # telemetry hook: before any channel
        await _serve(settings, telemetry)


def uvicorn_config(app, settings: Settings) -> uvicorn.Config:
    """How uvicorn serves the gateway's ``app``."""
    return uvicorn.Config(
        app,
        host=settings.app_host,
        port=settings.app_port,
        ws_max_size=MAX_MESSAGE_BYTES,  # CONTRACT: a bigger message closes the socket with 1009
        # X-Forwarded-Proto from the ingress decides the cookie's Secure and the scheme of the
        # gateway's own origin, X-Forwarded-For the client's address: believed only from the
        # proxies FORWARDED_ALLOW_IPS names (anyone else could claim to be https).
        proxy_headers=True,
        forwarded_allow_ips=list(settings.forwarded_allow_ips),
        log_config=None,
        access_log=False,
        # The views are small and sent to many sockets: compressing each frame for each socket
        # costs more CPU (and a zlib context of memory per socket) than the bytes it saves.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=REQUESTS_FINISH_SECONDS,
    )


class DrainingServer(uvicorn.Server):
    """uvicorn, whose first stop signal drains the gateway (gateway.draining) before uvicorn's
    own shutdown begins; a second one stops it at once."""

    def __init__(self, config: uvicorn.Config, drain: Callable[[], Coroutine[None, None, None]]):
        super().__init__(config)
        self._drain = drain
        self._stop_signal: int | None = None
        self._draining: asyncio.Task[None] | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self._stop_signal is None:  # the drain starts on the next tick (this is a signal handler)
            self._stop_signal = sig
        else:
            super().handle_exit(sig, frame)

    async def on_tick(self, counter: int) -> bool:
        if self._stop_signal is not None:
            if self._draining is None:
                self._draining = asyncio.create_task(self._drain(), name="drain")
            elif self._draining.done() and not self.should_exit:
                if not self._draining.cancelled() and self._draining.exception() is not None:
                    log.error("the drain failed", exc_info=self._draining.exception())
                super().handle_exit(self._stop_signal, None)  # now uvicorn's shutdown
        return await super().on_tick(counter)

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().serve(sockets)
        finally:
            if self._draining is not None and not self._draining.done():
                self._draining.cancel()  # stopped at once by a second signal


async def _serve(settings: Settings, telemetry: otel.Telemetry | None) -> None:
    app, close = build(settings, telemetry)
    config = uvicorn_config(app, settings)
    freeze_start_up_heap()
    # uvicorn's own log is capped at WARNING with every dependency's (CONFIG.md): say it here.
    log.info("gateway starting on http://%s:%d", settings.app_host, settings.app_port)
    with _surviving_sigterm():
        try:
            await DrainingServer(config, lambda: app.state.drain.run(app)).serve()
        finally:
            await close()


@contextlib.contextmanager
def _surviving_sigterm() -> Iterator[None]:
    """uvicorn stops gracefully on SIGTERM, then raises the signal again to the handler it found:
    with the default one the process died right there, before the feeds, the channels and the
    telemetry were closed (the last spans and metrics lost). A handler of ours that does nothing
    lets ``run`` finish and the process exit 0."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
