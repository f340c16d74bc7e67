"""Fixtures of the lobby's tests: each store (memory and real Postgres), a fake game service
over a socket, and the lobby served over a socket behind a LobbyClient."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from game.client import GameClient
from lobby import players_servicer
from lobby.client import LobbyClient
from lobby.memory_store import MemoryLobbyStore
from lobby.players import Players
from lobby.players_client import PlayersClient
from lobby.postgres_store import PostgresLobbyStore
from lobby.service import Lobby
from lobby.servicer import register
from lobby.store import LobbyStore
from services.components import LOBBY_SERVICE, PLAYERS_SERVICE
from services.migrations import migrate
from services.rpc.server import ServiceSpec, serve
from services.stores import postgres_pool
from testing.processes import free_address
from testing.servers import create_database, drop_database, dsn_for
from tests.lobby.fake_game_service import FakeGameService, running_game_service

TTL_SECONDS = 3600


class Clock:
    """A monotonic clock the memory store's tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def lobby_database() -> str:
    """One migrated scratch database per module (tests empty it first), dropped at the end:
    a database per test would cost more than the tests themselves."""
    database = asyncio.run(create_database("lobby"))
    asyncio.run(migrate(dsn_for(database), components=("lobby",)))
    yield dsn_for(database)
    asyncio.run(drop_database(database))


@pytest.fixture(params=["memory", "postgres"])
async def store(request, clock, lobby_database) -> LobbyStore:
    """Each behaviour test runs on every store."""
    if request.param == "memory":
        store = MemoryLobbyStore(TTL_SECONDS, clock=clock)
    else:
        pool = await postgres_pool(lobby_database, max_size=4, name="lobby")
        # CASCADE: the relations and invitations reference games and members.
        await pool.execute("TRUNCATE lobby_game, lobby_request, lobby_member CASCADE")
        store = PostgresLobbyStore(pool, lobby_database, TTL_SECONDS)
    yield store
    await store.close()


@pytest.fixture
async def game_service():
    """(fake, address) of a FakeGameService served on a free port."""
    async with running_game_service(FakeGameService()) as running:
        yield running


@pytest.fixture
async def game_client(game_service):
    client = GameClient(game_service[1], named_tables=True)
    yield client
    await client.close()


async def _always_up() -> None:
    return None


@dataclass
class Harness:
    client: LobbyClient   # the API as the gateway sees it
    store: LobbyStore     # the store behind the server
    games: FakeGameService
    address: str


@contextlib.asynccontextmanager
async def lobby_served(lobby: Lobby, **serve_options: float) -> AsyncIterator[str]:
    """``lobby`` (LobbyService and PlayersService) served over a socket (``serve_options`` go to services.rpc.server.serve) for
    the length of a block; its address."""
    address = free_address()
    # Health is test_server.py's subject; here the probe only has to let the server start.
    def register_both(server) -> None:
        register(server, lobby)
        players_servicer.register(server, Players(lobby))

    spec = ServiceSpec(name="lobby", full_names=(LOBBY_SERVICE, PLAYERS_SERVICE),
                       register=register_both, probe=_always_up)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop,
                                     **serve_options))
    await asyncio.wait_for(started.wait(), 5)
    try:
        yield address
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


@pytest.fixture
async def harness(store, game_service, game_client):
    """The lobby served over a socket on ``store``, calling the fake game service."""
    async with lobby_served(Lobby(store, game_client)) as address:
        client = LobbyClient(address)
        yield Harness(client, store, game_service[0], address)
        await client.close()


@pytest.fixture
def client(harness) -> LobbyClient:
    return harness.client


class MsClock:
    """The lobby's wall clock (epoch ms), moved by hand: invitations lapse after 24 hours."""

    def __init__(self) -> None:
        self.now = 1_767_225_600_000  # 2026-01-01

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@dataclass
class Friends:
    client: LobbyClient      # LobbyService, as the gateway calls it
    players: PlayersClient   # PlayersService, on the same address
    lobby: Lobby             # the served lobby, for setting up many rows without a call each
    clock: MsClock
    games: FakeGameService


@pytest.fixture
async def friends(store, game_service, game_client):
    """The lobby (LobbyService and PlayersService) served on ``store`` with a clock of its own."""
    clock = MsClock()
    lobby = Lobby(store, game_client, clock=clock)
    async with lobby_served(lobby) as address:
        client, players = LobbyClient(address), PlayersClient(address)
        yield Friends(client, players, lobby, clock, game_service[0])
        await players.close()
        await client.close()
