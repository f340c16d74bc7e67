"""A move is played once, whatever happens to its answer: the gateway in front of a real game
service (scopone, in-memory stores, real gRPC), whose stream is cut after the move was appended
and before its answer left. The gateway sends the move again with its request id; the player
sees it made once, and a message sent again with its `id` is told `already_played`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid

import pytest
import websockets

from game.cache import MemoryTableCache
from game.client import GameClient
from game.live_link import LiveLink
from game.memory_log_store import MemoryLogStore
from game.registry import default_registry
from game.server import build_tables
from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, Session, new_session_id
from services.config import Settings
from services.rpc.channels import PEOPLE_CALLS
from testing.processes import served
from tests.game_service.conftest import hold_the_first_answer, start_service
from tests.gateway.live_fakes import NAMES, FakeLobby, lobby_game

SEATS = ["seat:0", "seat:1", "seat:2", "seat:3"]


@contextlib.asynccontextmanager
async def _table():
    """A real game service with one scopone table; yields (tables, service, table id)."""
    tables = build_tables(default_registry(turn_timeout_ms=3_600_000, hand_ack_timeout_ms=3_600_000),
                          MemoryLogStore(), MemoryTableCache(), None, None)
    service = await start_service(tables)
    table_id = (await tables.create_table(str(uuid.uuid4()), "scopone_scientifico", "{}", SEATS)).table_id
    holder = {"service": service}
    try:
        yield tables, holder, table_id
    finally:
        await holder["service"].stop()
        await tables.close(timeout=0.5)


@contextlib.asynccontextmanager
async def _socket(address: str, table_id: str):
    """The player who leads hand 1 (the seat after the drawn dealer) at the table through a
    gateway; yields their socket and its first state."""
    settings, sessions = Settings(), MemorySessionStore()
    game = GameClient(address, policy=PEOPLE_CALLS)
    leader = NAMES[((await game.get_view(table_id, "seat:0"))["dealer"] + 1) % 4]
    player = Session(id=new_session_id(), sub=leader, name=leader, provider="default")
    await sessions.save(player)
    auth = Auth(settings, sessions)
    lobby = FakeLobby()
    lobby.games[table_id] = lobby_game(table_id)
    live = LiveLink(address, policy=PEOPLE_CALLS, timeout_seconds=30)
    app = create_app(settings, Backends(lobby=lobby, game=game, stats=None, live=live), auth)
    try:
        async with served(app) as gateway:
            socket = await websockets.connect(
                f"ws://{gateway}/ws/games/{table_id}", open_timeout=5,
                additional_headers={"cookie": f"{COOKIE_NAME}={player.id}"})
            async with socket:
                first = json.loads(await asyncio.wait_for(socket.recv(), 10))
                assert first["type"] == "state" and first["game"]["revision"] == 0
                yield socket, first["game"]
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()
        await live.close()
        await game.close()


def _play(view: dict, **extra) -> dict:
    legal = view["legal"][0]
    return {"action": "play", "card": legal["card"], "capture": legal["captures"][0], **extra}


async def _next(socket, kind: str) -> dict:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 20))
        if message["type"] == kind:
            return message


async def test_a_move_whose_answer_was_lost_is_made_once_and_its_resend_told_so(monkeypatch):
    async with _table() as (tables, holder, table_id):
        appended = hold_the_first_answer(tables, monkeypatch)
        service = holder["service"]
        async with _socket(service.address, table_id) as (socket, view):
            move = _play(view, revision=0, id="m-1")
            await socket.send(json.dumps(move))
            await asyncio.wait_for(appended.wait(), 10)
            await service.stop()  # the replica goes, its answer with it
            holder["service"] = await start_service(tables, service.address)

            state = await _next(socket, "state")  # the feed watches again at the new replica
            assert state["game"]["revision"] == 1
            # The gateway's own copy made it, once: no error answers the move. (A socket's
            # messages are handled in turn: the probe's refusal comes after the move's answer.)
            await socket.send(json.dumps({"action": "probe", "id": "probe"}))
            while (message := json.loads(await asyncio.wait_for(socket.recv(), 20))).get("id") != "probe":
                assert message["type"] != "error", message

            await socket.send(json.dumps(move))  # the player's own resend, same id
            answer = await _next(socket, "error")
            assert (answer["code"], answer["id"]) == ("already_played", "m-1")

        header = await tables.log.header(table_id)
        assert (header.move_count, header.revision) == (1, 1)


async def test_an_error_carries_the_id_of_the_message_it_answers():
    async with _table() as (_, holder, table_id):
        async with _socket(holder["service"].address, table_id) as (socket, view):
            await socket.send(json.dumps({"action": "ack", "id": "a-1"}))
            answer = await _next(socket, "error")
            assert (answer["code"], answer["id"]) == ("illegal_move", "a-1")

            await socket.send(json.dumps(_play(view, revision=5, id="p-1")))
            answer = await _next(socket, "error")
            assert (answer["code"], answer["id"]) == ("concurrent_move", "p-1")


# CONTRACT: an id is 1..64 characters of [A-Za-z0-9_-]; other printable ASCII is no id either.
@pytest.mark.parametrize("bad", ["", "has space", "x" * 65, 7, None, "è", "m-1\n", "m.1", "seat:1/m", "<b>"])
async def test_a_malformed_id_is_a_bad_request_and_plays_nothing(bad):
    async with _table() as (tables, holder, table_id):
        async with _socket(holder["service"].address, table_id) as (socket, view):
            await socket.send(json.dumps(_play(view, id=bad)))
            answer = await _next(socket, "error")
            assert answer["code"] == "bad_request" and "id" not in answer
            assert answer["message"] == "id must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -"
        assert (await tables.log.header(table_id)).move_count == 0
