"""``StatsClient``: the stats service for its callers (the game service, the gateway).

Plain records in and out (stats.model and the dataclasses below), failures as ServiceError
(reason + message), so callers never touch protobuf or grpc.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.components import STATS_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from stats import messages
from stats.model import LeaderboardRow, Match, Rating
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc

# Every method is safe to repeat: RecordMatch is idempotent on the table id, EraseMember on
# the member (a repeat anonymizes nothing more), the rest are reads.
_IDEMPOTENT = ("RecordMatch", "ListMatches", "GetRatings", "GetLeaderboard", "EraseMember")


@dataclass(frozen=True)
class SeatOutcome:
    """One seat's outcome of a finished match, as a caller of record_match reports it: the
    table's opaque seat ("seat:<seat_index>" by default) and the engine's figures. Who played it
    (a person, a bot from the start, a bot that took a person's seat over) is the lobby's
    seating's, which stats reads itself."""

    seat_index: int
    won: bool
    points: int
    team: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    seat: str = ""

    def __post_init__(self) -> None:
        if not self.seat:
            object.__setattr__(self, "seat", f"seat:{self.seat_index}")


def seat_outcomes(result: dict[str, Any]) -> list[SeatOutcome]:
    """The seats of an engine result (its ``"seats"`` list: seat, team, won, points)."""
    return [SeatOutcome(seat_index=s["seat"], won=s["won"], points=s["points"],
                        team=s.get("team"))
            for s in result.get("seats", ())]


@dataclass(frozen=True)
class RecordedMatch:
    match: Match
    created: bool  # False: it was already recorded (this call changed nothing)


@dataclass(frozen=True)
class Record:
    """A member's ratings, and every match recorded for them (practice ones too) and those won."""

    ratings: list[Rating]
    matches: int
    wins: int


@dataclass(frozen=True)
class MatchPage:
    matches: list[Match]
    next_cursor: str | None  # None on the last page


@dataclass(frozen=True)
class Leaderboard:
    game_type: str
    entries: list[LeaderboardRow]  # rank = position + 1


class StatsClient(RpcClient):
    """An async client of StatsService. ``policy`` says how long a call waits for a stats
    service that does not answer (services.rpc.channels: SERVICE_CALLS between services,
    PEOPLE_CALLS in the gateway)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        super().__init__(address, STATS_SERVICE, idempotent=_IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy, credentials=credentials)
        self._stub = stats_pb2_grpc.StatsServiceStub(self._channel)

    async def record_match(self, table_id: str, game_type: str, started_ms: int, finished_ms: int,
                           result: dict[str, Any] | str,
                           seats: Sequence[SeatOutcome]) -> RecordedMatch:
        """Record a finished match once; ``created`` is False when stats already had it."""
        request = stats_pb2.RecordMatchRequest(
            table_id=table_id, game_type=game_type,
            started_at=messages.timestamp(started_ms), finished_at=messages.timestamp(finished_ms),
            result_json=result if isinstance(result, str) else json.dumps(result),
            seats=[stats_pb2.SeatResult(seat=s.seat, seat_index=s.seat_index, team=s.team or "",
                                        won=s.won, points=s.points,
                                        details_json=json.dumps(dict(s.details)) if s.details else "")
                   for s in seats],
        )
        response = await self._call(self._stub.RecordMatch, request)
        return RecordedMatch(messages.match_from_message(response.match), response.created)

    async def list_matches(self, member_id: str, game_type: str | None = None, limit: int = 0,
                           cursor: str | None = None) -> MatchPage:
        response = await self._call(self._stub.ListMatches, stats_pb2.ListMatchesRequest(
            member_id=member_id, game_type=game_type or "", page_size=limit,
            page_token=cursor or ""), read=True)
        return MatchPage([messages.match_from_message(m) for m in response.matches],
                         response.next_page_token or None)

    async def ratings(self, member_id: str) -> list[Rating]:
        response = await self._call(self._stub.GetRatings,
                                    stats_pb2.GetRatingsRequest(member_id=member_id), read=True)
        return [messages.rating_from_message(r) for r in response.ratings]

    async def record(self, member_id: str) -> Record:
        """The member's ratings and their totals over every recorded match."""
        response = await self._call(self._stub.GetRatings,
                                    stats_pb2.GetRatingsRequest(member_id=member_id), read=True)
        return Record([messages.rating_from_message(r) for r in response.ratings],
                      response.matches, response.wins)

    async def leaderboard(self, game_type: str | None = None, limit: int = 0) -> Leaderboard:
        response = await self._call(self._stub.GetLeaderboard, stats_pb2.GetLeaderboardRequest(
            game_type=game_type or "", limit=limit), read=True)
        return Leaderboard(response.game_type, [
            LeaderboardRow(e.member_id, e.display_name, e.rating, e.wins, e.matches, e.points,
                           e.player)
            for e in response.entries])

    async def erase_member(self, member_id: str) -> int:
        response = await self._call(self._stub.EraseMember,
                                    stats_pb2.EraseMemberRequest(member_id=member_id))
        return response.anonymized_rows
