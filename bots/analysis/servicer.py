"""tavolo.bots.v1.AnalysisService: the translation from messages to :class:`~bots.analysis.service.Analyses`."""

from __future__ import annotations

from typing import Any

import grpc

from bots.analysis.service import Analyses
from bots.analysis.store import Analysis
from services.rpc.server import Context
from tavolo.bots.v1 import analysis_pb2, analysis_pb2_grpc

STATUSES = {"queued": analysis_pb2.ANALYSIS_STATUS_QUEUED, "running": analysis_pb2.ANALYSIS_STATUS_RUNNING,
            "done": analysis_pb2.ANALYSIS_STATUS_DONE}
VERDICTS = {"best": analysis_pb2.VERDICT_BEST, "good": analysis_pb2.VERDICT_GOOD,
            "inaccuracy": analysis_pb2.VERDICT_INACCURACY, "mistake": analysis_pb2.VERDICT_MISTAKE,
            "blunder": analysis_pb2.VERDICT_BLUNDER}


class AnalysisServicer(analysis_pb2_grpc.AnalysisServiceServicer):
    def __init__(self, analyses: Analyses) -> None:
        self.analyses = analyses

    async def RequestAnalysis(self, request: analysis_pb2.RequestAnalysisRequest,
                              context: Context) -> analysis_pb2.RequestAnalysisResponse:
        analysis, created = await self.analyses.request(request.table_id, request.member_id, request.seat_index)
        return analysis_pb2.RequestAnalysisResponse(analysis=analysis_message(analysis), created=created)

    async def GetAnalysis(self, request: analysis_pb2.GetAnalysisRequest,
                          context: Context) -> analysis_pb2.GetAnalysisResponse:
        analysis = await self.analyses.get(request.table_id, request.member_id)
        return analysis_pb2.GetAnalysisResponse(analysis=analysis_message(analysis))

    async def EraseMember(self, request: analysis_pb2.EraseMemberRequest,
                          context: Context) -> analysis_pb2.EraseMemberResponse:
        return analysis_pb2.EraseMemberResponse(deleted=await self.analyses.erase_member(request.member_id))


def analysis_message(analysis: Analysis) -> analysis_pb2.Analysis:
    message = analysis_pb2.Analysis(table_id=analysis.table_id, seat_index=analysis.seat,
                                    status=STATUSES[analysis.status])
    if analysis.status == "done" and analysis.result is not None:
        message.plays.extend(_play(item) for item in analysis.result["plays"])
        message.summary.CopyFrom(analysis_pb2.AnalysisSummary(**analysis.result["summary"]))
    return message


def _play(item: dict[str, Any]) -> analysis_pb2.AnalysedPlay:
    play = analysis_pb2.AnalysedPlay(number=item["number"], hand=item["hand"],
                                     played=analysis_pb2.CardPlay(**item["played"]), auto=item["auto"])
    if "verdict" in item:
        play.best.CopyFrom(analysis_pb2.CardPlay(**item["best"]))
        play.loss = item["loss"]
        play.verdict = VERDICTS[item["verdict"]]
    return play


def register(server: grpc.aio.Server, analyses: Analyses) -> None:
    analysis_pb2_grpc.add_AnalysisServiceServicer_to_server(AnalysisServicer(analyses), server)
