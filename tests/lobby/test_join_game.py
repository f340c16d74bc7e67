"""JoinGame through the gRPC API, on both stores: seats, idempotence, full and started games, races."""

from __future__ import annotations

import asyncio

import pytest

from services.rpc.errors import Reason
from tests.lobby.helpers import fails, full_game


async def test_joins_fill_the_seats_in_order(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    result = await client.join_game("bob", "Bob", game.join_code)
    assert result.started is False and result.game.started is False
    assert [(s.index, s.member_id, s.display_name, s.team) for s in result.game.seats] == [
        (0, "alice", "Alice", "A"), (1, "bob", "Bob", "B")]
    assert result.game.seats_open == 2


async def test_codes_are_case_insensitive(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    result = await client.join_game("bob", "Bob", f" {game.join_code.lower()} ")
    assert result.game.id == game.id


async def test_the_join_that_takes_the_last_seat_starts_the_table(harness):
    client, fake = harness.client, harness.games
    game = await client.create_game("alice", "Alice", "scopone_scientifico", '{"napola": false}')
    await client.join_game("bob", "Bob", game.join_code)
    await client.join_game("carol", "Carol", game.join_code)
    assert fake.tables == {}
    result = await client.join_game("dave", "Dave", game.join_code)
    assert result.started is True
    assert result.game.started is True and result.game.seats_open == 0
    table = fake.tables[game.id]  # the table id IS the game id
    assert list(table.seats) == ["seat:0", "seat:1", "seat:2", "seat:3"]
    assert (table.game_type, table.options_json) == ("scopone_scientifico", game.options_json)
    assert (await client.get_game(game.id)).started is True


async def test_a_seated_member_joining_again_gets_the_game_unchanged(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    first = await client.join_game("bob", "Bob", game.join_code)
    again = await client.join_game("bob", "Bobby", game.join_code)
    assert again.game == first.game and again.started is False
    assert (await client.join_game("alice", "Alice", game.join_code)).game == first.game


async def test_joining_a_started_game_again_returns_it_without_starting_it_twice(harness):
    game = await full_game(harness.client)
    again = await harness.client.join_game("carol", "Carol", game.join_code)
    assert again.game.started is True and again.started is False
    assert harness.games.create_calls == [game.id]


async def test_no_seat_left_is_game_full(client):
    game = await full_game(client)
    error = await fails(client.join_game("eve", "Eve", game.join_code), Reason.GAME_FULL,
                        "Game is full")
    assert error.metadata == {"game_id": game.id}


async def test_an_unknown_code_is_game_not_found(client):
    await fails(client.join_game("bob", "Bob", "ZZZZZZ"), Reason.GAME_NOT_FOUND, "Game not found")
    await fails(client.join_game("bob", "Bob", "not-a-code"), Reason.GAME_NOT_FOUND, "Game not found")


@pytest.mark.parametrize("member_id, name, code, message", [
    ("", "Bob", "K7QX2M", "member_id is required"),
    ("bob", " ", "K7QX2M", "display_name is required"),
    ("bob", "B" * 65, "K7QX2M", "display_name is longer than 64 characters"),
    ("bob", "Bob\x1b[31m", "K7QX2M", "display_name contains control characters"),
    ("bob", "Bob", "", "join_code is required"),
])
async def test_bad_joins_are_refused(client, member_id, name, code, message):
    await fails(client.join_game(member_id, name, code), Reason.INVALID_ARGUMENT, message)


async def test_display_names_are_trimmed(client):
    game = await client.create_game("alice", "  Alice  ", "scopone_scientifico")
    result = await client.join_game("bob", "\u00a0Bob ", game.join_code)
    assert [s.display_name for s in result.game.seats] == ["Alice", "Bob"]


async def test_members_racing_for_the_last_seats_never_overfill(harness):
    """Many members join one game at once: four seated, each seat once, one start."""
    client, fake = harness.client, harness.games
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    members = [f"m{n}" for n in range(30)]
    results = await asyncio.gather(*(client.join_game(m, m.upper(), game.join_code) for m in members),
                                   return_exceptions=True)
    joined = {m: r for m, r in zip(members, results) if not isinstance(r, Exception)}
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(joined) == 3 and len(refused) == 27
    assert all(r.reason is Reason.GAME_FULL for r in refused)
    assert sum(r.started for r in joined.values()) == 1
    seats = await client.get_seating(game.id)
    assert [s.index for s in seats] == [0, 1, 2, 3]
    assert [s.member_id for s in seats[1:]] == sorted(
        joined, key=lambda member: joined[member].game.seat_of(member).index)
    for member, result in joined.items():  # each answer shows the seat its member really got
        assert result.game.seat_of(member) == next(s for s in seats if s.member_id == member)
    # Refused joins that saw every seat taken may retry the (idempotent) create: one table.
    assert list(fake.tables) == [game.id] and set(fake.create_calls) == {game.id}
    assert (await client.get_game(game.id)).started is True


async def test_the_last_seat_raced_by_two_goes_to_exactly_one(harness):
    client = harness.client
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    await client.join_game("carol", "Carol", game.join_code)
    results = await asyncio.gather(client.join_game("dave", "Dave", game.join_code),
                                   client.join_game("erin", "Erin", game.join_code),
                                   return_exceptions=True)
    winners = [r for r in results if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(winners) == 1 and winners[0].started
    assert len(losers) == 1 and losers[0].reason is Reason.GAME_FULL
    seats = await client.get_seating(game.id)
    assert seats[3].member_id == winners[0].game.seats[3].member_id
