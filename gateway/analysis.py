"""REST for the analysis of a finished match (CONTRACT.md, Analysis of a finished match):
POST and GET /api/games/{id}/analysis.

The gateway decides who may ask: the caller's seat at the game is the lobby's seating, and the
game is finished when the game service's log says so. The analysis itself is the bots process's
(AnalysisService: a durable queue and a worker, bots.analysis); the gateway passes the member
and the seat, and renders what it answers.
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from bots.analysis_client import AnalysisClient
from game.client import DEFAULT_GAME_TYPE
from game.status import TableStatus
from gateway.backends import Backends, backends_of
from gateway.bodies import json_object
from gateway.contract.analysis import Analysis
from gateway.contract.games import NoFieldsRequest
from gateway.games import game_id_of, lobby_entry
from gateway.members import require_member
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

ANALYSED_GAME_TYPES = (DEFAULT_GAME_TYPE,)  # the analysis knows scopone scientifico's rules alone


async def analysis(request: Request) -> JSONResponse:
    """One route for both methods, so that a wrong method's Allow names both."""
    if request.method == "POST":
        return await request_analysis(request)
    return await get_analysis(request)


async def request_analysis(request: Request) -> JSONResponse:
    """Queue the analysis of the caller's seat (202), or answer the one asked before (200)."""
    member = await require_member(request)
    game_id = game_id_of(request)
    await json_object(request, NoFieldsRequest, optional=True)  # no fields: an empty body or {}
    backends = backends_of(request)
    game = await backends.lobby.get_game(game_id)
    seat = game.seat_of(member.sub)
    if seat is None:
        raise HTTPException(403, "Not seated at this game")
    if not await _finished(backends, game_id, game.started, game.finished):
        raise HTTPException(409, "Game is not finished")
    if game.game_type not in ANALYSED_GAME_TYPES:
        raise HTTPException(409, "This game type has no analysis")
    found, created = await _client(backends).request_analysis(game_id, member.sub, seat.index)
    if created:
        log.info("analysis of game %s asked for", game_id)
    return JSONResponse(Analysis.model_validate(found.body()).body(), status_code=202 if created else 200)


async def get_analysis(request: Request) -> JSONResponse:
    """The caller's analysis of the game. A game whose lobby entry expired (GAME_TTL_SECONDS) is
    found by the analysis alone: it was asked while the caller's seat was known."""
    member = await require_member(request)
    game_id = game_id_of(request)
    backends = backends_of(request)
    game = await lobby_entry(backends, game_id)
    if game is not None and game.seat_of(member.sub) is None:
        raise HTTPException(403, "Not seated at this game")
    try:
        found = await _client(backends).get_analysis(game_id, member.sub)
    except ServiceError as error:
        # A game the lobby does not know, and no analysis of it (or an id that names no table).
        if game is None and error.reason in (Reason.NO_ANALYSIS, Reason.INVALID_ARGUMENT):
            raise HTTPException(404, "Game not found") from None
        raise
    return JSONResponse(Analysis.model_validate(found.body()).body())


async def _finished(backends: Backends, game_id: str, started: bool, marked_finished: bool) -> bool:
    """Whether the table finished: the lobby knows once stats recorded the match; the moments
    before, the game service's log says it."""
    if not started:
        return False
    if marked_finished:
        return True
    header, _, _ = await backends.game.get_log(game_id, 0, 1)
    return header.status == TableStatus.FINISHED


def _client(backends: Backends) -> AnalysisClient:
    if backends.analysis is None:
        raise ServiceError(Reason.UNAVAILABLE, "the analysis service is not configured")
    return backends.analysis
