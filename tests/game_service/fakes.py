"""In-process fakes of the services the game service calls, served over real gRPC sockets."""

from __future__ import annotations

import asyncio

import grpc

from services.rpc.errors import ServiceError
from tavolo.deadlines.v1 import deadlines_pb2, deadlines_pb2_grpc
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc


class FakeDeadlines(deadlines_pb2_grpc.DeadlineServiceServicer):
    """The pending entries by (table_id, kind, token) -> due ms; every call in ``calls``."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str], int] = {}
        self.calls: list[tuple[str, str, str, str]] = []
        self.failures = 0  # the next N calls answer UNAVAILABLE

    async def _maybe_fail(self, context) -> None:
        if self.failures > 0:
            self.failures -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "deadline queue down")

    async def Schedule(self, request, context):
        await self._maybe_fail(context)
        if not (request.table_id and request.kind and request.token and request.HasField("due_at")):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "missing field")
        key = (request.table_id, request.kind, request.token)
        self.calls.append(("schedule", *key))
        self.entries[key] = request.due_at.ToMilliseconds()
        return deadlines_pb2.ScheduleResponse()

    async def Cancel(self, request, context):
        await self._maybe_fail(context)
        key = (request.table_id, request.kind, request.token)
        self.calls.append(("cancel", *key))
        return deadlines_pb2.CancelResponse(cancelled=self.entries.pop(key, None) is not None)

    async def CancelTable(self, request, context):
        doomed = [key for key in self.entries if key[0] == request.table_id]
        for key in doomed:
            del self.entries[key]
        return deadlines_pb2.CancelTableResponse(cancelled=len(doomed))

    async def SetTableDeadlines(self, request, context):
        await self._maybe_fail(context)
        for table in request.tables:
            self.calls.append(("set", table.table_id, *(d.token for d in table.deadlines)))
            for key in [key for key in self.entries if key[0] == table.table_id]:
                del self.entries[key]
            for deadline in table.deadlines:
                self.entries[(table.table_id, deadline.kind, deadline.token)] = \
                    deadline.due_at.ToMilliseconds()
        return deadlines_pb2.SetTableDeadlinesResponse()

    def pending(self, table_id: str) -> dict[tuple[str, str], int]:
        return {(k, t): due for (tid, k, t), due in self.entries.items() if tid == table_id}


class FakeStats(stats_pb2_grpc.StatsServiceServicer):
    """Recorded matches by table id; the first ``failures`` calls answer UNAVAILABLE."""

    def __init__(self, failures: int = 0) -> None:
        self.matches: dict[str, stats_pb2.RecordMatchRequest] = {}
        self.failures = failures
        self.calls = 0
        self.recorded = asyncio.Event()
        self.refusal: ServiceError | None = None  # set: every call is refused with it

    async def RecordMatch(self, request, context):
        self.calls += 1
        if self.refusal is not None:
            await context.abort_with_status(self.refusal.to_status())
        if self.failures > 0:
            self.failures -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the lobby cannot be reached")
        created = request.table_id not in self.matches
        self.matches.setdefault(request.table_id, request)
        self.recorded.set()
        return stats_pb2.RecordMatchResponse(
            match=stats_pb2.Match(id=request.table_id, game_type=request.game_type), created=created)


async def serve_fakes(deadlines: FakeDeadlines, stats: FakeStats) -> tuple[grpc.aio.Server, str, str]:
    """One server on 127.0.0.1 hosting both fakes, on two ports (as two services would be)."""
    server = grpc.aio.server()
    deadlines_pb2_grpc.add_DeadlineServiceServicer_to_server(deadlines, server)
    stats_pb2_grpc.add_StatsServiceServicer_to_server(stats, server)
    deadlines_port = server.add_insecure_port("127.0.0.1:0")
    stats_port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{deadlines_port}", f"127.0.0.1:{stats_port}"
