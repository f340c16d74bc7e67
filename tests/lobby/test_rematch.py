"""Rematch through the gRPC API, on every store: one new game per finished game, the same for
every player who asks, each at the seat they had (partners stay partners), the last one
starting it."""

from __future__ import annotations

import asyncio
import json

from lobby.models import Game, Seat
from lobby.service import rematch_id
from services.rpc.errors import Reason
from tavolo.game.v1 import game_pb2
from tests.lobby.helpers import fails, full_game

PLAYERS = ("alice", "bob", "carol", "dave")


async def finished_game(harness, options: dict | None = None):
    game = await harness.client.create_game("alice", "Alice", "scopone_scientifico",
                                            json.dumps(options or {"target_score": 5}))
    for member in PLAYERS[1:]:
        game = (await harness.client.join_game(member, member.title(), game.join_code)).game
    harness.games.finished.add(game.id)
    return game


async def test_the_first_asker_creates_the_rematch_with_the_same_options_at_their_seat(harness):
    finished = await finished_game(harness, {"target_score": 5, "napola": False})

    result = await harness.client.rematch("carol", "Carol", finished.id)

    assert result.created and not result.started
    game = result.game
    assert game.id == rematch_id(finished.id) != finished.id
    assert game.started is False and game.join_code != finished.join_code
    assert [(s.index, s.member_id, s.display_name) for s in game.seats] == [(2, "carol", "Carol")]
    assert game.options == finished.options
    assert game.options["target_score"] == 5 and game.options["napola"] is False
    assert game.game_type == finished.game_type and game.seats_total == 4


async def test_the_rematch_of_a_game_from_before_the_draw_draws_its_first_dealer(harness):
    """A game finished before the first dealer was drawn has options without first_dealer; its
    rematch is a new game, so its options carry "first_dealer": "drawn" like any other."""
    old = {"target_score": 5, "napola": False, "asso_pigliatutto": False, "player_entropy": False}
    finished = Game(id="0d4bd7a4-93c6-4c55-9d8e-000000000002", game_type="scopone_scientifico",
                    join_code="CCCCCC", options_json=json.dumps(old), seats_total=4, created_at_ms=1,
                    seats=tuple(Seat(i, m, m.title()) for i, m in enumerate(PLAYERS)), started=True)
    assert await harness.store.create(finished)
    harness.games.tables[finished.id] = game_pb2.CreateTableRequest(table_id=finished.id)
    harness.games.finished.add(finished.id)

    result = await harness.client.rematch("bob", "Bob", finished.id)

    assert result.created and result.game.options == {**old, "first_dealer": "drawn", "pace": "live"}


async def test_every_other_player_gets_the_same_game_and_the_fourth_starts_it(harness):
    finished = await finished_game(harness)
    first = await harness.client.rematch("bob", "Bob", finished.id)
    again = await harness.client.rematch("bob", "Bob", finished.id)  # idempotent
    assert not again.created and again.game.id == first.game.id and len(again.game.seats) == 1

    second = await harness.client.rematch("dave", "Dave", finished.id)
    third = await harness.client.rematch("alice", "Alice", finished.id)
    fourth = await harness.client.rematch("carol", "Carol", finished.id)

    assert {second.game.id, third.game.id, fourth.game.id} == {first.game.id}
    assert not (second.created or third.created or fourth.created)
    assert not second.started and not third.started and fourth.started
    assert fourth.game.started is True
    # Whatever the order they asked in, everyone sits where they sat: partners stay partners.
    assert [s.member_id for s in fourth.game.seats] == ["alice", "bob", "carol", "dave"]
    assert first.game.id in harness.games.tables  # the table exists in the game service


async def test_players_asking_at_once_end_in_one_game(harness):
    finished = await finished_game(harness)
    results = await asyncio.gather(*(harness.client.rematch(m, m.title(), finished.id)
                                     for m in PLAYERS))
    assert len({r.game.id for r in results}) == 1
    assert sum(r.created for r in results) == 1 and sum(r.started for r in results) == 1
    game = await harness.client.get_game(results[0].game.id)
    assert sorted(s.member_id for s in game.seats) == sorted(PLAYERS)


async def test_only_a_seated_player_of_a_finished_game_may_ask(harness):
    waiting = await harness.client.create_game("alice", "Alice", "scopone_scientifico")
    await fails(harness.client.rematch("alice", "Alice", waiting.id), Reason.MATCH_NOT_FINISHED,
                "The game is not finished")
    playing = await full_game(harness.client)
    await fails(harness.client.rematch("alice", "Alice", playing.id), Reason.MATCH_NOT_FINISHED)
    harness.games.finished.add(playing.id)
    await fails(harness.client.rematch("erin", "Erin", playing.id), Reason.NOT_SEATED,
                "Not seated at this game")
    await fails(harness.client.rematch("alice", "Alice", "6f1c0000-0000-4000-8000-000000000000"),
                Reason.GAME_NOT_FOUND, "Game not found")
    await fails(harness.client.rematch("alice", "Alice", "not-a-uuid"), Reason.GAME_NOT_FOUND)
    await fails(harness.client.rematch("", "Alice", playing.id), Reason.INVALID_ARGUMENT)
    assert await harness.store.get(rematch_id(playing.id)) is None  # nothing was made


async def test_a_creation_under_a_live_id_is_refused(store):
    game = Game(id="0d4bd7a4-93c6-4c55-9d8e-000000000001", game_type="scopone_scientifico",
                join_code="AAAAAA", options_json="{}", seats_total=4, created_at_ms=1,
                seats=(Seat(0, "alice", "Alice"),))
    assert await store.create(game)
    clash = Game(id=game.id, game_type="scopone_scientifico", join_code="BBBBBB",
                 options_json="{}", seats_total=4, created_at_ms=2, seats=(Seat(0, "bob", "Bob"),))
    assert not await store.create(clash)
    kept = await store.get(game.id)
    assert kept is not None and kept.join_code == "AAAAAA"
    assert [s.member_id for s in kept.seats] == ["alice"]
    assert await store.game_id_for_code("BBBBBB") is None


async def test_a_seat_taken_meanwhile_gives_the_lowest_free_one(harness):
    finished = await finished_game(harness)
    first = await harness.client.rematch("bob", "Bob", finished.id)  # seat 1
    joined = await harness.client.join_game("erin", "Erin", first.game.join_code)  # seat 0
    assert [(s.index, s.member_id) for s in joined.game.seats] == [(0, "erin"), (1, "bob")]
    alice = await harness.client.rematch("alice", "Alice", finished.id)
    assert [(s.index, s.member_id) for s in alice.game.seats] == [
        (0, "erin"), (1, "bob"), (2, "alice")]
    await harness.client.rematch("carol", "Carol", finished.id)  # the last seat: 3
    await fails(harness.client.rematch("dave", "Dave", finished.id), Reason.GAME_FULL)


async def test_a_practice_rematch_brings_the_same_bots_to_the_same_seats(harness):
    game = await harness.client.create_game("alice", "Alice", "scopone_scientifico")
    await harness.client.add_bot(game.id, "alice", 1, "esperto")
    await harness.client.join_game("bob", "Bob", game.join_code)  # seat 2
    await harness.client.add_bot(game.id, "alice", 3, "maestro")
    await harness.client.leave_game(game.id, "bob")  # a bot takes bob's seat over
    harness.games.finished.add(game.id)
    again = await harness.client.rematch("bob", "Bob", game.id)
    assert [(s.index, s.member_id, s.bot, s.took_over) for s in again.game.seats] == [
        (1, "bot:1", "esperto", False), (2, "bob", "", False), (3, "bot:3", "maestro", False)]
    done = await harness.client.rematch("alice", "Alice", game.id)
    assert done.started
