"""EraseMember through the gRPC API, on both stores: every seating anonymized, seats kept."""

from __future__ import annotations

import pytest

from lobby.models import DELETED_PLAYER
from services.rpc.errors import Reason
from tests.lobby.helpers import fails, full_game


async def test_erasure_anonymizes_waiting_and_started_games_alike(client):
    started = await full_game(client, ("alice", "bob", "carol", "dave"))
    waiting = await client.create_game("erin", "Erin", "scopone_scientifico")
    await client.join_game("bob", "Bob", waiting.join_code)
    untouched = await client.create_game("frank", "Frank", "scopone_scientifico")

    table_ids = await client.erase_member("bob")

    assert table_ids == sorted([started.id, waiting.id])
    in_started = (await client.get_seating(started.id))[1]
    in_waiting = (await client.get_seating(waiting.id))[1]
    for seat in (in_started, in_waiting):
        assert seat.display_name == DELETED_PLAYER == "deleted player"
        assert seat.member_id != "bob" and seat.member_id.startswith("deleted-")
        assert seat.erased
    assert in_started.member_id != in_waiting.member_id  # no link between the two seatings
    assert [s.member_id for s in await client.get_seating(started.id)] == [
        "alice", in_started.member_id, "carol", "dave"]
    assert [s.erased for s in await client.get_seating(started.id)] == [False, True, False, False]
    assert (await client.get_game(started.id)).seats[1].erased
    assert (await client.get_game(started.id)).started is True
    assert await client.get_seating(untouched.id) == list(untouched.seats)
    await fails(client.find_seat(started.id, "bob"), Reason.NOT_SEATED)
    assert await client.find_seat(started.id, in_started.member_id) == in_started


async def test_erasure_is_idempotent(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    assert await client.erase_member("alice") == [game.id]
    assert await client.erase_member("alice") == []
    assert await client.erase_member("never-seen") == []


async def test_an_erased_creator_leaves_the_game_joinable(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.erase_member("alice")
    result = await client.join_game("bob", "Bob", game.join_code)
    assert [s.display_name for s in result.game.seats] == [DELETED_PLAYER, "Bob"]


@pytest.mark.parametrize("member_id, message", [
    ("", "member_id is required"),
    ("a\nb", "member_id contains control characters"),
])
async def test_erasure_needs_a_member_id(client, member_id, message):
    await fails(client.erase_member(member_id), Reason.INVALID_ARGUMENT, message)
