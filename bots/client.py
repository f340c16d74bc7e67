"""``BotsClient``: the bots service's API for the lobby, as plain values.

Every method raises :class:`~services.rpc.errors.ServiceError` with the service's reason, never a
raw ``grpc.RpcError``. DriveTable replaces a table's bot seats as a whole, so it is idempotent
and the channel retries it while the service is briefly out of reach.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.components import BOTS_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.bots.v1 import bots_pb2, bots_pb2_grpc

IDEMPOTENT = ("ListLevels", "DriveTable")


class BotsClient(RpcClient):
    """An async client of BotsService at ``address`` (host:port). Close it, or use ``async with``."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        # Round robin over every address BOTS_ADDR resolves to (the chart's headless Service),
        # as every channel does (services.rpc.channels): the replica a DriveTable reaches
        # drives that table, so the calls spread the tables.
        super().__init__(address, BOTS_SERVICE, idempotent=IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy, credentials=credentials)
        self._stub = bots_pb2_grpc.BotsServiceStub(self._channel)

    async def drive_table(self, table_id: str, seats: Iterable[tuple[int, str]]) -> None:
        """Bots play exactly these (seat index, level) seats of the table from now on."""
        await self._call(self._stub.DriveTable, bots_pb2.DriveTableRequest(
            table_id=table_id,
            seats=[bots_pb2.BotSeat(seat_index=index, level=level) for index, level in seats]))
