"""tavolo.stats.v1.StatsService over gRPC: messages in, domain calls, messages out.

Failures are ServiceErrors, which the shared server's interceptor sends as statuses with
ErrorInfo; nothing here knows about Postgres or the lobby.
"""

from __future__ import annotations

from collections.abc import Callable

import grpc

from services.rpc.server import Context
from stats import messages
from stats.service import MatchReport, RecordedSeat, StatsService
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc


class StatsServicer(stats_pb2_grpc.StatsServiceServicer):
    def __init__(self, service: StatsService) -> None:
        self.service = service

    async def RecordMatch(self, request: stats_pb2.RecordMatchRequest,
                          context: Context) -> stats_pb2.RecordMatchResponse:
        report = MatchReport(
            table_id=request.table_id,
            game_type=request.game_type,
            started_ms=messages.ms_or_none(request, "started_at"),
            finished_ms=messages.ms_or_none(request, "finished_at"),
            result_json=request.result_json,
            seats=[RecordedSeat(seat=s.seat, seat_index=s.seat_index, team=s.team, won=s.won,
                              points=s.points, details_json=s.details_json)
                   for s in request.seats],
        )
        match, created = await self.service.record_match(report)
        return stats_pb2.RecordMatchResponse(match=messages.match_message(match), created=created)

    async def ListMatches(self, request: stats_pb2.ListMatchesRequest,
                          context: Context) -> stats_pb2.ListMatchesResponse:
        page = await self.service.list_matches(request.member_id, request.game_type,
                                               request.page_size, request.page_token)
        return stats_pb2.ListMatchesResponse(
            matches=[messages.match_message(m) for m in page.matches],
            next_page_token=page.next_page_token)

    async def GetRatings(self, request: stats_pb2.GetRatingsRequest,
                         context: Context) -> stats_pb2.GetRatingsResponse:
        ratings = await self.service.ratings(request.member_id)
        matches, wins = await self.service.totals(request.member_id)
        return stats_pb2.GetRatingsResponse(ratings=[messages.rating_message(r) for r in ratings],
                                            matches=matches, wins=wins)

    async def GetLeaderboard(self, request: stats_pb2.GetLeaderboardRequest,
                             context: Context) -> stats_pb2.GetLeaderboardResponse:
        game_type, rows = await self.service.leaderboard(request.game_type, request.limit)
        return stats_pb2.GetLeaderboardResponse(
            game_type=game_type,
            entries=[messages.leaderboard_entry(rank, row) for rank, row in enumerate(rows, 1)])

    async def EraseMember(self, request: stats_pb2.EraseMemberRequest,
                          context: Context) -> stats_pb2.EraseMemberResponse:
        count = await self.service.erase_member(request.member_id)
        return stats_pb2.EraseMemberResponse(anonymized_rows=count)


def register(servicer: StatsServicer) -> Callable[[grpc.aio.Server], None]:
    """The ServiceSpec.register callable for this servicer."""

    def add(server: grpc.aio.Server) -> None:
        stats_pb2_grpc.add_StatsServiceServicer_to_server(servicer, server)

    return add
