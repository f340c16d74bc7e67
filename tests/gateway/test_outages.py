"""A service down behind the gateway: calls that need it fail fast with the contract's 503, the
socket says the contract's text, and routes that do not need it go on answering.

Each module-scoped stack below has one service killed (SIGKILL) after a started game and the
game types were seen; the tests only read.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

import pytest

from gateway.sessions import COOKIE_NAME
from testing.players import Player, receive
from testing.stack import Stack

UNAVAILABLE = {"detail": "Service unavailable, try again"}

# Bounds with room for a slow machine, far under the 9 s a retried retry took; the 1 s deadline
# of people's reads itself is tests/services/test_channels.py's subject.
BOUND_SECONDS = 3.0


@dataclass
class _Outage:
    stack: Stack
    game_id: str
    cookie: str  # alice's session, seated at the game


def _stack_with_a_started_game(dead: str) -> _Outage:
    stack = Stack().start()

    async def set_up() -> tuple[str, str]:
        players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
        lobby = (await players[0].http.post("/api/games")).json()
        for player in players[1:]:
            await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
        assert (await players[0].http.get("/api/game-types")).status_code == 200
        cookie = players[0].cookie
        for player in players:
            await player.close()
        return lobby["id"], cookie

    try:
        game_id, cookie = asyncio.run(set_up())
        stack.kill(dead)
    except BaseException:
        stack.stop()
        raise
    return _Outage(stack, game_id, cookie)


@pytest.fixture(scope="module")
def game_down():
    outage = _stack_with_a_started_game("game")
    yield outage
    outage.stack.stop()


@pytest.fixture(scope="module")
def lobby_down():
    outage = _stack_with_a_started_game("lobby")
    yield outage
    outage.stack.stop()


async def _alice(outage: _Outage) -> Player:
    alice = Player(outage.stack, "alice")
    alice.http.cookies.set(COOKIE_NAME, outage.cookie)
    return alice


async def _timed_get(outage: _Outage, path: str):
    alice = await _alice(outage)
    try:
        started = time.monotonic()
        response = await alice.http.get(path.format(id=outage.game_id))
        return response, time.monotonic() - started
    finally:
        await alice.close()


@pytest.mark.parametrize("path", ["/api/games/{id}", "/api/games/{id}/log", "/api/me/games"])
async def test_with_the_game_service_down_its_reads_are_503_at_once(game_down, path):
    """Before: 1.5 s of retries for a read, 9 s for one the lobby forwards to the game service."""
    response, elapsed = await _timed_get(game_down, path)
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert elapsed < BOUND_SECONDS


async def test_with_the_game_service_down_creating_a_game_is_503_fast(game_down):
    """The lobby asks the game service for the type and the options: its retries stay short."""
    alice = await _alice(game_down)
    try:
        started = time.monotonic()
        response = await alice.http.post("/api/games")
        elapsed = time.monotonic() - started
    finally:
        await alice.close()
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert elapsed < BOUND_SECONDS


async def test_with_the_game_service_down_a_socket_message_gets_the_contracts_text(game_down):
    alice = await _alice(game_down)
    async with await alice.socket(game_down.game_id) as socket:
        await socket.send(json.dumps({"action": "state"}))
        error = await receive(socket, "error")
    await alice.close()
    assert error == {"type": "error", "code": "unavailable", "message": "Service unavailable, try again"}


@pytest.mark.parametrize("path", ["/api/game-types", "/api/leaderboard", "/api/me/matches",
                                  "/api/me/ratings"])
async def test_with_the_game_service_down_the_other_routes_answer(game_down, path):
    response, elapsed = await _timed_get(game_down, path)
    assert response.status_code == 200
    assert elapsed < BOUND_SECONDS


@pytest.mark.parametrize("path", ["/api/game-types", "/api/leaderboard",
                                  "/api/leaderboard?game_type=scopone_scientifico",
                                  "/api/me/matches?game_type=scopone_scientifico"])
async def test_with_the_lobby_down_game_types_and_the_leaderboard_answer(lobby_down, path):
    response, elapsed = await _timed_get(lobby_down, path)
    assert response.status_code == 200
    assert elapsed < BOUND_SECONDS


async def test_with_the_lobby_down_a_game_is_503_within_a_second(lobby_down):
    response, elapsed = await _timed_get(lobby_down, "/api/games/{id}")
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert elapsed < BOUND_SECONDS
