"""DELETE /api/me completes, or answers 503 with the session kept; a retry always completes it.

End to end on real Redis and Postgres (every component its own process): stats is killed, the
erasure answers 503 having changed nothing, stats comes back, the retry erases the member
everywhere. In process, with fakes: an erasure that stops half-way (the lobby done, stats not)
is completed by the retry.
"""

from __future__ import annotations

import contextlib

import httpx
import pytest

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, Session, new_session_id
from services.config import Settings
from services.rpc.errors import Reason, ServiceError
from testing.players import Player
from testing.stack import real_stack
from testing.waiting import eventually

UNAVAILABLE = {"detail": "Service unavailable, try again"}


@pytest.fixture(scope="module")
def stack():
    """Real servers; turns and hand ends time out after 50 ms, so matches end on their own."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.05", "HAND_ACK_TIMEOUT_SECONDS": "0.05"},
                    label="erasure") as running:
        yield running


async def _names(player: Player, path: str, **params) -> list[str]:
    response = await player.http.get(path, params=params)
    assert response.status_code == 200, response.text
    return [p["name"] for p in response.json()["players"]]


async def test_an_erasure_with_stats_down_is_503_then_a_retry_erases_everywhere(stack):
    olga, *others = players = [await Player(stack, name).login()
                               for name in ("olga", "pete", "quin", "rosa")]
    pete = others[0]
    try:
        # A finished, recorded match of the four, and a game olga waits in with pete.
        played = (await olga.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        for player in others:
            joined = await player.http.post("/api/games/join", json={"code": played["join_code"]})
            assert joined.status_code == 200

        async def recorded():
            pages = [(await p.http.get("/api/me/matches")).json()["items"] for p in players]
            return all(pages)

        await eventually(recorded, timeout=120, what="the match was never recorded")
        waiting = (await olga.http.post("/api/games")).json()
        code = waiting["join_code"]
        assert (await pete.http.post("/api/games/join", json={"code": code})).status_code == 200
        assert (await olga.http.get("/api/me/ratings")).json()["ratings"]

        stack.kill("stats")
        refused = await olga.http.delete("/api/me")
        assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        # Nothing changed: her session, her seatings, her names.
        assert (await olga.http.get("/api/me")).json()["sub"] == "olga"
        assert await _names(pete, "/api/games/preview", code=code) == ["olga", "pete"]
        assert (await _names(pete, f"/api/games/{played['id']}"))[0] == "olga"
        assert (await olga.http.get(f"/api/games/{waiting['id']}")).status_code == 200

        stack.restart("stats")

        async def erased():  # the retry a member makes (the gateway reconnects within seconds)
            response = await olga.http.delete("/api/me")
            assert response.status_code in (204, 503), response.text
            return response.status_code == 204

        await eventually(erased, what="the retry never completed the erasure")
        assert (await olga.http.get("/api/me")).status_code == 401  # her session ended

        # Erased everywhere: the lobby's names, the stats rows, the ratings.
        assert await _names(pete, "/api/games/preview", code=code) == ["deleted player", "pete"]
        assert (await _names(pete, f"/api/games/{played['id']}"))[0] == "deleted player"
        (item,) = (await pete.http.get("/api/me/matches")).json()["items"]
        assert [p["name"] for p in item["players"]] == ["deleted player", "pete", "quin", "rosa"]
        board = (await pete.http.get("/api/leaderboard")).json()["entries"]
        assert "olga" not in {entry["name"] for entry in board} and len(board) == 3
        again = await Player(stack, "olga").login()
        try:
            assert (await again.http.get("/api/me/ratings")).json() == {"ratings": []}
            assert (await again.http.get("/api/me/matches")).json()["items"] == []
            assert (await again.http.get(f"/api/games/{waiting['id']}")).status_code == 403
            assert (await again.http.delete("/api/me")).status_code == 204  # idempotent
        finally:
            await again.close()
    finally:
        for player in players:
            await player.close()


# -- in process: an erasure that stopped half-way ----------------------------------------------


class FakeLobby:
    def __init__(self) -> None:
        self.seated = {"alice"}
        self.calls = 0

    async def erase_member(self, member_id: str) -> list[str]:
        self.calls += 1
        if member_id in self.seated:
            self.seated.discard(member_id)
            return ["6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"]
        return []  # as the lobby: an erased member answers an empty list


class FakeStats:
    """``down`` fails every call; ``down_after_read`` fails the erasure once (stats went away
    between the gateway's two calls)."""

    def __init__(self) -> None:
        self.rows = {"alice": 3}
        self.down = False
        self.down_after_read = False

    async def ratings(self, member_id: str) -> list:
        self._fail_if_down()
        return []

    async def erase_member(self, member_id: str) -> int:
        self._fail_if_down()
        if self.down_after_read:
            self.down_after_read = False
            raise ServiceError(Reason.UNAVAILABLE, "UNAVAILABLE: failed to connect to all addresses")
        return self.rows.pop(member_id, 0)

    def _fail_if_down(self) -> None:
        if self.down:
            raise ServiceError(Reason.UNAVAILABLE, "UNAVAILABLE: failed to connect to all addresses")


@contextlib.asynccontextmanager
async def _gateway(lobby: FakeLobby, stats: FakeStats):
    """The gateway's app over the fakes, and a client logged in as alice."""
    settings = Settings()
    sessions = MemorySessionStore()
    session = Session(id=new_session_id(), sub="alice", name="alice", provider="default")
    await sessions.save(session)
    auth = Auth(settings, sessions)
    app = create_app(settings, Backends(lobby=lobby, game=None, stats=stats, live=None), auth)
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway",
                               cookies={COOKIE_NAME: session.id})
    try:
        yield client
    finally:
        await client.aclose()
        closing = getattr(getattr(app.state, "game_types", None), "aclose", None)
        if closing is not None:
            await closing()
        await auth.aclose()


async def test_with_stats_down_the_erasure_is_503_before_anything_changed():
    lobby, stats = FakeLobby(), FakeStats()
    stats.down = True
    async with _gateway(lobby, stats) as alice:
        refused = await alice.delete("/api/me")
        assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        assert lobby.calls == 0 and lobby.seated == {"alice"} and stats.rows == {"alice": 3}
        assert (await alice.get("/api/me")).status_code == 200  # the session stays for a retry


async def test_an_erasure_that_stopped_half_way_is_completed_by_the_retry():
    lobby, stats = FakeLobby(), FakeStats()
    stats.down_after_read = True
    async with _gateway(lobby, stats) as alice:
        refused = await alice.delete("/api/me")
        assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
        assert lobby.seated == set() and stats.rows == {"alice": 3}  # half-way
        assert (await alice.get("/api/me")).status_code == 200
        done = await alice.delete("/api/me")
        assert done.status_code == 204 and COOKIE_NAME in done.headers.get("set-cookie", "")
        assert lobby.calls == 2 and lobby.seated == set() and stats.rows == {}
        assert (await alice.get("/api/me")).status_code == 401  # every session ended
