"""The member directory (lobby.members) through the gRPC API, on both stores: EnsureMember,
GetPlayers, the player id of every person's seat, erasure; and the migration that gave the
members seated before it their ids (Postgres)."""

from __future__ import annotations

import re
import uuid

import asyncpg
import pytest

from lobby.members import MAX_PLAYERS_ASKED, MemoryMemberDirectory, PostgresMemberDirectory
from lobby.models import PlayerName
from services.migrations import apply, load, migrate
from services.rpc.errors import Reason
from testing.servers import scratch_database
from tests.lobby.helpers import fails, full_game

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,}")


async def test_a_member_keeps_one_player_id_that_is_not_their_login(client):
    first = await client.ensure_member("oidc|alice", "Alice")
    again = await client.ensure_member("oidc|alice", "Alice")
    assert first == again
    assert PLAYER_ID.fullmatch(first)
    assert "alice" not in first.lower()
    assert await client.ensure_member("oidc|bob", "Bob") != first


async def test_many_members_get_different_ids(client):
    ids = {await client.ensure_member(f"member-{n}", f"M{n}") for n in range(30)}
    assert len(ids) == 30 and all(PLAYER_ID.fullmatch(player) for player in ids)


async def test_ensure_member_keeps_the_name_current(client):
    player = await client.ensure_member("alice", "Alice")
    assert await client.get_players([player]) == [PlayerName(player, "Alice")]
    assert await client.ensure_member("alice", "Alice Liddell") == player
    assert await client.get_players([player]) == [PlayerName(player, "Alice Liddell")]


async def test_get_players_answers_the_known_ones_in_the_order_asked(client):
    alice = await client.ensure_member("alice", "Alice")
    bob = await client.ensure_member("bob", "Bob")
    unknown = "A" * 22
    asked = [bob, unknown, "not a player id!", "short", alice, bob]
    assert await client.get_players(asked) == [PlayerName(bob, "Bob"), PlayerName(alice, "Alice")]
    assert await client.get_players([]) == []


async def test_get_players_refuses_too_many_ids(client):
    await fails(client.get_players(["A" * 22] * (MAX_PLAYERS_ASKED + 1)), Reason.INVALID_ARGUMENT,
                f"players holds more than {MAX_PLAYERS_ASKED} ids")


@pytest.mark.parametrize("member_id, name, message", [
    ("", "Alice", "member_id is required"),
    ("a\nb", "Alice", "member_id contains control characters"),
    ("x" * 513, "Alice", "member_id is longer than 512 characters"),
    ("alice", "", "display_name is required"),
    ("alice", "   ", "display_name is required"),
    ("alice", "A\u0007b", "display_name contains control characters"),
    ("alice", "A" * 65, "display_name is longer than 64 characters"),
])
async def test_ensure_member_refuses_bad_input(client, member_id, name, message):
    await fails(client.ensure_member(member_id, name), Reason.INVALID_ARGUMENT, message)


async def test_erasure_makes_the_id_unknown_and_a_new_login_gets_another(client):
    player = await client.ensure_member("alice", "Alice")
    await client.erase_member("alice")
    assert await client.get_players([player]) == []
    again = await client.ensure_member("alice", "Alice")
    assert again != player
    assert await client.erase_member("alice") == []  # idempotent, directory included
    assert await client.get_players([again]) == []


async def test_every_person_seat_carries_the_player_id_and_a_bot_none(client):
    alice = await client.ensure_member("alice", "Alice")
    bob = await client.ensure_member("bob", "Bob")
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    assert game.seats[0].player == alice
    game = (await client.join_game("bob", "Bob", game.join_code)).game
    game = (await client.add_bot(game.id, "alice", 2, "esperto")).game
    assert [seat.player for seat in game.seats] == [alice, bob, ""]
    assert game.seats[2].bot == "esperto"
    preview = await client.preview_game(game.join_code)  # public: member ids out, player ids in
    assert [(s.member_id, s.player) for s in preview.seats] == [("", alice), ("", bob), ("", "")]
    assert [s.player for s in (await client.get_game(game.id)).seats] == [alice, bob, ""]
    assert (await client.list_member_games("bob"))[0].seats[1].player == bob
    # A member who never asked for an id (no login since) has none: nothing is made up.
    started = (await client.join_game("carol", "Carol", game.join_code)).game
    assert started.started and [s.player for s in started.seats] == [alice, bob, "", ""]
    assert [s.player for s in await client.get_seating(game.id)] == [alice, bob, "", ""]
    assert (await client.find_seat(game.id, "bob")).player == bob


async def test_a_taken_over_seat_keeps_its_person_and_an_erased_one_has_none(client):
    players = {name: await client.ensure_member(name, name.title())
               for name in ("alice", "bob", "carol", "dave")}
    game = await full_game(client)
    taken = await client.take_over_seat(game.id, 1)
    assert (taken.seats[1].bot, taken.seats[1].took_over, taken.seats[1].player) == (
        "esperto", True, players["bob"])
    await client.erase_member("carol")
    seats = await client.get_seating(game.id)
    assert [s.player for s in seats] == [players["alice"], players["bob"], "", players["dave"]]
    assert seats[2].erased


async def test_open_games_carry_the_player_ids(client):
    alice = await client.ensure_member("alice", "Alice")
    await client.create_game("alice", "Alice", "scopone_scientifico", open=True)
    (listed,) = await client.list_open_games()
    assert listed.seats[0].player == alice


# -- the stores themselves -------------------------------------------------------------------


@pytest.fixture
async def directory(store):
    """The directory beside each lobby store."""
    if hasattr(store, "pool"):
        return PostgresMemberDirectory(store.pool)
    return MemoryMemberDirectory()


async def test_a_directory_forgets_only_the_member_asked(directory):
    alice = await directory.ensure("alice", "Alice")
    bob = await directory.ensure("bob", "Bob")
    assert await directory.players_of(["alice", "bob", "nobody"]) == {"alice": alice, "bob": bob}
    assert await directory.forget("alice") is True
    assert await directory.forget("alice") is False
    assert await directory.players_of(["alice", "bob"]) == {"bob": bob}
    assert await directory.names([alice, bob]) == [PlayerName(bob, "Bob")]


# -- the migration ---------------------------------------------------------------------------


async def _migrated_before_members(dsn: str) -> None:
    """The lobby's schema as it was before 0005: the ledger, then every earlier file."""
    connection = await asyncpg.connect(dsn)
    try:
        await apply(connection, ())  # the ledger alone
        for migration in load("lobby"):
            if migration.version < 5:
                await connection.execute(migration.sql)
                await connection.execute(
                    "INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)",
                    "lobby", migration.version, migration.name)
    finally:
        await connection.close()


async def _seat(connection, game_id, index, member_id, name, *, bot="", took_over=False,
                erased=False) -> None:
    await connection.execute(
        "INSERT INTO lobby_seat (game_id, seat_index, member_id, display_name, erased, bot_level,"
        " took_over) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        game_id, index, member_id, name, erased, bot, took_over)


async def test_the_migration_gives_every_seated_member_an_id():
    async with scratch_database("members") as dsn:
        await _migrated_before_members(dsn)
        connection = await asyncpg.connect(dsn)
        try:
            old, new = uuid.uuid4(), uuid.uuid4()
            for game_id, code, updated in ((old, "AAAAAA", 1000), (new, "BBBBBB", 2000)):
                await connection.execute(
                    "INSERT INTO lobby_game (id, game_type, join_code, options_json, seats_total,"
                    " created_at_ms, updated_at_ms, expires_at) VALUES ($1, 'scopone_scientifico',"
                    " $2, '{}', 4, 1000, $3, now() + interval '1 hour')", game_id, code, updated)
            await _seat(connection, old, 0, "alice", "Old Alice")
            await _seat(connection, old, 1, "bot:1", "Bruno", bot="esperto")
            await _seat(connection, old, 2, "carol", "Carol", bot="esperto", took_over=True)
            await _seat(connection, old, 3, "deleted-0123", "deleted player", erased=True)
            await _seat(connection, new, 0, "alice", "Alice")
            await _seat(connection, new, 1, "bob", "Bob")

            assert await migrate(dsn, components=("lobby",)) == [
                f"lobby/{m.name}" for m in load("lobby") if m.version >= 5]

            rows = {row["member_id"]: row for row in await connection.fetch(
                "SELECT member_id, player_id, display_name FROM lobby_member")}
            assert set(rows) == {"alice", "bob", "carol"}  # no bot, no erased seat
            assert rows["alice"]["display_name"] == "Alice"  # the newest seating's name
            ids = [row["player_id"] for row in rows.values()]
            assert len(set(ids)) == 3 and all(PLAYER_ID.fullmatch(player) for player in ids)
            assert all(row["member_id"] not in row["player_id"] for row in rows.values())

            # The backfilled ids are the members' from now on.
            directory = PostgresMemberDirectory(await asyncpg.create_pool(dsn, min_size=1, max_size=1))
            try:
                assert await directory.ensure("alice", "Alice") == rows["alice"]["player_id"]
            finally:
                await directory.pool.close()
        finally:
            await connection.close()
