"""Table talk at the gateway (CONTRACT.md, Table talk): who may talk and when, the socket's `say`, and
the REST routes of phrases, history, mutes and reports.

The talk service (talk.client) stores; the gateway decides. A seated player may talk, and a
spectator of a game that allows spectators (their sockets come with /ws/games/{id}/watch).
Quick phrases at any time; free text only while the table is in the lobby, at `hand_end` or
`finished`, as this process's feed of the table last saw it: during `seeding` and `playing`,
`chat_closed`. A member's messages at one table: TALK_RATE (1 a second, bursts of 5), counted in
the process holding the socket like every socket message (gateway.rate_limits), beyond which
`rate_limited`.

The gateway that took a `say` publishes the stored message (gateway.events.Said); every gateway's
feed of that table hands it to its sockets that asked for `chat`, may see it
(talk.models.visible: spectators' messages reach spectators only until the game is finished)
and whose member neither muted nor blocked its author (one filter: the socket's ``silenced``,
loaded at connect and kept by MutesChanged and BlocksChanged; gateway.table_feed.TableFeeds.said).
The history leaves out the messages of the players the reader muted (the talk service) or blocked
(the lobby).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from game.status import TableStatus
from gateway.auth import Member
from gateway.backends import Backends, backends_of
from gateway.bodies import json_object
from gateway.contract.common import PLAYER_ID
from gateway.contract.socket import WsSaid
from gateway.contract.talk import (
    ChatHistory,
    ChatMessage,
    MutedPlayer,
    MutedPlayers,
    MuteRequest,
    Phrase,
    Phrases,
    PhraseText,
    Reported,
    ReportRequest,
    SaidBySeat,
    SaidBySpectator,
)
from gateway.events import MutesChanged, Said
from gateway.games import game_id_of
from gateway.members import require_member
from gateway.players import blocked_players
from gateway.rate_limits import RATE_LIMITED_TEXT, Buckets, MemoryBuckets, Rate
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError
from services.timeutil import iso_from_ms
from talk.catalogue import PHRASES, known
from talk.client import TalkClient
from talk.models import MAX_REASON_CHARS, BadText, Message, clean_text

log = logging.getLogger(__name__)

TALK_RATE = Rate(per_second=1.0, burst=5)  # one member's messages at one table (CONTRACT)
TEXT_ALLOWED = frozenset({TableStatus.LOBBY, TableStatus.HAND_END, TableStatus.FINISHED})
CHAT_CLOSED_TEXT = "Only quick phrases while cards are in play"
NOT_SEATED_TEXT = "Not seated at this game"
MESSAGE_NOT_FOUND_TEXT = "Message not found"
_SAY_FIELDS = frozenset({"action", "phrase", "text"})
_PLAYER_ID = re.compile(PLAYER_ID)  # what can be a public player id
_MESSAGE_ID = re.compile("^[0-9a-f]{32}$")  # what can be a message's id (talk.models.new_id)


def talk_of(backends: Backends) -> TalkClient:
    if backends.talk is None:
        raise ServiceError(Reason.UNAVAILABLE, "table talk is not configured")
    return backends.talk


# -- messages --------------------------------------------------------------------------------


def chat_message(message: Message) -> ChatMessage:
    """A stored message as the contract shows it (a history's item)."""
    author: SaidBySeat | SaidBySpectator
    if message.spectator:
        author = SaidBySpectator(spectator=True, name=message.name, player=message.player)
    else:
        author = SaidBySeat(seat=message.seat, name=message.name, player=message.player or None)
    return ChatMessage(id=message.id, phrase=message.phrase or None, text=message.text or None,
                       at=iso_from_ms(message.at_ms), **{"from": author})


def said_text(message: Message) -> str:
    """The `said` socket message of a stored message, as sent (gateway.contract.socket.WsSaid)."""
    return json.dumps({"type": WsSaid.model_fields["type"].default, **chat_message(message).body()},
                      separators=(",", ":"), ensure_ascii=False)


# -- the socket's say ------------------------------------------------------------------------


class Refused(Exception):
    """A `say` that is not acted on: the socket's error ``code`` with ``message``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def read_say(data: dict) -> tuple[str, str]:
    """(phrase, text) of a `say` (one of them empty), or Refused ``bad_request``."""
    for key in data:
        if key not in _SAY_FIELDS:
            raise Refused("bad_request", f"Unknown field: {key}")
    phrase, text = data.get("phrase"), data.get("text")
    if (phrase is None) == (text is None):
        raise Refused("bad_request", "Say a phrase or a text, one of the two")
    if phrase is not None:
        if not isinstance(phrase, str) or not known(phrase):
            raise Refused("bad_request", f"Unknown phrase: {phrase}"[:100])
        return phrase, ""
    if not isinstance(text, str):
        raise Refused("bad_request", "text must be a string")
    try:
        return "", clean_text(text)
    except BadText as error:
        raise Refused("bad_request", str(error)) from None


@dataclass
class Speaker:
    """Who says it: the member, their name and where they are at the table."""

    member: Member
    name: str
    seat: int  # the seat index; -1 for a spectator
    spectator: bool = False


class TalkLimits:
    """One member's messages at one table, in this process (like every socket message)."""

    def __init__(self, buckets: Buckets | None = None):
        self._buckets = buckets if buckets is not None else MemoryBuckets()

    async def allows(self, member_id: str, table_id: str) -> bool:
        return await self._buckets.take([(f"talk:{table_id}:{member_id}", TALK_RATE)]) <= 0


async def say(app, table_id: str, speaker: Speaker, data: dict, status: str | None,
              message_id: str | None) -> bool:
    """Store and deliver a socket's `say` at ``table_id`` (whose status the feed last saw as
    ``status``): True when it was said now, False when ``message_id`` said it before (nothing
    new). Refused for a bad message, free text during play, a flood; ServiceError when the talk
    service fails."""
    phrase, text = read_say(data)
    if text and status not in TEXT_ALLOWED:
        raise Refused("chat_closed", CHAT_CLOSED_TEXT)
    if not await app.state.talk_limits.allows(speaker.member.sub, table_id):
        raise Refused("rate_limited", RATE_LIMITED_TEXT)
    talk = talk_of(app.state.backends)
    message, replayed = await talk.say(
        table_id, speaker.member.sub, speaker.member.player, speaker.name,
        spectator=speaker.spectator, seat=speaker.seat, phrase=phrase, text=text,
        request_id=f"{table_id}/{message_id}" if message_id else "")
    if replayed:
        return False
    event = Said(table_id, said_text(message), speaker.spectator, message.player)
    try:
        await app.state.sockets.bus.publish(event)
    except ServiceError as error:  # the bus is down: this process's sockets hear it at least
        log.warning("game %s: a said was not published: %s", table_id, error.message)
        app.state.feeds.said(event)
    return True


async def load_mutes(app, member_id: str) -> frozenset[str]:
    """The public player ids ``member_id`` muted (empty, with a warning, while talk is down)."""
    backends: Backends = app.state.backends
    if backends.talk is None:
        return frozenset()
    try:
        return frozenset(muted.player for muted in await backends.talk.mutes(member_id))
    except ServiceError as error:
        log.warning("mutes not read: %s", error.message)
        return frozenset()


async def load_blocked(app, member_id: str) -> frozenset[str]:
    """The public player ids ``member_id`` blocked, for a socket's talk filter (empty, with a
    warning, while the lobby's PlayersService is down: the socket opens all the same)."""
    try:
        return await blocked_players(app, member_id)
    except ServiceError as error:
        log.warning("blocked players not read: %s", error.message)
        return frozenset()


# -- REST ------------------------------------------------------------------------------------


async def phrases(request: Request) -> JSONResponse:
    """GET /api/phrases: no session needed."""
    body = Phrases(phrases=[Phrase(id=p.id, text=PhraseText(it=p.it, en=p.en)) for p in PHRASES])
    return JSONResponse(body.body())


async def _reader(request: Request, member: Member) -> tuple[str, bool]:
    """The game of the path and whether the caller sees spectators' messages there: a
    spectator does, a player once the game is finished. 403 for a member who is neither."""
    game_id = game_id_of(request)
    backends = backends_of(request)
    game = await backends.lobby.get_game(game_id)
    seat = game.seat_of(member.sub)
    if seat is None:
        if not game.spectators:
            raise HTTPException(403, NOT_SEATED_TEXT)
        return game.id, True
    return game.id, await _finished(request, game, seat.seat)


async def _finished(request: Request, game: Game, seat: str) -> bool:
    if not game.started:
        return False
    status = request.app.state.feeds.status_of(game.id)
    if status is None:
        view = await backends_of(request).game.get_view(game.id, seat)
        status = view.get("status")
    return status == TableStatus.FINISHED


async def history(request: Request) -> JSONResponse:
    """GET /api/games/{id}/chat: the last 100 messages the caller may see, oldest first."""
    member = await require_member(request)
    game_id, include_spectators = await _reader(request, member)
    talk = talk_of(backends_of(request))
    # The talk service leaves out whom the member muted; the lobby knows whom they blocked.
    messages, blocked = await asyncio.gather(talk.messages(game_id, member.sub, include_spectators),
                                             blocked_players(request.app, member.sub))
    return JSONResponse(ChatHistory(messages=[chat_message(m) for m in messages
                                              if m.player not in blocked]).body())


async def report(request: Request) -> JSONResponse:
    """POST /api/games/{id}/chat/{message_id}/report: 202, or 404 for a message the caller cannot
    see (at a game they may not read, too)."""
    member = await require_member(request)
    body = await json_object(request, ReportRequest, optional=True)
    reason = body.get("reason", "")
    if len(reason) > MAX_REASON_CHARS:
        raise HTTPException(400, f"reason must be at most {MAX_REASON_CHARS} characters")
    try:
        game_id, include_spectators = await _reader(request, member)
    except HTTPException as refused:
        if refused.status_code == 403:
            raise HTTPException(404, MESSAGE_NOT_FOUND_TEXT) from None
        raise
    talk = talk_of(backends_of(request))
    message_id = request.path_params["message_id"]
    if not _MESSAGE_ID.fullmatch(message_id) or not await talk.report(
            game_id, message_id, member.sub, reason, include_spectators):
        raise HTTPException(404, MESSAGE_NOT_FOUND_TEXT)
    return JSONResponse(Reported(reported=True).body(), status_code=202)


async def muted(request: Request) -> Response:
    """GET /api/me/muted (the list) and POST /api/me/muted (mute a player)."""
    member = await require_member(request)
    backends = backends_of(request)
    talk = talk_of(backends)
    if request.method == "POST":
        body = await json_object(request, MuteRequest)
        player = body.get("player")
        if not isinstance(player, str) or not player:
            raise HTTPException(400, "player is required")
        if player == member.player:
            raise HTTPException(409, "Cannot mute yourself")
        known_players = await backends.lobby.get_players([player]) if _PLAYER_ID.fullmatch(player) else []
        if not known_players:
            raise HTTPException(404, "Player not found")
        await talk.mute(member.sub, player, known_players[0].name)
        await _mutes_changed(request, member, talk)
        return Response(status_code=204)
    mutes = await talk.mutes(member.sub)
    names = {}
    if mutes:
        names = {p.player: p.name for p in await backends.lobby.get_players([m.player for m in mutes])}
    players = [MutedPlayer(player=m.player, name=names.get(m.player, m.name)) for m in mutes]
    return JSONResponse(MutedPlayers(players=players).body())


async def unmute(request: Request) -> Response:
    """DELETE /api/me/muted/{player}: 204, whether or not the player was muted."""
    member = await require_member(request)
    talk = talk_of(backends_of(request))
    player = request.path_params["player"]
    if _PLAYER_ID.fullmatch(player):  # else nobody has that id: nobody is muted by it
        await talk.unmute(member.sub, player)
        await _mutes_changed(request, member, talk)
    return Response(status_code=204)


async def _mutes_changed(request: Request, member: Member, talk: TalkClient) -> None:
    """Tell the member's open sockets, in every gateway process, whom they mute now."""
    players = tuple(muted.player for muted in await talk.mutes(member.sub))
    try:
        await request.app.state.sockets.bus.publish(MutesChanged(member.sub, players))
    except ServiceError as error:  # their sockets follow at the next reconnection
        log.warning("a change of mutes was not announced: %s", error.message)
