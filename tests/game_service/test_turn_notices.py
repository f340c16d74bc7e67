"""The game service announcing whom daily tables wait for (game.turn_notices), in memory and on
Postgres, onto a real Redis stream: a daily table's start and each passing turn are one entry each,
a live table's none; a Redis that does not answer loses the notices and never the move."""

from __future__ import annotations

import json
import logging

import pytest

from game.turn_notices import TurnAnnouncer, TurnNotice, stream_name
from services.stores import Keys, redis_client
from testing.servers import REDIS_URL, delete_keys, new_prefix
from tests.game_service.conftest import SEATS

GAME = "scopone_scientifico"


@pytest.fixture
async def stream():
    prefix = new_prefix("turnsgame")
    client = redis_client(REDIS_URL)
    yield client, Keys(prefix)
    await client.aclose()
    await delete_keys(prefix)


async def _notices(client, keys) -> list[TurnNotice]:
    return [TurnNotice.from_fields(fields) for _, fields in await client.xrange(stream_name(keys))]


async def _play_turn(tables, table_id: str) -> int:
    """The seat on turn plays its first legal card: that seat."""
    view = json.loads((await tables.get_view(table_id, "seat:0")).view_json)
    seat = view["turn"]
    turn_view = json.loads((await tables.get_view(table_id, f"seat:{seat}")).view_json)
    option = turn_view["legal"][0]
    await tables.act(table_id, f"seat:{seat}", json.dumps({"action": "play", "card": option["card"],
                                                           "capture": option["captures"][0]}))
    return seat


async def test_a_daily_table_announces_its_first_turn_and_each_next_one(replicas, stream):
    client, keys = stream
    tables = await replicas.open()
    tables.turns = TurnAnnouncer(client, keys, tables.background)
    created = await tables.create_table("", GAME, json.dumps({"pace": "daily"}), SEATS)
    first = await _play_turn(tables, created.table_id)
    second = await _play_turn(tables, created.table_id)
    await tables.background.drain(5)

    found = await _notices(client, keys)
    view = json.loads((await tables.get_view(created.table_id, "seat:0")).view_json)
    assert [(n.table, n.seat, n.revision, n.game_type) for n in found] == [
        (created.table_id, first, 0, GAME), (created.table_id, second, 1, GAME),
        (created.table_id, view["turn"], 2, GAME)]
    assert all(n.deadline_ms > 0 for n in found)


async def test_a_live_table_announces_nothing(replicas, stream):
    client, keys = stream
    tables = await replicas.open()
    tables.turns = TurnAnnouncer(client, keys, tables.background)
    created = await tables.create_table("", GAME, "{}", SEATS)
    await _play_turn(tables, created.table_id)
    await tables.background.drain(5)
    assert await client.exists(stream_name(keys)) == 0


async def test_a_redis_that_does_not_answer_loses_the_notice_never_the_move(replicas, caplog):
    tables = await replicas.open()
    nowhere = redis_client("redis://127.0.0.1:1/0")  # nothing listens on port 1
    tables.turns = TurnAnnouncer(nowhere, Keys(new_prefix("turnsgone")), tables.background)
    try:
        created = await tables.create_table("", GAME, json.dumps({"pace": "daily"}), SEATS)
        with caplog.at_level(logging.WARNING, logger="game.turn_notices"):
            await _play_turn(tables, created.table_id)
            await tables.background.drain(5)
        header = await tables.log.header(created.table_id)
        assert header is not None and header.move_count == 1  # the move is in the log
        assert any("turn notices lost" in record.getMessage() for record in caplog.records)
    finally:
        await nowhere.aclose()
