"""One place that turns failures into CONTRACT.md's ``{"detail": ...}`` responses."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

# What people see when a service behind the gateway did not answer (CONTRACT's 503 text, also
# the WebSocket's ``unavailable`` message): never the status text of the call, which names
# internal addresses.
UNAVAILABLE_TEXT = "Service unavailable, try again"

# A service's reason -> the HTTP status the contract gives it. The messages are the services'
# own, except where CONTRACT.md fixes the text (below).
_STATUS = {
    Reason.UNKNOWN_GAME_TYPE: 400,
    Reason.INVALID_OPTIONS: 422,
    Reason.GAME_NOT_FOUND: 404,
    Reason.TABLE_NOT_FOUND: 404,
    Reason.GAME_FULL: 409,
    Reason.NOT_SEATED: 403,
    Reason.BAD_REQUEST: 400,
    Reason.INVALID_ARGUMENT: 400,
    Reason.INVALID_PAGE_TOKEN: 400,
    Reason.ILLEGAL_MOVE: 409,
    Reason.NOT_YOUR_TURN: 409,
    Reason.UNKNOWN_ACTION: 400,
    Reason.CONCURRENT_MOVE: 409,
    Reason.GAME_FINISHED: 409,
    Reason.MATCH_NOT_FINISHED: 409,
    Reason.IDENTIFYING_SEAT: 400,
    Reason.TAKE_BACK_UNSUPPORTED: 409,
    Reason.UNAVAILABLE: 503,
    Reason.TABLE_EXISTS: 409,
    Reason.CORRUPT_LOG: 503,  # the server's fault, not the caller's: logged, never a bare 500
    # A service refused the gateway itself (its token, certificate or allow list is
    # misconfigured): the platform's fault, logged, and the player is told to try again later.
    Reason.UNAUTHENTICATED: 503,
    Reason.METHOD_NOT_ALLOWED: 503,
    Reason.NOT_CREATOR: 403,
    Reason.SEAT_TAKEN: 409,
    Reason.GAME_STARTED: 409,
    Reason.NO_BOT: 404,
    Reason.SEAT_NOT_TAKEN_OVER: 409,
    Reason.UNKNOWN_BOT_LEVEL: 422,
    Reason.TOO_MANY_OPEN_GAMES: 409,
    Reason.PLAYER_NOT_FOUND: 404,
    Reason.BLOCKED: 403,
    # Their text depends on the endpoint (follow, block, invite): gateway.players sets it.
    Reason.SELF_RELATION: 409,
    Reason.TOO_MANY_RELATIONS: 409,
    Reason.TOO_MANY_DAILY_GAMES: 409,
    Reason.TOO_MANY_ANALYSES: 409,
    Reason.NO_ANALYSIS: 404,
}
_FIXED_TEXT = {
    Reason.GAME_NOT_FOUND: "Game not found",
    Reason.TABLE_NOT_FOUND: "Game not found",
    Reason.GAME_FULL: "Game is full",
    Reason.NOT_SEATED: "Not seated at this game",
    Reason.UNAVAILABLE: UNAVAILABLE_TEXT,
    Reason.CORRUPT_LOG: "This game cannot be loaded right now",
    Reason.SEAT_TAKEN: "Seat taken",
    Reason.GAME_STARTED: "Game already started",
    Reason.NO_BOT: "No bot at that seat",
    Reason.SEAT_NOT_TAKEN_OVER: "Seat not taken over",
    Reason.TOO_MANY_OPEN_GAMES: "Too many open games",
    Reason.TOO_MANY_DAILY_GAMES: "Too many daily games",
    Reason.TOO_MANY_ANALYSES: "Too many analyses",
    Reason.NO_ANALYSIS: "No analysis",
    Reason.PLAYER_NOT_FOUND: "Player not found",
    # A blocked player learns only this: not who blocked whom.
    Reason.BLOCKED: "Blocked",
}


def problem(status: int, detail: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def server_fault(error: ServiceError) -> bool:
    """Whether the failure is on the platform's side (a 5xx): its message is for the log, and
    people get a fixed text."""
    return _STATUS[error.reason] >= 500


def service_error_response(error: ServiceError) -> JSONResponse:
    if server_fault(error):
        log.warning("a service failed (%s): %s", error.reason.name, error.message)
    detail = _FIXED_TEXT.get(error.reason) or (UNAVAILABLE_TEXT if server_fault(error)
                                                else error.message)
    if error.reason is Reason.UNKNOWN_GAME_TYPE and "game_type" in error.metadata:
        detail = f"Unknown game type: {error.metadata['game_type']}"
    elif error.reason is Reason.INVALID_OPTIONS and not detail.startswith("Invalid options: "):
        detail = f"Invalid options: {detail}"
    elif error.reason is Reason.UNKNOWN_BOT_LEVEL:
        detail = f"Unknown bot level: {error.metadata.get('level', '')}"
    return problem(_STATUS[error.reason], detail)


async def on_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return problem(exc.status_code, str(exc.detail), exc.headers)


async def on_service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return service_error_response(exc)


async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return problem(500, "Internal Server Error")


HANDLERS = {
    HTTPException: on_http_exception,
    ServiceError: on_service_error,
    Exception: on_unexpected,
}
