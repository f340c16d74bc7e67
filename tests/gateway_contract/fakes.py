"""The gateway's app in process, in front of fake services that fail on demand, and under uvicorn.

The fakes answer with the clients' plain values (lobby.models, dicts) and fail with the
ServiceError a real client raises; ``LEAKY`` is the text grpcio gives a call to a dead peer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette

from game.client import TableViews
from game.live_link import Acted
from gateway.app import Backends, create_app
from gateway.auth import Auth, Member
from gateway.sessions import COOKIE_NAME, MemorySessionStore
from lobby.models import Game, GameType, Seat
from services.config import Settings
from services.rpc.errors import Reason, ServiceError
from stats.client import Leaderboard

GAME_ID = "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"
COOKIE = {"cookie": f"{COOKIE_NAME}=any"}
# What a call to a dead service says (an internal address in it): people must never see it.
LEAKY = ("UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: "
         "ipv4:10.42.7.3:50052: Failed to connect to remote host: Connection refused")
SCOPONE = GameType(id="scopone_scientifico", name="Scopone scientifico", description="...",
                   players=4, options_schema_json='{"type": "object"}')


def unavailable() -> ServiceError:
    return ServiceError(Reason.UNAVAILABLE, LEAKY)


def started_game() -> Game:
    return Game(id=GAME_ID, game_type="scopone_scientifico", join_code="K7QX2M",
                options_json="{}", seats_total=4, created_at_ms=0, started=True,
                seats=tuple(Seat(i, name, name) for i, name in
                            enumerate(("alice", "bob", "carol", "dave"))))


class FakeLobby:
    """Knows one started game and the scopone type; ``down`` makes every call UNAVAILABLE."""

    def __init__(self):
        self.down = False
        self.types = [SCOPONE]
        self.type_reads = 0
        self.game_reads = 0

    async def list_game_types(self) -> list[GameType]:
        self.type_reads += 1
        await asyncio.sleep(0)
        if self.down:
            raise unavailable()
        return list(self.types)

    async def get_game(self, game_id: str) -> Game:
        self.game_reads += 1
        if self.down:
            raise unavailable()
        if not game_id.strip():  # as the lobby's inputs.game_id
            raise ServiceError(Reason.INVALID_ARGUMENT, "game_id is required", field="game_id")
        if game_id != GAME_ID:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found")
        return started_game()


class FakeGame:
    """A table whose view stream stays silent; ``failure`` (when set) fails the calls, and
    ``hold`` (when set) keeps GetView waiting until it is set."""

    def __init__(self):
        self.failure: ServiceError | None = None
        self.hold: asyncio.Event | None = None
        self.views_asked = asyncio.Event()

    async def watch_table(self, table_id: str, public: bool = False,
                          parts: bool = False) -> AsyncIterator[TableViews]:
        await asyncio.Event().wait()
        yield TableViews(0, "playing", 0, ())

    async def get_log(self, table_id: str, after_number: int = 0, page_size: int = 0):
        if self.failure is not None:
            raise self.failure
        raise AssertionError("the fake keeps no log")

    async def get_view(self, table_id: str, seat: str) -> dict:
        self.views_asked.set()
        if self.hold is not None:
            await self.hold.wait()
        if self.failure is not None:
            raise self.failure
        return {"status": "playing", "options": {}, "players": [], "you": 0, "seed_commitment": "0" * 64,
                "revision": 1}

    async def act(self, table_id: str, seat: str, action: dict, revision: int | None,
                  request_id: str = "") -> Acted:
        if self.failure is not None:
            raise self.failure
        return Acted(0, "playing", replayed=False)


class FakeStats:
    async def leaderboard(self, game_type: str | None = None, limit: int = 0) -> Leaderboard:
        return Leaderboard(game_type or "scopone_scientifico", [])


@contextlib.asynccontextmanager
async def gateway(lobby=None, game=None, stats=None,
                  settings: Settings | None = None) -> AsyncIterator[Starlette]:
    """The gateway's app over the fakes; any request with a session cookie is alice's."""
    settings = settings or Settings()
    auth = Auth(settings, MemorySessionStore())

    async def member(connection):
        if COOKIE_NAME not in connection.cookies:
            return None
        return Member(sub="alice", name="alice", provider="default", session_id="any")

    auth.member = member  # type: ignore[method-assign]
    app = create_app(settings, Backends(lobby=lobby, game=game, stats=stats, live=game), auth)
    try:
        yield app
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()
