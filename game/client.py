"""The game service for its callers (lobby, deadlines, gateway): plain Python values over the stub.

Engine data comes back parsed (views, options, payloads and results are dicts); times are
integer milliseconds since the epoch. A failed call raises the ServiceError the service sent
(``from_rpc_error``); a service that cannot be reached is UNAVAILABLE.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from game.status import TableStatus
from game.view_parts import Facts, ViewCut, cut, facts
from services.components import GAME_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.game.v1 import game_pb2, game_pb2_grpc

# Calls that change nothing, or nothing twice (a fire is checked against its token).
IDEMPOTENT = ("ListGameTypes", "NormalizeOptions", "GetView", "GetLog", "GetResult", "FireDeadline")

_STATUS = {
    game_pb2.TABLE_STATUS_PLAYING: TableStatus.PLAYING,
    game_pb2.TABLE_STATUS_HAND_END: TableStatus.HAND_END,
    game_pb2.TABLE_STATUS_FINISHED: TableStatus.FINISHED,
    game_pb2.TABLE_STATUS_SEEDING: TableStatus.SEEDING,
}


# The game a request plays, or asks about, when it names none.
DEFAULT_GAME_TYPE = "scopone_scientifico"


@dataclass(frozen=True)
class GameType:
    """A game the platform can run, as the game service's registry describes it."""

    id: str
    name: str
    description: str
    players: int
    options_schema_json: str

    @property
    def options_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = json.loads(self.options_schema_json)
        return schema


class CreatedTable(TypedDict):
    table_id: str
    seed_commitment: str
    revision: int


class FiredDeadline(TypedDict):
    fired: bool  # False: the token was stale, nothing changed
    revision: int


class FinishedMatch(TypedDict):
    result: dict[str, Any]  # the engine's result
    started_ms: int
    finished_ms: int


@dataclass(frozen=True)
class LogHeader:
    """What a table is (GetLog's header); ``seed_hex`` is empty until the match is finished."""

    table_id: str
    game_type: str
    engine_version: str
    options: dict[str, Any]
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
    payload: dict[str, Any]
    auto: bool
    random: bool
    created_ms: int


@dataclass(frozen=True)
class TableViews:
    """Every seat's view of a table at one revision (a WatchTable message): parsed, or cut for
    the gateway to forward (game.view_parts) when the watch asked for ``parts``."""

    revision: int
    status: str  # "playing", "hand_end" or "finished"
    updated_ms: int  # when the table last changed (epoch ms)
    views: tuple[tuple[str, dict[str, Any]], ...]  # (seat, parsed view), in the table's seat order
    public: dict[str, Any] | None = None  # the public view, when the watch asked for it
    # With ``parts``: each seat's view cut (``views`` is then empty), the public one when asked
    # for, and the facts read from them.
    parts: tuple[tuple[str, ViewCut], ...] = ()
    public_parts: ViewCut | None = None
    facts: Facts | None = None


class GameClient(RpcClient):
    """An async client of GameService, for the services and other teams: every call goes to
    ``address``, which reaches any replica. Whoever plays at tables move by move (the gateway,
    the bots) sends its moves and watches to each table's owner with :class:`game.live_link.LiveLink`:
    this client has no watch.

    ``policy``, ``deadline_seconds`` and ``channel_options``: services.rpc.client.RpcClient.
    ``named_tables``: every create_table names its table, which makes CreateTable idempotent
    on the table id, so the transport retries it too (the lobby's starts).
    """

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, *, deadline_seconds: float | None = None,
                 channel_options: tuple[tuple[str, object], ...] = (),
                 named_tables: bool = False, credentials: ClientCredentials | None = None):
        super().__init__(address, GAME_SERVICE,
                         idempotent=(*IDEMPOTENT, "CreateTable") if named_tables else IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy,
                         deadline_seconds=deadline_seconds, channel_options=channel_options,
                         credentials=credentials)
        self._named_tables = named_tables
        self._timeout_seconds = timeout_seconds
        self._stub = game_pb2_grpc.GameServiceStub(self._channel)

    async def list_game_types(self) -> list[GameType]:
        response = await self._call(self._stub.ListGameTypes, game_pb2.ListGameTypesRequest(),
                                    read=True)
        return [GameType(id=t.id, name=t.name, description=t.description, players=t.players,
                         options_schema_json=t.options_schema_json) for t in response.game_types]

    async def normalize_options(self, game_type: str, options: dict[str, Any] | str | None = None) -> dict[str, Any]:
        response = await self._call(self._stub.NormalizeOptions, game_pb2.NormalizeOptionsRequest(
            game_type=game_type, options_json=_text(options)), read=True)
        normalized: dict[str, Any] = json.loads(response.options_json)
        return normalized

    async def create_table(self, game_type: str, seats: Sequence[str], options: dict[str, Any] | str | None = None,
                           table_id: str = "") -> CreatedTable:
        """The table created; idempotent when ``table_id`` is given."""
        if self._named_tables and not table_id:
            raise ValueError("this client retries CreateTable: name the table (table_id)")
        response = await self._call(self._stub.CreateTable, game_pb2.CreateTableRequest(
            table_id=table_id, game_type=game_type, options_json=_text(options), seats=list(seats)))
        return {"table_id": response.table_id, "seed_commitment": response.seed_commitment,
                "revision": response.revision}

    async def get_view(self, table_id: str, seat: str) -> dict[str, Any]:
        """The seat's view (with id, game_type, seed_commitment, revision and status)."""
        return (await self.get_view_at(table_id, seat))[0]

    async def get_view_at(self, table_id: str, seat: str) -> tuple[dict[str, Any], int]:
        """The seat's view, as get_view, and when the table last changed (epoch ms)."""
        response = await self._call(self._stub.GetView,
                                    game_pb2.GetViewRequest(table_id=table_id, seat=seat), read=True)
        return json.loads(response.view_json), response.updated_at.ToMilliseconds()

    async def get_public_view_at(self, table_id: str) -> tuple[dict[str, Any], int]:
        """The public view (a spectator's: no seat's cards), and when the table last changed."""
        response = await self._call(self._stub.GetView,
                                    game_pb2.GetViewRequest(table_id=table_id, public=True), read=True)
        return json.loads(response.view_json), response.updated_at.ToMilliseconds()

    async def act(self, table_id: str, seat: str, action: dict[str, Any] | str,
                  expected_revision: int | None = None, request_id: str = "") -> dict[str, Any]:
        """Play ``action`` for ``seat``; the seat's view after the move."""
        response = await self._call(self._stub.Act, act_request(table_id, seat, action,
                                                                  expected_revision, request_id))
        view: dict[str, Any] = json.loads(response.view_json)
        return view

    async def fire_deadline(self, table_id: str, token: str, kind: str = "") -> FiredDeadline:
        """Fire a deadline; TABLE_NOT_FOUND when the table is gone."""
        response = await self._call(self._stub.FireDeadline, game_pb2.FireDeadlineRequest(
            table_id=table_id, token=token, kind=kind))
        return {"fired": response.fired, "revision": response.revision}

    async def take_back(self, table_id: str, expected_revision: int | None = None,
                        seat: str = "") -> int:
        """Take back the last move (engines that allow it); the revision after it. With
        ``seat``, only that seat's own last play (ILLEGAL_MOVE when it is not the last move)."""
        request = game_pb2.TakeBackRequest(table_id=table_id, seat=seat)
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

    async def get_result(self, table_id: str) -> FinishedMatch:
        """The result of a finished match (MATCH_NOT_FINISHED before)."""
        response = await self._call(self._stub.GetResult,
                                    game_pb2.GetResultRequest(table_id=table_id), read=True)
        return {"result": json.loads(response.result_json),
                "started_ms": response.started_at.ToMilliseconds(),
                "finished_ms": response.finished_at.ToMilliseconds()}


def act_request(table_id: str, seat: str, action: dict[str, Any] | str,
                expected_revision: int | None, request_id: str,
                skip_view: bool = False) -> game_pb2.ActRequest:
    request = game_pb2.ActRequest(table_id=table_id, seat=seat, action_json=_text(action),
                                  request_id=request_id, skip_view=skip_view)
    if expected_revision is not None:
        request.expected_revision = expected_revision
    return request


def table_status(status: game_pb2.TableStatus.ValueType) -> str:
    """A TableStatus of the proto as the engines name it ('playing', ...)."""
    return _STATUS.get(status, "unknown")


def table_views(response: game_pb2.WatchTableResponse, parts: bool = False) -> TableViews:
    """A WatchTable message; ``parts``: one the watch asked to be cut (nothing is parsed)."""
    status = table_status(response.status)
    if parts and response.views and not response.views[0].cut_text:
        return _cut_here(response, status)  # a game replica older than `parts`: cut it here
    if parts:
        last = response.last_play if response.HasField("last_play") else None
        return TableViews(
            revision=response.revision, status=status, updated_ms=response.updated_at.ToMilliseconds(),
            views=(), parts=tuple((v.seat, ViewCut(v.cut_text, tuple(v.cut_at), tuple(v.cut_seats)))
                                  for v in response.views),
            public_parts=ViewCut(response.public_cut_text, tuple(response.public_cut_at),
                                 tuple(response.public_cut_seats)) if response.public_cut_text else None,
            facts=Facts(last_play_seat=last.seat if last is not None else None,
                        last_play_auto=last is not None and last.auto,
                        last_play_scopa=last is not None and last.scopa,
                        hand_number=response.hand_number if response.HasField("hand_number") else None,
                        scores_json=response.final_scores_json, winner=response.winner))
    return TableViews(
        revision=response.revision, status=status,
        updated_ms=response.updated_at.ToMilliseconds(),
        views=tuple((v.seat, json.loads(v.view_json)) for v in response.views),
        public=json.loads(response.public_view_json) if response.public_view_json else None)


def _cut_here(response: game_pb2.WatchTableResponse, status: str) -> TableViews:
    """What a replica that knows `parts` sends, from the JSON views of one that does not (during a
    rolling upgrade: the views are parsed, as before)."""
    views = [(v.seat, json.loads(v.view_json)) for v in response.views]
    public = json.loads(response.public_view_json) if response.public_view_json else None
    return TableViews(
        revision=response.revision, status=status, updated_ms=response.updated_at.ToMilliseconds(),
        views=(), parts=tuple((seat, cut(view)) for seat, view in views),
        public_parts=cut(public, public=True) if public is not None else None,
        facts=facts(views[0][1], status == TableStatus.FINISHED))


def _text(value: dict[str, Any] | str | None) -> str:
    """JSON text for a ``*_json`` field: text is sent as it is (the service checks it)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
