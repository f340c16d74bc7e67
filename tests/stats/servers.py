"""Real servers for the stats tests: a fake lobby servicer and the stats servicer, on sockets."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc

from lobby.client import LobbyClient
from services.migrations import migrate
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import ErrorInterceptor
from services.stores import postgres_pool
from stats.client import StatsClient
from stats.cursor import CursorCodec
from stats.repository import PostgresStatsRepository, StatsRepository
from stats.service import StatsService
from stats.servicer import StatsServicer, register
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc

TEST_SECRET = b"tests-only-page-token-key-0123456789"


class FakeLobby(lobby_pb2_grpc.LobbyServiceServicer):
    """The lobby's GetSeating from a dict of table id -> [(member id, name)] in seat order, and
    who plays which seat: ``bots`` (table id -> {seat index: level}) and ``took_over`` (table id
    -> the seats a bot took over from their members).

    Members in ``erased`` are answered as the lobby answers an erased seat; ``on_seating``
    (when set) is awaited after the seating is read and before it is answered: a stand-in for
    whatever happens meanwhile (an erasure racing the recording).

    MarkFinished appends each table id it hears to ``marked`` (found: the table is seated
    here); while ``marks_fail`` it refuses every one UNAVAILABLE, marking nothing (a single
    refusal would be hidden by the client's retries), and counts them in ``refused_marks``."""

    def __init__(self) -> None:
        self.seatings: dict[str, list[tuple[str, str]]] = {}
        self.bots: dict[str, dict[int, str]] = {}
        self.took_over: dict[str, set[int]] = {}
        self.erased: set[str] = set()
        self.players: dict[str, str] = {}  # member id -> the public player id the lobby gives
        self.on_seating: Callable[[], Awaitable[None]] | None = None
        self.calls = 0
        self.marked: list[str] = []
        self.marks_fail = False
        self.refused_marks = 0
        self.address = ""

    def seat(self, table_id: str, *members: str, names: dict[str, str] | None = None,
             bots: dict[int, str] | None = None, took_over: set[int] | None = None) -> None:
        names = names or {}
        self.seatings[table_id] = [(m, names.get(m, m.title())) for m in members]
        self.bots[table_id] = {**(bots or {}), **dict.fromkeys(took_over or (), "esperto")}
        self.took_over[table_id] = set(took_over or ())

    async def GetSeating(self, request, context):
        self.calls += 1
        seating = self.seatings.get(request.table_id)
        if seating is None:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found", table_id=request.table_id)
        response = lobby_pb2.GetSeatingResponse(seats=[
            lobby_pb2.SeatAssignment(seat=f"seat:{i}", seat_index=i, member_id=member,
                                     display_name="deleted player" if member in self.erased
                                     else name, erased=member in self.erased,
                                     bot_level=self.bots.get(request.table_id, {}).get(i, ""),
                                     took_over=i in self.took_over.get(request.table_id, ()),
                                     player="" if member in self.erased
                                     else self.players.get(member, ""))
            for i, (member, name) in enumerate(seating)])
        if self.on_seating is not None:
            await self.on_seating()
        return response

    async def MarkFinished(self, request, context):
        if self.marks_fail:
            self.refused_marks += 1
            raise ServiceError(Reason.UNAVAILABLE, "The lobby store is unavailable")
        self.marked.append(request.table_id)
        return lobby_pb2.MarkFinishedResponse(found=request.table_id in self.seatings)


async def start_server(*adders) -> tuple[grpc.aio.Server, str]:
    """A gRPC server on a free port of 127.0.0.1 with the kit's error interceptor."""
    server = grpc.aio.server(interceptors=[ErrorInterceptor()])
    for add in adders:
        add(server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


@contextlib.asynccontextmanager
async def serving_lobby():
    lobby = FakeLobby()
    server, lobby.address = await start_server(
        lambda s: lobby_pb2_grpc.add_LobbyServiceServicer_to_server(lobby, s))
    try:
        yield lobby
    finally:
        await server.stop(None)


async def postgres_repository(dsn: str) -> PostgresStatsRepository:
    await migrate(dsn, components=("stats",))
    return PostgresStatsRepository(await postgres_pool(dsn, max_size=8, name="stats"))


@dataclass
class Stack:
    client: StatsClient
    lobby: FakeLobby
    repository: StatsRepository
    service: StatsService
    address: str

    def table(self, *members: str, names: dict[str, str] | None = None,
              bots: dict[int, str] | None = None, took_over: set[int] | None = None) -> str:
        """A fresh table id seated (in the fake lobby) by ``members`` in seat order; ``bots``
        from the start ({seat index: level}), and seats a bot ``took_over``."""
        table_id = str(uuid.uuid4())
        self.lobby.seat(table_id, *members, names=names, bots=bots, took_over=took_over)
        return table_id


@contextlib.asynccontextmanager
async def running_stack(repository: StatsRepository, lobby: FakeLobby,
                        lobby_address: str | None = None, lobby_timeout: float = 2.0):
    """The stats servicer on a real socket, over ``repository``, asking the lobby for seatings."""
    seating = LobbyClient(lobby_address or lobby.address, timeout_seconds=lobby_timeout)
    service = StatsService(repository, seating, CursorCodec(TEST_SECRET))
    server, address = await start_server(register(StatsServicer(service)))
    client = StatsClient(address)
    try:
        yield Stack(client, lobby, repository, service, address)
    finally:
        await client.close()
        await seating.close()
        await server.stop(None)
