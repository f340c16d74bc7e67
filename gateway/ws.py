"""The WebSocket of a game: the seat's views streamed out, the player's actions passed in.

Refusals happen before the handshake, with an HTTP status (401, 403, 404), so a browser's
error handler sees why. Once open, no input closes the socket: every bad message gets an
``error`` message and the game is unchanged. The socket closes only for an oversized message
(1009), for a session that ended (logout, DELETE /api/me: 1008) and for a game that is gone
before it started (its lobby expired: 1000). A client that goes away while the gateway is
sending to it ends the connection quietly (DEBUG): that is no error of the gateway's.
docs/websocket.md is the protocol's reference.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from contextlib import suppress

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from gateway.bodies import parse_json
from gateway.games import can_be_game_id
from gateway.http_errors import UNAVAILABLE_TEXT, server_fault
from gateway.members import current_member
from gateway.views import game_view, lobby_view
from services.errors import Reason, ServiceError

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 4096
MAX_REVISION = 2**63 - 1  # revisions cross gRPC as int64

# The error codes of CONTRACT.md, by the service reason behind them; "unavailable" (a service
# briefly down, or any other failure on the platform's side: try again, with the fixed text
# UNAVAILABLE_TEXT) is the one code the gateway adds. Anything else is the client's fault.
_CODES = {
    Reason.ILLEGAL_MOVE: "illegal_move",
    Reason.NOT_YOUR_TURN: "not_your_turn",
    Reason.BAD_REQUEST: "bad_request",
    Reason.UNKNOWN_ACTION: "unknown_action",
    Reason.CONCURRENT_MOVE: "concurrent_move",
    Reason.GAME_FINISHED: "game_finished",
}
# How old the names joined into the views, and the session check of an idle socket, may get:
# an erased player shows as "deleted player" on the others' sockets, and the erased member's
# idle sockets close, at the first update after this long (at most one session read and one
# lobby call per socket per period; a player's own message always checks the session).
SEATING_REFRESH_SECONDS = 2.0
SESSION_ENDED = 1008  # policy violation: the socket's session is gone


async def game_socket(websocket: WebSocket) -> None:
    app = websocket.app
    backends = app.state.backends
    if not app.state.origins.allows_socket(websocket):
        return await _deny(websocket, 403, "Origin not allowed")
    member = await current_member(websocket)
    if member is None:
        return await _deny(websocket, 401, "Not authenticated")
    if not can_be_game_id(websocket.path_params["id"]):
        return await _deny(websocket, 404, "Game not found")
    try:
        game = await backends.lobby.get_game(websocket.path_params["id"])
    except ServiceError as error:
        if error.reason is Reason.GAME_NOT_FOUND:
            return await _deny(websocket, 404, "Game not found")
        log.warning("socket refused: the lobby failed (%s): %s", error.reason.name, error.message)
        return await _deny(websocket, 503, UNAVAILABLE_TEXT)
    seat = game.seat_of(member.sub)
    if seat is None:
        return await _deny(websocket, 403, "Not seated at this game")
    await websocket.accept()
    log.info("socket opened on game %s (seat %d)", game.id, seat.index)
    connection = _Connection(websocket, backends, game, seat.seat, member.sub)
    try:
        await connection.run()
    finally:
        log.info("socket closed on game %s (seat %d)", game.id, seat.index)


async def _deny(websocket: WebSocket, status: int, detail: str) -> None:
    await websocket.send_denial_response(JSONResponse({"detail": detail}, status_code=status))


class _Connection:
    """One open socket: a task streaming views out while this one reads the player's messages."""

    def __init__(self, websocket: WebSocket, backends, game, seat: str, sub: str):
        self.websocket = websocket
        self.backends = backends
        self.game = game
        self.seat = seat
        self.sub = sub
        self.seating_read = time.monotonic()
        self.sending = asyncio.Lock()
        self.started = asyncio.Event()
        if game.started:
            self.started.set()

    async def run(self) -> None:
        pump = asyncio.create_task(self._stream_views())
        try:
            await self._read_messages()
        except WebSocketDisconnect:
            log.debug("game %s: the client went away while the gateway was sending", self.game.id)
        finally:
            pump.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await pump

    async def send(self, message: dict) -> None:
        """Send ``message``; WebSocketDisconnect when the socket is closed (the client went
        away, or the gateway closed it), which ends the connection."""
        text = json.dumps(message, separators=(",", ":"))
        async with self.sending:
            try:
                await self.websocket.send_text(text)
            except WebSocketDisconnect:
                raise
            except (OSError, RuntimeError) as error:
                # uvicorn: "Unexpected ASGI message 'websocket.send', after sending
                # 'websocket.close'" (a close under way); Starlette: "Cannot call "send" once a
                # close message has been sent"; the transport's ClientDisconnected (an OSError).
                raise WebSocketDisconnect(1006, str(error)) from None

    async def close(self, code: int, reason: str) -> None:
        """Close the socket, unless it is closed already (the client went away first)."""
        with suppress(WebSocketDisconnect, OSError, RuntimeError):
            await self.websocket.close(code=code, reason=reason)

    async def _stream_views(self) -> None:
        if not await self._wait_for_start():
            return
        backoff = 0.2
        while True:
            try:
                async for view in self.backends.game.watch_views(self.game.id, self.seat):
                    backoff = 0.2
                    if self._stale() and not await self._session_lives():
                        return
                    await self.send({"type": "state", "game": await self._view(view)})
                    if view.get("status") == "finished":
                        await self.send({"type": "game_over", "scores": view.get("scores"),
                                         "winner": view.get("winner")})
                        return
            except ServiceError as error:
                if error.reason is not Reason.UNAVAILABLE:
                    log.warning("view stream of %s ended: %s", self.game.id, error.message)
                    return
            # The game service went away (a restart, a replica lost): subscribe again.
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    async def _wait_for_start(self) -> bool:
        """The waiting room: a ``lobby`` message now and whenever a seat fills, until the game
        starts (True); False when the socket closed meanwhile (the game expired unstarted, or
        the session ended). The lobby pushes the changes (WatchGame): nothing polls."""
        backoff = 0.2
        while not self.started.is_set():
            try:
                async for game in self.backends.lobby.watch_game(self.game.id):
                    backoff = 0.2
                    self.game = game
                    if game.started:
                        self.seating_read = time.monotonic()
                        self.started.set()
                        return True
                    if self._stale() and not await self._session_lives():
                        return False
                    await self.send({"type": "lobby", "game": lobby_view(game, self.sub)})
            except ServiceError as error:
                if error.reason is Reason.GAME_NOT_FOUND:  # expired unstarted (GAME_TTL_SECONDS)
                    await self.close(1000, "Game not found")
                    return False
                if not error.reason.transient:
                    raise
            # The lobby went away (a restart, a replica lost): watch again.
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
        return True

    async def _session_lives(self) -> bool:
        """Whether the socket's member is still logged in; if not, the socket is closed.

        Logging out or DELETE /api/me ends the session: its sockets must stop acting for the
        seat (and, once erased, seeing it)."""
        try:
            member = await current_member(self.websocket)
        except ServiceError as error:  # the session store briefly down: no verdict
            if not error.reason.transient:
                raise
            log.debug("game %s: session not checked: %s", self.game.id, error.message)
            return True
        if member is not None and member.sub == self.sub:
            return True
        await self.close(SESSION_ENDED, "Session ended")
        return False

    def _stale(self) -> bool:
        """Whether the session and names are due for another look (SEATING_REFRESH_SECONDS):
        updates check them at that pace, not one store read per update and socket."""
        return time.monotonic() - self.seating_read > SEATING_REFRESH_SECONDS

    async def _view(self, view: dict) -> dict:
        """The contract's view, the names from a seating at most SEATING_REFRESH_SECONDS old."""
        if self._stale():
            with suppress(ServiceError):  # the lobby briefly down: the names we have will do
                self.game = await self.backends.lobby.get_game(self.game.id)
            self.seating_read = time.monotonic()
        return game_view(view, self.game)

    async def _read_messages(self) -> None:
        while True:
            try:
                message = await self.websocket.receive()
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await self._error("bad_request", "Send JSON text messages, not binary")
                continue
            if len(text.encode()) > MAX_MESSAGE_BYTES:
                await self.close(1009, "Message too big")
                return
            if not await self._session_lives():
                return
            try:
                await self._handle(text)
            except (WebSocketDisconnect, asyncio.CancelledError):
                raise
            except Exception:  # a bug must not close the socket (CONTRACT: errors never do)
                log.exception("game %s: a WebSocket message failed", self.game.id)
                await self._error("unavailable", UNAVAILABLE_TEXT)

    async def _handle(self, text: str) -> None:
        try:
            data = parse_json(text)
        except ValueError:
            return await self._error("bad_request", "Message is not JSON")
        if not isinstance(data, dict):
            return await self._error("bad_request", "Message must be a JSON object")
        action = data.get("action")
        if not isinstance(action, str) or not action:
            return await self._error("bad_request", "Message needs an action")
        has_revision = "revision" in data
        revision = data.pop("revision", None)
        if has_revision and (not isinstance(revision, int) or isinstance(revision, bool)
                             or not 0 <= revision <= MAX_REVISION):
            return await self._error("bad_request", "revision must be an integer of 0 or more")
        if not self.started.is_set():
            return await self._error("illegal_move", "The game has not started")
        try:
            if action == "state":
                view = await self.backends.game.get_view(self.game.id, self.seat)
                await self.send({"type": "state", "game": await self._view(view)})
            else:
                await self.backends.game.act(self.game.id, self.seat, data, revision)
        except ServiceError as error:
            if server_fault(error):  # its message names internal addresses: for the log only
                log.warning("game %s: a service failed (%s): %s", self.game.id,
                            error.reason.name, error.message)
                return await self._error("unavailable", UNAVAILABLE_TEXT)
            message = error.message
            if error.reason is Reason.UNKNOWN_ACTION:  # the engine knows its actions, not the socket's
                message += ", or 'state' for the current view"
            await self._error(_CODES.get(error.reason, "bad_request"), message)

    async def _error(self, code: str, message: str) -> None:
        await self.send({"type": "error", "code": code, "message": message})
