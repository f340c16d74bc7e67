"""tavolo.bots.v1.BotsService: the translation from messages to :class:`~bots.service.Bots`."""

from __future__ import annotations

import grpc

from bots.catalogue import LEVELS
from bots.service import Bots, seats_of
from tavolo.bots.v1 import bots_pb2, bots_pb2_grpc

SERVICE_NAME = bots_pb2.DESCRIPTOR.services_by_name["BotsService"].full_name


class BotsServicer(bots_pb2_grpc.BotsServiceServicer):
    def __init__(self, bots: Bots):
        self.bots = bots

    async def ListLevels(self, request, context):
        return bots_pb2.ListLevelsResponse(
            levels=[bots_pb2.BotLevel(id=level.id, name=level.name) for level in LEVELS])

    async def DriveTable(self, request, context):
        await self.bots.drive_table(request.table_id, list(seats_of(request.seats)))
        return bots_pb2.DriveTableResponse()


def register(server: grpc.aio.Server, bots: Bots) -> None:
    bots_pb2_grpc.add_BotsServiceServicer_to_server(BotsServicer(bots), server)
