"""Daily games in the lobby, through the gRPC API on both stores: a member sits at most at
MAX_DAILY_GAMES unfinished ones (creating, joining, quick match, rematch; exact under
concurrency), a quick match keeps to its pace, and a started daily game is kept until it
finishes."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import replace

from lobby.memory_store import MemoryLobbyStore
from lobby.models import MAX_DAILY_GAMES, Game, Seat
from lobby.postgres_store import PostgresLobbyStore
from services.rpc.errors import Reason, ServiceError
from services.stores import postgres_pool
from testing.waiting import eventually
from tests.lobby.helpers import fails

SCOPONE = "scopone_scientifico"
DAILY = json.dumps({"pace": "daily"})


async def daily_games(client, member: str, count: int) -> list:
    """``count`` private daily games created by ``member``, one after the other."""
    return [await client.create_game(member, member.title(), SCOPONE, DAILY) for _ in range(count)]


async def test_a_member_creates_at_most_twenty_daily_games(client):
    await daily_games(client, "alice", MAX_DAILY_GAMES)
    error = await fails(client.create_game("alice", "Alice", SCOPONE, DAILY),
                        Reason.TOO_MANY_DAILY_GAMES, "Too many daily games")
    assert error.metadata["limit"] == str(MAX_DAILY_GAMES) == "20"
    live = await client.create_game("alice", "Alice", SCOPONE)  # live games are not limited
    assert live.options["pace"] == "live"
    assert sum(game.options["pace"] == "daily" for game in await client.list_member_games("alice")) == 20


async def test_joining_a_twenty_first_daily_game_is_refused_and_changes_nothing(client):
    await daily_games(client, "alice", MAX_DAILY_GAMES)
    other = await client.create_game("bob", "Bob", SCOPONE, DAILY)
    await fails(client.join_game("alice", "Alice", other.join_code), Reason.TOO_MANY_DAILY_GAMES)
    assert [seat.member_id for seat in (await client.get_game(other.id)).seats] == ["bob"]
    live = await client.create_game("bob", "Bob", SCOPONE)
    assert (await client.join_game("alice", "Alice", live.join_code)).game.seat_of("alice")


async def test_a_finished_or_left_daily_game_frees_its_place(harness):
    client = harness.client
    games = await daily_games(client, "alice", MAX_DAILY_GAMES)
    await client.leave_game(games[0].id, "alice")  # a waiting game she leaves is gone
    await client.create_game("alice", "Alice", SCOPONE, DAILY)
    await fails(client.create_game("alice", "Alice", SCOPONE, DAILY), Reason.TOO_MANY_DAILY_GAMES)
    started = games[1]
    for member in ("bob", "carol", "dave"):
        await client.join_game(member, member.title(), started.join_code)
    await fails(client.create_game("alice", "Alice", SCOPONE, DAILY),
                Reason.TOO_MANY_DAILY_GAMES)  # started and not finished: it counts
    assert await client.mark_finished(started.id)
    assert (await client.create_game("alice", "Alice", SCOPONE, DAILY)).options["pace"] == "daily"


async def test_a_quick_match_that_would_seat_a_member_at_a_daily_game_is_refused(client):
    await daily_games(client, "alice", MAX_DAILY_GAMES)
    await client.create_game("bob", "Bob", SCOPONE, DAILY, open=True)
    await fails(client.quick_match("alice", "Alice", SCOPONE, DAILY), Reason.TOO_MANY_DAILY_GAMES)
    await client.leave_game((await client.list_open_games())[0].id, "bob")
    await fails(client.quick_match("alice", "Alice", SCOPONE, DAILY),
                Reason.TOO_MANY_DAILY_GAMES)  # none open: it would have created one
    played = await client.quick_match("alice", "Alice", SCOPONE)  # Play now: a live game
    assert played.created and played.game.options["pace"] == "live"


async def test_a_rematch_of_a_daily_game_counts_too(harness):
    client = harness.client
    finished = await client.create_game("alice", "Alice", SCOPONE, DAILY)
    for member in ("bob", "carol", "dave"):
        finished = (await client.join_game(member, member.title(), finished.join_code)).game
    harness.games.finished.add(finished.id)
    assert await client.mark_finished(finished.id)
    await daily_games(client, "bob", MAX_DAILY_GAMES)
    await daily_games(client, "carol", MAX_DAILY_GAMES)
    await fails(client.rematch("bob", "Bob", finished.id), Reason.TOO_MANY_DAILY_GAMES)
    rematch = await client.rematch("alice", "Alice", finished.id)  # created with alice alone
    assert rematch.created and rematch.game.options["pace"] == "daily"
    await fails(client.rematch("carol", "Carol", finished.id), Reason.TOO_MANY_DAILY_GAMES)
    assert [seat.member_id for seat in (await client.get_game(rematch.game.id)).seats] == ["alice"]


async def test_the_limit_is_exact_when_seatings_race(client):
    """Nineteen daily games, then six at once (three creations, three joins): one lands."""
    await daily_games(client, "alice", MAX_DAILY_GAMES - 1)
    others = [await client.create_game(m, m.title(), SCOPONE, DAILY) for m in ("bob", "carol", "dave")]
    results = await asyncio.gather(
        *(client.create_game("alice", "Alice", SCOPONE, DAILY) for _ in range(3)),
        *(client.join_game("alice", "Alice", game.join_code) for game in others),
        return_exceptions=True)
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(refused) == 5, results
    assert all(error.reason is Reason.TOO_MANY_DAILY_GAMES for error in refused)
    assert sum(game.options["pace"] == "daily"
               for game in await client.list_member_games("alice")) == MAX_DAILY_GAMES


async def test_quick_match_keeps_to_its_pace(client):
    daily = await client.create_game("alice", "Alice", SCOPONE, DAILY, open=True)
    live = await client.create_game("bob", "Bob", SCOPONE, open=True)
    played = await client.quick_match("carol", "Carol", SCOPONE)  # Play now, no options
    assert played.game.id == live.id
    asked = await client.quick_match("dave", "Dave", SCOPONE, DAILY)
    assert asked.game.id == daily.id
    listed = {game.id: game.options["pace"] for game in await client.list_open_games()}
    assert listed == {daily.id: "daily", live.id: "live"}


async def test_play_now_never_lands_at_a_daily_game(client):
    await client.create_game("alice", "Alice", SCOPONE, DAILY, open=True)
    played = await client.quick_match("bob", "Bob", SCOPONE)
    assert played.created and played.game.options["pace"] == "live"


# -- a daily game lives as long as it is played ---------------------------------------------------


def _game(code: str, pace: str, member: str) -> Game:
    return Game(id=str(uuid.uuid4()), game_type=SCOPONE, join_code=code,
                options_json=json.dumps({"pace": pace}), seats_total=1, created_at_ms=1764669600000,
                seats=(Seat(0, member, member.title()),))


async def test_memory_keeps_a_started_daily_game_until_it_finishes(clock):
    """Its players may leave it for days while its deadlines play it on: no read keeps it alive."""
    store = MemoryLobbyStore(100, clock=clock)
    daily, live = _game("DDDDDD", "daily", "alice"), _game("LLLLLL", "live", "bob")
    for game in (daily, live):
        await store.create(game)
        await store.mark_started(game.id)
    await store.modify(daily.id, lambda game: replace(game, updated_at_ms=5))  # a take-over, say
    clock.now += 101
    assert await store.get(live.id) is None
    assert (await store.get(daily.id)).started
    assert [game.id for game in await store.member_games("alice")] == [daily.id]
    assert await store.mark_finished(daily.id)
    clock.now += 99
    assert (await store.get(daily.id)).finished  # GAME_TTL_SECONDS from its end
    clock.now += 2
    assert await store.get(daily.id) is None


async def test_postgres_keeps_a_started_daily_game_until_it_finishes(lobby_database):
    pool = await postgres_pool(lobby_database, max_size=2, name="lobby")
    await pool.execute("TRUNCATE lobby_game, lobby_request, lobby_member CASCADE")
    store = PostgresLobbyStore(pool, lobby_database, ttl_seconds=1)
    try:
        daily, live = _game("DDDDDD", "daily", "alice"), _game("LLLLLL", "live", "bob")
        for game in (daily, live):
            await store.create(game)
            await store.mark_started(game.id)
        await store.modify(daily.id, lambda game: replace(game, updated_at_ms=5))

        async def live_gone():
            return await store.get(live.id) is None

        await eventually(live_gone, timeout=10, what="the live game never expired")
        assert (await store.get(daily.id)).started
        assert [game.id for game in await store.member_games("alice")] == [daily.id]
        assert await store.mark_finished(daily.id)

        async def daily_gone():
            return await store.get(daily.id) is None

        await eventually(daily_gone, timeout=10, what="the finished daily game never expired")
    finally:
        await store.close()
