"""REST for spectators (CONTRACT, Spectators): a game's public view, and the live games to watch.

Who may watch: any logged-in member, seated players too, unless the game was created with
``"spectators": false`` (403). The public view comes from the game service (GetView ``public``:
the engine renders it for no seat, so it holds no card of any hand); the names, who is
connected and how many watch are joined in here (gateway.views.public_view).
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from game.status import TableStatus
from gateway.backends import backends_of
from gateway.contract.spectators import SPECTATORS_FORBIDDEN, LiveGame, LiveGames
from gateway.games import game_id_of
from gateway.members import require_member
from gateway.open_games import _game_type_filter
from gateway.views import live_game_item, public_lobby_view, public_view
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError

LIVE_LIMIT_MAX = 50  # CONTRACT: limit 1..50
LIVE_LIMIT_DEFAULT = 20
# The lobby's watchable games, highest rating first, leave out the tables stats has recorded
# as finished (MarkFinished). A table that finished a moment ago, or while stats was down, is
# listed until it is recorded, so the gateway still reads each candidate's public view
# (LIVE_BATCH at a time) and drops the finished ones: it asks for ``limit`` + LIVE_MARGIN
# candidates, and only when those leave the list short (many finished tables not recorded yet)
# asks again for LIVE_CANDIDATES, the lobby's largest page.
LIVE_MARGIN = 10
LIVE_CANDIDATES = 200
LIVE_BATCH = 25


def live_limit(request: Request) -> int:
    """``limit`` of the query: absent is 20; anything but one integer from 1 to 50 is 400."""
    given = request.query_params.getlist("limit")
    if not given:
        return LIVE_LIMIT_DEFAULT
    raw = given[0]
    if (len(given) == 1 and raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= 2
            and 1 <= (value := int(raw)) <= LIVE_LIMIT_MAX):
        return value
    raise HTTPException(400, f"limit must be an integer from 1 to {LIVE_LIMIT_MAX}")


async def watchable_game(request: Request, game_id: str) -> Game:
    """The game, if spectators may watch it: 404 unknown, 403 forbidden."""
    game = await backends_of(request).lobby.get_game(game_id)
    if not game.spectators:
        raise HTTPException(403, SPECTATORS_FORBIDDEN)
    return game


async def watch(request: Request) -> JSONResponse:
    """GET /api/games/{id}/watch: the public lobby, or the public view."""
    await require_member(request)
    game = await watchable_game(request, game_id_of(request))
    if not game.started:
        return JSONResponse(public_lobby_view(game).body())
    feeds = request.app.state.feeds
    view, _ = await backends_of(request).game.get_public_view_at(game.id)
    connected, spectators = await asyncio.gather(feeds.connected_at(game.id), feeds.spectators_at(game.id))
    return JSONResponse(public_view(view, game, connected, spectators).body())


async def live(request: Request) -> JSONResponse:
    """GET /api/games/live: started, unfinished games that allow spectators, highest rating
    first."""
    await require_member(request)
    limit = live_limit(request)
    game_type = await _game_type_filter(request)
    backends = backends_of(request)
    found = await live_games(backends.lobby, backends.game, game_type, limit)
    try:
        counts = await request.app.state.feeds.watchers.counts([game.id for game, _, _ in found])
    except ServiceError:  # Redis briefly down: the list without the counts
        counts = [0] * len(found)
    items: list[LiveGame] = [live_game_item(game, view, count, updated_ms)
                             for (game, view, updated_ms), count in zip(found, counts, strict=True)]
    return JSONResponse(LiveGames(games=items).body())


async def live_games(lobby, game_client, game_type: str, limit: int) -> list[tuple[Game, dict, int]]:
    """At most ``limit`` of the lobby's watchable games whose tables have not finished, highest
    rating first, each with its public view and that view's time (see LIVE_MARGIN)."""
    views: dict[str, tuple[dict, int] | None] = {}  # each candidate's view, read once
    size = limit + LIVE_MARGIN
    while True:
        candidates = await lobby.list_watchable_games(game_type, size)
        found = await _unfinished(game_client, candidates, limit, views)
        if len(found) >= limit or len(candidates) < size or size >= LIVE_CANDIDATES:
            return found[:limit]
        size = LIVE_CANDIDATES


async def _unfinished(game_client, candidates: list[Game], limit: int,
                      views: dict[str, tuple[dict, int] | None]) -> list[tuple[Game, dict, int]]:
    """The candidates whose tables have not finished, with their public views and revision
    times, in order, until ``limit`` are found; ``views`` keeps each view read (None: no
    table), so that a second, longer list of candidates reads only the new ones."""
    found: list[tuple[Game, dict, int]] = []
    for start in range(0, len(candidates), LIVE_BATCH):
        batch = candidates[start:start + LIVE_BATCH]
        unread = [game.id for game in batch if game.id not in views]
        read = await asyncio.gather(*(_public_view_at(game_client, game_id) for game_id in unread))
        views.update(zip(unread, read, strict=True))
        found += [(game, view[0], view[1]) for game in batch
                  if (view := views[game.id]) is not None
                  and view[0].get("status") != TableStatus.FINISHED]
        if len(found) >= limit:
            break
    return found


async def _public_view_at(game_client, table_id: str) -> tuple[dict, int] | None:
    try:
        return await game_client.get_public_view_at(table_id)
    except ServiceError as error:
        if error.reason is Reason.TABLE_NOT_FOUND:
            return None
        raise
