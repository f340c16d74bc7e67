"""Who is asking: the logged-in member of a request, and /api/me."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from gateway.auth import Member
from gateway.backends import backends_of
from gateway.events import SeatingChanged
from gateway.sessions import clear_cookie
from services.rpc.errors import Reason, ServiceError

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
    return JSONResponse({"sub": member.sub, "name": member.name, "provider": member.provider,
                         "player": member.player})


async def _erase(request: Request, member: Member) -> Response:
    """CONTRACT's Privacy: seatings and match rows anonymized, ratings removed, sessions ended.

    Complete, or 503 with the session kept so that the member can try again. The steps run in
    this order, and each is idempotent (a repeat changes nothing more):

    0. stats is asked a read first (the member's ratings): while stats is down, which is when an
       erasure would stop half-way, the answer is 503 before anything has changed;
    1. the lobby anonymizes the seatings; it must come before stats, whose recording of a
       match reads the seating and then, in its write, catches erasures marked since; then
       table talk deletes the member's messages and mutes, and the bots process the member's
       analyses of their matches;
    2. stats anonymizes the match rows and drops the ratings;
    3. the sessions end, last, so that a failure anywhere before leaves a member who can retry
       (the session store announces it: the member's open sockets close, gateway.events).

    A failure after step 1 (stats stops answering between two calls) leaves the seatings
    anonymized and answers 503; the retry repeats step 1 (nothing left to do) and completes.
    Either way, once step 1 anonymized seatings, every gateway process hears which tables'
    names changed, so the open sockets there show "deleted player" from their next state.
    """
    backends = backends_of(request)
    tables: list[str] = []
    try:
        await backends.stats.ratings(member.sub)
        tables = await backends.lobby.erase_member(member.sub)
        if backends.talk is not None:
            await backends.talk.erase_member(member.sub, member.player)
        if backends.analysis is not None:
            await backends.analysis.erase_member(member.sub)
        await backends.stats.erase_member(member.sub)
        await request.app.state.auth.end_member_sessions(member.sub)
    except ServiceError as error:  # a service, or the session store: the erasure ends on a retry
        if error.reason is Reason.UNAVAILABLE:
            log.warning("member erasure not completed, answered 503 for a retry: %s", error.message)
        raise
    finally:
        if tables:
            await _announce_new_names(request, tables)
    log.info("member erased (%d seatings anonymized)", len(tables))
    response = Response(status_code=204)
    clear_cookie(response, request)
    return response


async def _announce_new_names(request: Request, tables: list[str]) -> None:
    """Tell every gateway process that the names at ``tables`` changed (gateway.events)."""
    try:
        await request.app.state.auth.sessions.events.publish(SeatingChanged(tuple(tables)))
    except ServiceError as error:  # the names follow at the next event or reconnection
        log.warning("the erasure's new names were not announced: %s", error.message)
