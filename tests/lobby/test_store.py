"""The store's behaviour, the same in memory and in Postgres (the ``store`` fixture runs both)."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from dataclasses import replace

from lobby.memory_store import MemoryLobbyStore
from lobby.models import DELETED_PLAYER, Game, Seat
from lobby.store import JoinOutcome
from tests.lobby.conftest import TTL_SECONDS

_codes = (f"{a}{b}{c}ABC" for a, b, c in itertools.product("ABCDEFGHJK", repeat=3))


def new_game(code: str | None = None, creator: str = "alice", seats_total: int = 4) -> Game:
    return Game(id=str(uuid.uuid4()), game_type="scopone_scientifico",
                join_code=code or next(_codes), options_json='{"target_score": 11}',
                seats_total=seats_total, created_at_ms=1764669600000,
                seats=(Seat(0, creator, creator.title()),))


async def test_a_created_game_is_found_by_id_and_by_code(store):
    game = new_game()
    assert await store.create(game) is True
    assert await store.get(game.id) == game
    assert await store.game_id_for_code(game.join_code) == game.id


async def test_unknown_ids_and_codes_find_nothing(store):
    assert await store.get(str(uuid.uuid4())) is None
    assert await store.game_id_for_code("ZZZZZZ") is None
    joined = await store.join("ZZZZZZ", "bob", "Bob")
    assert (joined.outcome, joined.game) == (JoinOutcome.NOT_FOUND, None)


async def test_a_code_of_a_live_game_is_never_given_twice(store):
    first, second = new_game("K7QX2M"), new_game("K7QX2M", creator="bob")
    assert await store.create(first)
    assert await store.create(second) is False
    assert await store.get(second.id) is None  # the refused game left nothing behind
    assert await store.game_id_for_code("K7QX2M") == first.id


async def test_joins_take_the_next_free_seat_in_order(store):
    game = new_game()
    await store.create(game)
    for index, member in enumerate(["bob", "carol", "dave"], start=1):
        joined = await store.join(game.join_code, member, member.title())
        assert joined.outcome is JoinOutcome.SEATED
        assert joined.game.seats[-1] == Seat(index, member, member.title())
        assert joined.took_last_seat is (index == 3)
    stored = await store.get(game.id)
    assert [(s.index, s.member_id, s.display_name) for s in stored.seats] == [
        (0, "alice", "Alice"), (1, "bob", "Bob"), (2, "carol", "Carol"), (3, "dave", "Dave")]
    assert stored.full and not stored.started


async def test_a_seated_member_joining_again_changes_nothing(store):
    game = new_game()
    await store.create(game)
    await store.join(game.join_code, "bob", "Bob")
    again = await store.join(game.join_code, "bob", "Robert")
    assert again.outcome is JoinOutcome.ALREADY_SEATED
    assert again.game.seats == (Seat(0, "alice", "Alice"), Seat(1, "bob", "Bob"))
    creator = await store.join(game.join_code, "alice", "Alice")
    assert creator.outcome is JoinOutcome.ALREADY_SEATED


async def test_a_full_game_refuses_others_but_not_its_members(store):
    game = new_game()
    await store.create(game)
    for member in ("bob", "carol", "dave"):
        await store.join(game.join_code, member, member)
    refused = await store.join(game.join_code, "eve", "Eve")
    assert refused.outcome is JoinOutcome.FULL
    assert refused.game.seat_of("eve") is None
    assert (await store.join(game.join_code, "carol", "carol")).outcome is JoinOutcome.ALREADY_SEATED


async def test_mark_started_is_idempotent_and_keeps_the_seating(store):
    game = new_game()
    await store.create(game)
    started = await store.mark_started(game.id)
    assert started.started and started.seats == game.seats
    assert (await store.mark_started(game.id)).started
    assert (await store.get(game.id)).started
    assert await store.mark_started(str(uuid.uuid4())) is None


async def test_concurrent_joins_never_seat_more_than_the_seats(store):
    games = [new_game() for _ in range(5)]
    for game in games:
        await store.create(game)
    joins = [store.join(game.join_code, f"{game.id}-m{n}", f"m{n}") for game in games for n in range(12)]
    results = await asyncio.gather(*joins)
    for game in games:
        mine = [r for r in results if r.game.id == game.id]
        assert sum(r.outcome is JoinOutcome.SEATED for r in mine) == 3
        assert sum(r.took_last_seat for r in mine) == 1
        assert sum(r.outcome is JoinOutcome.FULL for r in mine) == 9
        seats = (await store.get(game.id)).seats
        assert [s.index for s in seats] == [0, 1, 2, 3]
        assert len({s.member_id for s in seats}) == 4


async def test_the_same_member_joining_many_times_at_once_gets_one_seat(store):
    game = new_game()
    await store.create(game)
    results = await asyncio.gather(*(store.join(game.join_code, "bob", "Bob") for _ in range(10)))
    assert sorted(r.outcome.value for r in results) == ["already"] * 9 + ["seated"]
    assert [s.member_id for s in (await store.get(game.id)).seats] == ["alice", "bob"]


async def test_erasure_anonymizes_every_seating_of_the_member(store):
    waiting, started, elsewhere = new_game(), new_game(creator="bob"), new_game(creator="carol")
    for game in (waiting, started, elsewhere):
        await store.create(game)
    await store.join(waiting.join_code, "bob", "Bob")
    for member in ("alice", "carol", "dave"):
        await store.join(started.join_code, member, member)
    await store.mark_started(started.id)
    fresh = iter(["anon-1", "anon-2", "anon-3"])

    touched = await store.erase_member("bob", lambda: next(fresh))

    assert touched == sorted([waiting.id, started.id])
    bob_seats = [(await store.get(waiting.id)).seats[1], (await store.get(started.id)).seats[0]]
    assert {s.display_name for s in bob_seats} == {DELETED_PLAYER}
    assert all(s.erased for s in bob_seats)  # remembered, so stats never rates the seat
    assert {s.member_id for s in bob_seats} <= {"anon-1", "anon-2", "anon-3"}
    assert bob_seats[0].member_id != bob_seats[1].member_id
    assert [s.index for s in bob_seats] == [1, 0]  # seats never shift
    assert (await store.get(started.id)).started
    assert (await store.get(started.id)).seat_of("carol") == Seat(2, "carol", "carol")
    assert not any(s.erased for s in (await store.get(started.id)).seats[1:])
    assert (await store.get(elsewhere.id)).seats == elsewhere.seats
    assert await store.erase_member("bob", lambda: "anon-x") == []
    assert await store.erase_member("nobody", lambda: "anon-y") == []


async def test_an_erased_seat_is_found_by_its_fresh_id_only(store):
    game = new_game()
    await store.create(game)
    await store.join(game.join_code, "bob", "Bob")
    await store.erase_member("bob", lambda: "anon-1")
    assert (await store.join(game.join_code, "anon-1", "x")).outcome is JoinOutcome.ALREADY_SEATED
    rejoin = await store.join(game.join_code, "bob", "Bob")  # the same login joining anew
    assert rejoin.outcome is JoinOutcome.SEATED and rejoin.game.seat_of("bob").index == 2
    assert [s.erased for s in rejoin.game.seats] == [False, True, False]
    assert [s.erased for s in (await store.touch(game.id)).seats] == [False, True, False]


# -- time to live -----------------------------------------------------------------------------


async def test_memory_games_and_codes_expire_together_and_free_the_code(clock):
    store = MemoryLobbyStore(100, clock=clock)
    game = new_game("K7QX2M")
    await store.create(game)
    clock.now += 60
    await store.join("K7QX2M", "bob", "Bob")  # a join restarts the TTL
    clock.now += 90
    touched = await store.touch(game.id)  # a look-up by id restarts the TTL too
    assert touched == replace(game, seats=(*game.seats, Seat(1, "bob", "Bob")))
    clock.now += 99
    assert await store.get(game.id) is not None
    clock.now += 2
    assert await store.get(game.id) is None
    assert await store.game_id_for_code("K7QX2M") is None
    assert (await store.join("K7QX2M", "carol", "Carol")).outcome is JoinOutcome.NOT_FOUND
    assert await store.erase_member("alice", lambda: "anon") == []
    assert await store.create(new_game("K7QX2M", creator="dave"))  # the code is free again


async def test_memory_sweep_forgets_expired_games(clock):
    store = MemoryLobbyStore(10, clock=clock)
    old = new_game()
    await store.create(old)
    clock.now += 61
    await store.create(new_game())
    assert old.id not in store._games and old.join_code not in store._codes
    assert "alice" in store._member_games and old.id not in store._member_games["alice"]


async def test_a_seat_taken_and_the_start_record_when_the_game_changed(store):
    game = new_game()
    await store.create(game)
    joined = await store.join(game.join_code, "bob", "Bob", at_ms=1764669601000)
    assert joined.game.changed_at_ms == 1764669601000
    started = await store.mark_started(game.id, at_ms=1764669602000)
    assert (await store.get(game.id)).changed_at_ms == started.changed_at_ms == 1764669602000
    again = await store.mark_started(game.id, at_ms=1764669609000)  # idempotent: no new change
    assert again.changed_at_ms == 1764669602000


async def test_member_games_lists_the_live_games_a_member_sits_at(store):
    first, second, other = new_game(), new_game(creator="bob"), new_game(creator="carol")
    for game in (first, second, other):
        await store.create(game)
    await store.join(second.join_code, "alice", "Alice")
    assert sorted(g.id for g in await store.member_games("alice")) == sorted([first.id, second.id])
    assert [g.id for g in await store.member_games("carol")] == [other.id]
    assert await store.member_games("nobody") == []


async def test_member_games_leaves_out_a_game_the_member_was_erased_from(store):
    game = new_game()
    await store.create(game)
    await store.erase_member("alice", lambda: "deleted-1")
    assert await store.member_games("alice") == []


async def _signalled(signals) -> bool:
    return await signals.wait(2.0)


async def test_changes_signal_a_seat_taken_the_start_and_an_erasure(store):
    game = new_game()
    await store.create(game)
    async with store.changes(game.id) as changes:
        await store.join(game.join_code, "bob", "Bob", at_ms=1)
        assert await _signalled(changes)
        await store.join(game.join_code, "bob", "Bob", at_ms=2)  # already seated: no change
        await store.erase_member("bob", lambda: "deleted-2")
        assert await _signalled(changes)
        await store.mark_started(game.id, at_ms=3)
        assert await _signalled(changes)
        await store.mark_started(game.id, at_ms=4)  # already started: no change
        assert not await changes.wait(0.3)


async def test_changes_of_one_game_do_not_signal_another(store):
    watched, other = new_game(), new_game(creator="bob")
    await store.create(watched)
    await store.create(other)
    async with store.changes(watched.id) as changes:
        await store.join(other.join_code, "carol", "Carol", at_ms=1)
        assert not await changes.wait(0.3)


async def _postgres_store(dsn: str, ttl_seconds: int):
    from lobby.postgres_store import PostgresLobbyStore
    from services.stores import postgres_pool

    pool = await postgres_pool(dsn, max_size=2, name="lobby")
    await pool.execute("TRUNCATE lobby_game CASCADE")
    return PostgresLobbyStore(pool, dsn, ttl_seconds)


async def test_postgres_games_expire_and_free_their_code_unless_in_use(lobby_database):
    store = await _postgres_store(lobby_database, ttl_seconds=1)
    try:
        used, idle = new_game("K7QX2M"), new_game("R4TW9P", creator="bob")
        await store.create(used)
        await store.create(idle)
        for _ in range(3):  # 1.5 s: the idle game expires, the one read by id lives on
            await asyncio.sleep(0.5)
            assert await store.touch(used.id) is not None
        assert await store.get(idle.id) is None and await store.game_id_for_code("R4TW9P") is None
        assert (await store.join("R4TW9P", "carol", "Carol")).outcome is JoinOutcome.NOT_FOUND
        assert await store.create(new_game("R4TW9P", creator="dave"))  # the code is free again
        assert not await store.create(new_game("K7QX2M", creator="erin"))  # still in use
    finally:
        await store.close()


async def test_postgres_keeps_the_seating_for_a_new_store_on_the_same_database(lobby_database):
    """The seating is in Postgres alone: a restarted lobby (or a flushed Redis) loses nothing."""
    first = await _postgres_store(lobby_database, ttl_seconds=TTL_SECONDS)
    game = new_game()
    try:
        await first.create(game)
        await first.join(game.join_code, "bob", "Bob", at_ms=1764669601000)
        await first.mark_started(game.id, at_ms=1764669602000)
    finally:
        await first.close()
    from lobby.postgres_store import PostgresLobbyStore
    from services.stores import postgres_pool

    second = PostgresLobbyStore(await postgres_pool(lobby_database, max_size=2, name="lobby"), lobby_database,
                                TTL_SECONDS)
    try:
        kept = await second.get(game.id)
        assert [(s.member_id, s.display_name) for s in kept.seats] == [("alice", "Alice"),
                                                                        ("bob", "Bob")]
        assert kept.started and kept.changed_at_ms == 1764669602000
        assert [g.id for g in await second.member_games("bob")] == [game.id]
    finally:
        await second.close()


async def test_postgres_erasure_reaches_expired_games_too(lobby_database):
    store = await _postgres_store(lobby_database, ttl_seconds=1)
    try:
        game = new_game()
        await store.create(game)
        await asyncio.sleep(1.2)
        assert await store.erase_member("alice", lambda: "deleted-x") == [game.id]
        names = await store.pool.fetch("SELECT member_id, display_name FROM lobby_seat")
        assert [tuple(row) for row in names] == [("deleted-x", DELETED_PLAYER)]
    finally:
        await store.close()


async def test_postgres_reads_push_the_expiry_at_most_once_within_the_slack(lobby_database):
    """A game read over and over (every socket refreshes its names) costs no write per read."""
    store = await _postgres_store(lobby_database, ttl_seconds=TTL_SECONDS)
    try:
        game = new_game()
        await store.create(game)
        version = "SELECT xmin::text FROM lobby_game WHERE id = $1"
        created = await store.pool.fetchval(version, game.id)
        for _ in range(3):
            assert await store.touch(game.id) == game
        assert await store.pool.fetchval(version, game.id) == created  # no row was rewritten
        await store.pool.execute(  # a minute and more later: the next read pushes it again
            "UPDATE lobby_game SET expires_at = now() + make_interval(secs => $2) WHERE id = $1",
            game.id, float(TTL_SECONDS - 120))
        assert await store.touch(game.id) == game
        left = await store.pool.fetchval(
            "SELECT extract(epoch FROM expires_at - now()) FROM lobby_game WHERE id = $1", game.id)
        assert left > TTL_SECONDS - 5
    finally:
        await store.close()
