"""The game service as the deadline consumer sees it: one call, GameService.FireDeadline."""

from __future__ import annotations

import grpc

from deadlines.consumer import FireOutcome
from deadlines.entry import Entry
from services.channels import open_channel
from services.errors import from_rpc_error
from tavolo.game.v1 import game_pb2, game_pb2_grpc

def game_channel(address: str) -> grpc.aio.Channel:
    """A channel to the game service that notices quickly when a stopped game service is back.

    gRPC's default reconnect backoff grows to two minutes while the peer is down; the consumer
    retries fires with its own backoff, so the channel only needs to reconnect promptly. No
    transport retries: a failed fire goes back to the queue, where any replica may retry it.
    Each call carries its own, shorter deadline (see GameFireTarget).
    """
    return open_channel(address, game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name,
                        options=(("grpc.enable_retries", 0),
                                 ("grpc.initial_reconnect_backoff_ms", 100),
                                 ("grpc.max_reconnect_backoff_ms", 2000)))


class GameFireTarget:
    """Fires deadline entries with GameService.FireDeadline.

    OK ends the entry (fired or stale); NOT_FOUND (TABLE_NOT_FOUND: the table is gone) ends it
    too, as the proto says; any other failure is raised as a ServiceError for a retry.
    """

    def __init__(self, channel: grpc.aio.Channel, timeout_seconds: float = 10.0):
        self._channel = channel
        self._stub = game_pb2_grpc.GameServiceStub(channel)
        self.timeout_seconds = timeout_seconds

    @classmethod
    def connect(cls, address: str, timeout_seconds: float = 10.0) -> GameFireTarget:
        return cls(game_channel(address), timeout_seconds)

    async def fire(self, entry: Entry) -> FireOutcome:
        request = game_pb2.FireDeadlineRequest(
            table_id=entry.table_id, token=entry.token, kind=entry.kind
        )
        try:
            response = await self._stub.FireDeadline(request, timeout=self.timeout_seconds)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:  # type: ignore[attr-defined]
                return FireOutcome.TABLE_GONE
            raise from_rpc_error(error) from None
        return FireOutcome.FIRED if response.fired else FireOutcome.STALE

    async def close(self) -> None:
        await self._channel.close()
