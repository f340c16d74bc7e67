"""The gateway keeps the game types (they change only with a deploy): the routes that need only
them, or them and stats, answer while the lobby is down."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import httpx
import pytest

from gateway.game_types import GameTypes
from services.rpc.errors import Reason, ServiceError
from tests.gateway_contract.fakes import SCOPONE, FakeLobby, FakeStats, gateway


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _settled() -> None:
    """Until a background fetch (if any) is over."""
    for _ in range(100):
        await asyncio.sleep(0)


async def test_the_types_are_fetched_on_first_use_and_kept():
    lobby = FakeLobby()
    types = GameTypes(lobby)
    assert lobby.type_reads == 0
    assert await types.get() == [SCOPONE]
    assert await types.get() == [SCOPONE]
    assert lobby.type_reads == 1


async def test_kept_types_answer_at_once_while_the_lobby_is_down():
    lobby, clock = FakeLobby(), _Clock()
    types = GameTypes(lobby, refresh_seconds=60, clock=clock)
    await types.get()
    lobby.down = True
    clock.now += 3600
    assert await types.get() == [SCOPONE]
    await _settled()
    assert await types.get() == [SCOPONE]
    assert lobby.type_reads >= 2, "a refresh was tried"


async def test_a_later_fetch_that_succeeds_replaces_them():
    lobby, clock = FakeLobby(), _Clock()
    types = GameTypes(lobby, refresh_seconds=60, clock=clock)
    await types.get()
    briscola = replace(SCOPONE, id="briscola", name="Briscola")
    lobby.types = [SCOPONE, briscola]
    clock.now += 59
    await types.get()
    await _settled()
    assert await types.get() == [SCOPONE], "not refreshed before refresh_seconds"
    clock.now += 1
    await types.get()
    await _settled()
    assert await types.get() == [SCOPONE, briscola]


async def test_with_nothing_kept_a_lobby_that_is_down_is_unavailable_and_the_next_request_asks_again():
    lobby = FakeLobby()
    lobby.down = True
    types = GameTypes(lobby)
    with pytest.raises(ServiceError) as failed:
        await types.get()
    assert failed.value.reason is Reason.UNAVAILABLE
    lobby.down = False
    assert await types.get() == [SCOPONE]


async def test_requests_waiting_for_the_first_fetch_share_it():
    lobby = FakeLobby()
    types = GameTypes(lobby)
    answers = await asyncio.gather(*(types.get() for _ in range(10)))
    assert answers == [[SCOPONE]] * 10
    assert lobby.type_reads == 1


@pytest.mark.parametrize("path", ["/api/game-types", "/api/leaderboard",
                                  "/api/leaderboard?game_type=scopone_scientifico"])
async def test_routes_that_need_only_the_types_answer_while_the_lobby_is_down(path):
    lobby = FakeLobby()
    async with gateway(lobby=lobby, stats=FakeStats()) as app, httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://gw.test") as client:
        assert (await client.get("/api/game-types")).status_code == 200
        lobby.down = True
        response = await client.get(path)
    assert response.status_code == 200


async def test_game_types_are_503_when_the_lobby_is_down_and_none_are_kept():
    lobby = FakeLobby()
    lobby.down = True
    async with gateway(lobby=lobby) as app, httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://gw.test") as client:
        response = await client.get("/api/game-types")
    assert (response.status_code, response.json()) == (503, {"detail": "Service unavailable, try again"})
