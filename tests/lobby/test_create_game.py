"""CreateGame and ListGameTypes through the gRPC API, on both stores."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from lobby.codes import ALPHABET
from lobby.service import Lobby
from services.rpc.errors import Reason
from tests.lobby.helpers import DEFAULT_OPTIONS, fails


async def test_game_types_come_from_the_game_service(client):
    (scopone,) = await client.list_game_types()
    assert (scopone.id, scopone.name, scopone.players) == (
        "scopone_scientifico", "Scopone scientifico", 4)
    assert "scopa" in scopone.description
    assert set(scopone.options_schema["properties"]) == set(DEFAULT_OPTIONS)


async def test_the_creator_sits_at_seat_zero_of_a_waiting_game(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico", '{"target_score": 21}')
    assert str(uuid.UUID(game.id)) == game.id
    assert game.started is False and not game.started
    assert len(game.join_code) == 6 and set(game.join_code) <= set(ALPHABET)
    assert game.options == {**DEFAULT_OPTIONS, "target_score": 21}
    assert [(s.seat, s.index, s.member_id, s.display_name, s.team) for s in game.seats] == [
        ("seat:0", 0, "alice", "Alice", "A")]
    assert (game.seats_total, game.seats_open) == (4, 3)
    assert game.created_at_ms > 0
    assert await client.get_game(game.id) == game


async def test_empty_options_are_all_defaults(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    assert game.options == DEFAULT_OPTIONS


async def test_an_unknown_game_type_is_refused(client):
    error = await fails(client.create_game("alice", "Alice", "poker"), Reason.UNKNOWN_GAME_TYPE,
                        "Unknown game type: poker")
    assert error.metadata == {"game_type": "poker", "field": "game_type"}
    assert [(v.field, v.description) for v in error.field_violations] == [
        ("game_type", "Unknown game type: poker")]


@pytest.mark.parametrize("options, message", [
    ('{"target_score": 0}', "Invalid options: target_score: must be an integer from 1 to 121"),
    ('{"napola": "yes"}', "Invalid options: napola: must be true or false"),
    ('{"jokers": true}', "Invalid options: unknown option 'jokers'"),
    ('{"target_score": 11', None),
    ('[]', "Invalid options: must be a JSON object"),
])
async def test_options_that_break_the_schema_are_refused(client, options, message):
    error = await fails(client.create_game("alice", "Alice", "scopone_scientifico", options),
                        Reason.INVALID_OPTIONS, message)
    assert error.message.startswith("Invalid options: ")


@pytest.mark.parametrize("member_id, name, game_type, message", [
    ("", "Alice", "scopone_scientifico", "member_id is required"),
    ("alice", "", "scopone_scientifico", "display_name is required"),
    ("alice", "A" * 65, "scopone_scientifico", "display_name is longer than 64 characters"),
    ("alice", "Al\tice", "scopone_scientifico", "display_name contains control characters"),
    ("alice", "Alice", "", "game_type is required"),
])
async def test_bad_creators_are_refused(client, member_id, name, game_type, message):
    await fails(client.create_game(member_id, name, game_type), Reason.INVALID_ARGUMENT, message)


async def test_a_refused_creation_stores_nothing(harness):
    await fails(harness.client.create_game("alice", "Alice", "scopone_scientifico", '{"napola": 1}'),
                Reason.INVALID_OPTIONS)
    assert await harness.store.erase_member("alice", lambda: "anon") == []


async def test_many_creations_get_distinct_codes(client):
    games = await asyncio.gather(*(client.create_game(f"m{n}", f"M{n}", "scopone_scientifico")
                                   for n in range(150)))
    assert len({g.join_code for g in games}) == 150
    assert len({g.id for g in games}) == 150


async def test_a_taken_code_is_drawn_again(store, game_client):
    codes = iter(["K7QX2M", "K7QX2M", "K7QX2M", "P3RT9W"])
    lobby = Lobby(store, game_client, new_code=lambda: next(codes))
    first = await lobby.create_game("alice", "Alice", "scopone_scientifico", "")
    second = await lobby.create_game("bob", "Bob", "scopone_scientifico", "")
    assert (first.join_code, second.join_code) == ("K7QX2M", "P3RT9W")
    assert (await lobby.preview_game("p3rt9w")).id == second.id


async def test_codes_stay_unique_when_creations_race_for_few_codes(store, game_client):
    """Concurrent creations drawing from three codes: three games, then a clear refusal."""
    pool = iter(["AAAAAA", "BBBBBB", "CCCCCC"] * 100)
    lobby = Lobby(store, game_client, new_code=lambda: next(pool), code_attempts=6)
    results = await asyncio.gather(
        *(lobby.create_game(f"m{n}", f"M{n}", "scopone_scientifico", "") for n in range(8)),
        return_exceptions=True)
    games = [r for r in results if not isinstance(r, Exception)]
    assert sorted(g.join_code for g in games) == ["AAAAAA", "BBBBBB", "CCCCCC"]
    refusals = [r for r in results if isinstance(r, Exception)]
    assert len(refusals) == 5
    assert all(r.reason is Reason.UNAVAILABLE and "join code" in r.message for r in refusals)
    for game in games:
        assert (await lobby.preview_game(game.join_code)).id == game.id


async def test_options_are_stored_as_the_game_service_normalized_them(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico", '{"target_score": 16.0}')
    assert json.loads(game.options_json)["target_score"] == 16
