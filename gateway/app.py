"""The gateway's Starlette application: CONTRACT.md's REST and WebSocket routes, login, docs, the SPA."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Route, WebSocketRoute

from gateway import (
    games,
    history,
    member_socket,
    members,
    open_games,
    openapi,
    players,
    seating,
    spectating,
    table_talk,
    web_push,
    ws,
)
from gateway.auth import Auth
from gateway.backends import Backends
from gateway.bot_talk import BotTalk
from gateway.client_addresses import GAUGE as CLIENT_ADDRESSES_GAUGE
from gateway.client_addresses import ClientAddresses, ClientAddressWatch
from gateway.draining import Drain
from gateway.game_types import GameTypes
from gateway.http_errors import HANDLERS, UNAVAILABLE_TEXT, problem
from gateway.member_feed import MemberFeed
from gateway.online import MemoryOnline, Online
from gateway.open_feed import OpenGamesFeed
from gateway.origins import OriginPolicy
from gateway.presence import Presence
from gateway.push_sender import push, push_sender_for
from gateway.rate_limits import MemoryBuckets, RateLimiting, RateLimits, rate_limits
from gateway.sessions import session_id
from gateway.socket_registry import SocketRegistry
from gateway.spa import SinglePageApp
from gateway.table_feed import TableFeeds
from gateway.turn_notices import MemoryThrottle, Throttle, TurnNotices, TurnNoticeWorker, TurnStream
from gateway.watchers import Watchers
from services.config import Settings
from services.observability.http_telemetry import HttpTelemetry
from services.observability.telemetry import Gauge, active_users

if TYPE_CHECKING:
    from services.observability.telemetry import Telemetry


async def method_not_allowed(request: Request) -> JSONResponse:
    """A POST-only path that a GET-able route with a parameter would otherwise take
    (/api/games/join is not a game id)."""
    return problem(405, "Method Not Allowed", {"Allow": "POST"})


def methods_serving(routes: list[BaseRoute], request: Request) -> list[str]:
    """The methods that the API routes matching the request's path serve, which is not its
    method (Starlette's partial match); none when no API route has the path."""
    return sorted({method for route in routes if isinstance(route, Route) and route.methods
                   and route.matches(request.scope)[0] is Match.PARTIAL
                   for method in route.methods})


async def upgrade_required(request: Request) -> JSONResponse:
    """A plain GET of a game's socket URL: it serves only WebSocket upgrades (RFC 9110's 426
    names the protocol to switch to), not an unknown route's 404."""
    return problem(426, "Upgrade Required", {"Upgrade": "websocket"})


async def health(request) -> JSONResponse:
    """The readiness probe's: 503 once the gateway stops (gateway.draining), so that no new
    connection is sent here."""
    if request.app.state.drain.started:
        return problem(503, UNAVAILABLE_TEXT)
    return JSONResponse({"status": "ok"})


def create_app(settings: Settings, backends: Backends, auth: Auth,
               telemetry: Telemetry | None = None, presence: Presence | None = None,
               limits: RateLimits | None = None, watchers: Watchers | None = None,
               online: Online | None = None, turns: TurnStream | None = None,
               push_throttle: Throttle | None = None) -> Starlette:
    """The app; ``presence``, ``watchers``, ``online`` and ``limits`` are shared by the gateway
    processes (gateway.presence, gateway.watchers, gateway.online, gateway.rate_limits; None:
    this process alone); ``turns``: the stream of daily tables' turns this process reads with
    the others, and ``push_throttle`` their pushes' (gateway.turn_notices; None: no `your_turn`)."""
    origins = OriginPolicy(settings.cors)
    routes = [
        Route("/api/health", health),
        *openapi.routes(),
        *auth.routes(),
        Route("/api/me", members.me, methods=["GET", "DELETE"]),
        Route("/api/me/games", games.my_games),
        Route("/api/me/matches", history.matches),
        Route("/api/me/ratings", history.ratings),
        Route("/api/me/muted", table_talk.muted, methods=["GET", "POST"]),
        Route("/api/me/muted/{player}", table_talk.unmute, methods=["DELETE"]),
        Route("/api/me/settings", players.settings, methods=["GET", "PUT"]),
        Route("/api/me/following", players.following, methods=["GET", "POST"]),
        Route("/api/me/following/{player}", players.unfollow, methods=["DELETE"]),
        Route("/api/me/blocked", players.blocked, methods=["GET", "POST"]),
        Route("/api/me/blocked/{player}", players.unblock, methods=["DELETE"]),
        Route("/api/me/invitations", players.invitations),
        Route("/api/players/{player}", players.player_page),
        Route("/api/push/key", web_push.public_key),
        Route("/api/me/push", web_push.subscriptions, methods=["POST", "DELETE"]),
        Route("/api/leaderboard", history.leaderboard),
        Route("/api/phrases", table_talk.phrases),
        Route("/api/game-types", games.game_types),
        Route("/api/games", games.create_game, methods=["POST"]),
        Route("/api/games/join", games.join_game, methods=["POST"]),
        Route("/api/games/join", method_not_allowed),  # not a game id: 405 for any other method
        Route("/api/games/preview", games.preview),
        Route("/api/games/open", open_games.list_open),
        Route("/api/games/open/events", open_games.watch_open),
        Route("/api/games/quick", open_games.quick_match, methods=["POST"]),
        Route("/api/games/quick", method_not_allowed),
        Route("/api/games/live", spectating.live),
        Route("/api/games/{id}", games.get_game),
        Route("/api/games/{id}/watch", spectating.watch),
        Route("/api/games/{id}/log", games.get_log),
        Route("/api/games/{id}/rematch", games.rematch, methods=["POST"]),
        Route("/api/games/{id}/bots", seating.add_bot, methods=["POST"]),
        Route("/api/games/{id}/bots/{seat}", seating.remove_bot, methods=["DELETE"]),
        Route("/api/games/{id}/seat", seating.change_seat, methods=["POST"]),
        Route("/api/games/{id}/leave", seating.leave, methods=["POST"]),
        Route("/api/games/{id}/return", seating.take_seat_back, methods=["POST"]),
        Route("/api/games/{id}/open", open_games.set_open, methods=["POST"]),
        Route("/api/games/{id}/invite", players.invite, methods=["POST"]),
        Route("/api/games/{id}/chat", table_talk.history),
        Route("/api/games/{id}/chat/{message_id}/report", table_talk.report, methods=["POST"]),
        WebSocketRoute("/ws/games/{id}", ws.game_socket),
        Route("/ws/games/{id}", upgrade_required, methods=["GET"]),
        WebSocketRoute("/ws/games/{id}/watch", ws.watch_socket),
        Route("/ws/games/{id}/watch", upgrade_required, methods=["GET"]),
        WebSocketRoute("/ws/me", member_socket.member_socket),
        Route("/ws/me", upgrade_required, methods=["GET"]),
    ]
    api_routes = list(routes)
    spa = SinglePageApp(settings.static_dir)

    async def page(request: Request) -> Response:
        # A GET of a path that the API serves for other methods only (DELETE
        # /api/me/following/{player}) is a wrong method, not an unknown route: 405 naming them,
        # before this catch-all's 404. Other methods reach on_http_exception below.
        allowed = methods_serving(api_routes, request)
        if allowed:
            return problem(405, "Method Not Allowed", {"Allow": ", ".join(allowed)})
        return await spa.page(request)

    routes.append(Route("/{path:path}", page))

    async def on_http_exception(request: Request, exc: Exception) -> JSONResponse:
        # A wrong method on a path only the SPA's catch-all knows is an unknown route: 404.
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405 and not any(
            route.matches(request.scope)[0] is not Match.NONE for route in api_routes
        ):
            return problem(404, "Not Found")
        return problem(exc.status_code, str(exc.detail), exc.headers)

    # The live path: one feed per table for this process's sockets, and the events (logouts,
    # erasures) heard through the session store's bus.
    online = online or MemoryOnline()
    feeds = TableFeeds(backends.live, backends.lobby, settings.abandon_after_timeouts,
                       auth.sessions.events.publish, presence, watchers, online)
    feeds.bot_talk = BotTalk(backends.talk, auth.sessions.events.publish)
    member_feed = MemberFeed(backends.lobby, backends.players, online, backends.game)
    sockets = SocketRegistry(auth.sessions.events, feeds, member_feed)
    # A socket's first or last of its player here is told to every process; the leases are
    # renewed by the feeds' loop, with presence's.
    online.publish, online.local, online.renewing = (auth.sessions.events.publish, sockets.handle,
                                                     feeds.keep_renewing)
    middleware, gauges = origins.middleware(), None
    addresses = ClientAddresses()
    middleware.append(Middleware(ClientAddressWatch, addresses=addresses))

    limits = limits or rate_limits(settings.rate_limits, None)
    if limits.enabled:  # inside CORS, so that a 429 carries its headers
        middleware.append(Middleware(RateLimiting, limits=limits))
    if telemetry is not None:  # telemetry hook: spans tagged session.id/user.id, active-users gauge
        middleware.insert(0, Middleware(HttpTelemetry, telemetry=telemetry,
                                        session_of=lambda scope: session_id(HTTPConnection(scope))))
        auth.member = telemetry.user_tagging(auth.member)  # type: ignore[method-assign]
        gauges = telemetry.gauges([active_users(auth.sessions.count), Gauge(
            CLIENT_ADDRESSES_GAUGE, addresses.count,
            "Distinct client addresses of the last 500 requests: one or two for many sessions "
            "is a wrong FORWARDED_ALLOW_IPS", unit="{address}")]).lifespan

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if gauges is not None:
                await stack.enter_async_context(gauges(app))
            if app.state.turn_notices is not None:
                app.state.turn_notices.start()
            try:
                yield
            finally:
                await close_live(app)

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan,
                    exception_handlers={**HANDLERS, HTTPException: on_http_exception})
    app.state.settings = settings
    app.state.telemetry = telemetry
    app.state.client_addresses = addresses
    app.state.backends = backends
    app.state.game_types = GameTypes(backends.lobby)  # kept: they change with a deploy
    app.state.auth = auth
    app.state.origins = origins
    app.state.rate_limits = limits
    # A socket's messages are counted where the socket lives: no store call on the live path.
    app.state.socket_limits = RateLimits(settings.rate_limits, MemoryBuckets())
    app.state.feeds = feeds
    app.state.talk_limits = table_talk.TalkLimits()  # like socket_limits: where the socket lives
    app.state.open_games = OpenGamesFeed(backends.lobby)
    app.state.sockets = sockets
    app.state.online = online
    app.state.members = member_feed
    app.state.drain = Drain(settings.shutdown_drain_seconds)
    # Web Push (gateway.push_sender): None when no VAPID key is set.
    app.state.push = push_sender_for(settings, backends.players)
    app.state.turn_notices = None
    if turns is not None:
        notices = TurnNotices(backends.lobby, feeds.presence, auth.sessions.events.publish,
                              push_throttle or MemoryThrottle(),
                              push=(None if app.state.push is None
                                    else lambda member_id, payload: push(app, member_id, payload)),
                              game_names=lambda: _game_names(app.state.game_types))
        app.state.turn_notices = TurnNoticeWorker(turns, notices)
    return app


async def _game_names(game_types: GameTypes) -> dict[str, str]:
    return {game_type.id: game_type.name for game_type in await game_types.get()}


async def close_live(app: Starlette) -> None:
    """Stop the table feeds and stop hearing events (idempotent)."""
    await app.state.feeds.aclose()
    await app.state.online.aclose()
    await app.state.members.aclose()
    if app.state.turn_notices is not None:
        await app.state.turn_notices.aclose()
    if app.state.feeds.bot_talk is not None:
        await app.state.feeds.bot_talk.aclose()
    await app.state.open_games.aclose()
    await app.state.sockets.bus.aclose()
    if app.state.push is not None:
        await app.state.push.aclose()
