"""REST for who plays a seat: bots seated by the creator, moving to another seat, leaving a
game, taking a seat back.

The lobby owns the seating and decides (lobby.service); this module reads the bodies, calls it,
answers CONTRACT's shapes, and tells every gateway process when who plays at a started table
changed, so each table's sockets see the new seating at once (gateway.events.SeatingChanged).
"""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from gateway.backends import backends_of, request_id_of
from gateway.bodies import json_object
from gateway.contract.games import AddBotRequest, ChangeSeatRequest, Left, NoFieldsRequest
from gateway.events import SeatingChanged
from gateway.games import game_id_of, personal_view
from gateway.members import require_member
from gateway.views import lobby_view
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

SEATS = range(4)  # CONTRACT: seats 0..3
NO_SEAT = -1


def lobby_seat(seat: int) -> int:
    """A seat of a body as the lobby's int32 field carries it. Every seat outside 0..3 is wrong
    in the same way (409 Seat taken, after the lobby's checks of the game and the caller), and
    one beyond int32 would not fit the field (protobuf's ValueError, a 500): all are sent as -1."""
    return seat if seat in SEATS else NO_SEAT


async def add_bot(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_id = game_id_of(request)
    body = await json_object(request, AddBotRequest)
    if "seat" not in body or "level" not in body:
        raise HTTPException(400, "seat and level are required")
    result = await backends_of(request).lobby.add_bot(game_id, member.sub, lobby_seat(body["seat"]),
                                                      body["level"], request_id=request_id_of(request))
    log.info("game %s: a bot sits at seat %d%s", game_id, body["seat"],
             " (the game starts)" if result.started else "")
    return JSONResponse((await personal_view(request, result.game, member.sub)).body())


async def change_seat(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_id = game_id_of(request)
    body = await json_object(request, ChangeSeatRequest)
    if "seat" not in body:
        raise HTTPException(400, "seat is required")
    game = await backends_of(request).lobby.change_seat(game_id, member.sub,
                                                          lobby_seat(body["seat"]))
    return JSONResponse(lobby_view(game, member.sub).body())


async def remove_bot(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_id = game_id_of(request)
    seat = request.path_params["seat"]
    # ASCII digits, and few: int() takes "²" (then fails) and refuses thousands of digits.
    if not (seat.isascii() and seat.isdigit() and len(seat) <= 3) or int(seat) not in SEATS:
        raise HTTPException(404, "No bot at that seat")
    game = await backends_of(request).lobby.remove_bot(game_id, member.sub, int(seat),
                                                       request_id=request_id_of(request))
    return JSONResponse(lobby_view(game, member.sub).body())


async def leave(request: Request) -> JSONResponse:
    """In the lobby the seat is freed; while playing a bot takes it over."""
    member = await require_member(request)
    game_id = game_id_of(request)
    await json_object(request, NoFieldsRequest, optional=True)
    game = await backends_of(request).lobby.leave_game(game_id, member.sub,
                                                       request_id=request_id_of(request))
    if game is not None and game.started:
        await _seating_changed(request, game_id)
    log.info("game %s: a member left", game_id)
    return JSONResponse(Left(left=True).body())


async def take_seat_back(request: Request) -> JSONResponse:
    member = await require_member(request)
    game_id = game_id_of(request)
    await json_object(request, NoFieldsRequest, optional=True)
    game = await backends_of(request).lobby.return_seat(game_id, member.sub,
                                                        request_id=request_id_of(request))
    await _seating_changed(request, game_id)
    return JSONResponse((await personal_view(request, game, member.sub)).body())


async def _seating_changed(request: Request, game_id: str) -> None:
    try:
        await request.app.state.sockets.bus.publish(SeatingChanged((game_id,)))
    except ServiceError as error:  # the next state shows it anyway
        log.warning("game %s: the seating change was not announced: %s", game_id, error.message)
