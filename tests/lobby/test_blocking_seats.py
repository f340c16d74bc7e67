"""Blocking in seating, through the gRPC clients, on both stores: two members of whom one
blocked the other never sit at one game (JoinGame and Rematch answer BLOCKED, QuickMatch seats
the member elsewhere)."""

from __future__ import annotations

import pytest

from services.rpc.errors import Reason
from tests.lobby.helpers import fails

SCOPONE = "scopone_scientifico"


async def players_of(friends, *members: str) -> list[str]:
    return [await friends.client.ensure_member(m, m.title()) for m in members]


@pytest.mark.parametrize("blocker, blocked_one", [("alice", "bob"), ("bob", "alice")])
async def test_a_join_is_refused_either_way_and_allowed_once_unblocked(friends, blocker,
                                                                       blocked_one):
    players = dict(zip(("alice", "bob"), await players_of(friends, "alice", "bob"), strict=True))
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    await friends.client.join_game("carol", "Carol", game.join_code)
    await friends.players.block(blocker, players[blocked_one])

    await fails(friends.client.join_game("bob", "Bob", game.join_code), Reason.BLOCKED, "Blocked")
    seated = await friends.client.get_game(game.id)
    assert [s.member_id for s in seated.seats] == ["alice", "carol"]

    await friends.players.unblock(blocker, players[blocked_one])
    joined = await friends.client.join_game("bob", "Bob", game.join_code)
    assert [s.member_id for s in joined.game.seats] == ["alice", "carol", "bob"]


async def test_a_block_counts_only_between_the_two(friends):
    _, bob = await players_of(friends, "alice", "bob")
    game = await friends.client.create_game("carol", "Carol", SCOPONE)
    await friends.players.block("alice", bob)
    await friends.client.join_game("alice", "Alice", game.join_code)
    await fails(friends.client.join_game("bob", "Bob", game.join_code), Reason.BLOCKED)
    other = await friends.client.create_game("dave", "Dave", SCOPONE)
    assert (await friends.client.join_game("bob", "Bob", other.join_code)).game.seats[1].member_id == "bob"


async def test_a_member_seated_already_is_answered_the_game_and_a_full_game_is_full(friends):
    _, bob = await players_of(friends, "alice", "bob")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    await friends.client.join_game("bob", "Bob", game.join_code)
    # Blocked after sitting down together: the join again changes nothing and is answered.
    await friends.players.block("alice", bob)
    again = await friends.client.join_game("bob", "Bob", game.join_code)
    assert [s.member_id for s in again.game.seats] == ["alice", "bob"]
    # A full game is "full" to anyone, blocked or not: the block tells nothing there.
    await friends.client.join_game("carol", "Carol", game.join_code)
    await friends.client.join_game("dave", "Dave", game.join_code)
    erin = await friends.client.ensure_member("erin", "Erin")
    await friends.players.block("alice", erin)
    await fails(friends.client.join_game("erin", "Erin", game.join_code), Reason.GAME_FULL)


async def test_quick_match_seats_the_member_at_the_game_without_the_blocker(friends):
    _, bob = await players_of(friends, "alice", "bob")
    await friends.players.block("alice", bob)
    with_alice = await friends.client.create_game("alice", "Alice", SCOPONE, open=True)
    friends.clock.advance(1000)
    without = await friends.client.create_game("carol", "Carol", SCOPONE, open=True)

    result = await friends.client.quick_match("bob", "Bob", SCOPONE)

    assert result.game.id == without.id and not result.created
    assert [s.member_id for s in result.game.seats] == ["carol", "bob"]
    assert [s.member_id for s in (await friends.client.get_game(with_alice.id)).seats] == ["alice"]


@pytest.mark.parametrize("blocker", ["alice", "bob"])
async def test_quick_match_with_only_the_blockers_game_open_creates_another(friends, blocker):
    alice, bob = await players_of(friends, "alice", "bob")
    await friends.players.block(blocker, bob if blocker == "alice" else alice)
    with_alice = await friends.client.create_game("alice", "Alice", SCOPONE, open=True)

    result = await friends.client.quick_match("bob", "Bob", SCOPONE)

    assert result.created and result.game.id != with_alice.id
    assert [s.member_id for s in result.game.seats] == ["bob"]
    assert [s.member_id for s in (await friends.client.get_game(with_alice.id)).seats] == ["alice"]
    assert {g.id for g in await friends.client.list_open_games(SCOPONE)} == {with_alice.id,
                                                                            result.game.id}


async def test_a_rematch_does_not_seat_a_member_with_one_who_blocked_them(friends):
    _, bob = await players_of(friends, "alice", "bob")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    for member in ("bob", "carol", "dave"):
        game = (await friends.client.join_game(member, member.title(), game.join_code)).game
    friends.games.finished.add(game.id)
    await friends.players.block("alice", bob)

    first = await friends.client.rematch("alice", "Alice", game.id)
    await fails(friends.client.rematch("bob", "Bob", game.id), Reason.BLOCKED, "Blocked")
    assert [s.member_id for s in (await friends.client.get_game(first.game.id)).seats] == ["alice"]
    assert len((await friends.client.rematch("carol", "Carol", game.id)).game.seats) == 2
