"""tavolo.game.v1.GameService over gRPC: messages in, calls of :class:`~game.tables.Tables`, messages out.

Refusals are ServiceErrors (the server's interceptor sends them with their reason); a store
that does not answer becomes UNAVAILABLE (the kit's STORES_DOWN), so a caller
knows to retry.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import asyncpg
from google.protobuf.timestamp_pb2 import Timestamp

from game.log_store import LoggedMove, TableRecord
from game.relay import serve_relay
from game.status import TableStatus
from game.tables import RenderedViews, SeatView, Tables
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import Context
from services.stores import STORES_DOWN, unavailable_on
from tavolo.game.v1 import game_pb2, game_pb2_grpc

log = logging.getLogger(__name__)

_STATUS: dict[str, game_pb2.TableStatus.ValueType] = {
    TableStatus.PLAYING: game_pb2.TABLE_STATUS_PLAYING,
    TableStatus.HAND_END: game_pb2.TABLE_STATUS_HAND_END,
    TableStatus.FINISHED: game_pb2.TABLE_STATUS_FINISHED,
    TableStatus.SEEDING: game_pb2.TABLE_STATUS_SEEDING,
}
# The log is in Postgres, the snapshots and signals in Redis. A store that does not
# answer is UNAVAILABLE, never UNKNOWN: the caller retries, and the log (the truth) has either
# kept the change or not.

_STORE = "game store"

Request = TypeVar("Request")
Response = TypeVar("Response")


def _stores_unavailable(method: Callable[[GameServicer, Request, Context], Awaitable[Response]]
                        ) -> Callable[[GameServicer, Request, Context], Coroutine[Any, Any, Response]]:
    """Turn a store failure into UNAVAILABLE (the caller may retry); refusals pass through."""

    @functools.wraps(method)
    async def call(self: GameServicer, request: Request, context: Context) -> Response:
        try:
            with unavailable_on(STORES_DOWN, _STORE):
                return await method(self, request, context)
        except asyncpg.DataError as error:  # data the log cannot hold slipped past the checks
            log.error("%s failed: Postgres refused the data (%s)", method.__name__, error)
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               "The request holds data the move log cannot store",
                               field="") from None

    return call


class GameServicer(game_pb2_grpc.GameServiceServicer):
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def ListGameTypes(self, request: game_pb2.ListGameTypesRequest,
                            context: Context) -> game_pb2.ListGameTypesResponse:
        return game_pb2.ListGameTypesResponse(game_types=[
            game_pb2.GameType(id=e.id, name=e.name, description=e.description, players=e.seats,
                              options_schema_json=_json(e.options_schema))
            for e in self.tables.game_types()
        ])

    async def NormalizeOptions(self, request: game_pb2.NormalizeOptionsRequest,
                               context: Context) -> game_pb2.NormalizeOptionsResponse:
        options = self.tables.normalize_options(request.game_type, request.options_json)
        return game_pb2.NormalizeOptionsResponse(options_json=options)

    @_stores_unavailable
    async def CreateTable(self, request: game_pb2.CreateTableRequest, context: Context) -> game_pb2.CreateTableResponse:
        created = await self.tables.create_table(request.table_id, request.game_type,
                                                 request.options_json, list(request.seats))
        return game_pb2.CreateTableResponse(table_id=created.table_id,
                                            seed_commitment=created.seed_commitment,
                                            revision=created.revision)

    @_stores_unavailable
    async def GetView(self, request: game_pb2.GetViewRequest, context: Context) -> game_pb2.GetViewResponse:
        view = await self.tables.get_view(request.table_id, request.seat, public=request.public)
        return game_pb2.GetViewResponse(**_view_fields(view), updated_at=_timestamp(view.updated_ms))

    @_stores_unavailable
    async def Act(self, request: game_pb2.ActRequest, context: Context) -> game_pb2.ActResponse:
        expected = request.expected_revision if request.HasField("expected_revision") else None
        try:
            view = await self.tables.act(request.table_id, request.seat, request.action_json,
                                         expected, request.request_id,
                                         with_view=not request.skip_view)
        except ServiceError as refusal:
            if not refusal.reason.transient:  # the player's (illegal, not their turn, too late)
                metrics.move_refused(refusal.reason.name.lower())
            raise
        return game_pb2.ActResponse(**_view_fields(view), replayed=view.replayed)

    async def WatchViews(self, request: game_pb2.WatchViewsRequest, context: Context
                         ) -> AsyncIterator[game_pb2.WatchViewsResponse]:
        """Kept for other teams (deprecated in game.proto): tavolo's bots watch their seat with
        WatchTable's ``seat``, at the table's owner."""
        with unavailable_on(STORES_DOWN, _STORE):
            async for view in self.tables.watch(request.table_id, request.seat):
                yield game_pb2.WatchViewsResponse(**_view_fields(view))

    async def WatchTable(self, request: game_pb2.WatchTableRequest, context: Context
                         ) -> AsyncIterator[game_pb2.WatchTableResponse]:
        with unavailable_on(STORES_DOWN, _STORE):
            async for views in self.tables.watch_table(request.table_id, public=request.public,
                                                       seat=request.seat, parts=request.parts):
                yield _table_views(views)

    async def Relay(self, request_iterator: AsyncIterator[game_pb2.RelayRequest], context: Context
                    ) -> AsyncIterator[game_pb2.RelayResponse]:
        """Act and WatchTable calls of many tables on one stream (game.relay)."""
        async for response in serve_relay(self, request_iterator, context):
            yield response

    @_stores_unavailable
    async def FireDeadline(self, request: game_pb2.FireDeadlineRequest,
                           context: Context) -> game_pb2.FireDeadlineResponse:
        fired, revision = await self.tables.fire_deadline(request.table_id, request.token, request.kind)
        return game_pb2.FireDeadlineResponse(fired=fired, revision=revision)

    @_stores_unavailable
    async def TakeBack(self, request: game_pb2.TakeBackRequest, context: Context) -> game_pb2.TakeBackResponse:
        expected = request.expected_revision if request.HasField("expected_revision") else None
        revision = await self.tables.take_back(request.table_id, expected, request.seat or None)
        return game_pb2.TakeBackResponse(revision=revision)

    @_stores_unavailable
    async def GetLog(self, request: game_pb2.GetLogRequest, context: Context) -> game_pb2.GetLogResponse:
        page = await self.tables.get_log(request.table_id, request.after_number, request.page_size)
        return game_pb2.GetLogResponse(
            header=_header(page.header),
            moves=[_move(m, page.header.seats) for m in page.moves],
            next_after_number=page.next_after,
        )

    @_stores_unavailable
    async def GetResult(self, request: game_pb2.GetResultRequest, context: Context) -> game_pb2.GetResultResponse:
        result = await self.tables.get_result(request.table_id)
        return game_pb2.GetResultResponse(result_json=result.result_json,
                                          started_at=_timestamp(result.started_ms),
                                          finished_at=_timestamp(result.finished_ms))


def _view_fields(view: SeatView) -> dict[str, Any]:
    return {"view_json": view.view_json, "revision": view.revision,
            "status": _STATUS.get(view.status, game_pb2.TABLE_STATUS_UNSPECIFIED)}


def _table_views(views: RenderedViews) -> game_pb2.WatchTableResponse:
    response = game_pb2.WatchTableResponse(
        revision=views.revision, status=_STATUS.get(views.status, game_pb2.TABLE_STATUS_UNSPECIFIED),
        views=[game_pb2.TableSeatView(seat=seat, view_json=view) for seat, view in views.views],
        updated_at=_timestamp(views.updated_ms), public_view_json=views.public)
    if views.facts is not None:
        response.views.extend(game_pb2.TableSeatView(seat=seat, cut_text=cut.text, cut_at=cut.at,
                                                     cut_seats=cut.seats)
                              for seat, cut in views.parts)
        if views.public_parts is not None:
            public = views.public_parts
            response.public_cut_text = public.text
            response.public_cut_at.extend(public.at)
            response.public_cut_seats.extend(public.seats)
        facts = views.facts
        if facts.last_play_seat is not None:
            response.last_play.CopyFrom(game_pb2.TableLastPlay(
                seat=facts.last_play_seat, auto=facts.last_play_auto, scopa=facts.last_play_scopa))
        if facts.hand_number is not None:
            response.hand_number = facts.hand_number
        response.final_scores_json, response.winner = facts.scores_json, facts.winner
    return response



def _header(record: TableRecord) -> game_pb2.TableHeader:
    header = game_pb2.TableHeader(
        table_id=record.table_id, game_type=record.game_type, engine_version=record.engine_version,
        options_json=record.options_json, seats=list(record.seats),
        seed_commitment=record.seed_commitment,
        seed_hex=record.seed.hex() if record.finished_ms is not None else "",
        status=_STATUS.get(record.status, game_pb2.TABLE_STATUS_UNSPECIFIED), move_count=record.move_count,
        revision=record.revision, created_at=_timestamp(record.created_ms),
    )
    if record.finished_ms is not None:
        header.finished_at.CopyFrom(_timestamp(record.finished_ms))
    return header


def _move(move: LoggedMove, seats: tuple[str, ...]) -> game_pb2.LoggedMove:
    seat = seats[move.seat] if move.seat is not None and 0 <= move.seat < len(seats) else ""
    return game_pb2.LoggedMove(number=move.number, type=move.type, seat=seat,
                               payload_json=move.payload_json, auto=move.auto, random=move.random,
                               created_at=_timestamp(move.created_ms))


def _timestamp(ms: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))
