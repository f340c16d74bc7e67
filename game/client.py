"""The game service for its callers (lobby, deadlines, gateway): plain Python values over the stub.

Engine data comes back parsed (views, options, payloads and results are dicts); times are
integer milliseconds since the epoch. A failed call raises the ServiceError the service sent
(``from_rpc_error``); a service that cannot be reached is UNAVAILABLE.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, replace
from typing import TypedDict

import grpc

from game.owners import Owners, ReplicaTarget
from game.relay import SERVICE, RelayClient, RelayUnsupported
from services.channels import SERVICE_CALLS, CallPolicy, open_channel
from services.rpc_client import RpcClient
from services.transport_security import ClientCredentials
from tavolo.game.v1 import game_pb2, game_pb2_grpc

# Calls that change nothing, or nothing twice (a fire is checked against its token).
IDEMPOTENT = ("ListGameTypes", "NormalizeOptions", "GetView", "GetLog", "GetResult", "FireDeadline")
# A view stream lives as long as its match; only the unary calls get the default deadline.
_STREAM_TIMEOUT_SECONDS = 999999

_STATUS = {
    game_pb2.TABLE_STATUS_PLAYING: "playing",
    game_pb2.TABLE_STATUS_HAND_END: "hand_end",
    game_pb2.TABLE_STATUS_FINISHED: "finished",
}


@dataclass(frozen=True)
class GameType:
    """A game the platform can run, as the game service's registry describes it."""

    id: str
    name: str
    description: str
    players: int
    options_schema_json: str

    @property
    def options_schema(self) -> dict:
        return json.loads(self.options_schema_json)


class CreatedTable(TypedDict):
    table_id: str
    seed_commitment: str
    revision: int


class FiredDeadline(TypedDict):
    fired: bool  # False: the token was stale, nothing changed
    revision: int


class MatchResult(TypedDict):
    result: dict  # the engine's result
    started_ms: int
    finished_ms: int


@dataclass(frozen=True)
class LogHeader:
    """What a table is (GetLog's header); ``seed_hex`` is empty until the match is finished."""

    table_id: str
    game_type: str
    engine_version: str
    options: dict
    seats: tuple[str, ...]
    seed_commitment: str
    seed_hex: str
    status: str
    move_count: int
    revision: int
    created_ms: int
    finished_ms: int | None


@dataclass(frozen=True)
class LogEntry:
    """One move of the log; ``seat`` is "" for a system move."""

    number: int
    type: str
    seat: str
    payload: dict
    auto: bool
    random: bool
    created_ms: int


@dataclass(frozen=True)
class TableViews:
    """Every seat's view of a table at one revision (a WatchTable message)."""

    revision: int
    status: str  # "playing", "hand_end" or "finished"
    updated_ms: int  # when the table last changed (epoch ms)
    views: tuple[tuple[str, dict], ...]  # (seat, parsed view), in the table's seat order


class _Replica:
    """One game replica's own channel: the Relay stream to it, and the calls a replica without
    Relay is called with instead. It is unreachable from when its stream was lost (the replica
    died, restarted or cannot be connected to) until the channel connects again, and for
    LOST_SECONDS at least (a channel may still say READY just after its peer went)."""

    LOST_SECONDS = 1.0

    def __init__(self, channel: grpc.aio.Channel, metadata: tuple[tuple[str, str], ...] | None):
        self._channel = channel
        self.stub = game_pb2_grpc.GameServiceStub(channel)
        self.relay = RelayClient(lambda: self.stub.Relay(metadata=metadata), on_lost=self._lost)
        self._lost_at: float | None = None

    def _lost(self) -> None:
        self._lost_at = time.monotonic()

    def reachable(self) -> bool:
        if self._lost_at is None:
            return True
        if time.monotonic() - self._lost_at >= self.LOST_SECONDS and self._channel.get_state(
                try_to_connect=True) == grpc.ChannelConnectivity.READY:
            self._lost_at = None
        return self._lost_at is None

    async def aclose(self) -> None:
        await self.relay.aclose()
        await self._channel.close()


class GameClient(RpcClient):
    """An async client of GameService.

    A table's moves and watches go to the replica that owns it (game.owners), on one Relay
    stream per replica (game.relay); the replicas are those behind ``replicas_address`` (the
    gateway's GAME_REPLICAS_ADDR), else behind ``address``. Every other call goes to
    ``address`` on a channel of its own, which reaches any replica.

    ``policy``, ``deadline_seconds`` and ``channel_options``: services.rpc_client.RpcClient.
    ``named_tables``: every create_table names its table, which makes CreateTable idempotent
    on the table id, so the transport retries it too (the lobby's starts).
    """

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, *, deadline_seconds: float | None = None,
                 channel_options: tuple[tuple[str, object], ...] = (),
                 named_tables: bool = False, credentials: ClientCredentials | None = None,
                 replicas_address: str | None = None):
        super().__init__(address, SERVICE,
                         idempotent=(*IDEMPOTENT, "CreateTable") if named_tables else IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy,
                         deadline_seconds=deadline_seconds, channel_options=channel_options,
                         credentials=credentials)
        self._named_tables = named_tables
        self._timeout_seconds = timeout_seconds
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._stream_stub = game_pb2_grpc.GameServiceStub(
            self._open(("WatchViews",), _STREAM_TIMEOUT_SECONDS))
        # An Act waits as long as the unary call would.
        self._act_timeout = deadline_seconds if deadline_seconds is not None else timeout_seconds
        # Dialled by its address, a replica's certificate is checked against the name the
        # service is called by (GAME_ADDR's, which every game certificate holds), else the name
        # the replicas were found under.
        self._replica_server_name = (ReplicaTarget.parse(address).host
                                     or ReplicaTarget.parse(replicas_address or address).host)
        self._owners = Owners(replicas_address or address, self._connect)

    def _connect(self, address: str) -> _Replica:
        credentials = self._credentials
        if (credentials is not None and credentials.channel is not None
                and credentials.server_name is None and self._replica_server_name is not None):
            credentials = replace(credentials, server_name=self._replica_server_name)
        channel = open_channel(address, SERVICE, timeout_seconds=self._timeout_seconds,
                               options=self._options, streams=("Relay", "WatchTable"),
                               policy=self._policy, credentials=credentials)
        return _Replica(channel, self._metadata)

    async def close(self) -> None:
        await self._owners.aclose()
        await super().close()

    async def list_game_types(self) -> list[GameType]:
        response = await self._call(self._stub.ListGameTypes, game_pb2.ListGameTypesRequest(),
                                    read=True)
        return [GameType(id=t.id, name=t.name, description=t.description, players=t.players,
                         options_schema_json=t.options_schema_json) for t in response.game_types]

    async def normalize_options(self, game_type: str, options: dict | str | None = None) -> dict:
        response = await self._call(self._stub.NormalizeOptions, game_pb2.NormalizeOptionsRequest(
            game_type=game_type, options_json=_text(options)), read=True)
        return json.loads(response.options_json)

    async def create_table(self, game_type: str, seats: Sequence[str], options: dict | str | None = None,
                           table_id: str = "") -> CreatedTable:
        """The table created; idempotent when ``table_id`` is given."""
        if self._named_tables and not table_id:
            raise ValueError("this client retries CreateTable: name the table (table_id)")
        response = await self._call(self._stub.CreateTable, game_pb2.CreateTableRequest(
            table_id=table_id, game_type=game_type, options_json=_text(options), seats=list(seats)))
        return {"table_id": response.table_id, "seed_commitment": response.seed_commitment,
                "revision": response.revision}

    async def get_view(self, table_id: str, seat: str) -> dict:
        """The seat's view (with id, game_type, seed_commitment, revision and status)."""
        return (await self.get_view_at(table_id, seat))[0]

    async def get_view_at(self, table_id: str, seat: str) -> tuple[dict, int]:
        """The seat's view, as get_view, and when the table last changed (epoch ms)."""
        response = await self._call(self._stub.GetView,
                                    game_pb2.GetViewRequest(table_id=table_id, seat=seat), read=True)
        return json.loads(response.view_json), response.updated_at.ToMilliseconds()

    async def act(self, table_id: str, seat: str, action: dict | str,
                  expected_revision: int | None = None) -> dict:
        """Play ``action`` for ``seat``; the seat's view after the move."""
        request = game_pb2.ActRequest(table_id=table_id, seat=seat, action_json=_text(action))
        if expected_revision is not None:
            request.expected_revision = expected_revision
        owner = await self._owners.owner(table_id)
        if owner.relay.supported:
            try:
                response = await owner.relay.act(request, self._act_timeout)
                return json.loads(response.view_json)
            except RelayUnsupported:
                pass  # an older replica: the move was not run, so make it the older way
        response = await self._call(owner.stub.Act, request)
        return json.loads(response.view_json)

    def watch_views(self, table_id: str, seat: str) -> AsyncIterator[dict]:
        """The seat's view now, then after every change; ends after the finished view."""
        request = game_pb2.WatchViewsRequest(table_id=table_id, seat=seat)
        return self._stream(self._stream_stub.WatchViews, request,
                            lambda response: json.loads(response.view_json))

    def watch_table(self, table_id: str) -> AsyncIterator[TableViews]:
        """Every seat's view now, then after every change (one message per revision, each
        rendered once for all seats); ends after the finished views."""
        return self._watch_table(game_pb2.WatchTableRequest(table_id=table_id))

    async def _watch_table(self, request: game_pb2.WatchTableRequest
                           ) -> AsyncGenerator[TableViews, None]:
        owner = await self._owners.owner(request.table_id)
        if owner.relay.supported:
            try:
                async with contextlib.aclosing(owner.relay.watch_table(request)) as relayed:
                    async for response in relayed:  # its end cancels the relayed watch
                        yield _table_views(response)
                return
            except RelayUnsupported:
                pass  # an older replica (before any view): watch the older way
        async for views in self._stream(owner.stub.WatchTable, request, _table_views):
            yield views

    async def fire_deadline(self, table_id: str, token: str, kind: str = "") -> FiredDeadline:
        """Fire a deadline; TABLE_NOT_FOUND when the table is gone."""
        response = await self._call(self._stub.FireDeadline, game_pb2.FireDeadlineRequest(
            table_id=table_id, token=token, kind=kind))
        return {"fired": response.fired, "revision": response.revision}

    async def take_back(self, table_id: str, expected_revision: int | None = None) -> int:
        """Take back the last move (engines that allow it); the revision after it."""
        request = game_pb2.TakeBackRequest(table_id=table_id)
        if expected_revision is not None:
            request.expected_revision = expected_revision
        return (await self._call(self._stub.TakeBack, request)).revision

    async def get_log(self, table_id: str, after_number: int = 0,
                      page_size: int = 0) -> tuple[LogHeader, list[LogEntry], int]:
        """(header, moves, next_after_number); pass the last as ``after_number`` until it is 0."""
        response = await self._call(self._stub.GetLog, game_pb2.GetLogRequest(
            table_id=table_id, after_number=after_number, page_size=page_size), read=True)
        h = response.header
        header = LogHeader(
            table_id=h.table_id, game_type=h.game_type, engine_version=h.engine_version,
            options=json.loads(h.options_json or "{}"), seats=tuple(h.seats),
            seed_commitment=h.seed_commitment, seed_hex=h.seed_hex,
            status=_STATUS.get(h.status, "unknown"), move_count=h.move_count, revision=h.revision,
            created_ms=h.created_at.ToMilliseconds(),
            finished_ms=h.finished_at.ToMilliseconds() if h.HasField("finished_at") else None,
        )
        moves = [LogEntry(m.number, m.type, m.seat, json.loads(m.payload_json or "{}"), m.auto,
                          m.random, m.created_at.ToMilliseconds()) for m in response.moves]
        return header, moves, response.next_after_number

    async def get_result(self, table_id: str) -> MatchResult:
        """The result of a finished match (MATCH_NOT_FINISHED before)."""
        response = await self._call(self._stub.GetResult,
                                    game_pb2.GetResultRequest(table_id=table_id), read=True)
        return {"result": json.loads(response.result_json),
                "started_ms": response.started_at.ToMilliseconds(),
                "finished_ms": response.finished_at.ToMilliseconds()}


def _table_views(response: game_pb2.WatchTableResponse) -> TableViews:
    return TableViews(
        revision=response.revision, status=_STATUS.get(response.status, "unknown"),
        updated_ms=response.updated_at.ToMilliseconds(),
        views=tuple((v.seat, json.loads(v.view_json)) for v in response.views))


def _text(value: dict | str | None) -> str:
    """JSON text for a ``*_json`` field: text is sent as it is (the service checks it)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
