"""The gateway gives each HTTP request that changes a seating a request id of its own, which its
lobby call carries (and the channel's retries of that call, tests/lobby/test_request_ids.py):
a request sent twice by the browser is two requests, each made once."""

from __future__ import annotations

import httpx
import pytest

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, Session, new_session_id
from lobby.models import JoinResult, QuickMatchResult, RematchResult
from services.config import Settings
from tests.gateway.live_fakes import lobby_game

GAME = "6f1b0c9e-3d2a-4f5e-8a7b-1c2d3e4f5a6b"
WAITING = lobby_game(GAME, started=False)


class RecordingLobby:
    """Answers each seating call with a waiting game, keeping the request id it was given."""

    def __init__(self) -> None:
        self.request_ids: list[str] = []

    def _kept(self, request_id: str) -> None:
        self.request_ids.append(request_id)

    async def create_game(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return WAITING

    async def quick_match(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return QuickMatchResult(WAITING, created=False, started=False)

    async def rematch(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return RematchResult(WAITING, created=False, started=False)

    async def add_bot(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return JoinResult(WAITING, started=False)

    async def remove_bot(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return WAITING

    async def leave_game(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return None

    async def return_seat(self, *args, request_id: str = "", **kwargs):
        self._kept(request_id)
        return WAITING


class NoRatings:
    async def ratings(self, member_id: str) -> list:
        return []


@pytest.fixture
async def gateway():
    """(http client logged in as alice, the recording lobby)."""
    settings, sessions = Settings(), MemorySessionStore()
    alice = Session(id=new_session_id(), sub="alice", name="alice", provider="default")
    await sessions.save(alice)
    auth = Auth(settings, sessions)
    lobby = RecordingLobby()
    app = create_app(settings, Backends(lobby=lobby, game=None, stats=NoRatings(), live=None), auth)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://localhost",
                                 cookies={COOKIE_NAME: alice.id}) as http:
        yield http, lobby
    await app.state.game_types.aclose()
    await auth.aclose()


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/api/games", {}),
    ("POST", "/api/games/quick", {}),
    ("POST", f"/api/games/{GAME}/rematch", {}),
    ("POST", f"/api/games/{GAME}/bots", {"seat": 1, "level": "esperto"}),
    ("DELETE", f"/api/games/{GAME}/bots/1", None),
    ("POST", f"/api/games/{GAME}/leave", {}),
    ("POST", f"/api/games/{GAME}/return", {}),
])
async def test_each_request_has_its_own_request_id(gateway, method, path, body):
    http, lobby = gateway
    for _ in range(2):
        response = await http.request(method, path, json=body)
        assert response.status_code < 300, response.text
    first, second = lobby.request_ids
    assert first and second and first != second
