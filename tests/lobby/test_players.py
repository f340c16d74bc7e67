"""PlayersService through the gRPC client, on both stores: player pages, settings, following
and blocking, and every refusal the proto lists for them."""

from __future__ import annotations

import asyncio

import pytest

from lobby.players import Players
from lobby.postgres_store import PostgresLobbyStore
from lobby.relations import MAX_BLOCKED, MAX_FOLLOWING, Kind
from lobby.service import Lobby
from services.rpc.errors import Reason
from services.stores import postgres_pool
from tests.lobby.helpers import fails, full_game

UNKNOWN = "Zz9_unknown-player-id"  # the shape of a player id, nobody's


async def ensure(friends, *members: str) -> list[str]:
    """The members' player ids (each named after their member id)."""
    return [await friends.client.ensure_member(m, m.title()) for m in members]


async def many(friends, prefix: str, count: int) -> list[str]:
    """``count`` members made in the lobby itself (a call each would take seconds): their ids."""
    members = [f"{prefix}-{i}" for i in range(count)]
    for member in members:
        await friends.lobby.members.ensure(member, member)
    return members


async def fill(friends, kind: Kind, member_id: str, others: list[str]) -> None:
    """``member_id`` follows (or blocks) ``others``, set up in the store: four at a time, so
    that every connection of a pool has run the statements once (a race between a warm and a
    cold connection is no race: the cold one's first statements wait to be prepared)."""
    for at in range(0, len(others), 4):
        await asyncio.gather(*(friends.lobby.relations.add(kind, member_id, other, friends.clock.now)
                               for other in others[at:at + 4]))


# -- settings ------------------------------------------------------------------------------


async def test_settings_default_to_showing_online_and_change(friends):
    await ensure(friends, "alice")
    assert (await friends.players.get_settings("alice")).show_online is True
    assert (await friends.players.update_settings("alice", show_online=False)).show_online is False
    assert (await friends.players.get_settings("alice")).show_online is False
    # Nothing set: nothing changes, the settings are answered.
    assert (await friends.players.update_settings("alice")).show_online is False
    assert (await friends.players.update_settings("alice", show_online=True)).show_online is True


async def test_settings_refuse_an_empty_or_unknown_member(friends):
    error = await fails(friends.players.get_settings(""), Reason.INVALID_ARGUMENT,
                        "member_id is required")
    assert error.metadata["field"] == "member_id"
    await fails(friends.players.update_settings("", show_online=False), Reason.INVALID_ARGUMENT)
    # Never made by EnsureMember: nothing of theirs can be stored.
    error = await fails(friends.players.update_settings("ghost", show_online=False),
                        Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "member_id" and "EnsureMember" in error.message
    assert (await friends.players.get_settings("ghost")).show_online is True


# -- following -----------------------------------------------------------------------------


async def test_following_newest_first_idempotent_and_undone(friends):
    _, bob, carol = await ensure(friends, "alice", "bob", "carol")
    await friends.players.follow("alice", bob)
    first_at = friends.clock.now
    friends.clock.advance(1000)
    await friends.players.follow("alice", carol)
    friends.clock.advance(1000)
    await friends.players.follow("alice", bob)  # again: the first time is kept

    listed = await friends.players.list_following("alice")
    assert [(p.player, p.display_name) for p in listed] == [(carol, "Carol"), (bob, "Bob")]
    assert listed[1].followed_at.ToMilliseconds() == first_at
    assert all(p.show_online and p.playing == "" for p in listed)
    assert await friends.players.list_following("bob") == []  # following is one way

    await friends.players.unfollow("alice", bob)
    await friends.players.unfollow("alice", bob)  # idempotent
    await friends.players.unfollow("alice", UNKNOWN)  # an unknown player too
    await friends.players.unfollow("alice", "not a player id")
    assert [p.player for p in await friends.players.list_following("alice")] == [carol]


async def test_following_refusals(friends):
    alice, bob = await ensure(friends, "alice", "bob")
    await fails(friends.players.follow("alice", alice), Reason.SELF_RELATION,
                "Cannot follow yourself")
    error = await fails(friends.players.follow("alice", UNKNOWN), Reason.PLAYER_NOT_FOUND,
                        "Player not found")
    assert error.metadata == {"player": UNKNOWN}
    await fails(friends.players.follow("alice", "bob"), Reason.PLAYER_NOT_FOUND)  # a member id
    await fails(friends.players.follow("alice", "x" * 5000), Reason.PLAYER_NOT_FOUND)
    error = await fails(friends.players.follow("alice", ""), Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "player"
    error = await fails(friends.players.follow("", bob), Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "member_id"
    await fails(friends.players.follow("ghost", bob), Reason.INVALID_ARGUMENT)
    await fails(friends.players.unfollow("", bob), Reason.INVALID_ARGUMENT)
    await fails(friends.players.unfollow("alice", ""), Reason.INVALID_ARGUMENT)
    await fails(friends.players.list_following(""), Reason.INVALID_ARGUMENT)
    assert await friends.players.list_following("alice") == []


async def test_following_stops_at_500(friends):
    await ensure(friends, "alice")
    others = await many(friends, "f", MAX_FOLLOWING + 1)
    await fill(friends, Kind.FOLLOW, "alice", others[:MAX_FOLLOWING])
    last = (await friends.lobby.members.named([others[-1]]))[others[-1]].player
    first = (await friends.lobby.members.named([others[0]]))[others[0]].player

    error = await fails(friends.players.follow("alice", last), Reason.TOO_MANY_RELATIONS,
                        "Following too many players")
    assert error.metadata == {"limit": "500"}
    await friends.players.follow("alice", first)  # followed already: fine at the limit
    assert len(await friends.players.list_following("alice")) == MAX_FOLLOWING


async def test_two_racing_follows_at_499_leave_exactly_500(friends):
    await ensure(friends, "alice")
    others = await many(friends, "r", MAX_FOLLOWING + 1)
    await fill(friends, Kind.FOLLOW, "alice", others[:MAX_FOLLOWING - 1])
    named = await friends.lobby.members.named(others[-2:])
    racing = [named[other].player for other in others[-2:]]

    results = await asyncio.gather(*(friends.players.follow("alice", p) for p in racing),
                                   return_exceptions=True)

    refused = [r for r in results if r is not None]
    assert len(refused) == 1 and refused[0].reason is Reason.TOO_MANY_RELATIONS, results
    assert len(await friends.players.list_following("alice")) == MAX_FOLLOWING


# -- blocking ------------------------------------------------------------------------------


async def test_blocking_newest_first_idempotent_and_undone(friends):
    alice, bob, carol = await ensure(friends, "alice", "bob", "carol")
    await friends.players.follow("alice", bob)
    await friends.players.block("alice", bob)
    friends.clock.advance(1000)
    await friends.players.block("alice", carol)
    await friends.players.block("alice", bob)  # idempotent

    assert [(p.player, p.display_name) for p in await friends.players.list_blocked("alice")] == [
        (carol, "Carol"), (bob, "Bob")]
    # Blocking changes nobody's following.
    assert [p.player for p in await friends.players.list_following("alice")] == [bob]

    await friends.players.unblock("alice", carol)
    await friends.players.unblock("alice", carol)
    await friends.players.unblock("alice", UNKNOWN)
    assert [p.player for p in await friends.players.list_blocked("alice")] == [bob]
    await fails(friends.players.block("alice", alice), Reason.SELF_RELATION,
                "Cannot block yourself")
    await fails(friends.players.block("alice", UNKNOWN), Reason.PLAYER_NOT_FOUND)
    await fails(friends.players.block("", bob), Reason.INVALID_ARGUMENT)
    await fails(friends.players.block("alice", ""), Reason.INVALID_ARGUMENT)
    await fails(friends.players.block("ghost", bob), Reason.INVALID_ARGUMENT)
    await fails(friends.players.unblock("", bob), Reason.INVALID_ARGUMENT)
    await fails(friends.players.list_blocked(""), Reason.INVALID_ARGUMENT)


async def test_blocking_stops_at_1000(friends):
    await ensure(friends, "alice")
    others = await many(friends, "b", MAX_BLOCKED + 1)
    await fill(friends, Kind.BLOCK, "alice", others[:MAX_BLOCKED])
    last = (await friends.lobby.members.named([others[-1]]))[others[-1]].player
    error = await fails(friends.players.block("alice", last), Reason.TOO_MANY_RELATIONS,
                        "Blocking too many players")
    assert error.metadata == {"limit": "1000"}


# -- player pages --------------------------------------------------------------------------


async def test_a_player_page_as_its_viewer_sees_it(friends):
    alice, bob = await ensure(friends, "alice", "bob")
    page = await friends.players.get_player("alice", bob)
    assert (page.player, page.display_name, page.member_id) == (bob, "Bob", "bob")
    assert page.show_online and not page.following and not page.blocked and list(page.playing) == []

    await friends.players.follow("alice", bob)
    await friends.players.block("alice", bob)
    page = await friends.players.get_player("alice", bob)
    assert page.following and page.blocked
    # The viewer's relations, not the player's: bob sees alice plainly, only hidden from.
    own = await friends.players.get_player("bob", alice)
    assert not own.following and not own.blocked
    assert (await friends.players.get_player("alice", alice)).player == alice


async def test_a_player_page_refusals(friends):
    await ensure(friends, "alice")
    await fails(friends.players.get_player("alice", UNKNOWN), Reason.PLAYER_NOT_FOUND)
    await fails(friends.players.get_player("alice", "alice"), Reason.PLAYER_NOT_FOUND)
    error = await fails(friends.players.get_player("", UNKNOWN), Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "viewer_member_id"
    error = await fails(friends.players.get_player("alice", ""), Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "player"


async def test_playing_lists_the_watchable_games_a_player_plays_newest_first(friends):
    (dave,) = await ensure(friends, "dave")
    await ensure(friends, "alice", "bob", "carol", "erin", "frank", "gina", "hal")
    first = await full_game(friends.client, ("alice", "bob", "carol", "dave"))
    friends.clock.advance(60_000)
    second = await full_game(friends.client, ("erin", "frank", "gina", "dave"))
    assert first.started and second.started
    # Not watchable: no spectators allowed; still waiting in the lobby.
    hidden = await friends.client.create_game("hal", "Hal", "scopone_scientifico", spectators=False)
    for member in ("alice", "bob", "dave"):
        hidden = (await friends.client.join_game(member, member.title(), hidden.join_code)).game
    assert hidden.started
    await friends.client.create_game("dave", "Dave", "scopone_scientifico")

    assert list((await friends.players.get_player("alice", dave)).playing) == [second.id, first.id]
    followed = await _follow_and_list(friends, "alice", dave)
    assert followed.playing == second.id  # the most recently started

    await friends.client.mark_finished(second.id)
    assert list((await friends.players.get_player("alice", dave)).playing) == [first.id]
    # A seat a bot took over from the player: they left it, they play there no more.
    await friends.client.leave_game(first.id, "dave")
    assert list((await friends.players.get_player("alice", dave)).playing) == []
    assert (await _follow_and_list(friends, "alice", dave)).playing == ""


async def _follow_and_list(friends, member_id: str, player: str):
    await friends.players.follow(member_id, player)
    return next(p for p in await friends.players.list_following(member_id) if p.player == player)


async def test_a_player_who_hides_or_blocked_the_viewer_shows_nothing_of_being_around(friends):
    alice, bob, _, _ = await ensure(friends, "alice", "bob", "carol", "dave")
    game = await full_game(friends.client, ("bob", "carol", "dave", "alice"))
    await friends.players.follow("alice", bob)
    assert (await friends.players.get_player("alice", bob)).show_online
    assert list((await friends.players.get_player("alice", bob)).playing) == [game.id]

    await friends.players.update_settings("bob", show_online=False)
    page = await friends.players.get_player("alice", bob)
    assert not page.show_online and list(page.playing) == [game.id]
    assert not (await friends.players.list_following("alice"))[0].show_online

    await friends.players.update_settings("bob", show_online=True)
    await friends.players.block("bob", alice)
    page = await friends.players.get_player("alice", bob)
    assert not page.show_online and list(page.playing) == [] and not page.blocked
    followed = (await friends.players.list_following("alice"))[0]
    assert not followed.show_online and followed.playing == ""
    # Others still see bob as he is.
    assert (await friends.players.get_player("carol", bob)).show_online


@pytest.mark.parametrize("call", ["get_player", "follow", "block"])
async def test_an_erased_player_is_found_no_more(friends, call):
    _, bob = await ensure(friends, "alice", "bob")
    await friends.client.erase_member("bob")
    await fails(getattr(friends.players, call)("alice", bob), Reason.PLAYER_NOT_FOUND)


async def test_the_store_counts_racing_follows_one_after_the_other(friends):
    """The store itself, without the calls' look-ups in between: both adds start together."""
    await ensure(friends, "alice")
    others = await many(friends, "s", MAX_FOLLOWING + 1)
    relations = friends.lobby.relations
    await fill(friends, Kind.FOLLOW, "alice", others[:MAX_FOLLOWING - 1])

    results = await asyncio.gather(
        *(relations.add(Kind.FOLLOW, "alice", other, friends.clock.now) for other in others[-2:]),
        return_exceptions=True)

    assert sorted(type(r).__name__ for r in results) == ["Added", "ServiceError"], results
    assert len(await relations.listed(Kind.FOLLOW, "alice")) == MAX_FOLLOWING


async def test_a_database_that_does_not_answer_is_unavailable(lobby_database, game_client):
    """Every call of PlayersService on a Postgres that is gone: UNAVAILABLE, never a 500."""
    pool = await postgres_pool(lobby_database, max_size=1, name="lobby-gone")
    players = Players(Lobby(PostgresLobbyStore(pool, lobby_database, 3600), game_client))
    await pool.close()
    game_id = "0d4bd7a4-93c6-4c55-9d8e-7f1a2f5e6b01"
    for call in (players.get_player("alice", UNKNOWN), players.get_settings("alice"),
                 players.update_settings("alice", False), players.add(Kind.FOLLOW, "alice", UNKNOWN),
                 players.remove(Kind.FOLLOW, "alice", UNKNOWN), players.list_following("alice"),
                 players.add(Kind.BLOCK, "alice", UNKNOWN), players.list_blocked("alice"),
                 players.invite(game_id, "alice", UNKNOWN), players.list_invitations("alice")):
        await fails(call, Reason.UNAVAILABLE)
