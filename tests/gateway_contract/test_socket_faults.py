"""The game socket when things go wrong behind it or in front of it: people see the contract's
text, and a client that leaves while the gateway speaks is no error of the gateway's."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
import websockets

from services.rpc.errors import Reason, ServiceError
from testing.processes import served
from tests.gateway_contract.fakes import (
    COOKIE,
    GAME_ID,
    LEAKY,
    FakeGame,
    FakeLobby,
    gateway,
    unavailable,
)

UNAVAILABLE = {"type": "error", "code": "unavailable", "message": "Service unavailable, try again"}


async def _open(address: str, game_id: str = GAME_ID):
    return await websockets.connect(f"ws://{address}/ws/games/{game_id}", additional_headers=COOKIE,
                                    open_timeout=5)


async def _answer(socket) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), 5))


@pytest.mark.parametrize("message", [{"action": "play", "card": "07D"}, {"action": "state"}])
async def test_a_service_that_does_not_answer_is_the_fixed_unavailable_text(message):
    game = FakeGame()
    game.failure = unavailable()
    async with gateway(lobby=FakeLobby(), game=game) as app, served(app) as address:
        async with await _open(address) as socket:
            await socket.send(json.dumps(message))
            assert await _answer(socket) == UNAVAILABLE


async def test_a_log_the_game_service_cannot_read_is_unavailable_too_never_its_message():
    game = FakeGame()
    game.failure = ServiceError(Reason.CORRUPT_LOG, "log of table 6f1c at 10.42.7.3 is corrupt")
    async with gateway(lobby=FakeLobby(), game=game) as app, served(app) as address:
        async with await _open(address) as socket:
            await socket.send('{"action": "state"}')
            assert await _answer(socket) == UNAVAILABLE


async def test_the_players_own_errors_keep_their_messages():
    game = FakeGame()
    game.failure = ServiceError(Reason.NOT_YOUR_TURN, "Not your turn")
    async with gateway(lobby=FakeLobby(), game=game) as app, served(app) as address:
        async with await _open(address) as socket:
            await socket.send('{"action": "play", "card": "07D"}')
            assert await _answer(socket) == {"type": "error", "code": "not_your_turn",
                                             "message": "Not your turn"}


async def test_a_lobby_that_does_not_answer_refuses_the_upgrade_with_the_fixed_503():
    lobby = FakeLobby()
    lobby.down = True
    async with gateway(lobby=lobby, game=FakeGame()) as app, served(app) as address:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await _open(address)
    assert refused.value.response.status_code == 503
    assert json.loads(refused.value.response.body) == {"detail": "Service unavailable, try again"}
    assert LEAKY not in refused.value.response.body.decode()


@pytest.mark.parametrize("game_id", ["%20", "%09", "%00", "%20%0A", "%C2%85",
                                     "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a%00"])
async def test_an_id_of_blanks_or_control_characters_is_404_before_the_lobby_is_asked(game_id):
    lobby = FakeLobby()
    async with gateway(lobby=lobby, game=FakeGame()) as app, served(app) as address:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await _open(address, game_id)
    assert refused.value.response.status_code == 404
    assert json.loads(refused.value.response.body) == {"detail": "Game not found"}
    assert lobby.game_reads == 0


async def test_a_client_that_leaves_while_the_gateway_answers_is_no_error_in_the_log(caplog):
    """The answer to `state` is sent after the client went away: the connection ends quietly
    (DEBUG), with no ERROR and no traceback in the gateway's log."""
    game = FakeGame()
    game.hold = asyncio.Event()
    caplog.set_level(logging.DEBUG)
    async with gateway(lobby=FakeLobby(), game=game) as app, served(app) as address:
        socket = await _open(address)
        await socket.send('{"action": "state"}')
        await asyncio.wait_for(game.views_asked.wait(), 5)
        await socket.close()
        game.hold.set()
        for _ in range(200):  # until the gateway is done with the connection
            if any("socket closed on game" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the gateway never ended the connection")
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert loud == []
    assert any(r.name == "gateway.ws" and r.levelno == logging.DEBUG and "went away" in r.getMessage()
               for r in caplog.records)
