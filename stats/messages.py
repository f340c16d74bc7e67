"""Translation between the stats records (stats.model) and their protobuf messages.

Shared by the servicer (records out) and the client (records back in), so both sides agree.
"""

from __future__ import annotations

import json

from google.protobuf import timestamp_pb2

from services.rpc.errors import Reason, ServiceError
from stats.model import LeaderboardRow, Match, Player, Rating
from tavolo.stats.v1 import stats_pb2

_INT32 = (-(2**31), 2**31 - 1)


def timestamp(ms: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def ms_or_none(message, field: str) -> int | None:
    """A Timestamp field in ms; None when the caller left it unset."""
    if not message.HasField(field):
        return None
    stamp = getattr(message, field)
    if not 0 <= stamp.nanos <= 999_999_999:  # as google.protobuf.Timestamp defines it
        raise ServiceError(Reason.INVALID_ARGUMENT,
                           f"{field}.nanos must be in 0..999999999, got {stamp.nanos}", field=field)
    return stamp.seconds * 1000 + stamp.nanos // 1_000_000


def int32(value: int) -> int:
    """Sums kept as bigint still fit the int32 fields of the API."""
    return max(_INT32[0], min(_INT32[1], value))


def match_message(match: Match) -> stats_pb2.Match:
    return stats_pb2.Match(
        id=match.id,
        game_type=match.game_type,
        started_at=timestamp(match.started_ms),
        finished_at=timestamp(match.finished_ms),
        result_json=json.dumps(match.result, separators=(",", ":"), ensure_ascii=False),
        players=[
            stats_pb2.MatchPlayer(
                seat_index=p.seat_index, member_id=p.member_id, display_name=p.display_name,
                team=p.team or "", won=p.won, points=p.points, elo_delta=p.elo_delta,
                erased=p.erased, bot_level=p.bot_level or "", abandoned=p.abandoned,
                player=p.player)
            for p in match.players
        ],
        rated=match.rated,
    )


def match_from_message(message: stats_pb2.Match) -> Match:
    return Match(
        id=message.id,
        game_type=message.game_type,
        started_ms=message.started_at.ToMilliseconds(),
        finished_ms=message.finished_at.ToMilliseconds(),
        result=json.loads(message.result_json) if message.result_json else {},
        players=tuple(
            Player(seat_index=p.seat_index, member_id=p.member_id, display_name=p.display_name,
                   team=p.team or None, won=p.won, points=p.points, elo_delta=p.elo_delta,
                   erased=p.erased, bot_level=p.bot_level or None, abandoned=p.abandoned,
                   player=p.player)
            for p in message.players
        ),
        rated=message.rated,
    )


def rating_message(rating: Rating) -> stats_pb2.Rating:
    return stats_pb2.Rating(game_type=rating.game_type, rating=int32(rating.rating),
                            matches=int32(rating.matches))


def rating_from_message(message: stats_pb2.Rating) -> Rating:
    return Rating(message.game_type, message.rating, message.matches)


def leaderboard_entry(rank: int, row: LeaderboardRow) -> stats_pb2.LeaderboardEntry:
    return stats_pb2.LeaderboardEntry(
        rank=rank, member_id=row.member_id, display_name=row.display_name,
        rating=int32(row.rating), wins=int32(row.wins), matches=int32(row.matches),
        points=int32(row.points), player=row.player)
