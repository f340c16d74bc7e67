"""WatchGame (a waiting room's live seating) and ListMemberGames, through the gRPC API, on both stores."""

from __future__ import annotations

import asyncio
import uuid

from lobby.client import LobbyClient
from services.rpc.errors import Reason
from tests.lobby.helpers import fails, full_game


async def _next(stream, timeout: float = 5.0):
    return await asyncio.wait_for(anext(stream), timeout)


async def test_watch_sends_the_game_then_each_seat_taken_then_the_start(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    stream = client.watch_game(game.id)
    first = await _next(stream)
    assert ([s.member_id for s in first.seats], first.started) == (["alice"], False)
    for count, member in enumerate(("bob", "carol"), start=2):
        await client.join_game(member, member.title(), game.join_code)
        seen = await _next(stream)
        assert len(seen.seats) == count and not seen.started
    await client.join_game("dave", "Dave", game.join_code)
    last = await _next(stream)
    while not last.started:  # the fourth seat and the start may come as one message or two
        last = await _next(stream)
    assert [s.member_id for s in last.seats] == ["alice", "bob", "carol", "dave"]
    assert await anext(stream, None) is None  # the stream ends with the start


async def test_watch_shows_an_erased_member_as_deleted(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    stream = client.watch_game(game.id)
    await _next(stream)
    await client.erase_member("bob")
    seen = await _next(stream)
    assert [(s.display_name, s.erased) for s in seen.seats] == [("Alice", False),
                                                               ("deleted player", True)]
    await stream.aclose()


async def test_watch_of_a_started_game_sends_it_once(client):
    started = await full_game(client, ("p", "q", "r", "s"))
    assert [game.started async for game in client.watch_game(started.id)] == [True]


async def test_watch_of_an_unknown_game_is_game_not_found(client):
    await fails(anext(client.watch_game(str(uuid.uuid4()))), Reason.GAME_NOT_FOUND, "Game not found")
    await fails(anext(client.watch_game("not-a-uuid")), Reason.GAME_NOT_FOUND, "Game not found")


async def test_a_watch_outlives_the_unary_deadline(harness):
    """WatchGame has no deadline: a waiting room may wait for minutes."""
    quick = LobbyClient(harness.address, timeout_seconds=2.0)  # the watcher's unary deadline
    try:
        game = await harness.client.create_game("alice", "Alice", "scopone_scientifico")
        stream = quick.watch_game(game.id)
        await _next(stream)
        await asyncio.sleep(2.5)  # the time is the test: longer than the unary deadline (2 s)
        await harness.client.join_game("bob", "Bob", game.join_code)
        assert len((await _next(stream)).seats) == 2
        await stream.aclose()
    finally:
        await quick.close()


async def test_member_games_lists_the_members_games_most_recently_changed_first(client):
    older = await client.create_game("alice", "Alice", "scopone_scientifico")
    await asyncio.sleep(0.01)  # times are in milliseconds: keep the changes apart
    newer = await client.create_game("bob", "Bob", "scopone_scientifico")
    await client.join_game("alice", "Alice", newer.join_code)
    await asyncio.sleep(0.01)
    listed = await client.list_member_games("alice")
    assert [g.id for g in listed] == [newer.id, older.id]
    assert listed[0].updated_at_ms >= listed[1].updated_at_ms
    await client.join_game("carol", "Carol", older.join_code)  # older changes last now
    assert [g.id for g in await client.list_member_games("alice")] == [older.id, newer.id]
    assert [g.id for g in await client.list_member_games("alice", page_size=1)] == [older.id]


async def test_member_games_of_nobody_is_empty_and_a_member_id_is_required(client):
    assert await client.list_member_games("nobody") == []
    await fails(client.list_member_games(""), Reason.INVALID_ARGUMENT, "member_id is required")
    await fails(client.list_member_games("alice", page_size=-1), Reason.INVALID_ARGUMENT,
                "page_size must be 0 or more")
