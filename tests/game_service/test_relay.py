"""GameService.Relay over real gRPC, and the live link on it: many tables' moves and watches on
one stream, each call answered as the call of its own would be, bad calls refused, a broken
stream reopened, and a move whose answer was lost sent again and played once."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import Counter

import grpc
import pytest

from game.client import GameClient
from game.live_link import LiveLink
from game.owners import owner_of
from game.relay import CallLost
from game.servicer import GameServicer
from services.rpc.errors import Reason, ServiceError, from_rpc_error, from_status_message
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from tests.game_service.conftest import SEATS, hold_the_first_answer, play, serving, start_service

ADD = '{"action":"add","n":1}'


@pytest.fixture
async def service(tables):
    async with serving(tables) as running:
        yield running.address


@pytest.fixture
async def client(service):
    client = GameClient(service)
    yield client
    await client.close()


@pytest.fixture
async def link(service):
    link = LiveLink(service)
    yield link
    await link.close()


@pytest.fixture
async def relay(service):
    """A raw Relay stream: the test writes RelayRequests and reads RelayResponses."""
    channel = grpc.aio.insecure_channel(service)
    call = game_pb2_grpc.GameServiceStub(channel).Relay()
    yield call
    call.cancel()
    await channel.close()


def _act(call_id: int, table_id: str, seat: str, action: str = ADD,
         expected: int | None = None) -> game_pb2.RelayCall:
    request = game_pb2.ActRequest(table_id=table_id, seat=seat, action_json=action)
    if expected is not None:
        request.expected_revision = expected
    return game_pb2.RelayCall(call_id=call_id, act=request)


def _watch(call_id: int, table_id: str) -> game_pb2.RelayCall:
    return game_pb2.RelayCall(call_id=call_id,
                              watch_table=game_pb2.WatchTableRequest(table_id=table_id))


async def _events(call, count: int) -> list[game_pb2.RelayEvent]:
    """The next ``count`` events, however the service grouped them in messages."""
    events: list[game_pb2.RelayEvent] = []
    while len(events) < count:
        response = await asyncio.wait_for(call.read(), 10)
        assert response is not grpc.aio.EOF, f"the stream ended after {events}"
        events.extend(response.events)
    assert len(events) == count, events
    return events


async def test_moves_and_watches_of_several_tables_share_one_stream(client, link):
    table_ids = [(await client.create_table("dummy", SEATS, {"target": 50}))["table_id"]
                 for _ in range(3)]
    seen: dict[str, list[int]] = {table_id: [] for table_id in table_ids}

    async def follow(table_id: str) -> None:
        while True:  # as the gateway's feed: a transient end (a read that raced the moves on
            try:     # the real stores: UNAVAILABLE) is followed by a new watch
                async for views in link.watch_table(table_id):
                    if seen[table_id] and views.revision <= seen[table_id][-1]:
                        continue  # a new watch starts with what was seen already
                    seen[table_id].append(views.revision)
                    assert [seat for seat, _ in views.views] == SEATS
                    if views.revision == 8:
                        return
            except ServiceError as error:
                assert error.reason is Reason.UNAVAILABLE, error

    async def play(table_id: str) -> None:
        for number in range(8):
            await link.act(table_id, SEATS[number % 4], {"action": "add", "n": 1},
                           expected_revision=number)

    watchers = [asyncio.create_task(follow(t)) for t in table_ids]
    await asyncio.gather(*(play(t) for t in table_ids))
    await asyncio.wait_for(asyncio.gather(*watchers), 10)
    for table_id in table_ids:
        revisions = seen[table_id]
        assert revisions == sorted(set(revisions)) and revisions[-1] == 8, revisions
    relay = (await link._owners.owner(table_ids[0])).relay  # the one replica's
    assert relay._stream is not None and not relay._stream.broken
    assert not relay._stream.pending, "a finished call is still waited for"


async def test_a_refused_move_answers_its_call_and_ends_nothing_else(client, relay):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    await relay.write(game_pb2.RelayRequest(calls=[_watch(1, table_id)]))
    [first] = await _events(relay, 1)
    assert (first.call_id, first.views.revision) == (1, 0)

    # Not seat 1's turn; then a good move of seat 0, in the same message.
    await relay.write(game_pb2.RelayRequest(calls=[_act(2, table_id, "seat:1"),
                                                   _act(3, table_id, "seat:0", expected=0)]))
    events = {(e.call_id, e.WhichOneof("kind")): e for e in await _events(relay, 3)}
    refused = from_status_message(events[2, "error"].error)
    assert refused.reason is Reason.NOT_YOUR_TURN and refused.code == grpc.StatusCode.FAILED_PRECONDITION
    assert events[3, "act"].act.revision == 1
    assert json.loads(events[3, "act"].act.view_json)["totals"] == [1, 0, 0, 0]
    assert events[1, "views"].views.revision == 1

    # A stale expected revision: CONCURRENT_MOVE with its retry delay, as the unary Act's.
    await relay.write(game_pb2.RelayRequest(calls=[_act(4, table_id, "seat:1", expected=0)]))
    [stale] = await _events(relay, 1)
    error = from_status_message(stale.error)
    assert error.reason is Reason.CONCURRENT_MOVE and error.retry_delay_seconds == 0.1


async def test_every_kind_of_refusal_names_what_the_unary_call_would(client, relay):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    unknown = str(uuid.uuid4())
    await relay.write(game_pb2.RelayRequest(calls=[
        _act(1, unknown, "seat:0"), _act(2, table_id, "seat:9"), _act(3, table_id, "seat:0", "{x"),
        _act(4, table_id, "seat:0", '{"action":"fly"}'), _watch(5, unknown)]))
    reasons = {e.call_id: from_status_message(e.error) for e in await _events(relay, 5)}
    assert {call_id: error.reason for call_id, error in reasons.items()} == {
        1: Reason.TABLE_NOT_FOUND, 2: Reason.NOT_SEATED, 3: Reason.BAD_REQUEST,
        4: Reason.UNKNOWN_ACTION, 5: Reason.TABLE_NOT_FOUND}
    assert [v.field for v in reasons[3].field_violations] == ["action_json"]


async def test_a_cancelled_watch_sends_nothing_more(client, relay):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    await relay.write(game_pb2.RelayRequest(calls=[_watch(1, table_id), _watch(2, table_id)]))
    assert sorted(e.call_id for e in await _events(relay, 2)) == [1, 2]
    await relay.write(game_pb2.RelayRequest(calls=[
        game_pb2.RelayCall(call_id=1, cancel=game_pb2.CancelCall()),
        _act(3, table_id, "seat:0")]))
    events = await _events(relay, 2)  # the act's answer and watch 2's views, not watch 1's
    assert sorted((e.call_id, e.WhichOneof("kind")) for e in events) == [(2, "views"), (3, "act")]
    # Call ids of finished or cancelled calls may be used again.
    await relay.write(game_pb2.RelayRequest(calls=[_watch(1, table_id)]))
    [again] = await _events(relay, 1)
    assert (again.call_id, again.views.revision) == (1, 1)


@pytest.mark.parametrize("call, field", [
    (game_pb2.RelayCall(call_id=7), "calls.kind"),
    (None, "calls.call_id"),  # the id of a watch still running
])
async def test_a_malformed_call_ends_the_stream_with_invalid_argument(client, relay, call, field):
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    await relay.write(game_pb2.RelayRequest(calls=[_watch(1, table_id)]))
    await _events(relay, 1)
    await relay.write(game_pb2.RelayRequest(calls=[call or _watch(1, table_id)]))
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        while True:
            assert await asyncio.wait_for(relay.read(), 10) is not grpc.aio.EOF
    error = from_rpc_error(ended.value)
    assert error.reason is Reason.INVALID_ARGUMENT
    assert [v.field for v in error.field_violations] == [field]


async def test_a_caller_that_stops_reading_has_its_stream_ended_resource_exhausted(
        client, service, tables, monkeypatch):
    """The service holds only so many events for a caller whose stream does not move (HTTP/2
    flow control stops its sends): past the limit the stream ends, and the caller knows why."""
    monkeypatch.setattr("game.relay.MAX_WAITING_EVENTS", 100)
    table_id = (await client.create_table("dummy", SEATS, {"target": 10_000}))["table_id"]
    # A caller that lets the service send only a kilobyte ahead of what it reads.
    async with grpc.aio.insecure_channel(service, options=[
            ("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]) as channel:
        relay = game_pb2_grpc.GameServiceStub(channel).Relay()
        await relay.write(game_pb2.RelayRequest(calls=[_watch(1, table_id)]))
        await _events(relay, 1)
        # Nothing read meanwhile: far more than a kilobyte, and 150 events more than the limit
        # (but within the 256 moves a watcher is shown one by one, game.replay).
        changes = 250
        await play(tables, table_id, changes)
        received = 0
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            while True:
                response = await asyncio.wait_for(relay.read(), 10)
                assert response is not grpc.aio.EOF
                received += len(response.events)
    assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too slowly" in ended.value.details()
    assert received < changes  # it ended before every change was sent


async def test_a_message_that_is_no_relay_request_ends_the_stream(service):
    async with grpc.aio.insecure_channel(service) as channel:
        call = channel.stream_stream("/tavolo.game.v1.GameService/Relay")
        stream = call()
        await stream.write(b"\xff\xff\xff")
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            await asyncio.wait_for(stream.read(), 10)
    assert from_rpc_error(ended.value).reason is Reason.INVALID_ARGUMENT


async def test_a_broken_stream_fails_its_watches_and_a_move_waits_for_the_next_one(tables):
    service = await start_service(tables)
    client, link = GameClient(service.address), LiveLink(service.address, timeout_seconds=30)
    try:
        table_id = (await client.create_table("dummy", SEATS, {"target": 50}))["table_id"]
        watch = link.watch_table(table_id)
        assert (await anext(watch)).revision == 0
        await link.act(table_id, "seat:0", ADD, expected_revision=0)
        assert (await anext(watch)).revision == 1
        await service.stop()  # the replica goes away
        with pytest.raises(ServiceError) as broken:
            await asyncio.wait_for(anext(watch), 10)
        assert broken.value.reason is Reason.UNAVAILABLE

        # A move made meanwhile is sent again until a replica at that address answers.
        moving = asyncio.create_task(link.act(table_id, "seat:1", ADD, expected_revision=1))
        await asyncio.sleep(0.3)
        assert not moving.done()
        service = await start_service(tables, service.address)
        moved = await asyncio.wait_for(moving, 25)
        assert (moved.revision, moved.replayed) == (2, False)
        watch = link.watch_table(table_id)
        assert (await anext(watch)).revision == 2
        await watch.aclose()
    finally:
        await link.close()
        await client.close()
        await service.stop()


async def test_a_move_whose_answer_was_lost_is_sent_again_and_played_once(tables, monkeypatch):
    """The stream breaks after the move was appended and before its answer left: the link
    sends it again with its request id, the game service answers it was made, and the call
    reports the move made once (its own copy's replay is no earlier call's)."""
    service = await start_service(tables)
    client, link = GameClient(service.address), LiveLink(service.address, timeout_seconds=30)
    appended = hold_the_first_answer(tables, monkeypatch)
    try:
        table_id = (await client.create_table("dummy", SEATS, {"target": 50}))["table_id"]
        moving = asyncio.create_task(link.act(table_id, "seat:0", ADD, request_id="move-1"))
        await asyncio.wait_for(appended.wait(), 10)
        await service.stop()
        service = await start_service(tables, service.address)

        moved = await asyncio.wait_for(moving, 25)

        assert (moved.revision, moved.replayed) == (1, False)
        again = await link.act(table_id, "seat:0", ADD, request_id="move-1")  # a caller's resend
        assert (again.revision, again.replayed) == (1, True)
        header, moves, _ = await client.get_log(table_id)
        assert header.move_count == 1 and [m.seat for m in moves] == ["seat:0"]
    finally:
        await link.close()
        await client.close()
        await service.stop()


async def test_a_move_not_answered_in_time_is_unavailable_and_cancelled(service, tables,
                                                                         monkeypatch):
    client, link = GameClient(service), LiveLink(service, timeout_seconds=0.3)
    table_id = (await client.create_table("dummy", SEATS))["table_id"]
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def slow_act(*args, **kwargs):
        started.set()
        try:
            await asyncio.sleep(30)
        finally:
            cancelled.set()

    monkeypatch.setattr(tables, "act", slow_act)
    try:
        with pytest.raises(ServiceError) as late:
            await link.act(table_id, "seat:0", ADD)
        assert isinstance(late.value, CallLost) and "DEADLINE_EXCEEDED" in late.value.message
        await asyncio.wait_for(cancelled.wait(), 5)  # the service stopped working on it
        assert started.is_set()
    finally:
        await link.close()
        await client.close()


class _CountingServicer(GameServicer):
    """A replica that counts the moves and watches it was sent."""

    def __init__(self, tables):
        super().__init__(tables)
        self.calls: Counter[str] = Counter()

    async def Act(self, request, context):
        self.calls["Act"] += 1
        return await super().Act(request, context)

    def WatchTable(self, request, context):
        self.calls["WatchTable"] += 1
        return super().WatchTable(request, context)


async def test_a_stream_cut_at_its_connections_age_keeps_its_tables_at_their_owner(tables):
    """A replica closes a connection at its maximum age (services.rpc.server): the Relay stream
    on it ends UNAVAILABLE, like a dead replica's, but a new stream to the same replica is
    answered at once, so its tables stay with it: the watch opened again (as the gateway's
    feed does, 0.2 s later) and the next move go to the owner, never to the next replica."""
    owner_servicer, other_servicer = _CountingServicer(tables), _CountingServicer(tables)
    owner = await start_service(tables, servicer=owner_servicer, max_connection_age_seconds=2,
                                connection_age_grace_seconds=0.5)
    other = await start_service(tables, servicer=other_servicer)
    client = GameClient(owner.address)
    link = LiveLink(f"ipv4:{owner.address},{other.address}", timeout_seconds=30)
    try:
        table_id = await _a_table_owned_by(owner.address, [owner.address, other.address], client)
        watch = link.watch_table(table_id)
        assert (await anext(watch)).revision == 0
        with pytest.raises(ServiceError) as cut:  # at 2 s (+- 10 %) + 0.5 s of grace
            await asyncio.wait_for(anext(watch), 10)
        assert cut.value.reason is Reason.UNAVAILABLE
        await asyncio.sleep(0.2)

        watch = link.watch_table(table_id)
        assert (await anext(watch)).revision == 0
        assert (await link.act(table_id, "seat:0", ADD, expected_revision=0)).revision == 1
        assert (await anext(watch)).revision == 1
        await watch.aclose()
        assert owner_servicer.calls == {"WatchTable": 2, "Act": 1}
        assert other_servicer.calls == {}
    finally:
        await link.close()
        await client.close()
        await other.stop()
        await owner.stop()


async def _a_table_owned_by(address: str, replicas: list[str], client: GameClient) -> str:
    while True:
        table_id = (await client.create_table("dummy", SEATS, {"target": 50}))["table_id"]
        if owner_of(table_id, replicas) == address:
            return table_id
