"""A CreateTable that fails after the last seat was taken: the seat is kept, the start retried.

See lobby/service.py, "A start that failed".
"""

from __future__ import annotations

import grpc

from game.client import GameClient
from lobby.service import Lobby
from services.rpc.errors import Reason
from testing.processes import free_address
from tests.lobby.helpers import fails


async def _three_seated(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    await client.join_game("carol", "Carol", game.join_code)
    return game


async def test_a_failed_start_keeps_the_seat_and_answers_unavailable(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates = 1
    error = await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    assert "could not be started" in error.message and error.metadata == {"game_id": game.id}
    seats = await client.get_seating(game.id)
    assert [s.member_id for s in seats] == ["alice", "bob", "carol", "dave"]
    assert fake.tables == {}


async def test_the_seated_member_joining_again_starts_the_game(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates = 1
    await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    again = await client.join_game("dave", "Dave", game.join_code)
    assert again.game.started is True
    assert again.started is False  # a repeated join (read game.status), as the proto says
    assert list(fake.tables) == [game.id]


async def test_get_game_retries_and_shows_the_game_as_it_is_meanwhile(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates = 2
    await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    waiting = await client.get_game(game.id)  # the retry fails too: the read still answers
    assert (waiting.started, waiting.seats_open, len(waiting.seats)) == (False, 0, 4)
    assert (await client.get_game(game.id)).started is True  # the next read's retry lands
    assert fake.create_calls == [game.id] * 3 and list(fake.tables) == [game.id]


async def test_anyone_joining_retries_the_start_yet_gets_game_full(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates = 1
    await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    await fails(client.join_game("eve", "Eve", game.join_code), Reason.GAME_FULL, "Game is full")
    assert list(fake.tables) == [game.id]
    assert (await client.preview_game(game.join_code)).started is True


async def test_preview_retries_the_start(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates = 1
    await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    assert (await client.preview_game(game.join_code)).started is True


async def test_a_create_that_landed_but_answered_an_error_ends_with_one_table(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates, fake.land_failed_creates = 1, True
    await fails(client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    assert (await client.get_game(game.id)).started is True
    assert fake.create_calls == [game.id, game.id] and list(fake.tables) == [game.id]


async def test_a_brief_unavailability_is_retried_by_the_channel(harness):
    client, fake = harness.client, harness.games
    game = await _three_seated(client)
    fake.fail_creates, fake.fail_code = 1, grpc.StatusCode.UNAVAILABLE
    result = await client.join_game("dave", "Dave", game.join_code)
    assert result.started and fake.create_calls == [game.id, game.id]


async def test_a_game_service_that_is_down_is_unavailable(store):
    games = GameClient(free_address(), timeout_seconds=2, named_tables=True)
    try:
        lobby = Lobby(store, games)
        await fails(lobby.list_game_types(), Reason.UNAVAILABLE)
        await fails(lobby.create_game("alice", "Alice", "scopone_scientifico", ""), Reason.UNAVAILABLE)
    finally:
        await games.close()
