"""REST for finding a table: the open games, their event stream, quick match, opening a game."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse

from game.client import DEFAULT_GAME_TYPE
from gateway.backends import backends_of, request_id_of
from gateway.bodies import json_object
from gateway.contract.games import OpenGames, QuickMatchRequest, SetOpenRequest
from gateway.games import game_id_of, member_ratings, personal_view
from gateway.members import require_member
from gateway.open_feed import OpenGamesFeed
from gateway.views import lobby_view, open_game_item
from lobby.models import Game

log = logging.getLogger(__name__)

OPEN_GAMES_LIMIT = 50       # CONTRACT: at most 50
KEEPALIVE_SECONDS = 25.0    # a comment line keeps proxies from closing a quiet stream
EVENT = "open_games"


async def _game_type_filter(request: Request) -> str:
    """The ``game_type`` query parameter ("" when absent); 400 for a type nobody knows."""
    game_type = request.query_params.get("game_type", "")
    if game_type and game_type not in {t.id for t in await request.app.state.game_types.get()}:
        raise HTTPException(400, f"Unknown game type: {game_type}")
    return game_type


def _body(games: list[Game], member_id: str, game_type: str) -> OpenGames:
    listed = [game for game in games if game_type in ("", game.game_type)]
    return OpenGames(games=[open_game_item(game, member_id) for game in listed[:OPEN_GAMES_LIMIT]])


async def list_open(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_type = await _game_type_filter(request)
    games = await backends_of(request).lobby.list_open_games(game_type, OPEN_GAMES_LIMIT)
    return JSONResponse(_body(games, member.sub, game_type).body())


async def watch_open(request: Request) -> StreamingResponse:
    """Server-Sent Events: the open games at once, then whenever they change."""
    member = await require_member(request)
    game_type = await _game_type_filter(request)
    feed: OpenGamesFeed = request.app.state.open_games

    async def events() -> AsyncIterator[str]:
        async with feed.listen() as listener:
            while not await request.is_disconnected():
                games = await listener.next(KEEPALIVE_SECONDS)
                if listener.ended:  # the gateway stops: the browser reconnects elsewhere
                    return
                if games is None:
                    yield ": keep-alive\n\n"
                    continue
                yield f"event: {EVENT}\ndata: {_body(games, member.sub, game_type).model_dump_json()}\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def quick_match(request: Request) -> JSONResponse:
    member = await require_member(request)
    body = await json_object(request, QuickMatchRequest, optional=True)
    game_type = body.get("game_type", DEFAULT_GAME_TYPE)
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise HTTPException(422, "Invalid options: options must be an object")
    backends = backends_of(request)
    ratings = await member_ratings(backends, member.sub)
    result = await backends.lobby.quick_match(
        member.sub, member.name, game_type, json.dumps(options) if options is not None else "",
        ratings.get(game_type, 0), request_id=request_id_of(request))
    log.info("quick match: game %s%s", result.game.id,
             " created" if result.created else " (the game starts)" if result.started else "")
    view = await personal_view(request, result.game, member.sub)
    return JSONResponse(view.body(), status_code=201 if result.created else 200)


async def set_open(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_id = game_id_of(request)
    body = await json_object(request, SetOpenRequest)
    if "open" not in body:
        raise HTTPException(400, "open is required")
    game = await backends_of(request).lobby.set_open(game_id, member.sub, body["open"])
    return JSONResponse(lobby_view(game, member.sub).body())
