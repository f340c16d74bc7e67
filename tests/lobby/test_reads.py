"""PreviewGame, GetGame, GetSeating and FindSeat through the gRPC API, on both stores."""

from __future__ import annotations

import uuid
from dataclasses import replace

import grpc
import pytest

from services.rpc.errors import Reason, from_rpc_error
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from tests.lobby.helpers import fails, full_game


async def test_preview_shows_the_game_behind_a_code_in_any_case(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    assert await client.preview_game(game.join_code.lower()) == _without_member_ids(game)
    started = await full_game(client, ("p", "q", "r", "s"))
    assert (await client.preview_game(started.join_code)).started is True


async def test_preview_never_shows_member_ids(client):
    """Anyone with the code may preview: names and seats yes, the members' ids (OIDC subs) no."""
    started = await full_game(client, ("p", "q", "r", "s"))
    await client.erase_member("q")
    preview = await client.preview_game(started.join_code)
    assert [(s.index, s.member_id, s.display_name, s.erased) for s in preview.seats] == [
        (0, "", "P", False), (1, "", "deleted player", True), (2, "", "R", False),
        (3, "", "S", False)]
    # GetGame (for the seated) keeps them.
    assert [s.member_id for s in (await client.get_game(started.id)).seats][::2] == ["p", "r"]


def _without_member_ids(game):
    return replace(game, seats=tuple(replace(s, member_id="") for s in game.seats))


async def test_preview_of_an_unknown_code_is_game_not_found(client):
    await fails(client.preview_game("ZZZZZZ"), Reason.GAME_NOT_FOUND, "Game not found")
    await fails(client.preview_game("0OIL1!"), Reason.GAME_NOT_FOUND, "Game not found")
    await fails(client.preview_game(""), Reason.INVALID_ARGUMENT, "join_code is required")


async def test_get_game_waiting_and_started(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    assert await client.get_game(game.id) == game
    assert await client.get_game(game.id.upper()) == game
    started = await full_game(client, ("p", "q", "r", "s"))
    assert (await client.get_game(started.id)).started is True


@pytest.mark.parametrize("game_id, reason, message", [
    ("5f0c8f0e-2a59-4f59-9a3e-1d6b1b0c9e42", Reason.GAME_NOT_FOUND, "Game not found"),
    ("not-a-uuid", Reason.GAME_NOT_FOUND, "Game not found"),
    ("", Reason.INVALID_ARGUMENT, "game_id is required"),
])
async def test_get_game_of_no_game(client, game_id, reason, message):
    await fails(client.get_game(game_id), reason, message)


async def test_seating_lists_seats_in_order_with_names(client):
    game = await full_game(client)
    seats = await client.get_seating(game.id)
    assert [(s.seat, s.index, s.member_id, s.display_name, s.team) for s in seats] == [
        ("seat:0", 0, "alice", "Alice", "A"), ("seat:1", 1, "bob", "Bob", "B"),
        ("seat:2", 2, "carol", "Carol", "A"), ("seat:3", 3, "dave", "Dave", "B")]
    waiting = await client.create_game("erin", "Erin", "scopone_scientifico")
    assert [s.member_id for s in await client.get_seating(waiting.id)] == ["erin"]


async def test_seating_of_no_game(client):
    await fails(client.get_seating(str(uuid.uuid4())), Reason.GAME_NOT_FOUND)
    await fails(client.get_seating(""), Reason.INVALID_ARGUMENT, "table_id is required")


async def test_find_seat_of_a_seated_member(client):
    game = await full_game(client)
    seat = await client.find_seat(game.id, "carol")
    assert (seat.seat, seat.index, seat.member_id, seat.display_name) == ("seat:2", 2, "carol", "Carol")


async def test_find_seat_of_someone_not_seated_is_not_seated_with_not_found(harness):
    game = await full_game(harness.client)
    await fails(harness.client.find_seat(game.id, "eve"), Reason.NOT_SEATED, "Not seated at this game")
    async with grpc.aio.insecure_channel(harness.address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            await stub.FindSeat(lobby_pb2.FindSeatRequest(table_id=game.id, member_id="eve"))
    assert caught.value.code() is grpc.StatusCode.NOT_FOUND  # a look-up, as the proto says
    error = from_rpc_error(caught.value)
    assert (error.reason, error.metadata) == (Reason.NOT_SEATED, {"table_id": game.id})


async def test_find_seat_errors(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await fails(client.find_seat(str(uuid.uuid4()), "alice"), Reason.GAME_NOT_FOUND)
    await fails(client.find_seat(game.id, ""), Reason.INVALID_ARGUMENT, "member_id is required")
    await fails(client.find_seat("", "alice"), Reason.INVALID_ARGUMENT, "table_id is required")


async def test_other_errors_keep_their_usual_codes(harness):
    async with grpc.aio.insecure_channel(harness.address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            await stub.JoinGame(lobby_pb2.JoinGameRequest(member_id="bob", display_name="Bob",
                                                          join_code="ZZZZZZ"))
    assert caught.value.code() is grpc.StatusCode.NOT_FOUND
    game = await full_game(harness.client)
    async with grpc.aio.insecure_channel(harness.address) as channel:
        stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            await stub.JoinGame(lobby_pb2.JoinGameRequest(member_id="eve", display_name="Eve",
                                                          join_code=game.join_code))
    assert caught.value.code() is grpc.StatusCode.FAILED_PRECONDITION
