"""REST for games: game types, create, join, preview, the caller's games, a game's view and its move log."""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from game.client import DEFAULT_GAME_TYPE
from game.status import TableStatus
from gateway.backends import Backends, backends_of, request_id_of
from gateway.bodies import json_object
from gateway.contract.common import BLANKS
from gateway.contract.games import CreateGameRequest, JoinRequest, Lobby, MyGame, MyGames, RematchRequest
from gateway.contract.table import GameView
from gateway.events import RematchOffered
from gateway.members import require_member
from gateway.views import (
    game_type_item,
    game_view,
    lobby_log,
    lobby_view,
    my_game_item,
    preview_view,
    table_log,
)
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

LOG_PAGE = 256
MY_GAMES_LIMIT = 50      # CONTRACT: at most 50 games
MY_GAMES_CANDIDATES = 100  # the lobby's newest games looked at to find them (some are finished)


def can_be_game_id(text: str) -> bool:
    """Whether ``text`` may name a game (an id or a join code), for the lobby to look up. Blanks
    or control characters cannot: no game has such an id, so it is 404 Game not found like any
    unknown id (the lobby would call a blank id, or one with a NUL, a bad argument: a 400 the
    contract does not know)."""
    return bool(text.strip()) and not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


def game_id_of(request: Request) -> str:
    """The ``{id}`` of the path; 404 Game not found when it cannot be a game id."""
    game_id = request.path_params["id"]
    if not can_be_game_id(game_id):
        raise HTTPException(404, "Game not found")
    return game_id


async def lobby_entry(backends: Backends, game_id: str) -> Game | None:
    """The game's lobby entry, or None once it expired (GAME_TTL_SECONDS) or never was."""
    try:
        return await backends.lobby.get_game(game_id)
    except ServiceError as error:
        if error.reason is not Reason.GAME_NOT_FOUND:
            raise
        return None


async def game_types(request: Request) -> JSONResponse:
    types = await request.app.state.game_types.get()
    return JSONResponse([game_type_item(t).body() for t in types])


async def create_game(request: Request) -> JSONResponse:
    member = await require_member(request)
    body = await json_object(request, CreateGameRequest, optional=True)
    options = body.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise HTTPException(422, "Invalid options: options must be an object")
    backends = backends_of(request)
    game_type = body.get("game_type", DEFAULT_GAME_TYPE)
    ratings = await member_ratings(backends, member.sub)
    game = await backends.lobby.create_game(member.sub, member.name, game_type, json.dumps(options),
                                            open=body.get("open", False),
                                            rating=ratings.get(game_type, 0),
                                            request_id=request_id_of(request),
                                            spectators=body.get("spectators", True))
    log.info("game %s created (%s)%s", game.id, game.game_type, ", open" if game.open else "")
    return JSONResponse(lobby_view(game, member.sub).body(), status_code=201)


async def member_ratings(backends: Backends, member_id: str) -> dict[str, int]:
    """The member's rating by game type, which goes with them to the lobby when they sit down
    (to match players by); none, a new player's, when the stats service does not answer:
    they sit down anyway."""
    try:
        return {rating.game_type: rating.rating for rating in await backends.stats.ratings(member_id)}
    except ServiceError as error:
        log.info("ratings not read (%s): seated as a new player", error.message)
        return {}


async def join_game(request: Request) -> JSONResponse:
    member = await require_member(request)
    body = await json_object(request, JoinRequest)
    code = body.get("code", "").strip(BLANKS)  # blank as the document's pattern says
    if not code:
        raise HTTPException(400, "code is required")
    if not can_be_game_id(code):  # no code has a control character
        raise HTTPException(404, "Game not found")
    backends = backends_of(request)
    result = await backends.lobby.join_game(member.sub, member.name, code,
                                            await member_ratings(backends, member.sub))
    log.info("member joined game %s%s", result.game.id, " (the game starts)" if result.started else "")
    return JSONResponse((await personal_view(request, result.game, member.sub)).body())


async def rematch(request: Request) -> JSONResponse:
    """A new game like this finished one, for the same players: the first seated player who
    asks creates it (201, the lobby, seated at 0) and the players still at the finished game's
    socket get a ``rematch`` notice; every later one is seated at the same game (200, the
    lobby, or the game view when this call filled it)."""
    member = await require_member(request)
    game_id = game_id_of(request)
    await json_object(request, RematchRequest, optional=True)  # no fields: an empty body or {}
    result = await backends_of(request).lobby.rematch(member.sub, member.name, game_id,
                                                      request_id=request_id_of(request))
    if not result.created:
        log.info("member joined rematch %s of %s", result.game.id, game_id)
        return JSONResponse((await personal_view(request, result.game, member.sub)).body())
    log.info("rematch %s of game %s created", result.game.id, game_id)
    try:
        await request.app.state.sockets.bus.publish(RematchOffered(
            table=game_id, game_id=result.game.id, join_code=result.game.join_code,
            by=member.name))
    except ServiceError as error:  # the notice is a convenience: "play again" joins it too
        log.warning("rematch %s: the notice was not sent: %s", result.game.id, error.message)
    return JSONResponse((await personal_view(request, result.game, member.sub)).body(), status_code=201)


async def preview(request: Request) -> JSONResponse:
    await require_member(request)
    code = request.query_params.get("code", "").strip(BLANKS)  # blank as the document's pattern says
    if not code:
        raise HTTPException(400, "code is required")
    if not can_be_game_id(code):  # no code has a control character
        raise HTTPException(404, "Game not found")
    backends = backends_of(request)
    game = await backends.lobby.preview_game(code)
    types = {t.id: t for t in await request.app.state.game_types.get()}
    status = TableStatus.LOBBY
    if game.started:
        first = game.seats[0].seat
        status = (await backends.game.get_view(game.id, first))["status"]
    return JSONResponse(preview_view(game, types.get(game.game_type), status).body())


async def my_games(request: Request) -> JSONResponse:
    """The caller's games that are not finished, most recently changed first.

    The lobby knows where the member sits; the game service knows whether a table has
    finished, whose turn it is and when it last changed: one view per started game, read
    concurrently.
    """
    member = await require_member(request)
    backends = backends_of(request)
    games = await backends.lobby.list_member_games(member.sub, MY_GAMES_CANDIDATES)
    items = await asyncio.gather(*(member_game_item(backends.game, game, member.sub) for game in games))
    unfinished = sorted((item for item in items if item is not None),
                        key=lambda item: (item.updated_at, item.id), reverse=True)
    return JSONResponse(MyGames(games=unfinished[:MY_GAMES_LIMIT]).body())


async def member_game_item(game_client, game, member_id: str) -> MyGame | None:
    """One item of GET /api/me/games; None for a finished game (or a table that is gone)."""
    seat = game.seat_of(member_id)
    if seat is None:
        return None
    if not game.started:
        return my_game_item(game, member_id, TableStatus.LOBBY, False, game.changed_at_ms)
    try:
        view, updated_ms = await game_client.get_view_at(game.id, seat.seat)
    except ServiceError as error:
        if error.reason is Reason.TABLE_NOT_FOUND:
            return None
        raise
    if view.get("status") == TableStatus.FINISHED:
        return None
    return my_game_item(game, member_id, view["status"], view.get("your_turn") is True,
                        max(updated_ms, game.changed_at_ms), view)


async def get_game(request: Request) -> JSONResponse:
    member = await require_member(request)
    game = await backends_of(request).lobby.get_game(game_id_of(request))
    if game.seat_of(member.sub) is None:
        raise HTTPException(403, "Not seated at this game")
    return JSONResponse((await personal_view(request, game, member.sub)).body())


async def get_log(request: Request) -> JSONResponse:
    """The move log: seated players at any time, anyone once the game is finished.

    A game still in the lobby has an empty log (no table, no seed yet). A finished game whose
    lobby entry has expired is still public: the game service keeps its log.
    """
    member = await require_member(request)
    backends = backends_of(request)
    game_id = game_id_of(request)
    game = await lobby_entry(backends, game_id)
    seated = game is not None and game.seat_of(member.sub) is not None
    if game is not None and not game.started:
        if not seated:
            raise HTTPException(403, "Not seated at this game")
        return JSONResponse(lobby_log(game).body())
    try:
        header, moves = await _whole_log(backends.game, game_id)
    except ServiceError as error:
        if game is None and error.reason in (Reason.TABLE_NOT_FOUND, Reason.INVALID_ARGUMENT):
            raise HTTPException(404, "Game not found") from None
        raise
    if not seated and header.status != TableStatus.FINISHED:
        if game is None:  # a table the lobby does not know: nobody may see it yet
            raise HTTPException(404, "Game not found")
        raise HTTPException(403, "Not seated at this game")
    return JSONResponse(table_log(game_id, header, moves).body())


async def _whole_log(game_client, table_id: str, attempts: int = 5):
    """(header, moves) of one revision, read page by page.

    Moves appended between pages leave the earlier ones as they were, so the log is cut at the
    first page's header; a take-back meanwhile (the revision grew by more than the appends)
    means the pages disagree, and the read starts again.
    """
    for _ in range(attempts):
        header, moves, after = await game_client.get_log(table_id, 0, LOG_PAGE)
        latest = header
        while after and len(moves) < header.move_count:
            latest, page, after = await game_client.get_log(table_id, after, LOG_PAGE)
            moves.extend(page)
        appended = latest.move_count - header.move_count
        if latest.revision - header.revision == appended and appended >= 0:
            return header, moves[:header.move_count]
    raise ServiceError(Reason.UNAVAILABLE, "The log kept changing while it was read; try again")


async def personal_view(request: Request, game, member_id: str) -> Lobby | GameView:
    """The lobby while waiting, the member's game view once started."""
    if not game.started:
        return lobby_view(game, member_id)
    seat = game.seat_of(member_id)
    if seat is None:
        raise ServiceError(Reason.NOT_SEATED, "Not seated at this game")
    view = await backends_of(request).game.get_view(game.id, seat.seat)
    feeds = request.app.state.feeds
    return game_view(view, game, await feeds.connected_at(game.id), await feeds.spectators_at(game.id))
