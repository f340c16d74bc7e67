"""The bots on the live link: each bot watches its own seat at the table's owner, on the bots
process's Relay stream, and nothing that stream carries holds another seat's view.

A real game service over gRPC (in-memory stores) and the bots service's own domain (Bots with
GameLinks, as `tavolo serve bots` builds it); the game servicer is the real one, keeping a copy
of what each Relay stream carried both ways. Two people (the test, at seats 0 and 2, through
the plain client) play a whole practice match with two bots (seats 1 and 3).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc

from bots.driver import GameLinks
from bots.service import Bots
from bots.store import MemoryDriveStore
from game.cache import MemoryTableCache
from game.client import GameClient
from game.live_link import LiveLink
from game.log_store import MemoryLogStore
from game.registry import default_registry
from game.servicer import GameServicer
from game.tables import Tables
from services.rpc.errors import Reason, ServiceError
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.waiting import eventually
from tests.game_service.conftest import SEATS, serving

PEOPLE = (0, 2)
BOT_SEATS = ((1, "principiante"), (3, "principiante"))


@dataclass
class RelayRecord:
    """One Relay stream as the service saw it: the calls it was sent, what it sent back."""

    requests: list[game_pb2.RelayRequest] = field(default_factory=list)
    responses: list[game_pb2.RelayResponse] = field(default_factory=list)

    def watches(self) -> dict[int, game_pb2.WatchTableRequest]:
        return {call.call_id: call.watch_table for request in self.requests
                for call in request.calls if call.WhichOneof("kind") == "watch_table"}

    def views_events(self) -> list[game_pb2.RelayEvent]:
        return [event for response in self.responses for event in response.events
                if event.WhichOneof("kind") == "views"]


class RecordingServicer(GameServicer):
    """The game servicer as it is, with a copy of every Relay stream's traffic; WatchViews,
    which the bots no longer call, counted."""

    def __init__(self, tables: Tables):
        super().__init__(tables)
        self.relays: list[RelayRecord] = []
        self.watch_views_calls = 0

    async def Relay(self, request_iterator, context) -> AsyncIterator[game_pb2.RelayResponse]:
        record = RelayRecord()
        self.relays.append(record)

        async def requests() -> AsyncIterator[game_pb2.RelayRequest]:
            async for request in request_iterator:
                record.requests.append(request)
                yield request

        async for response in super().Relay(requests(), context):
            record.responses.append(response)
            yield response

    async def WatchViews(self, request, context):
        self.watch_views_calls += 1
        async for response in super().WatchViews(request, context):
            yield response


async def _play_the_people(address: str, client: GameClient, table_id: str,
                           hands: dict[int, dict[str, set[str]]]) -> None:
    """Seats 0 and 2 play their first legal card and acknowledge each hand's end, from every
    seat's views (a gateway's WatchTable, on its own call, not the bots' stream), until the
    match is finished; each revision's hands of every seat go to ``hands``."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        async for message in stub.WatchTable(game_pb2.WatchTableRequest(table_id=table_id)):
            views = {seat: json.loads(view.view_json) for seat, view
                     in ((v.seat, v) for v in message.views)}
            hands[message.revision] = {seat: set(view.get("hand", ())) for seat, view in views.items()}
            if message.status == game_pb2.TABLE_STATUS_FINISHED:
                return
            for index in PEOPLE:
                view = views[SEATS[index]]
                if view.get("your_turn"):
                    option = view["legal"][0]
                    action = {"action": "play", "card": option["card"], "capture": option["captures"][0]}
                elif view["status"] == "hand_end" and index not in view["acknowledged"]:
                    action = {"action": "ack"}
                else:
                    continue
                try:
                    await client.act(table_id, SEATS[index], action, expected_revision=message.revision)
                except ServiceError as error:  # a bot's ack landed first: the next message tells
                    assert error.reason is Reason.CONCURRENT_MOVE, error


async def test_a_practice_match_plays_to_the_end_with_each_bot_seeing_its_seat_alone():
    tables = Tables(default_registry(), MemoryLogStore(), MemoryTableCache())
    servicer = RecordingServicer(tables)
    async with serving(tables, servicer=servicer) as service:
        client = GameClient(service.address)
        game = GameLinks(GameClient(service.address), LiveLink(service.address))
        bots = Bots(MemoryDriveStore(), game, think_ms=0)
        running = asyncio.create_task(bots.run())  # the service's leases; its end stops the bots
        try:
            table_id = (await client.create_table("scopone_scientifico", SEATS,
                                                  {"target_score": 1}))["table_id"]
            await bots.drive_table(table_id, list(BOT_SEATS))
            hands: dict[int, dict[str, set[str]]] = {}
            await asyncio.wait_for(_play_the_people(service.address, client, table_id, hands), 120)

            async def bots_done() -> bool:
                return not bots.tables

            await eventually(bots_done, what="the bots never saw the match finished")
            header, moves, _ = await client.get_log(table_id)
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            await game.close()
            await client.close()
        await tables.close()

    # The match was played to its end, the bots' seats by the bots (no deadline ran here).
    assert header.status == "finished"
    played = {move.seat for move in moves if move.type == "play"}
    assert played == set(SEATS) and not any(move.auto for move in moves)
    # The bots watched on the live link alone: one Relay stream, one watch of each bot's own seat.
    assert servicer.watch_views_calls == 0
    assert servicer.relays, "the bots never opened their Relay stream"
    asked: list[str] = []
    for record in servicer.relays:
        watches = record.watches()
        asked += [watch.seat for watch in watches.values()]
        for event in record.views_events():
            # Every message of a watch holds one view, of the seat that watch asked for ...
            assert [view.seat for view in event.views.views] == [watches[event.call_id].seat]
            assert json.loads(event.views.views[0].view_json)["you"] == SEATS.index(
                watches[event.call_id].seat)
            # ... and the bytes sent hold no card of another seat's hand at that revision.
            sent = event.SerializeToString()
            others = set().union(*(cards for seat, cards in hands[event.views.revision].items()
                                   if seat != watches[event.call_id].seat))
            assert not [card for card in others if f'"{card}"'.encode() in sent]
    assert set(asked) == {SEATS[index] for index, _ in BOT_SEATS}
    assert not any(seat in {SEATS[index] for index in PEOPLE} for seat in asked)
    seen = {event.views.revision for record in servicer.relays for event in record.views_events()}
    assert max(seen) == header.revision  # they followed the match to its end


async def test_a_bot_refuses_a_message_holding_another_seats_view():
    """A game replica older than the seat filter would send every seat's view: the bot reads
    none of them (UNAVAILABLE, so it watches again)."""

    class OldReplica(GameServicer):
        async def WatchTable(self, request, context):
            request = game_pb2.WatchTableRequest(table_id=request.table_id, public=request.public)
            async for views in super().WatchTable(request, context):  # the seat ignored
                yield views

    tables = Tables(default_registry(), MemoryLogStore(), MemoryTableCache())
    async with serving(tables, servicer=OldReplica(tables)) as service:
        client = GameClient(service.address)
        game = GameLinks(GameClient(service.address), LiveLink(service.address))
        try:
            table_id = (await client.create_table("scopone_scientifico", SEATS))["table_id"]
            async with contextlib.aclosing(game.watch_seat(table_id, "seat:1")) as views:
                try:
                    await anext(views)
                except ServiceError as error:
                    assert error.reason is Reason.UNAVAILABLE
                else:
                    raise AssertionError("a view came from a message holding every seat's")
        finally:
            await game.close()
            await client.close()
        await tables.close()
