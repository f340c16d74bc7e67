"""The session store not answering (Redis down): routes and the socket's upgrade say the
contract's 503, an open socket goes on without a verdict on its session, and an erasure that
could not end the sessions answers 503 and completes on a retry."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
import pytest
import websockets

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, Session, new_session_id
from services.config import Settings
from services.rpc.errors import Reason, ServiceError
from testing.processes import served
from tests.gateway_contract.fakes import GAME_ID, FakeGame, FakeLobby

UNAVAILABLE = {"detail": "Service unavailable, try again"}


class FlakySessions(MemorySessionStore):
    """Sessions in memory that fail as the Redis store fails when Redis does not answer:
    every call while ``down``, only ``delete_member`` while ``down_on_delete``."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.down_on_delete = False

    def _fail_if_down(self, deleting: bool = False) -> None:
        if self.down or (deleting and self.down_on_delete):
            raise ServiceError(Reason.UNAVAILABLE, "The session store is unavailable: ConnectionError")

    async def get(self, id: str) -> Session | None:
        self._fail_if_down()
        return await super().get(id)

    async def save(self, session: Session) -> None:
        self._fail_if_down()
        await super().save(session)

    async def delete(self, id: str) -> None:
        self._fail_if_down()
        await super().delete(id)

    async def delete_member(self, sub: str) -> int:
        self._fail_if_down(deleting=True)
        return await super().delete_member(sub)


class ErasingLobby(FakeLobby):
    async def erase_member(self, member_id: str) -> list[str]:
        return []


class ErasingStats:
    async def ratings(self, member_id: str) -> list:
        return []

    async def erase_member(self, member_id: str) -> int:
        return 0


@contextlib.asynccontextmanager
async def _alice():
    """The gateway under uvicorn, its session store, and alice's session cookie."""
    settings = Settings()
    sessions = FlakySessions()
    session = Session(id=new_session_id(), sub="alice", name="alice", provider="default")
    await sessions.save(session)
    auth = Auth(settings, sessions)
    app = create_app(settings, Backends(lobby=ErasingLobby(), game=(game := FakeGame()), stats=ErasingStats(), live=game),
                     auth)
    try:
        async with served(app) as address:
            yield address, sessions, {"cookie": f"{COOKIE_NAME}={session.id}"}
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()


async def test_a_route_is_the_contracts_503():
    async with _alice() as (address, sessions, cookie), httpx.AsyncClient() as http:
        sessions.down = True
        response = await http.get(f"http://{address}/api/me", headers=cookie)
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)


async def test_the_socket_upgrade_is_the_contracts_503():
    async with _alice() as (address, sessions, cookie):
        sessions.down = True
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(f"ws://{address}/ws/games/{GAME_ID}",
                                     additional_headers=cookie, open_timeout=5)
    assert refused.value.response.status_code == 503
    assert json.loads(refused.value.response.body) == UNAVAILABLE


async def test_an_open_socket_outlives_a_store_that_stops_answering():
    async with _alice() as (address, sessions, cookie):
        async with websockets.connect(f"ws://{address}/ws/games/{GAME_ID}",
                                      additional_headers=cookie, open_timeout=5) as socket:
            sessions.down = True  # the session cannot be checked: no verdict, the socket stays
            await socket.send('{"action": "state"}')
            answer = json.loads(await asyncio.wait_for(socket.recv(), 5))
            assert answer["type"] == "state"


async def test_an_erasure_that_cannot_end_the_sessions_is_503_and_the_retry_completes():
    async with _alice() as (address, sessions, cookie), httpx.AsyncClient() as http:
        sessions.down_on_delete = True
        refused = await http.delete(f"http://{address}/api/me", headers=cookie)
        assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        assert (await http.get(f"http://{address}/api/me", headers=cookie)).status_code == 200
        sessions.down_on_delete = False
        assert (await http.delete(f"http://{address}/api/me", headers=cookie)).status_code == 204
        assert (await http.get(f"http://{address}/api/me", headers=cookie)).status_code == 401
