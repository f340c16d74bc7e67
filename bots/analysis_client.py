"""``AnalysisClient``: the bots process's AnalysisService for the gateway, as plain values.

Every method raises :class:`~services.rpc.errors.ServiceError` with the service's reason, never a
raw ``grpc.RpcError``. Each call is idempotent (a request asked twice is the same analysis), so
the channel retries them while the service is briefly out of reach.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.components import ANALYSIS_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.bots.v1 import analysis_pb2, analysis_pb2_grpc

IDEMPOTENT = ("RequestAnalysis", "GetAnalysis", "EraseMember")
_STATUSES = {analysis_pb2.ANALYSIS_STATUS_QUEUED: "queued", analysis_pb2.ANALYSIS_STATUS_RUNNING: "running",
             analysis_pb2.ANALYSIS_STATUS_DONE: "done"}
_VERDICTS = {analysis_pb2.VERDICT_BEST: "best", analysis_pb2.VERDICT_GOOD: "good",
             analysis_pb2.VERDICT_INACCURACY: "inaccuracy", analysis_pb2.VERDICT_MISTAKE: "mistake",
             analysis_pb2.VERDICT_BLUNDER: "blunder"}


@dataclass(frozen=True)
class MatchAnalysis:
    """A member's analysis of a table: ``plays`` and ``summary`` as CONTRACT's JSON, once done."""

    table_id: str
    seat: int
    status: str  # queued | running | done
    plays: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, int] | None = None

    def body(self) -> dict[str, Any]:
        """CONTRACT's body of GET /api/games/{id}/analysis."""
        body: dict[str, Any] = {"status": self.status, "seat": self.seat}
        if self.status == "done":
            body.update(plays=self.plays, summary=self.summary)
        return body


class AnalysisClient(RpcClient):
    """An async client of AnalysisService at ``address`` (host:port: BOTS_ADDR)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        super().__init__(address, ANALYSIS_SERVICE, idempotent=IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy, credentials=credentials)
        self._stub = analysis_pb2_grpc.AnalysisServiceStub(self._channel)

    async def request_analysis(self, table_id: str, member_id: str, seat: int) -> tuple[MatchAnalysis, bool]:
        """(the member's analysis of the table, whether this call queued it)."""
        response = await self._call(self._stub.RequestAnalysis, analysis_pb2.RequestAnalysisRequest(
            table_id=table_id, member_id=member_id, seat_index=seat))
        return analysis_of(response.analysis), response.created

    async def get_analysis(self, table_id: str, member_id: str) -> MatchAnalysis:
        response = await self._call(self._stub.GetAnalysis, analysis_pb2.GetAnalysisRequest(
            table_id=table_id, member_id=member_id), read=True)
        return analysis_of(response.analysis)

    async def erase_member(self, member_id: str) -> int:
        response = await self._call(self._stub.EraseMember, analysis_pb2.EraseMemberRequest(member_id=member_id))
        return response.deleted


def analysis_of(message: analysis_pb2.Analysis) -> MatchAnalysis:
    status = _STATUSES.get(message.status, "queued")
    if status != "done":
        return MatchAnalysis(message.table_id, message.seat_index, status)
    plays = []
    for play in message.plays:
        item: dict[str, Any] = {"number": play.number, "hand": play.hand,
                                "played": {"card": play.played.card, "capture": list(play.played.capture)}}
        if play.verdict != analysis_pb2.VERDICT_UNSPECIFIED:
            item.update(best={"card": play.best.card, "capture": list(play.best.capture)}, loss=play.loss,
                        verdict=_VERDICTS[play.verdict])
        item["auto"] = play.auto
        plays.append(item)
    s = message.summary
    return MatchAnalysis(message.table_id, message.seat_index, status, plays,
                         {"accuracy": s.accuracy, "inaccuracies": s.inaccuracies, "mistakes": s.mistakes,
                          "blunders": s.blunders})
