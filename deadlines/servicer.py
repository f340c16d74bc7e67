"""tavolo.deadlines.v1.DeadlineService: the translation from messages to queue calls."""

from __future__ import annotations

from google.protobuf import timestamp_pb2

from deadlines.entry import Entry, InvalidEntry
from deadlines.queue import DeadlineQueue
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import Context
from tavolo.deadlines.v1 import deadlines_pb2, deadlines_pb2_grpc

# One SetTableDeadlines call: a batch of the game service's tables, each with its few deadlines.
MAX_TABLES_PER_CALL = 1000
MAX_DEADLINES_PER_TABLE = 16

# google.protobuf.Timestamp's valid range: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
_MIN_SECONDS = -62_135_596_800
_MAX_SECONDS = 253_402_300_799


def _entry(table_id: str, kind: str, token: str, table_at: str = "", deadline_at: str = "") -> Entry:
    """The entry; INVALID_ARGUMENT naming the refused field, whose path in the request is
    ``table_at`` + ``table_id`` or ``deadline_at`` + ``kind``/``token`` (ScheduleRequest and
    CancelRequest: no prefix; SetTableDeadlinesRequest: ``tables[i].``, ``tables[i].deadlines[j].``)."""
    try:
        return Entry(table_id=table_id, kind=kind, token=token)
    except InvalidEntry as error:
        at = table_at if error.field == "table_id" else deadline_at
        raise ServiceError(Reason.INVALID_ARGUMENT, str(error), field=at + error.field) from None


def due_ms_from(timestamp: timestamp_pb2.Timestamp, field: str = "due_at") -> int:
    """The timestamp in whole milliseconds, rounded up: an entry may fire late, never early.
    ``field``: its path in the request, for the error."""
    if not _MIN_SECONDS <= timestamp.seconds <= _MAX_SECONDS:
        raise ServiceError(Reason.INVALID_ARGUMENT, "due_at is out of the Timestamp range",
                           field=f"{field}.seconds")
    if not 0 <= timestamp.nanos <= 999_999_999:
        raise ServiceError(Reason.INVALID_ARGUMENT, "due_at.nanos must be in 0..999999999",
                           field=f"{field}.nanos")
    return timestamp.seconds * 1000 + -(-timestamp.nanos // 1_000_000)


class DeadlineServicer(deadlines_pb2_grpc.DeadlineServiceServicer):
    """Schedule, Cancel and CancelTable over the queue; the consumer does the firing."""

    def __init__(self, queue: DeadlineQueue) -> None:
        self.queue = queue

    async def Schedule(self, request: deadlines_pb2.ScheduleRequest,
                       context: Context) -> deadlines_pb2.ScheduleResponse:
        entry = _entry(request.table_id, request.kind, request.token)
        if not request.HasField("due_at"):
            raise ServiceError(Reason.INVALID_ARGUMENT, "due_at must be set", field="due_at")
        await self.queue.schedule(entry, due_ms_from(request.due_at))
        return deadlines_pb2.ScheduleResponse()

    async def Cancel(self, request: deadlines_pb2.CancelRequest,
                     context: Context) -> deadlines_pb2.CancelResponse:
        entry = _entry(request.table_id, request.kind, request.token)
        return deadlines_pb2.CancelResponse(cancelled=await self.queue.cancel(entry))

    async def SetTableDeadlines(self, request: deadlines_pb2.SetTableDeadlinesRequest,
                                context: Context) -> deadlines_pb2.SetTableDeadlinesResponse:
        if len(request.tables) > MAX_TABLES_PER_CALL:
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               f"at most {MAX_TABLES_PER_CALL} tables per call", field="tables")
        tables: dict[str, list[tuple[Entry, int]]] = {}
        for index, table in enumerate(request.tables):
            at = f"tables[{index}]."
            table_id = _entry(table.table_id, "-", "-", at).table_id  # an entry's checks
            if table_id in tables:
                raise ServiceError(Reason.INVALID_ARGUMENT, f"table {table_id} is listed twice",
                                   field=f"{at}table_id")
            if len(table.deadlines) > MAX_DEADLINES_PER_TABLE:
                raise ServiceError(Reason.INVALID_ARGUMENT,
                                   f"at most {MAX_DEADLINES_PER_TABLE} deadlines per table",
                                   field=f"{at}deadlines")
            entries = tables[table_id] = []
            for number, deadline in enumerate(table.deadlines):
                deadline_at = f"{at}deadlines[{number}]."
                if not deadline.HasField("due_at"):
                    raise ServiceError(Reason.INVALID_ARGUMENT, "due_at must be set",
                                       field=f"{deadline_at}due_at")
                entries.append((_entry(table_id, deadline.kind, deadline.token, at, deadline_at),
                                due_ms_from(deadline.due_at, f"{deadline_at}due_at")))
        await self.queue.set_tables(tables)
        return deadlines_pb2.SetTableDeadlinesResponse()

    async def GetQueueEpoch(self, request: deadlines_pb2.GetQueueEpochRequest,
                            context: Context) -> deadlines_pb2.GetQueueEpochResponse:
        return deadlines_pb2.GetQueueEpochResponse(epoch=await self.queue.epoch())

    async def CancelTable(self, request: deadlines_pb2.CancelTableRequest,
                          context: Context) -> deadlines_pb2.CancelTableResponse:
        table_id = _entry(request.table_id, "-", "-").table_id  # the same checks as an entry's
        return deadlines_pb2.CancelTableResponse(
            cancelled=await self.queue.cancel_table(table_id)
        )
