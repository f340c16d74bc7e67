"""GameService over real gRPC, through GameClient: the proto's messages, statuses and reasons."""

from __future__ import annotations

import asyncio
import json
import uuid

import grpc
import pytest

from game.cache import RedisTableCache
from game.client import GameClient
from game.live_link import Acted, LiveLink
from game.log_store import MemoryLogStore
from game.registry import default_registry
from game.tables import Tables
from services.rpc.errors import Reason, ServiceError
from services.stores import Keys, redis_client
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.waiting import eventually
from tests.game_service.conftest import SEATS, serving, start_service


@pytest.fixture
async def client(tables):
    async with serving(tables) as service:
        client = GameClient(service.address)
        client.address = service.address
        yield client
        await client.close()


async def _refused(reason: Reason, call) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        await call
    assert refused.value.reason is reason, refused.value
    return refused.value


async def test_the_catalogue_lists_scopone_then_dummy_with_their_schemas(client):
    types = await client.list_game_types()
    assert [t.id for t in types] == ["scopone_scientifico", "dummy"]
    assert types[0].players == 4 and types[0].options_schema["properties"]["target_score"]["default"] == 11
    assert await client.normalize_options("dummy", {"target": 7}) == {"target": 7}
    assert await client.normalize_options("dummy") == {"target": 20}
    await _refused(Reason.UNKNOWN_GAME_TYPE, client.normalize_options("poker"))
    await _refused(Reason.INVALID_OPTIONS, client.normalize_options("dummy", "{bad json"))


async def test_a_match_from_creation_to_result(client):
    created = await client.create_table("dummy", SEATS, {"target": 2})
    table_id = created["table_id"]
    view = await client.get_view(table_id, "seat:0")
    assert view["revision"] == 0 and view["status"] == "playing" and view["id"] == table_id
    assert view["seed_commitment"] == created["seed_commitment"]
    after = await client.act(table_id, "seat:0", {"action": "add", "n": 1}, expected_revision=0)
    assert after["revision"] == 1 and after["totals"] == [1, 0, 0, 0]
    header, moves, after_number = await client.get_log(table_id)
    assert (header.status, header.seed_hex, header.finished_ms, after_number) == ("playing", "", None, 0)
    await _refused(Reason.MATCH_NOT_FINISHED, client.get_result(table_id))
    await client.act(table_id, "seat:1", {"action": "add", "n": 1})
    finished = await client.act(table_id, "seat:2", {"action": "add", "n": 1})
    assert finished["status"] == "finished" and finished["winner"] == "A"
    header, moves, _ = await client.get_log(table_id)
    assert header.status == "finished" and header.finished_ms is not None
    assert header.seats == tuple(SEATS) and header.options == {"target": 2} and header.engine_version == "1"
    assert header.seed_hex == finished["seed"] and len(header.seed_hex) == 64
    assert [(m.number, m.type, m.seat, m.payload) for m in moves] == [
        (1, "add", "seat:0", {"n": 1}), (2, "add", "seat:1", {"n": 1}), (3, "add", "seat:2", {"n": 1})]
    result = await client.get_result(table_id)
    assert result["result"]["winner"] == "A" and result["finished_ms"] == header.finished_ms
    assert result["started_ms"] == header.created_ms


async def test_errors_travel_with_their_status_code_and_reason(client):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    stub = game_pb2_grpc.GameServiceStub(client._channel)
    cases = [
        (stub.GetView(game_pb2.GetViewRequest(table_id=str(uuid.uuid4()), seat="seat:0")),
         grpc.StatusCode.NOT_FOUND),
        (stub.GetView(game_pb2.GetViewRequest(table_id="42", seat="seat:0")), grpc.StatusCode.INVALID_ARGUMENT),
        (stub.GetView(game_pb2.GetViewRequest(table_id=table_id, seat="seat:5")), grpc.StatusCode.PERMISSION_DENIED),
        (stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:1", action_json='{"action":"add","n":1}')),
         grpc.StatusCode.FAILED_PRECONDITION),
        (stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:0", action_json="")),
         grpc.StatusCode.INVALID_ARGUMENT),
        (stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:0", action_json='{"action":"add","n":1}',
                                      expected_revision=3)), grpc.StatusCode.ABORTED),
        (stub.CreateTable(game_pb2.CreateTableRequest(game_type="dummy", seats=["a@b.c", "s1", "s2", "s3"])),
         grpc.StatusCode.INVALID_ARGUMENT),
        (stub.GetLog(game_pb2.GetLogRequest(table_id=table_id, page_size=-1)), grpc.StatusCode.INVALID_ARGUMENT),
        (stub.TakeBack(game_pb2.TakeBackRequest(table_id=table_id)), grpc.StatusCode.FAILED_PRECONDITION),
    ]
    for call, code in cases:
        with pytest.raises(grpc.RpcError) as failed:
            await call
        assert failed.value.code() == code, failed.value.details()


async def test_a_person_like_seat_is_refused_as_identifying(client):
    error = await _refused(Reason.IDENTIFYING_SEAT,
                           client.create_table("dummy", ["seat:0", "user%40example.org", "seat:2", "seat:3"]))
    assert "example.org" not in error.message
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    await _refused(Reason.IDENTIFYING_SEAT, client.act(table_id, "customer:5", {"action": "add", "n": 1}))


async def test_a_concurrent_move_names_the_current_revision(client):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    await client.act(table_id, "seat:0", {"action": "add", "n": 1})
    error = await _refused(Reason.CONCURRENT_MOVE,
                           client.act(table_id, "seat:1", {"action": "add", "n": 1}, expected_revision=0))
    assert error.metadata["revision"] == "1"


async def test_an_act_that_skips_the_view_answers_the_same_revision_and_no_view(client):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    stub = game_pb2_grpc.GameServiceStub(client._channel)
    add = '{"action":"add","n":1}'

    skipped = await stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:0", action_json=add,
                                                 request_id="m-1", skip_view=True))
    assert (skipped.view_json, skipped.revision, skipped.status, skipped.replayed) == (
        "", 1, game_pb2.TABLE_STATUS_PLAYING, False)
    # Without the flag, the answer of before: the seat's view after the move.
    full = await stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:1", action_json=add,
                                              request_id="m-2"))
    assert (full.revision, full.status, full.replayed) == (2, game_pb2.TABLE_STATUS_PLAYING, False)
    assert json.loads(full.view_json) == await client.get_view(table_id, "seat:1")
    # A copy sent again: nothing played; the table as it is now, with or without the view.
    again = await stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:0", action_json=add,
                                               request_id="m-1", skip_view=True))
    assert (again.view_json, again.revision, again.replayed) == ("", 2, True)
    again = await stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:0", action_json=add,
                                               request_id="m-1"))
    assert (again.revision, again.replayed) == (2, True)
    assert json.loads(again.view_json) == await client.get_view(table_id, "seat:0")
    # A refusal is the same with the flag: the view was never the answer's only content.
    with pytest.raises(grpc.RpcError) as refused:
        await stub.Act(game_pb2.ActRequest(table_id=table_id, seat="seat:3", action_json=add,
                                           skip_view=True))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_the_live_link_asks_for_no_view_and_gets_the_revision_and_status(client):
    table_id = (await client.create_table("dummy", SEATS, {"target": 2}))["table_id"]
    link = LiveLink(client.address)
    try:
        acted = await link.act(table_id, "seat:0", {"action": "add", "n": 1}, request_id="m-1")
        assert acted == Acted(revision=1, status="playing", replayed=False)
        await link.act(table_id, "seat:1", {"action": "add", "n": 1})
        last = await link.act(table_id, "seat:2", {"action": "add", "n": 1}, expected_revision=2)
        assert last == Acted(revision=3, status="finished", replayed=False)
        assert await link.act(table_id, "seat:0", {"action": "add", "n": 1}, request_id="m-1") == Acted(
            revision=3, status="finished", replayed=True)
    finally:
        await link.close()


async def test_take_back_and_fire_deadline_over_grpc(client):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    assert await client.fire_deadline(table_id, "turn:0", "turn") == {"fired": True, "revision": 1}
    assert await client.fire_deadline(table_id, "turn:0", "turn") == {"fired": False, "revision": 1}
    await _refused(Reason.ILLEGAL_MOVE, client.take_back(table_id, seat="seat:0"))  # a roll, no play
    assert await client.take_back(table_id, expected_revision=1) == 2
    await _refused(Reason.CONCURRENT_MOVE, client.take_back(table_id, expected_revision=1))
    await _refused(Reason.TABLE_NOT_FOUND, client.fire_deadline(str(uuid.uuid4()), "turn:0"))


async def test_a_seat_watch_over_grpc_holds_that_seats_view_alone_until_finished(client):
    """A bot's watch (WatchTable with a seat): one view a revision, its seat's, never another's."""
    table_id = (await client.create_table("dummy", SEATS, {"target": 1}))["table_id"]
    messages = []
    link = LiveLink(client.address)

    async def watch() -> None:
        async for views in link.watch_table(table_id, seat="seat:3"):
            messages.append(views)

    async def watching_now() -> bool:
        return bool(messages)

    try:
        watching = asyncio.create_task(watch())
        await eventually(watching_now, interval=0.01, what="the watch never started")
        await client.act(table_id, "seat:0", {"action": "add", "n": 1})
        await asyncio.wait_for(watching, 10)
        assert [(m.revision, m.status) for m in messages] == [(0, "playing"), (1, "finished")]
        assert [[seat for seat, _ in m.views] for m in messages] == [["seat:3"], ["seat:3"]]
        assert {view["you"] for m in messages for _, view in m.views} == {3}
        assert messages[-1].views[0][1] == await client.get_view(table_id, "seat:3")
        # With the public view too (a seat's watch may ask for it): still no other seat's.
        public = await anext(link.watch_table(table_id, public=True, seat="seat:1"))
        assert [seat for seat, _ in public.views] == ["seat:1"] and "hand" not in public.public
        await _refused(Reason.NOT_SEATED, anext(link.watch_table(table_id, seat="seat:9")))
        await _refused(Reason.IDENTIFYING_SEAT, anext(link.watch_table(table_id, seat="bob@example.org")))
        await _refused(Reason.INVALID_ARGUMENT, anext(link.watch_table(table_id, seat="seat 1")))
        await _refused(Reason.TABLE_NOT_FOUND, anext(link.watch_table(str(uuid.uuid4()), seat="seat:0")))
    finally:
        await link.close()


async def test_watch_views_kept_for_other_teams_still_streams_one_seat_until_finished(client):
    """Deprecated (game.proto): no tavolo service calls it; other teams' callers still may."""
    table_id = (await client.create_table("dummy", SEATS, {"target": 1}))["table_id"]
    stub = game_pb2_grpc.GameServiceStub(client._channel)
    call = stub.WatchViews(game_pb2.WatchViewsRequest(table_id=table_id, seat="seat:3"))
    first = await call.read()
    await client.act(table_id, "seat:0", {"action": "add", "n": 1})
    views = [first]
    while (view := await call.read()) is not grpc.aio.EOF:
        views.append(view)
    assert [(v.revision, v.status) for v in views] == [
        (0, game_pb2.TABLE_STATUS_PLAYING), (1, game_pb2.TABLE_STATUS_FINISHED)]
    assert {json.loads(v.view_json)["you"] for v in views} == {3}
    refused = stub.WatchViews(game_pb2.WatchViewsRequest(table_id=table_id, seat="seat:9"))
    with pytest.raises(grpc.RpcError) as failed:
        await refused.read()
    assert failed.value.code() == grpc.StatusCode.PERMISSION_DENIED  # NOT_SEATED


async def test_a_table_stream_over_grpc_sends_every_seats_view_per_revision_until_finished(client):
    table_id = (await client.create_table("dummy", SEATS, {"target": 2}))["table_id"]
    messages = []
    link = LiveLink(client.address)

    async def watch() -> None:
        async for views in link.watch_table(table_id):
            messages.append(views)

    watching = asyncio.create_task(watch())
    while not messages:
        await asyncio.sleep(0.01)
    await client.act(table_id, "seat:0", {"action": "add", "n": 1})
    await client.act(table_id, "seat:1", {"action": "add", "n": 1})
    await client.act(table_id, "seat:2", {"action": "add", "n": 1})
    await asyncio.wait_for(watching, 10)
    assert [(m.revision, m.status) for m in messages] == [
        (0, "playing"), (1, "playing"), (2, "playing"), (3, "finished")]
    for message in messages:
        assert [seat for seat, _ in message.views] == SEATS
        assert [view["you"] for _, view in message.views] == [0, 1, 2, 3]
        assert {view["revision"] for _, view in message.views} == {message.revision}
        assert {view["id"] for _, view in message.views} == {table_id}
    seat_view, updated_ms = await client.get_view_at(table_id, "seat:2")
    assert messages[-1].views[2][1] == seat_view and messages[-1].updated_ms == updated_ms
    assert messages[0].updated_ms <= messages[1].updated_ms <= messages[-1].updated_ms
    await _refused(Reason.TABLE_NOT_FOUND, anext(link.watch_table(str(uuid.uuid4()))))
    await _refused(Reason.INVALID_ARGUMENT, anext(link.watch_table("not-a-uuid")))
    await link.close()


async def test_a_store_that_does_not_answer_is_unavailable_not_internal():
    cache = RedisTableCache(redis_client("redis://127.0.0.1:1/0"), Keys("test-unreachable:tavolo"))
    tables = Tables(default_registry(dummy=True), MemoryLogStore(), cache)
    service = await start_service(tables)
    client, link = GameClient(service.address), LiveLink(service.address)
    try:
        table_id = (await client.create_table("dummy", SEATS))["table_id"]  # the log is enough
        assert (await client.get_view(table_id, "seat:0"))["revision"] == 0
        # A move needs the log alone (the snapshot is a recovery cache, saved behind it) ...
        assert (await client.act(table_id, "seat:0", {"action": "add", "n": 1}))["revision"] == 1
        # ... a watch needs the cache's change signals.
        await _refused(Reason.UNAVAILABLE, anext(link.watch_table(table_id, seat="seat:0")))
    finally:
        await link.close()
        await client.close()
        await service.stop()
        await cache.close()


async def test_an_unreachable_service_is_unavailable_for_the_client():
    client = GameClient("127.0.0.1:1", timeout_seconds=1)
    try:
        await _refused(Reason.UNAVAILABLE, client.list_game_types())
    finally:
        await client.close()

