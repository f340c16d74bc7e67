"""REST for players and their relations (CONTRACT.md, Players, following, invitations, blocking):
a player's page, the caller's settings, following, blocking and invitations.

The lobby's PlayersService (lobby.players_client) keeps the relations and enforces their rules
(blocks at seating, the limits); the gateway names people by their public player id, joins in
what is not the lobby's (a page's ratings and matches from stats, who is online from
gateway.online), and tells the member sockets of every gateway process what changed
(gateway.events: RelationsChanged, BlocksChanged, Invited).
"""

from __future__ import annotations

import asyncio
import logging
import re

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from game.status import TableStatus
from gateway.auth import Member
from gateway.backends import Backends, backends_of
from gateway.bodies import check_type, json_object
from gateway.contract.common import PLAYER_ID
from gateway.contract.players import (
    RECENT_MATCHES,
    BlockedPlayers,
    BlockRequest,
    FollowedPlayer,
    FollowedPlayers,
    FollowRequest,
    Invitation,
    Invitations,
    InviteRequest,
    PlayerName,
    PlayerPage,
    Settings,
    SettingsRequest,
)
from gateway.events import BlocksChanged, Event, Invited, RelationsChanged
from gateway.games import game_id_of
from gateway.members import require_member
from gateway.online import online_players
from gateway.push_sender import push
from gateway.rate_limits import TOO_MANY_TEXT, Kind
from gateway.views import match_item, my_game_item, ratings_body
from lobby.client import game_from_message
from lobby.players_client import PlayersClient
from services.rpc.errors import Reason, ServiceError
from services.timeutil import iso_from_ms
from tavolo.lobby.v1 import players_pb2

log = logging.getLogger(__name__)

PLAYER_NOT_FOUND_TEXT = "Player not found"
_PLAYER_ID = re.compile(PLAYER_ID)  # what can be a public player id: anything else is nobody's


def players_of(backends: Backends) -> PlayersClient:
    if backends.players is None:
        raise ServiceError(Reason.UNAVAILABLE, "players are not configured")
    return backends.players


def _path_player(request: Request) -> str:
    """The ``{player}`` of the path; 404 Player not found when it cannot be a player id."""
    player: str = request.path_params["player"]
    if not _PLAYER_ID.fullmatch(player):
        raise HTTPException(404, PLAYER_NOT_FOUND_TEXT)
    return player


async def _body_player(request: Request, model: type[FollowRequest | BlockRequest | InviteRequest]) -> str:
    """The ``player`` of the body; 404 Player not found when it cannot be a player id (the lobby
    is not asked: no player has one)."""
    body = await json_object(request, model)
    player = body.get("player")
    if not isinstance(player, str) or not player:
        raise HTTPException(400, "player is required")
    if not _PLAYER_ID.fullmatch(player):
        raise HTTPException(404, PLAYER_NOT_FOUND_TEXT)
    return player


def _refused(error: ServiceError, self_text: str, too_many_text: str) -> Exception:
    """The lobby's refusals whose text depends on the endpoint; any other error as it is."""
    if error.reason is Reason.SELF_RELATION:
        return HTTPException(409, self_text)
    if error.reason is Reason.TOO_MANY_RELATIONS:
        return HTTPException(409, too_many_text)
    return error


async def _announce(request: Request, *events: Event) -> None:
    """Tell the member sockets of every gateway process; while the bus is down, this process's."""
    for event in events:
        try:
            await request.app.state.sockets.bus.publish(event)
        except ServiceError as error:
            log.warning("a %s was not published: %s", type(event).__name__, error.message)
            request.app.state.sockets.handle(event)


# -- a player's page -------------------------------------------------------------------------


async def player_page(request: Request) -> JSONResponse:
    """GET /api/players/{player}: 404 for an unknown, erased or malformed id."""
    member = await require_member(request)
    player = _path_player(request)
    backends = backends_of(request)
    found = await players_of(backends).get_player(member.sub, player)
    # The player's member id stays here: it names them to stats, never to the caller.
    record, history, online = await asyncio.gather(
        backends.stats.record(found.member_id),
        backends.stats.list_matches(found.member_id, None, RECENT_MATCHES),
        online_players(request.app, [player] if found.show_online else []))
    page = PlayerPage(
        player=found.player, name=found.display_name, ratings=ratings_body(record.ratings).ratings,
        matches=record.matches, wins=record.wins, recent=[match_item(m) for m in history.matches],
        online=(player in online) if found.show_online else None, playing=list(found.playing),
        following=found.following, blocked=found.blocked)
    return JSONResponse(page.body())


# -- settings --------------------------------------------------------------------------------


async def settings(request: Request) -> JSONResponse:
    """GET /api/me/settings, and PUT to change the fields given."""
    member = await require_member(request)
    players = players_of(backends_of(request))
    if request.method == "GET":
        current = await players.get_settings(member.sub)
        return JSONResponse(Settings(show_online=current.show_online).body())
    body = await json_object(request, SettingsRequest)
    if "show_online" in body:  # optional, so json_object takes any value: a boolean it must be
        check_type("show_online", body["show_online"], bool)
    changed = await players.update_settings(member.sub, show_online=body.get("show_online"))
    if body:  # whether the member shows being online: their followers' lists change
        await _announce(request, RelationsChanged((member.player,), seen=True))
    return JSONResponse(Settings(show_online=changed.show_online).body())


# -- following -------------------------------------------------------------------------------


async def following(request: Request) -> Response:
    """GET /api/me/following (the list) and POST /api/me/following (follow a player)."""
    member = await require_member(request)
    players = players_of(backends_of(request))
    if request.method == "POST":
        player = await _body_player(request, FollowRequest)
        if player == member.player:
            raise HTTPException(409, "Cannot follow yourself")
        try:
            await players.follow(member.sub, player)
        except ServiceError as error:
            raise _refused(error, "Cannot follow yourself", "Following too many players") from None
        await _announce(request, RelationsChanged((member.player,), seen=False))
        return Response(status_code=204)
    followed = await players.list_following(member.sub)
    online = await online_players(request.app, [p.player for p in followed if p.show_online])
    return JSONResponse(FollowedPlayers(players=[
        FollowedPlayer(player=p.player, name=p.display_name, online=p.show_online and p.player in online,
                       playing=p.playing or None)
        for p in followed]).body())


async def unfollow(request: Request) -> Response:
    """DELETE /api/me/following/{player}: 204, whether or not the player was followed."""
    member = await require_member(request)
    player = request.path_params["player"]
    if _PLAYER_ID.fullmatch(player):  # else nobody has that id: nobody is followed by it
        await players_of(backends_of(request)).unfollow(member.sub, player)
        await _announce(request, RelationsChanged((member.player,), seen=False))
    return Response(status_code=204)


# -- blocking --------------------------------------------------------------------------------


async def blocked(request: Request) -> Response:
    """GET /api/me/blocked (the list) and POST /api/me/blocked (block a player)."""
    member = await require_member(request)
    players = players_of(backends_of(request))
    if request.method == "POST":
        player = await _body_player(request, BlockRequest)
        if player == member.player:
            raise HTTPException(409, "Cannot block yourself")
        try:
            await players.block(member.sub, player)
        except ServiceError as error:
            raise _refused(error, "Cannot block yourself", "Blocking too many players") from None
        await _blocks_changed(request, member, player)
        return Response(status_code=204)
    listed = await players.list_blocked(member.sub)
    return JSONResponse(BlockedPlayers(
        players=[PlayerName(player=p.player, name=p.display_name) for p in listed]).body())


async def unblock(request: Request) -> Response:
    """DELETE /api/me/blocked/{player}: 204, whether or not the player was blocked."""
    member = await require_member(request)
    player = request.path_params["player"]
    if _PLAYER_ID.fullmatch(player):  # else nobody has that id: nobody is blocked by it
        await players_of(backends_of(request)).unblock(member.sub, player)
        await _blocks_changed(request, member, player)
    return Response(status_code=204)


async def _blocks_changed(request: Request, member: Member, player: str) -> None:
    """The member's sockets filter table talk by all they block now; the two players' member
    sockets (and their followers') re-read who shows being online to whom."""
    now = await players_of(backends_of(request)).list_blocked(member.sub)
    await _announce(request, BlocksChanged(member.sub, tuple(p.player for p in now)),
                    RelationsChanged((member.player, player), seen=True))


async def blocked_players(app, member_id: str) -> frozenset[str]:
    """The public player ids ``member_id`` blocked: whose table talk never reaches them. Without a
    players service (a gateway in tests), none."""
    backends: Backends = app.state.backends
    if backends.players is None:
        return frozenset()
    return frozenset(p.player for p in await backends.players.list_blocked(member_id))


# -- invitations -----------------------------------------------------------------------------


async def invite(request: Request) -> Response:
    """POST /api/games/{id}/invite: a seated player of a game in the lobby invites a player; the
    invitee's member sockets hear of it the first time (``invited``), if they could take it up
    (GET /api/me/invitations lists it: nobody sits there apart from them), and so do their
    browsers by Web Push when they subscribed (queued: the answer does not wait for it)."""
    member = await require_member(request)
    game_id = game_id_of(request)
    player = await _body_player(request, InviteRequest)
    wait = await request.app.state.rate_limits.member_refusal(Kind.INVITATION, member.sub)
    if wait is not None:
        raise HTTPException(429, TOO_MANY_TEXT, {"Retry-After": str(wait)})
    if player == member.player:
        raise HTTPException(409, "Cannot invite yourself")
    try:
        invited = await players_of(backends_of(request)).invite(game_id, member.sub, player)
    except ServiceError as error:
        raise _refused(error, "Cannot invite yourself", "Too many invitations") from None
    if invited.created and invited.listed:
        await _announce(request, Invited(invited.invitee_member_id, invited.game.id, invited.by.player,
                                         invited.by.display_name))
        await push(request.app, invited.invitee_member_id, await _invited_payload(request, invited))
    return Response(status_code=204)


async def _invited_payload(request: Request, invited: players_pb2.InviteResponse) -> dict[str, str]:
    """The ``invited`` push: a tap opens the game's Join page (/join/<code>, web/src/router.ts),
    which shows the table and joins in one click."""
    game = invited.game
    try:  # the gateway's kept catalogue; its id would do
        names = {t.id: t.name for t in await request.app.state.game_types.get()}
    except ServiceError:
        names = {}
    kind = names.get(game.game_type, game.game_type.replace("_", " "))
    name = invited.by.display_name
    return {"type": "invited", "game": game.id, "title": f"{name} invites you",
            "body": f"{name} invites you to a game of {kind}.", "url": f"/join/{game.join_code}"}


async def invitations(request: Request) -> JSONResponse:
    """GET /api/me/invitations: each game as GET /api/me/games shows one, for the invitee."""
    member = await require_member(request)
    listed = await players_of(backends_of(request)).list_invitations(member.sub)
    items = []
    for invitation in listed:
        game = game_from_message(invitation.game)
        items.append(Invitation(
            game=my_game_item(game, member.sub, TableStatus.LOBBY, False, game.changed_at_ms),
            by=PlayerName(player=invitation.by.player, name=invitation.by.display_name),
            at=iso_from_ms(invitation.invited_at.ToMilliseconds())))
    return JSONResponse(Invitations(invitations=items).body())
