"""tavolo.bots.v1.BotsService: the translation from messages to :class:`~bots.service.Bots`."""

from __future__ import annotations

import grpc

from bots.catalogue import LEVELS
from bots.service import Bots, seats_of
from services.rpc.server import Context
from tavolo.bots.v1 import bots_pb2, bots_pb2_grpc


class BotsServicer(bots_pb2_grpc.BotsServiceServicer):
    def __init__(self, bots: Bots) -> None:
        self.bots = bots

    async def ListLevels(self, request: bots_pb2.ListLevelsRequest,
                         context: Context) -> bots_pb2.ListLevelsResponse:
        return bots_pb2.ListLevelsResponse(
            levels=[bots_pb2.BotLevel(id=level.id, name=level.name) for level in LEVELS])

    async def DriveTable(self, request: bots_pb2.DriveTableRequest,
                         context: Context) -> bots_pb2.DriveTableResponse:
        await self.bots.drive_table(request.table_id, list(seats_of(request.seats)))
        return bots_pb2.DriveTableResponse()


def register(server: grpc.aio.Server, bots: Bots) -> None:
    bots_pb2_grpc.add_BotsServiceServicer_to_server(BotsServicer(bots), server)
