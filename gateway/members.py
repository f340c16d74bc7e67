"""Who is asking: the logged-in member of a request, and /api/me."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from gateway.auth import Member
from gateway.sessions import clear_cookie

log = logging.getLogger(__name__)


async def current_member(connection: HTTPConnection) -> Member | None:
    return await connection.app.state.auth.member(connection)


async def require_member(request: Request) -> Member:
    member = await current_member(request)
    if member is None:
        raise HTTPException(401, "Not authenticated")
    return member


async def me(request: Request) -> Response:
    member = await require_member(request)
    if request.method == "DELETE":
        return await _erase(request, member)
    return JSONResponse({"sub": member.sub, "name": member.name, "provider": member.provider})


async def _erase(request: Request, member: Member) -> Response:
    """CONTRACT's Privacy: seatings and match rows anonymized, ratings removed, sessions ended."""
    backends = request.app.state.backends
    tables = await backends.lobby.erase_member(member.sub)
    await backends.stats.erase_member(member.sub)
    await request.app.state.auth.end_member_sessions(member.sub)
    log.info("member erased (%d seatings anonymized)", len(tables))
    response = Response(status_code=204)
    clear_cookie(response, request)
    return response
