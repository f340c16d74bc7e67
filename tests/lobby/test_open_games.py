"""Open games and quick match through the gRPC API, on both stores: listing, ratings, the limit,
opening and closing, the live list, and races for the last seat."""

from __future__ import annotations

import asyncio
import json

import pytest

from gateway.open_feed import OpenGamesFeed
from lobby.client import LobbyClient
from lobby.models import MAX_OPEN_GAMES
from lobby.service import Lobby
from services.rpc.errors import Reason
from tests.lobby.conftest import lobby_served
from tests.lobby.helpers import fails

SCOPONE = "scopone_scientifico"


async def test_only_open_games_with_a_seat_free_are_listed_newest_first(client):
    private = await client.create_game("alice", "Alice", SCOPONE)
    first = await client.create_game("bob", "Bob", SCOPONE, open=True)
    second = await client.create_game("carol", "Carol", SCOPONE, open=True)
    full = await client.create_game("dave", "Dave", SCOPONE, open=True)
    for member in ("e", "f", "g"):
        await client.join_game(member, member.upper(), full.join_code)
    listed = await client.list_open_games()
    assert [game.id for game in listed] == [second.id, first.id]
    assert all(game.open and not game.started for game in listed)
    assert private.id not in {game.id for game in listed}
    assert await client.list_open_games("chess") == []
    assert [g.id for g in await client.list_open_games(SCOPONE, limit=1)] == [second.id]


async def test_a_game_rating_is_the_mean_of_its_people_not_its_bots(client):
    game = await client.create_game("alice", "Alice", SCOPONE, open=True, rating=1600)
    await client.join_game("bob", "Bob", game.join_code, {SCOPONE: 1400, "chess": 2800})
    await client.add_bot(game.id, "alice", 3, "maestro")
    listed = (await client.list_open_games())[0]
    assert listed.rating == 1500
    assert [seat.rating for seat in listed.seats] == [1600, 1400, 0]
    newcomer = await client.create_game("carol", "Carol", SCOPONE, open=True)
    assert newcomer.rating == 1500  # no rating given: a new player's


async def test_quick_match_seats_the_member_at_the_game_whose_rating_is_nearest(client):
    weak = await client.create_game("alice", "Alice", SCOPONE, open=True, rating=1200)
    strong = await client.create_game("bob", "Bob", SCOPONE, open=True, rating=1800)
    result = await client.quick_match("carol", "Carol", SCOPONE, rating=1750)
    assert (result.game.id, result.created, result.started) == (strong.id, False, False)
    assert result.game.seat_of("carol").rating == 1750
    result = await client.quick_match("dave", "Dave", SCOPONE, rating=1300)
    assert result.game.id == weak.id


async def test_quick_match_opens_a_game_when_none_has_a_seat_and_finds_it_again(client):
    created = await client.quick_match("alice", "Alice", SCOPONE, rating=1510)
    assert created.created and created.game.open and created.game.seat_of("alice").index == 0
    again = await client.quick_match("alice", "Alice", SCOPONE)  # a second press of "Play now"
    assert (again.game.id, again.created) == (created.game.id, False)
    assert len(again.game.seats) == 1


async def test_quick_match_with_options_looks_only_at_games_with_those_options(client):
    await client.create_game("alice", "Alice", SCOPONE, '{"target_score": 21}', open=True)
    plain = await client.create_game("bob", "Bob", SCOPONE, open=True)
    result = await client.quick_match("carol", "Carol", SCOPONE, '{"target_score": 11}')
    assert result.game.id == plain.id  # 11 is the default: the options as normalized
    result = await client.quick_match("dave", "Dave", SCOPONE, '{"target_score": 31}')
    assert result.created and json.loads(result.game.options_json)["target_score"] == 31


async def test_the_quick_match_that_takes_the_last_seat_starts_the_table(harness):
    client = harness.client
    game = await client.create_game("alice", "Alice", SCOPONE, open=True)
    await client.add_bot(game.id, "alice", 1, "esperto")
    await client.add_bot(game.id, "alice", 2, "esperto")
    result = await client.quick_match("bob", "Bob", SCOPONE)
    assert (result.game.id, result.started, result.game.started) == (game.id, True, True)
    assert game.id in harness.games.tables
    assert await client.list_open_games() == []


async def test_quick_match_refuses_an_unknown_game_type_and_bad_options(client):
    await fails(client.quick_match("alice", "Alice", "chess"), Reason.UNKNOWN_GAME_TYPE)
    await fails(client.quick_match("alice", "Alice", SCOPONE, '{"target_score": 0}'),
                Reason.INVALID_OPTIONS)
    await fails(client.quick_match("alice", "Alice", SCOPONE, "[1]"), Reason.INVALID_OPTIONS)
    await fails(client.quick_match("alice", "Alice", SCOPONE, rating=-1), Reason.INVALID_ARGUMENT)


async def test_a_member_has_at_most_five_open_games_waiting(client):
    for _ in range(MAX_OPEN_GAMES):
        await client.create_game("alice", "Alice", SCOPONE, open=True)
    error = await fails(client.create_game("alice", "Alice", SCOPONE, open=True),
                        Reason.TOO_MANY_OPEN_GAMES, "Too many open games")
    assert error.metadata["limit"] == str(MAX_OPEN_GAMES)
    private = await client.create_game("alice", "Alice", SCOPONE)  # a private game is no open one
    await fails(client.set_open(private.id, "alice", True), Reason.TOO_MANY_OPEN_GAMES)
    first = (await client.list_open_games())[-1]
    await client.set_open(first.id, "alice", False)
    assert (await client.set_open(private.id, "alice", True)).open


async def test_a_quick_match_that_would_make_a_sixth_open_game_is_refused(client):
    for _ in range(MAX_OPEN_GAMES):
        await client.create_game("alice", "Alice", SCOPONE, '{"target_score": 21}', open=True)
    await fails(client.quick_match("alice", "Alice", SCOPONE, '{"target_score": 11}'),
                Reason.TOO_MANY_OPEN_GAMES)


async def test_only_the_creator_opens_or_closes_a_waiting_game(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    await client.join_game("bob", "Bob", game.join_code)
    await fails(client.set_open(game.id, "bob", True), Reason.NOT_CREATOR,
                "Only the creator can open or close the game")
    await fails(client.set_open(game.id, "zoe", True), Reason.NOT_SEATED)
    opened = await client.set_open(game.id, "alice", True)
    assert opened.open and [g.id for g in await client.list_open_games()] == [game.id]
    assert (await client.set_open(game.id, "alice", True)).open  # idempotent
    await client.set_open(game.id, "alice", False)
    assert await client.list_open_games() == []
    await fails(client.set_open("5e1f8a7c-0000-4000-8000-000000000000", "alice", True),
                Reason.GAME_NOT_FOUND)


async def test_a_started_game_cannot_be_opened(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    for seat in (1, 2, 3):
        await client.add_bot(game.id, "alice", seat, "principiante")
    await fails(client.set_open(game.id, "alice", True), Reason.GAME_STARTED)


async def test_the_watch_sends_the_list_now_and_again_when_it_changes(client):
    stream = client.watch_open_games(SCOPONE)
    assert await anext(stream) == []
    game = await client.create_game("alice", "Alice", SCOPONE, open=True)
    listed = await asyncio.wait_for(anext(stream), 10)
    assert [g.id for g in listed] == [game.id]
    await client.join_game("bob", "Bob", game.join_code)
    listed = await asyncio.wait_for(anext(stream), 10)
    assert [len(g.seats) for g in listed] == [2]
    await client.set_open(game.id, "alice", False)
    assert await asyncio.wait_for(anext(stream), 10) == []
    await stream.aclose()


@pytest.mark.parametrize("callers", [40])
async def test_quick_matches_at_once_seat_everyone_once_and_never_overfill(harness, callers):
    client = harness.client
    results = await asyncio.gather(*(client.quick_match(f"m{n}", f"M{n}", SCOPONE)
                                     for n in range(callers)))
    games = {result.game.id for result in results}
    seated: dict[str, str] = {}
    for game_id in games:
        game = await client.get_game(game_id)
        assert len(game.seats) <= 4
        assert len({seat.index for seat in game.seats}) == len(game.seats)
        for seat in game.seats:
            assert seat.member_id not in seated, f"{seat.member_id} sits twice"
            seated[seat.member_id] = game_id
    assert set(seated) == {f"m{n}" for n in range(callers)}
    assert all(seated[f"m{n}"] == results[n].game.id for n in range(callers))
    # One quick match of a type at a time: 40 people fill ten tables, which all start.
    assert len(games) == callers // 4
    assert sum(result.created for result in results) == callers // 4
    assert sum(result.started for result in results) == callers // 4
    assert set(harness.games.tables) == games


async def test_the_open_list_stream_cut_at_the_lobbys_connection_age_is_opened_again(
        store, game_client):
    """The lobby closes a caller's connection at its maximum age (GRPC_MAX_CONNECTION_AGE_SECONDS,
    here 0.5 s and 0.2 s of grace): the gateway's stream of the open list on it ends
    UNAVAILABLE, is opened again (on a new connection, at any replica) and misses no change."""
    lobby = Lobby(store, game_client)
    opened, reopened = 0, asyncio.Event()
    watch_open_games = lobby.watch_open_games

    def counted(*args, **kwargs):
        nonlocal opened
        opened += 1
        if opened == 2:
            reopened.set()
        return watch_open_games(*args, **kwargs)

    lobby.watch_open_games = counted
    async with lobby_served(lobby, max_connection_age_seconds=0.5,
                            connection_age_grace_seconds=0.2) as address:
        client = LobbyClient(address)
        feed = OpenGamesFeed(client)
        try:
            async with feed.listen() as listener:
                assert await listener.next(10) == []
                # cut (at 0.5 s +- 10 %, and 0.2 s of grace), then opened again (0.5 s later)
                await asyncio.wait_for(reopened.wait(), 10)
                game = await client.create_game("alice", "Alice", SCOPONE, open=True)
                while not (games := await listener.next(10)):
                    assert games == [], "the change never came"
                assert [g.id for g in games] == [game.id]
        finally:
            await feed.aclose()
            await client.close()
