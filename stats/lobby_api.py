"""The lobby as stats sees it: one call, GetSeating, behind a small adapter.

Errors come back as the lobby raised them (GAME_NOT_FOUND, UNAVAILABLE, ...) via
``from_rpc_error``; a seating that names nobody is GAME_NOT_FOUND too.
"""

from __future__ import annotations

import grpc

from services.channels import open_channel
from services.errors import Reason, ServiceError, from_rpc_error
from stats.model import SeatHolder
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc

LOBBY_SERVICE = "tavolo.lobby.v1.LobbyService"


class LobbySeating:
    """A :class:`stats.service.SeatingSource` over the lobby's gRPC API."""

    def __init__(self, address: str, timeout_seconds: float = 5.0):
        self._channel = open_channel(address, LOBBY_SERVICE, idempotent=("GetSeating",),
                                     timeout_seconds=timeout_seconds)
        self._stub = lobby_pb2_grpc.LobbyServiceStub(self._channel)

    async def seating(self, table_id: str) -> list[SeatHolder]:
        try:
            response = await self._stub.GetSeating(lobby_pb2.GetSeatingRequest(table_id=table_id))
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        holders = [
            SeatHolder(seat=s.seat or f"seat:{s.seat_index}", seat_index=s.seat_index,
                       member_id=s.member_id,
                       display_name=s.display_name.replace("\x00", ""), erased=s.erased)
            for s in response.seats
        ]
        if not holders:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found", table_id=table_id)
        if any(not h.member_id or "\x00" in h.member_id for h in holders):
            # A permanent fault of the lobby's data: retrying cannot help, so not UNAVAILABLE.
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               "The lobby's seating of this table names a malformed member id",
                               table_id=table_id)
        return holders

    async def close(self) -> None:
        await self._channel.close()
