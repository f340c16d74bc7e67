"""The truth about a move under overload: a move whose Act call failed is told as made (the
state after it), refused or unconfirmed, and ``unavailable`` only when nothing changed.

The game service here is a real gRPC server whose Act takes longer than the gateway waits
(the gateway's GameClient has a 0.5 s deadline): it applies the move, or not, then answers late.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import grpc
import websockets

from game.client import GameClient
from game.relay import serve_relay
from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, Session, new_session_id
from services.channels import PEOPLE_CALLS
from services.config import Settings
from services.errors import Reason, ServiceError
from services.server import ErrorInterceptor
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.processes import served
from tests.gateway.live_fakes import FakeLobby, seat_view

ACT_DEADLINE_SECONDS = 0.5


class SlowTable(game_pb2_grpc.GameServiceServicer):
    """One table. Act applies the move (when ``applies``), lets ``first`` play before it (a
    move by another seat), then answers after ``delay`` seconds, or fails with ``failure``.
    With ``quiet_stream`` the table's stream sends nothing after its first message (a feed
    that lags behind an overloaded service)."""

    def __init__(self) -> None:
        self.moves: list[game_pb2.LoggedMove] = []
        self.applies = True
        self.first: dict | None = None
        self.delay = 2.0
        self.failure: ServiceError | None = None
        self.quiet_stream = False
        self.changed = asyncio.Event()

    @property
    def revision(self) -> int:
        return len(self.moves)

    def _append(self, seat: str, action: dict) -> None:
        payload = {key: value for key, value in action.items() if key != "action"}
        self.moves.append(game_pb2.LoggedMove(number=len(self.moves) + 1, type=action["action"],
                                              seat=seat, payload_json=json.dumps(payload)))
        self.changed.set()

    def _views(self) -> game_pb2.WatchTableResponse:
        return game_pb2.WatchTableResponse(
            revision=self.revision, status=game_pb2.TABLE_STATUS_PLAYING,
            views=[game_pb2.TableSeatView(seat=f"seat:{i}",
                                          view_json=json.dumps(seat_view(i, self.revision)))
                   for i in range(4)])

    async def WatchTable(self, request, context):
        yield self._views()
        while True:
            self.changed.clear()
            await self.changed.wait()
            if not self.quiet_stream:
                yield self._views()

    async def GetView(self, request, context):
        index = int(request.seat.split(":")[1])
        return game_pb2.GetViewResponse(view_json=json.dumps(seat_view(index, self.revision)),
                                        revision=self.revision,
                                        status=game_pb2.TABLE_STATUS_PLAYING)

    async def GetLog(self, request, context):
        size = request.page_size or 256
        page = self.moves[request.after_number:request.after_number + size]
        last = request.after_number + len(page)
        return game_pb2.GetLogResponse(
            header=game_pb2.TableHeader(table_id=request.table_id, seats=[f"seat:{i}" for i in range(4)],
                                        move_count=len(self.moves), revision=self.revision,
                                        status=game_pb2.TABLE_STATUS_PLAYING),
            moves=page, next_after_number=last if last < len(self.moves) else 0)

    async def Relay(self, requests, context):  # the gateway's moves and watches come this way
        async for response in serve_relay(self, requests, context):
            yield response

    async def Act(self, request, context):
        action = json.loads(request.action_json)
        if request.HasField("expected_revision") and request.expected_revision != self.revision:
            raise ServiceError(Reason.CONCURRENT_MOVE, "The table has moved on: read it again")
        if self.first is not None:
            self._append("seat:1", self.first)
        if self.applies:
            self._append(request.seat, action)
        if self.failure is not None:
            raise self.failure
        await asyncio.sleep(self.delay)
        return game_pb2.ActResponse(view_json="{}", revision=self.revision)


@contextlib.asynccontextmanager
async def _playing(table: SlowTable):
    """The gateway in front of ``table``; yields alice's socket, its first state read."""
    server = grpc.aio.server(interceptors=[ErrorInterceptor()])
    game_pb2_grpc.add_GameServiceServicer_to_server(table, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    game = GameClient(f"127.0.0.1:{port}", policy=PEOPLE_CALLS,
                      deadline_seconds=ACT_DEADLINE_SECONDS)
    settings, sessions = Settings(), MemorySessionStore()
    alice = Session(id=new_session_id(), sub="alice", name="alice", provider="default")
    await sessions.save(alice)
    auth = Auth(settings, sessions)
    app = create_app(settings, Backends(lobby=FakeLobby(), game=game, stats=None), auth)
    try:
        async with served(app) as address:
            socket = await websockets.connect(
                f"ws://{address}/ws/games/t1", open_timeout=5,
                additional_headers={"cookie": f"{COOKIE_NAME}={alice.id}"})
            async with socket:
                first = json.loads(await asyncio.wait_for(socket.recv(), 5))
                assert (first["type"], first["game"]["revision"]) == ("state", 0)
                yield socket
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()
        await game.close()
        await server.stop(None)


async def _answers(socket, within: float = 2.5) -> list[dict]:
    """Every message the socket gets within ``within`` seconds."""
    messages = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while True:
                messages.append(json.loads(await socket.recv()))
    return messages


PLAY = {"action": "play", "card": "07D", "capture": ["05C", "02D"]}


async def test_a_move_made_but_answered_too_late_is_told_with_the_state_after_it():
    table = SlowTable()
    table.quiet_stream = True  # the player learns it from the gateway's check, not the feed
    async with _playing(table) as socket:
        await socket.send(json.dumps(PLAY))
        answers = await _answers(socket, within=1.5)
    assert [(m["type"], m["game"]["revision"]) for m in answers] == [("state", 1)]


async def test_a_move_made_is_told_once_when_the_feed_also_brings_it():
    table = SlowTable()
    async with _playing(table) as socket:
        await socket.send(json.dumps({**PLAY, "revision": 0}))
        answers = await _answers(socket, within=1.5)
    assert [(m["type"], m["game"]["revision"]) for m in answers] == [("state", 1)]


async def test_a_move_not_found_while_its_call_may_still_run_is_unconfirmed():
    table = SlowTable()
    table.applies = False
    async with _playing(table) as socket:
        await socket.send(json.dumps(PLAY))
        answers = await _answers(socket, within=1.5)
    assert answers == [{"type": "error", "code": "unconfirmed",
                        "message": "Your move was sent but not confirmed in time: the next "
                                   "state shows whether it was made"}]


async def test_a_move_whose_revision_the_table_left_is_refused():
    table = SlowTable()
    table.applies = False
    table.first = {"action": "play", "card": "01B"}  # bob's move landed first
    async with _playing(table) as socket:
        await socket.send(json.dumps({**PLAY, "revision": 0}))
        answers = await _answers(socket, within=1.5)
    assert {"type": "error", "code": "concurrent_move",
            "message": "The game has moved on: your move was not played"} in answers
    assert [m["game"]["revision"] for m in answers if m["type"] == "state"] == [1]


async def test_a_service_that_answered_its_own_failure_having_changed_nothing_is_unavailable():
    table = SlowTable()
    table.applies = False
    table.failure = ServiceError(Reason.UNAVAILABLE, "the table store is down")
    async with _playing(table) as socket:
        await socket.send(json.dumps(PLAY))
        answers = await _answers(socket, within=1.5)
    assert answers == [{"type": "error", "code": "unavailable",
                        "message": "Service unavailable, try again"}]


async def test_a_service_that_failed_after_the_move_landed_tells_the_state():
    table = SlowTable()
    table.failure = ServiceError(Reason.UNAVAILABLE, "the cache write failed")
    table.quiet_stream = True
    async with _playing(table) as socket:
        await socket.send(json.dumps(PLAY))
        answers = await _answers(socket, within=1.5)
    assert [(m["type"], m["game"]["revision"]) for m in answers] == [("state", 1)]
