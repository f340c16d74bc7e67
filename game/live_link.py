"""The link of whoever plays at tables move by move (the gateway, the bots) to the game service.

Each table's moves and watches (a gateway's of every seat, a bot's of its own seat) go to the
replica that owns it (game.owners), on the one Relay stream to that replica (game.relay): there
is no other route. A move always carries a request id, so a move whose stream broke before its
answer is sent again with the same id, to the table's owner then, and the game service plays it
at most once (ActRequest.request_id).

Every other call (reads, the log, take-backs) is :class:`game.client.GameClient`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass, replace
from typing import Any

import grpc

from game.client import TableViews, act_request, table_status, table_views
from game.owners import Owners, ReplicaTarget
from game.relay import CallLost, RelayClient
from services.components import GAME_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy, open_channel
from services.rpc.errors import Reason, ServiceError
from services.rpc.transport_security import ClientCredentials
from tavolo.game.v1 import game_pb2, game_pb2_grpc

__all__ = ["Acted", "CallLost", "LiveLink"]  # CallLost: a move's outcome unknown (game.relay)

log = logging.getLogger(__name__)

# A move sent again after its stream broke waits this long first, doubling: the owner's
# replacement (or the same replica, reconnected) has a moment to be found.
FIRST_RESEND_SECONDS = 0.05


@dataclass(frozen=True)
class Acted:
    """A move's answer: the table's revision and status after it, and whether it had been made
    already (its request id was in the log: nothing was played by this call). No view: the
    link's callers read the views from their watch of the table, so the move asks for none
    (ActRequest.skip_view) and the game service neither renders nor sends it."""

    revision: int
    status: str
    replayed: bool


class _Replica:
    """One game replica's own channel and the Relay stream on it. It is unreachable from when
    its stream was lost (the replica died, restarted or cannot be connected to) until the
    channel connects again, and for LOST_SECONDS at least (a channel may still say READY just
    after its peer went); unless the stream opened at once in its place is answered (the
    replica is up: the stream was cut with its connection, at the server's maximum connection
    age), and then its tables stay with it."""

    LOST_SECONDS = 1.0

    def __init__(self, channel: grpc.aio.Channel, metadata: tuple[tuple[str, str], ...] | None):
        self._channel = channel
        stub = game_pb2_grpc.GameServiceStub(channel)
        self.relay = RelayClient(lambda: stub.Relay(metadata=metadata), on_lost=self._lost)
        self._lost_at: float | None = None
        self._check: asyncio.Task[None] | None = None

    def _lost(self) -> None:
        self._lost_at = time.monotonic()
        # One check at a time: the check's own stream failing is no new loss to check.
        if self._check is None or self._check.done():
            self._check = asyncio.get_running_loop().create_task(self._answers_again(),
                                                                 name="relay reopen")

    async def _answers_again(self) -> None:
        if await self.relay.reopen(self.LOST_SECONDS):
            self._lost_at = None

    def reachable(self) -> bool:
        if self._lost_at is None:
            return True
        if time.monotonic() - self._lost_at >= self.LOST_SECONDS and self._channel.get_state(
                try_to_connect=True) == grpc.ChannelConnectivity.READY:
            self._lost_at = None
        return self._lost_at is None

    async def aclose(self) -> None:
        if self._check is not None:
            self._check.cancel()
        await self.relay.aclose()
        await self._channel.close()


class LiveLink:
    """Moves and table watches, at each table's owner among the replicas behind
    ``replicas_address`` (the gateway's GAME_REPLICAS_ADDR), else behind ``address``.

    ``timeout_seconds`` bounds a move, its resends included: past it the move's outcome is not
    known (UNAVAILABLE, DEADLINE_EXCEEDED), and sending it again with its request id tells.
    """

    def __init__(self, address: str, *, replicas_address: str | None = None,
                 timeout_seconds: float = 10.0, policy: CallPolicy = SERVICE_CALLS,
                 credentials: ClientCredentials | None = None):
        self._timeout_seconds = timeout_seconds
        self._policy = policy
        self._credentials = credentials
        self._metadata = credentials.call_metadata() if credentials is not None else None
        # Dialled by its address, a replica's certificate is checked against the name set for
        # the game's certificates (credentials.server_name: GAME_TLS_SERVER_NAME, as the chart
        # sets it), else the name the service is called by (GAME_ADDR's), else the name the
        # replicas were found under.
        self._server_name = (ReplicaTarget.parse(address).host
                             or ReplicaTarget.parse(replicas_address or address).host)
        self._owners = Owners(replicas_address or address, self._connect)

    def _connect(self, address: str) -> _Replica:
        credentials = self._credentials
        if (credentials is not None and credentials.channel is not None
                and credentials.server_name is None and self._server_name is not None):
            credentials = replace(credentials, server_name=self._server_name)
        channel = open_channel(address, GAME_SERVICE, timeout_seconds=self._timeout_seconds,
                               streams=("Relay",), policy=self._policy, credentials=credentials)
        return _Replica(channel, self._metadata)

    async def act(self, table_id: str, seat: str, action: dict[str, Any] | str,
                  expected_revision: int | None = None, request_id: str = "") -> Acted:
        """Play ``action`` for ``seat`` once: a stream that breaks before the answer is followed
        by the same move with the same request id (one of its own when none is given). Out of
        time after a copy went unanswered, :class:`game.relay.CallLost`: the move may have been
        made; another UNAVAILABLE says it was not. ``replayed``: an earlier call with this
        request id made the move (not a copy this call sent again)."""
        request = act_request(table_id, seat, action, expected_revision,
                              request_id or uuid.uuid4().hex, skip_view=True)
        deadline = time.monotonic() + self._timeout_seconds
        wait = FIRST_RESEND_SECONDS
        lost: CallLost | None = None  # a copy of the move that may have been made
        while True:
            owner = await self._owners.owner(table_id)
            try:
                response = await owner.relay.act(request, max(0.0, deadline - time.monotonic()))
            except ServiceError as error:
                lost = error if isinstance(error, CallLost) else lost
                if error.reason is not Reason.UNAVAILABLE or time.monotonic() + wait >= deadline:
                    # Out of time with a copy in doubt: the move's outcome is not known.
                    raise (lost or error) if error.reason is Reason.UNAVAILABLE else error from None
                log.info("table %s: a move got no answer (%s); sending it again with its "
                         "request id", table_id, error.message)
                await asyncio.sleep(wait)
                wait *= 2
                continue
            # A replay of this call's own copy (sent before a lost answer) is the move made
            # once, now: "replayed" tells the caller of an earlier call's move, never of ours.
            return Acted(response.revision, table_status(response.status),
                         response.replayed and lost is None)

    def watch_table(self, table_id: str, public: bool = False,
                    seat: str = "", parts: bool = False) -> AsyncGenerator[TableViews, None]:
        """Every seat's view now, then after every change (one message per revision, each
        rendered once for all seats; with ``public``, the public view too; with ``seat``, that
        seat's view alone: a bot's watch); ends after the finished views. ``parts``: cut for
        the gateway to forward (game.view_parts), unparsed. A broken stream raises
        UNAVAILABLE: watch again (at the owner then)."""
        return self._watch_table(game_pb2.WatchTableRequest(table_id=table_id, public=public,
                                                            seat=seat, parts=parts))

    async def _watch_table(self, request: game_pb2.WatchTableRequest
                           ) -> AsyncGenerator[TableViews, None]:
        owner = await self._owners.owner(request.table_id)
        async with contextlib.aclosing(owner.relay.watch_table(request)) as relayed:
            async for response in relayed:  # its end cancels the relayed watch
                yield table_views(response, request.parts)

    async def close(self) -> None:
        await self._owners.aclose()
