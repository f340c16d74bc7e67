"""The game service for its callers (lobby, deadlines, gateway): plain Python values over the stub.

Engine data comes back parsed (views, options, payloads and results are dicts); times are
integer milliseconds since the epoch. A failed call raises the ServiceError the service sent
(``from_rpc_error``); a service that cannot be reached is UNAVAILABLE.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import grpc

from services.channels import SERVICE_CALLS, CallPolicy, open_channel
from services.errors import from_rpc_error
from tavolo.game.v1 import game_pb2, game_pb2_grpc

SERVICE = "tavolo.game.v1.GameService"
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


class GameClient:
    """An async client of GameService; one channel, shared by every call.

    ``policy`` says how long a call waits for a service that does not answer
    (services.channels: SERVICE_CALLS between services, PEOPLE_CALLS in the gateway)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS):
        self._channel = open_channel(address, SERVICE, idempotent=IDEMPOTENT,
                                     timeout_seconds=timeout_seconds, policy=policy)
        self._streams = open_channel(address, SERVICE, idempotent=("WatchViews",),
                                     timeout_seconds=_STREAM_TIMEOUT_SECONDS, policy=policy)
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)
        self._stream_stub = game_pb2_grpc.GameServiceStub(self._streams)
        self._read_deadline = policy.read_deadline_seconds

    async def list_game_types(self) -> list[dict]:
        """CONTRACT's game type items: id, name, description, players, options_schema."""
        response = await self._call(self._stub.ListGameTypes, game_pb2.ListGameTypesRequest(),
                                    read=True)
        return [{"id": t.id, "name": t.name, "description": t.description, "players": t.players,
                 "options_schema": json.loads(t.options_schema_json)} for t in response.game_types]

    async def normalize_options(self, game_type: str, options: dict | str | None = None) -> dict:
        response = await self._call(self._stub.NormalizeOptions, game_pb2.NormalizeOptionsRequest(
            game_type=game_type, options_json=_text(options)), read=True)
        return json.loads(response.options_json)

    async def create_table(self, game_type: str, seats: Sequence[str], options: dict | str | None = None,
                           table_id: str = "") -> dict:
        """{"table_id", "seed_commitment", "revision"}; idempotent when ``table_id`` is given."""
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
        response = await self._call(self._stub.Act, request)
        return json.loads(response.view_json)

    async def watch_views(self, table_id: str, seat: str) -> AsyncIterator[dict]:
        """The seat's view now, then after every change; ends after the finished view."""
        call = self._stream_stub.WatchViews(game_pb2.WatchViewsRequest(table_id=table_id, seat=seat))
        try:
            async for response in call:
                yield json.loads(response.view_json)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        finally:
            call.cancel()

    async def fire_deadline(self, table_id: str, token: str, kind: str = "") -> dict:
        """{"fired", "revision"}: fired is False when the token was stale."""
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

    async def get_result(self, table_id: str) -> dict:
        """{"result": the engine's result, "started_ms", "finished_ms"} of a finished match."""
        response = await self._call(self._stub.GetResult,
                                    game_pb2.GetResultRequest(table_id=table_id), read=True)
        return {"result": json.loads(response.result_json),
                "started_ms": response.started_at.ToMilliseconds(),
                "finished_ms": response.finished_at.ToMilliseconds()}

    async def close(self) -> None:
        await self._channel.close()
        await self._streams.close()

    async def _call(self, method, request, *, read: bool = False):
        """The call's response; a ``read`` (it changes nothing) gets the policy's read deadline."""
        try:
            return await method(request, timeout=self._read_deadline if read else None)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None


def _text(value: dict | str | None) -> str:
    """JSON text for a ``*_json`` field: text is sent as it is (the service checks it)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
