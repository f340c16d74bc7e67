"""The WebSocket of a game: the seat's views streamed out, the player's actions passed in.

Refusals happen before the handshake, with an HTTP status (401, 403, 404), so a browser's
error handler sees why. Once open, no input closes the socket: every bad message gets an
``error`` message and the game is unchanged; a message over the rate limits
(gateway.rate_limits) gets ``rate_limited`` and is not acted on. The socket closes only for an
oversized message (1009), for a session that ended (logout, DELETE /api/me, expiry: 1008), for
a game that is gone before it started (its lobby expired: 1000), for a client too slow to take
its messages (1013) and when the gateway stops (1012, gateway.draining). A client that goes
away while the gateway is sending to it ends the connection quietly (DEBUG): that is no error
of the gateway's. docs/websocket.md is the protocol's reference.

The views come from the table's feed, shared by every socket of this process at that game
(gateway.table_feed); every message to a socket goes through its outbox, written by one task,
so they arrive in order. The session is read when the socket opens and on the events that say
it may have ended (gateway.socket_registry), never per message nor per update: a message costs no
store call. Its lifetime is absolute (gateway.sessions), so the socket closes at its expiry
without reading it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Callable
from contextlib import nullcontext, suppress
from typing import TYPE_CHECKING

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from game.live_link import CallLost
from gateway.auth import Member
from gateway.backends import Backends, backends_of
from gateway.bodies import parse_json
from gateway.closes import MESSAGE_TOO_BIG, SERVICE_RESTART, SESSION_ENDED
from gateway.contract.common import Body
from gateway.contract.socket import MOVE_ID_PATTERN, Feature, WsError, features_of
from gateway.contract.spectators import SPECTATORS_FORBIDDEN
from gateway.events import session_digest
from gateway.games import can_be_game_id
from gateway.http_errors import UNAVAILABLE_TEXT, server_fault
from gateway.members import current_member
from gateway.outbox import Outbox
from gateway.rate_limits import RATE_LIMITED_TEXT, Kind, RateLimits
from gateway.table_feed import Subscriber
from gateway.table_talk import Refused, Speaker, load_blocked, load_mutes, say
from lobby.models import Game
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.timeutil import now_ms

if TYPE_CHECKING:
    from services.observability.telemetry import Telemetry

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
MAX_REVISION = 2**63 - 1  # revisions cross gRPC as int64

# The error codes of CONTRACT.md, by the service reason behind them; "unavailable" (a service
# briefly down, or any other failure on the platform's side: try again, with the fixed text
# UNAVAILABLE_TEXT), "unconfirmed" (a move whose outcome is not known), "already_played" and
# "rate_limited" (too many messages: gateway.rate_limits) are the codes the gateway adds.
# Anything else is the client's fault.
_CODES = {
    Reason.ILLEGAL_MOVE: "illegal_move",
    Reason.NOT_YOUR_TURN: "not_your_turn",
    Reason.BAD_REQUEST: "bad_request",
    Reason.UNKNOWN_ACTION: "unknown_action",
    Reason.CONCURRENT_MOVE: "concurrent_move",
    Reason.GAME_FINISHED: "game_finished",
}
UNCONFIRMED_TEXT = ("Your move was sent but not confirmed in time: send it again with its id, "
                    "or see the next state")
ALREADY_PLAYED_TEXT = "Already played: this move was made when its id was first sent"
# A message's "id" (docs/websocket.md): the game service keeps it with the move, per seat.
MESSAGE_ID = re.compile(MOVE_ID_PATTERN)
ID_TEXT = "id must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -"
# When the gateway stops, how long a socket's close waits for the message it is handling (a
# move on its way) to be answered.
RESTART_ANSWER_SECONDS = 3.0
_MESSAGE_SPAN = "WS /ws/games/{id} message"


async def game_socket(websocket: WebSocket) -> None:
    """/ws/games/{id}: a seated player's socket."""
    admitted = await _admit(websocket)
    if admitted is None:
        return
    member, game, events_seen = admitted
    seat = game.seat_of(member.sub)
    if seat is None:
        return await deny(websocket, 403, "Not seated at this game")
    await websocket.accept()
    log.info("socket opened on game %s (seat %d)", game.id, seat.index)
    features = features_of(websocket.query_params.get("features"))
    await _serve(websocket, _Connection(websocket, backends_of(websocket), game, seat.seat, member,
                                        websocket.app.state.socket_limits, features,
                                        getattr(websocket.app.state, "telemetry", None)), game, events_seen)


async def watch_socket(websocket: WebSocket) -> None:
    """/ws/games/{id}/watch: a spectator's socket (CONTRACT, Spectators). Refused before the
    handshake like the players' socket: 401, 404, 403 when the game forbids spectators (or the
    Origin is not allowed). Any logged-in member may watch, seated players too."""
    admitted = await _admit(websocket)
    if admitted is None:
        return
    member, game, events_seen = admitted
    if not game.spectators:
        return await deny(websocket, 403, SPECTATORS_FORBIDDEN)
    await websocket.accept()
    log.info("spectator socket opened on game %s", game.id)
    # `rematch` carries the new game's join code: the players' alone.
    features = features_of(websocket.query_params.get("features")) - {Feature.REMATCH}
    await _serve(websocket, _Connection(websocket, backends_of(websocket), game, "", member,
                                        websocket.app.state.socket_limits, features,
                                        getattr(websocket.app.state, "telemetry", None), spectator=True),
                 game, events_seen)


async def admit_member(websocket: WebSocket) -> tuple[Member, int] | None:
    """The checks every socket makes before the handshake (the game's, the watch socket, the
    member socket /ws/me): the gateway is not stopping, the Origin is allowed, the events are
    heard, the session names a member. The member, with the count of gateway events seen before
    the session was read; None when refused (the refusal is sent)."""
    app = websocket.app
    sockets = app.state.sockets
    if app.state.drain.started:  # the gateway stops: the app reconnects, to another replica
        await deny(websocket, 503, UNAVAILABLE_TEXT)
        return None
    if not app.state.origins.allows_socket(websocket):
        await deny(websocket, 403, "Origin not allowed")
        return None
    try:
        await sockets.listening()  # before the session is read: no event can slip between
    except ServiceError as error:
        log.warning("socket refused: the gateway events are not heard: %s", error.message)
        await deny(websocket, 503, UNAVAILABLE_TEXT)
        return None
    events_seen: int = sockets.events_seen
    member = await current_member(websocket)
    if member is None:
        await deny(websocket, 401, "Not authenticated")
        return None
    return member, events_seen


async def _admit(websocket: WebSocket) -> tuple[Member, Game, int] | None:
    """The checks both game sockets make before the handshake: the member, and the game they
    open it at, with the count of gateway events seen before the session was read; None when
    refused (the refusal is sent)."""
    admitted = await admit_member(websocket)
    if admitted is None:
        return None
    member, events_seen = admitted
    if not can_be_game_id(websocket.path_params["id"]):
        await deny(websocket, 404, "Game not found")
        return None
    try:
        game = await backends_of(websocket).lobby.get_game(websocket.path_params["id"])
    except ServiceError as error:
        if error.reason is Reason.GAME_NOT_FOUND:
            await deny(websocket, 404, "Game not found")
        else:
            log.warning("socket refused: the lobby failed (%s): %s", error.reason.name, error.message)
            await deny(websocket, 503, UNAVAILABLE_TEXT)
        return None
    return member, game, events_seen


async def _serve(websocket: WebSocket, connection: _Connection, game: Game, events_seen: int) -> None:
    """Run an accepted socket until it closes."""
    sockets = websocket.app.state.sockets
    sockets.add(connection)
    metrics.socket_opened()
    try:
        if sockets.events_seen != events_seen:  # an event came while the session was read
            connection.check_session()
        with websocket.app.state.online.holding(connection.member.player):  # any socket: online
            await connection.run(websocket.app.state.feeds, game)
    finally:
        metrics.socket_closed()
        sockets.discard(connection)
        log.info("%s socket closed on game %s (%s)", "spectator" if connection.spectator else "player",
                 game.id, connection.seat or "watching")


def while_alive(method: Callable[[int, str], None]) -> Callable[[int, str], None]:
    """``method``, for as long as its connection lives: the outbox must not keep its connection
    alive. A cycle there (connection -> outbox -> bound method -> connection) left each closed
    socket, with its transport, buffers and feed, to the cyclic collector, which the gateway
    runs seldom (services/rpc/server.py), and its memory grew with every socket closed."""
    ref = weakref.WeakMethod(method)

    def call(code: int, reason: str) -> None:
        bound = ref()
        if bound is not None:
            bound(code, reason)
    return call


async def deny(websocket: WebSocket, status: int, detail: str) -> None:
    await websocket.send_denial_response(JSONResponse({"detail": detail}, status_code=status))



async def send_outbox(outbox: Outbox, websocket: WebSocket, who: str) -> None:
    """A socket's writer: send what its outbox hands out, in order, until the client goes away."""
    while True:
        text = await outbox.next()
        try:
            await websocket.send_text(text)
            metrics.socket_message("out")
        except (WebSocketDisconnect, OSError, RuntimeError):
            # uvicorn: "Unexpected ASGI message 'websocket.send', after sending
            # 'websocket.close'" (a close under way); Starlette: "Cannot call "send" once
            # a close message has been sent"; the transport's ClientDisconnected (OSError).
            log.debug("%s: the client went away while the gateway was sending", who)
            return

class _Connection:
    """One open socket: this task reads the player's messages, a writer task drains the
    outbox (views from the feed, answers, errors), and the registry may close it."""

    def __init__(self, websocket: WebSocket, backends: Backends, game: Game, seat: str, member: Member,
                 limits: RateLimits, features: frozenset[Feature] = frozenset(),
                 telemetry: Telemetry | None = None, spectator: bool = False):
        self.websocket = websocket
        self.limits = limits
        self.client = websocket.client.host if websocket.client else None
        # telemetry hook: each message of the player's is a trace of its own
        self._message_span = (telemetry.message_span if telemetry is not None
                              else lambda name: nullcontext())
        self.backends = backends
        self.game_id = game.id
        self._first_seat = seat  # the seat when it opened; the feed's subscriber follows the member
        self.features = features
        self.spectator = spectator  # /ws/games/{id}/watch: no seat, no moves
        self.sub = member.sub
        self.member = member
        self.muted: frozenset[str] = frozenset()  # the players whose `said` this member muted
        self.blocked: frozenset[str] = frozenset()  # ... and those they blocked (CONTRACT, blocking)
        self.session = session_digest(member.session_id)
        self.expires_ms = member.expires_ms
        self.outbox = Outbox(while_alive(self._close_soon))
        self.subscriber: Subscriber | None = None
        self._tasks: set[asyncio.Task] = set()
        self._closing: asyncio.Task | None = None
        self._checking = False
        self._answering: str | None = None  # the id of the message being handled
        self._idle = asyncio.Event()  # no message of the player's is being handled
        self._idle.set()
        self._restarting = False

    @property
    def seat(self) -> str:
        """The seat the member holds now (they may move to another in the waiting room)."""
        return self.subscriber.seat if self.subscriber is not None else self._first_seat

    async def run(self, feeds, game: Game) -> None:
        if Feature.CHAT in self.features:  # whose `said` this member does not get
            self.muted, self.blocked = await asyncio.gather(load_mutes(self.websocket.app, self.sub),
                                                            load_blocked(self.websocket.app, self.sub))
        if self.spectator:
            self.subscriber = feeds.watch(game, self.sub, self.outbox, self.features)
        else:
            self.subscriber = feeds.join(game, self._first_seat, self.sub, self.outbox, self.features)
        self._silence()
        writer = asyncio.create_task(self._write())
        expiry = None
        if self.expires_ms is not None:
            delay = max(0.0, (self.expires_ms - now_ms()) / 1000)
            expiry = asyncio.get_running_loop().call_later(delay, self.end_session)
        try:
            await self._read_messages()
        finally:
            feeds.leave(self.subscriber)
            if expiry is not None:
                expiry.cancel()
            for task in (writer, *self._tasks):
                task.cancel()
            for task in (writer, *self._tasks):
                with suppress(asyncio.CancelledError, Exception):
                    await task
            if self._closing is not None:  # a close under way completes (its own timeouts)
                with suppress(asyncio.CancelledError, Exception):
                    await self._closing

    # -- out -------------------------------------------------------------------------------

    async def _write(self) -> None:
        await send_outbox(self.outbox, self.websocket, f"game {self.game_id}")

    def _close_soon(self, code: int, reason: str) -> None:
        """The outbox's close (too slow, game gone, session ended): now, queued or not. The
        reader then sees the disconnect and the connection ends."""
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        """Close the socket, unless it is closed already (the client went away first)."""
        with suppress(WebSocketDisconnect, OSError, RuntimeError):
            await self.websocket.close(code=code, reason=reason)

    def restart(self) -> None:
        """The registry's, when the gateway stops: close with 1012 once the message being
        handled is answered (or RESTART_ANSWER_SECONDS passed) and what is queued is written."""
        if not self._restarting:
            self._restarting = True
            self._spawn(self._restart())

    async def _restart(self) -> None:
        with suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), RESTART_ANSWER_SECONDS)
        self.outbox.finish(*SERVICE_RESTART)

    def tell(self, feature: Feature, message: Body) -> None:
        """The registry's: a notice for this game's players (a ``rematch``), if this socket asked
        for ``feature``."""
        if self.subscriber is not None:
            self.subscriber.notify(feature, message.model_dump_json())

    def mutes_changed(self, players: frozenset[str] | None) -> None:
        """The registry's: this member mutes ``players`` now (None: read them again)."""
        if Feature.CHAT not in self.features:
            return
        if players is None:
            self._spawn(self._read_mutes())
        else:
            self.muted = players
            self._silence()

    def blocks_changed(self, players: frozenset[str] | None) -> None:
        """The registry's: this member blocks ``players`` now (None: read them again)."""
        if Feature.CHAT not in self.features:
            return
        if players is None:
            self._spawn(self._read_blocked())
        else:
            self.blocked = players
            self._silence()

    async def _read_mutes(self) -> None:
        self.muted = await load_mutes(self.websocket.app, self.sub)
        self._silence()

    async def _read_blocked(self) -> None:
        self.blocked = await load_blocked(self.websocket.app, self.sub)
        self._silence()

    def _silence(self) -> None:
        """The feed drops the talk of whom this member muted or blocked: one filter."""
        if self.subscriber is not None:
            self.subscriber.silenced = self.muted | self.blocked

    def _error(self, code: str, message: str) -> None:
        """Refuse the message being handled (its ``id`` goes back with the answer)."""
        assert self.subscriber is not None
        self.subscriber.put(WsError(code=code, message=message, id=self._answering))

    # -- the session -----------------------------------------------------------------------

    def end_session(self) -> None:
        """The registry's: this socket's session was ended (a logout); and its expiry's: a
        session lives a fixed time from its creation (gateway.sessions), nothing extends it."""
        self.outbox.close(*SESSION_ENDED)

    def check_session(self) -> None:
        """The registry's: the session may have ended (an erasure, events missed); read it."""
        if not self._checking and not self.outbox.closed:
            self._checking = True
            self._spawn(self._check_session())

    async def _check_session(self) -> None:
        try:
            await self._session_lives()
        finally:
            self._checking = False

    async def _session_lives(self) -> bool:
        """Whether the socket's member is still logged in; if not, the socket is closed.

        Logging out or DELETE /api/me ends the session: its sockets must stop acting for the
        seat (and, once erased, seeing it)."""
        try:
            member = await current_member(self.websocket)
        except ServiceError as error:  # the session store briefly down: no verdict
            if not error.reason.transient:
                raise
            log.debug("game %s: session not checked: %s", self.game_id, error.message)
            return True
        if member is not None and member.sub == self.sub:
            return True
        self.end_session()
        return False

    def _spawn(self, job) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- in --------------------------------------------------------------------------------

    async def _read_messages(self) -> None:
        while True:
            try:
                message = await self.websocket.receive()
            except (WebSocketDisconnect, RuntimeError):
                message = {"type": "websocket.disconnect"}
            if message["type"] == "websocket.disconnect":
                log.debug("game %s: the client went away", self.game_id)
                return
            metrics.socket_message("in")
            with self._message_span(_MESSAGE_SPAN):
                if not await self._receive(message):
                    return
            await self.outbox.room()  # the answers go out before more is read (a burst)

    async def _receive(self, message) -> bool:
        """One message of the player's; False when the socket is closing."""
        text = message.get("text")
        if text is not None and len(text.encode()) > MAX_MESSAGE_BYTES:
            await self._close(*MESSAGE_TOO_BIG)
            return False
        # Before any other work: a flood costs no store call (the buckets are this process's).
        if await self.limits.refusal(Kind.WS_MESSAGE, self.session, self.client) is not None:
            self._refuse_flood(text)
            return True
        if text is None:
            self._error("bad_request", "Send JSON text messages, not binary")
            return True
        # No session read here: an ended session closes the socket through the events
        # (gateway.socket_registry) and its expiry timer, so a message costs no store call.
        if self.outbox.closed:
            return False  # closing (run() waits for the close to complete)
        self._idle.clear()
        try:
            await self._handle(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not close the socket (CONTRACT: errors never do)
            log.exception("game %s: a WebSocket message failed", self.game_id)
            self._error("unavailable", UNAVAILABLE_TEXT)
        finally:
            self._idle.set()
        return True

    def _refuse_flood(self, text: str | None) -> None:
        """``rate_limited``, with the message's id when it has a valid one; nothing is done."""
        try:
            data = parse_json(text) if text is not None else None
        except ValueError:
            data = None
        message_id = data.get("id") if isinstance(data, dict) else None
        valid = isinstance(message_id, str) and MESSAGE_ID.fullmatch(message_id) is not None
        self._answering = message_id if valid else None
        try:
            self._error("rate_limited", RATE_LIMITED_TEXT)
        finally:
            self._answering = None

    async def _handle(self, text: str) -> None:
        assert self.subscriber is not None
        try:
            data = parse_json(text)
        except ValueError:
            return self._error("bad_request", "Message is not JSON")
        if not isinstance(data, dict):
            return self._error("bad_request", "Message must be a JSON object")
        has_id = "id" in data
        message_id = data.pop("id", None)
        if has_id:  # a JSON null is no id either
            if not isinstance(message_id, str) or not MESSAGE_ID.fullmatch(message_id):
                return self._error("bad_request", ID_TEXT)
            self._answering = message_id
        try:
            await self._act(data, message_id)
        finally:
            self._answering = None

    async def _act(self, data: dict, message_id: str | None) -> None:
        assert self.subscriber is not None
        action = data.get("action")
        if not isinstance(action, str) or not action:
            return self._error("bad_request", "Message needs an action")
        if self.spectator:
            return await self._spectator_act(action, data, message_id)
        has_revision = "revision" in data
        revision = data.pop("revision", None)
        if has_revision and (not isinstance(revision, int) or isinstance(revision, bool)
                             or not 0 <= revision <= MAX_REVISION):
            return self._error("bad_request", "revision must be an integer of 0 or more")
        if action == "say":  # table talk: in the lobby too
            return await self._say(data, message_id)
        if not self.subscriber.started:
            return self._error("illegal_move", "The game has not started")
        try:
            if action == "state":
                view = await self.backends.game.get_view(self.game_id, self.seat)
                self.subscriber.answer_state(view)
            elif action == "takeback":
                await self._take_back()
            elif self._taken_over():
                self._error("illegal_move", "A bot plays your seat: take it back first "
                                            "(POST /api/games/{id}/return)")
            else:
                # The id, kept with the move, is the seat's: "seat:1/m-17".
                acted = await self.backends.live.act(
                    self.game_id, self.seat, data, revision,
                    request_id=f"{self.seat}/{message_id}" if message_id else "")
                if acted.replayed and message_id is not None:
                    self._error("already_played", ALREADY_PLAYED_TEXT)
        except CallLost as error:  # sent again until the time ran out: made or not, unknown
            log.warning("game %s: a move was not confirmed: %s", self.game_id, error.message)
            self._error("unconfirmed", UNCONFIRMED_TEXT)
        except ServiceError as error:
            if server_fault(error):  # its message names internal addresses: for the log only
                log.warning("game %s: a service failed (%s): %s", self.game_id,
                            error.reason.name, error.message)
                return self._error("unavailable", UNAVAILABLE_TEXT)
            message = error.message
            if error.reason is Reason.UNKNOWN_ACTION:  # the engine knows its actions, not the socket's
                message += ", or 'state' for the current view"
            self._error(_CODES.get(error.reason, "bad_request"), message)

    async def _say(self, data: dict, message_id: str | None) -> None:
        """Table talk (gateway.table_talk): the seat's player, or a spectator, says a phrase or a
        text."""
        assert self.subscriber is not None
        game = self.subscriber.feed.game
        seated = game.seat_of(self.sub) if self.spectator else None
        if self.spectator and seated is None:  # a watcher's socket: the spectators' channel
            speaker = Speaker(self.member, self.member.name, -1, spectator=True)
        else:  # a player, on the players' socket or watching their own game: from the seat
            index = seated.index if seated is not None else int(self.seat.rpartition(":")[2])
            seat = game.at(index)
            speaker = Speaker(self.member, seat.display_name if seat is not None else self.member.name, index)
        try:
            said = await say(self.websocket.app, self.game_id, speaker, data,
                             self.subscriber.feed.status, message_id)
        except Refused as refused:
            return self._error(refused.code, refused.message)
        except ServiceError as error:
            if server_fault(error):
                log.warning("game %s: table talk failed (%s): %s", self.game_id,
                            error.reason.name, error.message)
                return self._error("unavailable", UNAVAILABLE_TEXT)
            return self._error("bad_request", error.message)
        if not said and message_id is not None:
            self._error("already_played", ALREADY_PLAYED_TEXT)

    async def _spectator_act(self, action: str, data: dict, message_id: str | None) -> None:
        """A spectator's message: only table talk (`say`) acts; any other action is
        ``unknown_action``, and nothing reaches the game."""
        if action == "say":
            data.pop("revision", None)
            return await self._say(data, message_id)
        self._error("unknown_action", f"Unknown action: {action}; a spectator can only say something")

    def _taken_over(self) -> bool:
        """A bot plays this seat for its person, who left (the feed's seating, kept fresh by
        the gateway's events)."""
        assert self.subscriber is not None
        seat = self.subscriber.feed.game.at(int(self.seat.rpartition(":")[2]))
        return seat is not None and seat.took_over

    async def _take_back(self) -> None:
        """Practice take-back (CONTRACT, Bots): the lobby decides from the seating, the game
        from its log (lobby.practice); the socket only forwards."""
        await self.backends.lobby.take_back(self.game_id, self.sub)
