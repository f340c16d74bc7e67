"""REST for finished matches: a member's history and ratings, the leaderboard."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from game.client import DEFAULT_GAME_TYPE
from gateway.backends import backends_of
from gateway.members import require_member
from gateway.views import leaderboard_body, match_page, ratings_body
from services.rpc.errors import Reason, ServiceError


def _limit(request: Request, default: int) -> int:
    """``limit`` of the query: absent is ``default``; anything but one integer from 1 to 100 is
    400: empty, given twice (not quietly read as its first or last), "1.5", "x"."""
    given = request.query_params.getlist("limit")
    if not given:
        return default
    raw = given[0]
    # ASCII digits only (int() takes "²" and Arabic-Indic digits too), and not too many for int().
    if (len(given) == 1 and raw.isascii() and raw.isdigit() and len(raw.lstrip("0")) <= 3
            and 1 <= (value := int(raw)) <= 100):
        return value
    raise HTTPException(400, "limit must be an integer from 1 to 100")


async def matches(request: Request) -> JSONResponse:
    member = await require_member(request)
    limit = _limit(request, 20)
    cursor = request.query_params.get("cursor") or None
    game_type = request.query_params.get("game_type") or None
    if game_type is not None:
        await _known_game_type(request, game_type)
    try:
        page = await backends_of(request).stats.list_matches(
            member.sub, game_type, limit, cursor
        )
    except ServiceError as error:
        if error.reason in (Reason.INVALID_PAGE_TOKEN, Reason.INVALID_ARGUMENT):
            raise HTTPException(400, "Invalid cursor") from None
        raise
    return JSONResponse(match_page(page.matches, page.next_cursor).body())


async def ratings(request: Request) -> JSONResponse:
    member = await require_member(request)
    found = await backends_of(request).stats.ratings(member.sub)
    return JSONResponse(ratings_body(found).body())


async def leaderboard(request: Request) -> JSONResponse:
    game_type = request.query_params.get("game_type") or DEFAULT_GAME_TYPE
    limit = _limit(request, 20)
    await _known_game_type(request, game_type)
    board = await backends_of(request).stats.leaderboard(game_type, limit)
    return JSONResponse(leaderboard_body(board).body())


async def _known_game_type(request: Request, game_type: str) -> None:
    known = {t.id for t in await request.app.state.game_types.get()}
    if game_type not in known:
        raise HTTPException(400, f"Unknown game type: {game_type}")
