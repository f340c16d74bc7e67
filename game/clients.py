"""Stats as the game service calls it (the deadline queue's client is deadlines.client).

The adapter turns a failed call into the ServiceError the other side raised
(``from_rpc_error``); the tables retry it in the background.
"""

from __future__ import annotations

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from game.tables import FinishedMatch
from services.channels import open_channel
from services.errors import from_rpc_error
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc

STATS_SERVICE = "tavolo.stats.v1.StatsService"


def timestamp(ms: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


class StatsClient:
    """Hand a finished match to stats (RecordMatch is idempotent on the table id)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0):
        self._channel = open_channel(address, STATS_SERVICE, idempotent=("RecordMatch",),
                                     timeout_seconds=timeout_seconds)
        self._stub = stats_pb2_grpc.StatsServiceStub(self._channel)

    async def record_match(self, match: FinishedMatch) -> bool:
        """True when this call recorded it, False when stats already had it."""
        request = stats_pb2.RecordMatchRequest(
            table_id=match.table_id, game_type=match.game_type,
            started_at=timestamp(match.started_ms), finished_at=timestamp(match.finished_ms),
            result_json=match.result_json,
            seats=[stats_pb2.SeatResult(seat=s.seat, seat_index=s.seat_index, team=s.team, won=s.won,
                                        points=s.points, details_json=s.details_json)
                   for s in match.seats],
        )
        try:
            return (await self._stub.RecordMatch(request)).created
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None

    async def close(self) -> None:
        await self._channel.close()
