"""An Act with a request id is played once, however often it is sent: in memory and on Postgres,
at one replica or another, before or after the table moved on, and when the copies race."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.rpc.errors import Reason, ServiceError
from tests.game_service.conftest import SEATS


async def _dummy(tables, target: int = 1000) -> str:
    created = await tables.create_table("", "dummy", json.dumps({"target": target}), SEATS)
    return created.table_id


ADD = json.dumps({"action": "add", "n": 1})


async def _moves(tables, table_id: str) -> int:
    return (await tables.log.header(table_id)).move_count


async def test_a_move_sent_again_with_its_id_is_not_played_again(tables):
    table_id = await _dummy(tables)
    first = await tables.act(table_id, "seat:0", ADD, expected_revision=0, request_id="m-1")
    again = await tables.act(table_id, "seat:0", ADD, expected_revision=0, request_id="m-1")

    assert (first.revision, first.replayed) == (1, False)
    assert (again.revision, again.replayed) == (1, True)
    assert json.loads(again.view_json)["totals"] == [1, 0, 0, 0]
    assert await _moves(tables, table_id) == 1


async def test_a_late_copy_is_not_played_when_the_move_is_legal_again(tables):
    """Without an expected revision nothing refuses the copy once the seat's turn came round
    again: the log's unique request id does."""
    table_id = await _dummy(tables)
    await tables.act(table_id, "seat:0", ADD, request_id="m-1")
    for seat in SEATS[1:]:
        await tables.act(table_id, seat, ADD)

    again = await tables.act(table_id, "seat:0", ADD, request_id="m-1")

    assert again.replayed and again.revision == 4
    assert await _moves(tables, table_id) == 4
    fresh = await tables.act(table_id, "seat:0", ADD, request_id="m-2")
    assert not fresh.replayed and fresh.revision == 5


async def test_copies_racing_at_two_replicas_play_once(replicas):
    first, second = await replicas.open(), await replicas.open()
    table_id = await _dummy(first)
    await second.get_view(table_id, "seat:0")  # both decide from the state they remember

    outcomes = await asyncio.gather(
        first.act(table_id, "seat:0", ADD, request_id="m-1"),
        second.act(table_id, "seat:0", ADD, request_id="m-1"),
        first.act(table_id, "seat:0", ADD, request_id="m-1"))

    assert sorted(outcome.replayed for outcome in outcomes) == [False, True, True]
    assert await _moves(first, table_id) == 1


async def test_a_replica_that_never_saw_the_move_finds_it_in_the_log(replicas):
    first = await replicas.open()
    table_id = await _dummy(first)
    await first.act(table_id, "seat:0", ADD, expected_revision=0, request_id="m-1")

    other = await replicas.open()
    again = await other.act(table_id, "seat:0", ADD, expected_revision=0, request_id="m-1")

    assert again.replayed and await _moves(other, table_id) == 1


async def test_ids_are_per_table_and_a_refused_move_keeps_no_id(tables):
    one, two = await _dummy(tables), await _dummy(tables)
    assert not (await tables.act(one, "seat:0", ADD, request_id="m-1")).replayed
    assert not (await tables.act(two, "seat:0", ADD, request_id="m-1")).replayed

    with pytest.raises(ServiceError) as refused:
        await tables.act(one, "seat:2", ADD, request_id="m-9")
    assert refused.value.reason is Reason.NOT_YOUR_TURN
    assert not (await tables.act(one, "seat:1", ADD, request_id="m-9")).replayed


@pytest.mark.parametrize("request_id", ["has space", "x" * 129, "é", "tab\t"])
async def test_a_malformed_id_is_refused_and_plays_nothing(tables, request_id):
    table_id = await _dummy(tables)
    with pytest.raises(ServiceError) as refused:
        await tables.act(table_id, "seat:0", ADD, request_id=request_id)
    assert (refused.value.reason, refused.value.metadata["field"]) == (Reason.INVALID_ARGUMENT, "request_id")
    assert await _moves(tables, table_id) == 0
