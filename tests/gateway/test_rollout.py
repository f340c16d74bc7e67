"""A gateway stopped by a rollout (SIGTERM) drains: its readiness fails and new sockets are
refused during its pause, then every game socket closes with 1012 "Service Restart", the process
exits 0, and the move a player sent just before is made once: answered before the close, or
made or not when the socket closed under it, and sent again with its id to another gateway.

Two gateways as real processes on real Redis and Postgres (sessions are shared), the first one
stopped, started again and stopped again.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosed, InvalidStatus

from gateway.draining import EXIT_SECONDS, REQUESTS_FINISH_SECONDS
from gateway.sessions import COOKIE_NAME
from testing.players import Player, receive, seat_four
from testing.stack import real_stack
from testing.waiting import eventually

PAUSE_SECONDS = 3  # long enough for the checks made during it on a loaded machine


@pytest.fixture(scope="module")
def stack():
    with real_stack(label="rollout", gateways=2) as running:
        yield running


def _first_gateway_pausing(stack, seconds: int) -> None:
    """The first gateway running with SHUTDOWN_DRAIN_SECONDS ``seconds`` (started again if not)."""
    env = stack.own_env.setdefault("gateway", {})
    if stack.processes["gateway"].poll() is None:
        if env.get("SHUTDOWN_DRAIN_SECONDS") == str(seconds):
            return
        stack.kill("gateway", signal.SIGTERM)
    env["SHUTDOWN_DRAIN_SECONDS"] = str(seconds)
    stack.start_again("gateway")


@pytest.fixture
async def table(stack, request):
    """The first gateway pausing ``request.param`` seconds when stopped, four players at a
    started table; the one whose turn it is, and the table's id."""
    _first_gateway_pausing(stack, request.param)
    players = [await Player(stack, name).login() for name in ("ann", "ben", "cat", "dan")]
    try:
        lobby = await seat_four(players, {"target_score": 11})
        views = [(await player.http.get(f"/api/games/{lobby['id']}")).json() for player in players]
        (first,) = [player for player, view in zip(players, views) if view.get("your_turn")]
        yield first, lobby["id"]
    finally:
        for player in players:
            await player.close()


def _play(view: dict, move_id: str) -> str:
    legal = view["legal"][0]
    return json.dumps({"action": "play", "card": legal["card"], "capture": legal["captures"][0],
                       "revision": view["revision"], "id": move_id})


async def _closed_by_the_server(socket) -> tuple[int, str, list[dict]]:
    """Read until the server closes: its close code and reason, and what came before."""
    messages = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            messages.append(json.loads(await asyncio.wait_for(socket.recv(), 30)))
    assert closed.value.rcvd is not None, "the connection dropped without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason, messages


def _exits(stack, name: str) -> tuple[int, float]:
    """The exit code of the stopped process ``name``, and seconds from now to its exit."""
    started = time.monotonic()
    code = stack.processes[name].wait(timeout=PAUSE_SECONDS + EXIT_SECONDS + 5)
    return code, time.monotonic() - started


async def _open_games_events(player: Player, listening: asyncio.Event) -> int:
    """Follow the open games' event stream (a Play page) until it ends; how many events came.
    ``listening`` is set at the first."""
    seen = 0
    async with player.http.stream("GET", "/api/games/open/events", timeout=None) as response:
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                seen += 1
                listening.set()
    return seen


async def _resent_elsewhere(stack, player: Player, game_id: str, move: str) -> tuple[dict, dict]:
    """The move sent again, with its id, on a socket at the other gateway: the first state
    there and the answer to the move (an error, or the state it made)."""
    socket = await player.socket(game_id, gateway_url=stack.gateway_urls[1])
    async with socket:
        first = await receive(socket, "state")
        await socket.send(move)
        while True:
            answer = json.loads(await asyncio.wait_for(socket.recv(), 10))
            if answer["type"] == "error" or (answer["type"] == "state"
                                             and answer["game"]["revision"] > first["game"]["revision"]):
                return first["game"], answer


@pytest.mark.parametrize("table", [PAUSE_SECONDS], indirect=True)
async def test_a_stopped_gateway_drains_then_closes_its_sockets_with_1012(stack, table):
    player, game_id = table
    socket = await player.socket(game_id)  # the first gateway, the one stopped
    view = (await receive(socket, "state"))["game"]
    move = _play(view, "m-1")
    gateway = stack.gateway_url
    listening = asyncio.Event()
    events = asyncio.create_task(_open_games_events(player, listening))
    async with httpx.AsyncClient(base_url=gateway, timeout=5) as http:
        assert (await http.get("/api/health")).status_code == 200
        await asyncio.wait_for(listening.wait(), 10)

        await socket.send(move)
        signalled = time.monotonic()
        stack.processes["gateway"].send_signal(signal.SIGTERM)

        # The pause: not ready, and new sockets refused, while the open one is served.
        async def not_ready():
            return (await http.get("/api/health")).status_code == 503
        await eventually(not_ready, timeout=PAUSE_SECONDS, interval=0.05,
                         what="/api/health did not turn 503")
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(gateway.replace("http://", "ws://") + f"/ws/games/{game_id}",
                                     additional_headers={"Cookie": f"{COOKIE_NAME}={player.cookie}"},
                                     open_timeout=5)
        assert refused.value.response.status_code == 503

    code, reason, before = await _closed_by_the_server(socket)
    assert (code, reason) == (1012, "Service Restart")
    # The move sent before the signal was answered before the close.
    assert [m["game"]["revision"] for m in before if m["type"] == "state"] == [view["revision"] + 1]
    assert _exits(stack, "gateway")[0] == 0
    # The open games' event stream was ended, not waited for (uvicorn gives open requests
    # REQUESTS_FINISH_SECONDS): the gateway exited soon after its pause.
    assert time.monotonic() - signalled < PAUSE_SECONDS + REQUESTS_FINISH_SECONDS - 3
    assert await asyncio.wait_for(events, 5) >= 1

    # Sent again elsewhere with its id: played once, and the player is told so.
    first, answer = await _resent_elsewhere(stack, player, game_id, move)
    assert first["revision"] == view["revision"] + 1
    assert (answer["type"], answer.get("code"), answer.get("id")) == ("error", "already_played", "m-1")


@pytest.mark.parametrize("table", [0], indirect=True)
async def test_a_move_under_way_when_the_socket_closes_is_made_once(stack, table):
    """No pause: the socket closes while its move may still be on its way. Sent again with its
    id to another gateway, the move is made exactly once, whichever it was."""
    player, game_id = table
    socket = await player.socket(game_id)
    view = (await receive(socket, "state"))["game"]
    move = _play(view, "m-2")

    await socket.send(move)
    stack.processes["gateway"].send_signal(signal.SIGTERM)

    code, reason, _ = await _closed_by_the_server(socket)
    assert (code, reason) == (1012, "Service Restart")
    assert _exits(stack, "gateway")[0] == 0
    first, answer = await _resent_elsewhere(stack, player, game_id, move)
    if first["revision"] == view["revision"] + 1:  # made before the close: not again
        assert (answer["type"], answer.get("code")) == ("error", "already_played")
    else:  # not made: made now, once
        assert first["revision"] == view["revision"]
        assert answer["type"] == "state" and answer["game"]["revision"] == view["revision"] + 1
