"""The member socket /ws/me (CONTRACT, Players: docs/websocket.md, The member socket): what happens
to the member away from a table, one socket per tab.

Refused before the handshake like the game sockets (gateway.ws.admit_member: 401 without a
session, 403 for an Origin not allowed, 503 while the gateway stops). Once open it only sends:
``invited`` and ``online`` (gateway.member_feed, from the gateway events), ``your_turn`` later
(issue 44). It takes no actions: every message gets an ``error`` (``unknown_action``, or
``bad_request`` when it is not a JSON object; ``rate_limited`` over the socket rate) and a
message over MAX_MESSAGE_BYTES closes it with 1009. Its session is watched as the game sockets'
are (gateway.socket_registry: a logout or an erasure closes it with 1008), and so is the
gateway's stop (1012). While it is open its member is online (gateway.online).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress

from starlette.websockets import WebSocket, WebSocketDisconnect

from gateway.auth import Member
from gateway.bodies import parse_json
from gateway.closes import MESSAGE_TOO_BIG, SERVICE_RESTART, SESSION_ENDED
from gateway.contract.common import Body
from gateway.contract.socket import Feature, WsError
from gateway.events import session_digest
from gateway.members import current_member
from gateway.outbox import Outbox
from gateway.rate_limits import RATE_LIMITED_TEXT, Kind, RateLimits
from gateway.ws import MAX_MESSAGE_BYTES, MESSAGE_ID, admit_member, send_outbox, while_alive
from services.observability import metrics
from services.rpc.errors import ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)

NO_ACTIONS_TEXT = "The member socket takes no actions"
# On connect a socket is told each followed player who is online, all at once: up to MAX_FOLLOWING
# (500) messages, and a batch may flip each of them once more. A queue that long is still a client
# that stopped reading (gateway.outbox.Outbox), not one that connected.
OUTBOX_SIZE = 2 * 500 + 64


async def member_socket(websocket: WebSocket) -> None:
    """/ws/me: the member's own socket."""
    admitted = await admit_member(websocket)
    if admitted is None:
        return
    member, events_seen = admitted
    await websocket.accept()
    app = websocket.app
    connection = MemberConnection(websocket, member, app.state.socket_limits)
    sockets, members = app.state.sockets, app.state.members
    sockets.add(connection)
    metrics.socket_opened()
    try:
        if sockets.events_seen != events_seen:  # an event came while the session was read
            connection.check_session()
        with app.state.online.holding(member.player):
            members.add(connection)
            try:
                await connection.run()
            finally:
                members.discard(connection)
    finally:
        metrics.socket_closed()
        sockets.discard(connection)
        log.info("member socket closed")


class MemberConnection:
    """One open /ws/me: this task reads (and refuses) the client's messages, a writer task
    drains the outbox, the registry may close it."""

    game_id = ""  # at no table (gateway.socket_registry)

    def __init__(self, websocket: WebSocket, member: Member, limits: RateLimits):
        self.websocket = websocket
        self.limits = limits
        self.client = websocket.client.host if websocket.client else None
        self.sub = member.sub
        self.player = member.player
        self.session = session_digest(member.session_id)
        self.expires_ms = member.expires_ms
        self.told: set[str] = set()  # gateway.member_feed: the followed players told online
        self.outbox = Outbox(while_alive(self._close_soon), OUTBOX_SIZE)
        self._tasks: set[asyncio.Task] = set()
        self._closing: asyncio.Task | None = None
        self._checking = False

    def send(self, message: Body) -> None:
        self.outbox.put(message.model_dump_json())

    async def run(self) -> None:
        writer = asyncio.create_task(self._write())
        expiry = None
        if self.expires_ms is not None:
            delay = max(0.0, (self.expires_ms - now_ms()) / 1000)
            expiry = asyncio.get_running_loop().call_later(delay, self.check_session)
        try:
            await self._read_messages()
        finally:
            if expiry is not None:
                expiry.cancel()
            for task in (writer, *self._tasks):
                task.cancel()
            for task in (writer, *self._tasks):
                with suppress(asyncio.CancelledError, Exception):
                    await task
            if self._closing is not None:
                with suppress(asyncio.CancelledError, Exception):
                    await self._closing

    # -- out -------------------------------------------------------------------------------

    async def _write(self) -> None:
        await send_outbox(self.outbox, self.websocket, "member socket")

    def _close_soon(self, code: int, reason: str) -> None:
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with suppress(WebSocketDisconnect, OSError, RuntimeError):
            await self.websocket.close(code=code, reason=reason)

    # -- the registry's (gateway.socket_registry.LiveSocket) -------------------------------

    def tell(self, feature: Feature, message: Body) -> None:
        """No table's notices here."""

    def mutes_changed(self, players: frozenset[str] | None) -> None:
        """No table talk here."""

    def blocks_changed(self, players: frozenset[str] | None) -> None:
        """No table talk here."""

    def restart(self) -> None:
        """The gateway stops: close with 1012 once what is queued is written (no message of the
        client's is ever under way)."""
        self.outbox.finish(*SERVICE_RESTART)

    def end_session(self) -> None:
        self.outbox.close(*SESSION_ENDED)

    def check_session(self) -> None:
        if not self._checking and not self.outbox.closed:
            self._checking = True
            task = asyncio.get_running_loop().create_task(self._check_session())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _check_session(self) -> None:
        try:
            member = await current_member(self.websocket)
        except ServiceError as error:  # the session store briefly down: no verdict
            log.debug("member socket: session not checked: %s", error.message)
            return
        finally:
            self._checking = False
        if member is None or member.sub != self.sub:
            self.end_session()

    # -- in --------------------------------------------------------------------------------

    async def _read_messages(self) -> None:
        while True:
            try:
                message = await self.websocket.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message["type"] == "websocket.disconnect":
                return
            metrics.socket_message("in")
            text = message.get("text")
            if text is not None and len(text.encode()) > MAX_MESSAGE_BYTES:
                await self._close(*MESSAGE_TOO_BIG)
                return
            if await self.limits.refusal(Kind.WS_MESSAGE, self.session, self.client) is not None:
                self._refuse(text, "rate_limited", RATE_LIMITED_TEXT)
            else:
                self._refuse(text, *_why(text))
            await self.outbox.room()  # the answers go out before more is read (a burst)

    def _refuse(self, text: str | None, code: str, message: str) -> None:
        """The error answering ``text``, with its id when it carries a valid one."""
        try:
            data = parse_json(text) if text is not None else None
        except ValueError:
            data = None
        message_id = data.get("id") if isinstance(data, dict) else None
        valid = isinstance(message_id, str) and MESSAGE_ID.fullmatch(message_id) is not None
        self.send(WsError(code=code, message=message, id=message_id if valid else None))


def _why(text: str | None) -> tuple[str, str]:
    """The error code and text for a client's message: nothing is ever acted on."""
    if text is None:
        return "bad_request", "Send JSON text messages, not binary"
    try:
        data = parse_json(text)
    except ValueError:
        return "bad_request", "Message is not JSON"
    if not isinstance(data, dict):
        return "bad_request", "Message must be a JSON object"
    action = data.get("action")
    if isinstance(action, str) and action:
        return "unknown_action", f"Unknown action: {action[:64]}; {NO_ACTIONS_TEXT.lower()}"
    return "unknown_action", NO_ACTIONS_TEXT
