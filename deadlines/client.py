"""DeadlinesClient: the deadline service as its callers (the game service) use it; the one
client of DeadlineService, owned by the deadline service."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from services.components import DEADLINE_SERVICE
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.deadlines.v1 import deadlines_pb2, deadlines_pb2_grpc


class DeadlinesClient(RpcClient):
    """Async adapter over the DeadlineService stub; failures raise ServiceError.

    Every method is idempotent (scheduling twice keeps one entry, cancelling twice is a no-op),
    so the channel retries them when the deadline service is briefly unreachable.
    """

    def __init__(self, address: str, timeout_seconds: float = 5.0,
                 credentials: ClientCredentials | None = None):
        super().__init__(address, DEADLINE_SERVICE,
                         idempotent=("Schedule", "Cancel", "CancelTable", "GetQueueEpoch",
                                     "SetTableDeadlines"),
                         timeout_seconds=timeout_seconds, credentials=credentials)
        self._stub = deadlines_pb2_grpc.DeadlineServiceStub(self._channel)

    async def schedule(self, table_id: str, kind: str, token: str, due_ms: int) -> None:
        """Fire (table_id, kind, token) at ``due_ms`` (epoch ms); again: moves it there."""
        request = deadlines_pb2.ScheduleRequest(table_id=table_id, kind=kind, token=token)
        request.due_at.FromMilliseconds(due_ms)
        await self._call(self._stub.Schedule, request)

    async def cancel(self, table_id: str, kind: str, token: str) -> bool:
        """Remove the pending entry; False when there was none."""
        request = deadlines_pb2.CancelRequest(table_id=table_id, kind=kind, token=token)
        return (await self._call(self._stub.Cancel, request)).cancelled

    async def cancel_table(self, table_id: str) -> int:
        """Remove every pending entry of the table; how many there were."""
        request = deadlines_pb2.CancelTableRequest(table_id=table_id)
        return (await self._call(self._stub.CancelTable, request)).cancelled

    async def set_table_deadlines(
            self, tables: Mapping[str, Iterable[tuple[str, str, int]]]) -> None:
        """Make each table's entries exactly its (kind, token, due ms) triples; none: no entry."""
        request = deadlines_pb2.SetTableDeadlinesRequest()
        for table_id, deadlines in tables.items():
            table = request.tables.add(table_id=table_id)
            for kind, token, due_ms in deadlines:
                table.deadlines.add(kind=kind, token=token).due_at.FromMilliseconds(due_ms)
        await self._call(self._stub.SetTableDeadlines, request)

    async def queue_epoch(self) -> str:
        """The queue's epoch: it changes only when the queue lost its entries."""
        return (await self._call(self._stub.GetQueueEpoch,
                                 deadlines_pb2.GetQueueEpochRequest())).epoch
