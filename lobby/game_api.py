"""The lobby's view of the game service: the three calls it makes, over the generated stub.

Failed calls come back as the ServiceError the game service raised (``from_rpc_error``), so
UNKNOWN_GAME_TYPE and INVALID_OPTIONS reach the lobby's caller unchanged, and a game service
that cannot be reached is UNAVAILABLE.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from lobby.models import GameType
from services.errors import from_rpc_error
from tavolo.game.v1 import game_pb2, game_pb2_grpc

SERVICE = "tavolo.game.v1.GameService"
# CreateTable with a caller-chosen table id is idempotent, so the transport may retry it too.
IDEMPOTENT = ("ListGameTypes", "NormalizeOptions", "CreateTable")


class GameApi:
    """Game types, options and table creation, from the game service at the other end of ``channel``."""

    def __init__(self, channel: grpc.aio.Channel):
        self.stub = game_pb2_grpc.GameServiceStub(channel)

    async def list_game_types(self) -> list[GameType]:
        try:
            response = await self.stub.ListGameTypes(game_pb2.ListGameTypesRequest())
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        return [
            GameType(id=t.id, name=t.name, description=t.description, players=t.players,
                     options_schema_json=t.options_schema_json)
            for t in response.game_types
        ]

    async def normalize_options(self, game_type: str, options_json: str) -> str:
        try:
            response = await self.stub.NormalizeOptions(
                game_pb2.NormalizeOptionsRequest(game_type=game_type, options_json=options_json))
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        return response.options_json

    async def create_table(self, table_id: str, game_type: str, options_json: str,
                           seats: Sequence[str]) -> None:
        try:
            await self.stub.CreateTable(game_pb2.CreateTableRequest(
                table_id=table_id, game_type=game_type, options_json=options_json,
                seats=list(seats)))
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
