"""A stand-in GameService for the lobby's tests: the real engines' options, tables in a dict.

It is served over a real socket by the shared server (services.rpc.server.serve), so the lobby's
adapter, channel and error translation run for real. ``fail_creates`` makes the next N
CreateTable calls fail with ``fail_code``; ``land_failed_creates`` makes those failures happen
after the table was stored (a call that landed but whose answer was lost).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from contextlib import asynccontextmanager

import grpc

from game.engine import OptionsError
from game.registry import UnknownGameType, default_registry
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import ServiceSpec, serve
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.processes import free_address

GAME_TYPES = ("scopone_scientifico",)


class FakeGameService(game_pb2_grpc.GameServiceServicer):
    def __init__(self, game_types: tuple[str, ...] = GAME_TYPES):
        registry = default_registry(dummy=True)
        self.engines = {game_id: registry.get(game_id) for game_id in game_types}
        self.tables: dict[str, game_pb2.CreateTableRequest] = {}
        self.create_calls: list[str] = []
        self.finished: set[str] = set()  # tables whose match is over (GetResult answers)
        self.taken_back: list[tuple[str, str]] = []  # (table, seat) of each TakeBack
        self.fail_creates = 0
        self.land_failed_creates = False
        # A deadline is not retried by the channel (UNAVAILABLE is: see the channel's retry policy).
        self.fail_code = grpc.StatusCode.DEADLINE_EXCEEDED

    def _engine(self, game_type: str):
        try:
            return self.engines[game_type]
        except KeyError:
            raise ServiceError(Reason.UNKNOWN_GAME_TYPE, str(UnknownGameType(game_type)),
                               field="game_type", game_type=game_type) from None

    def _normalize(self, game_type: str, options_json: str) -> dict:
        engine = self._engine(game_type)
        try:
            options = json.loads(options_json or "{}")
        except ValueError:
            raise ServiceError(Reason.INVALID_OPTIONS, "Invalid options: not JSON",
                               field="options_json") from None
        try:
            return engine.normalize_options(options)
        except OptionsError as error:
            raise ServiceError(Reason.INVALID_OPTIONS, f"Invalid options: {error.message}",
                               field="options_json") from None

    async def ListGameTypes(self, request, context):
        return game_pb2.ListGameTypesResponse(game_types=[
            game_pb2.GameType(id=e.id, name=e.name, description=e.description, players=e.seats,
                              options_schema_json=json.dumps(e.options_schema))
            for e in self.engines.values()
        ])

    async def NormalizeOptions(self, request, context):
        options = self._normalize(request.game_type, request.options_json)
        return game_pb2.NormalizeOptionsResponse(options_json=json.dumps(options))

    async def CreateTable(self, request, context):
        self.create_calls.append(request.table_id)
        engine = self._engine(request.game_type)
        self._normalize(request.game_type, request.options_json)
        try:
            canonical = str(uuid.UUID(request.table_id))
        except ValueError:
            canonical = None
        if canonical != request.table_id:
            raise ServiceError(Reason.INVALID_ARGUMENT, "table_id must be a lowercase uuid",
                               field="table_id")
        if list(request.seats) != [f"seat:{i}" for i in range(engine.seats)]:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"bad seats {list(request.seats)}",
                               field="seats")
        if self.fail_creates:
            self.fail_creates -= 1
            if self.land_failed_creates:
                self.tables.setdefault(request.table_id, request)
            await context.abort(self.fail_code, "the game store did not answer in time")
        self.tables.setdefault(request.table_id, request)
        return game_pb2.CreateTableResponse(table_id=request.table_id, seed_commitment="0" * 64,
                                            revision=1)


    async def GetResult(self, request, context):
        if request.table_id not in self.tables:
            raise ServiceError(Reason.TABLE_NOT_FOUND, "Table not found")
        if request.table_id not in self.finished:
            raise ServiceError(Reason.MATCH_NOT_FINISHED, "The match is not finished")
        return game_pb2.GetResultResponse(result_json=json.dumps({"winner": "A"}))

    async def TakeBack(self, request, context):
        if request.table_id not in self.tables:
            raise ServiceError(Reason.TABLE_NOT_FOUND, "Table not found")
        self.taken_back.append((request.table_id, request.seat))
        return game_pb2.TakeBackResponse(revision=len(self.taken_back))


@asynccontextmanager
async def running_game_service(fake: FakeGameService | None = None):
    """Serve a FakeGameService on a free local port; yields (fake, address)."""
    fake = fake or FakeGameService()
    address = free_address()

    async def probe() -> None:
        return None

    spec = ServiceSpec(name="fake-game", full_names=("tavolo.game.v1.GameService",),
                       register=lambda server: game_pb2_grpc.add_GameServiceServicer_to_server(
                           fake, server),
                       probe=probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    try:
        yield fake, address
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
