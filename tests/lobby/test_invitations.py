"""Invitations through the gRPC clients, on both stores: Invite's answers and every refusal it
lists, and which invitations ListInvitations holds to."""

from __future__ import annotations

import asyncio
import uuid

from lobby.invitations import INVITATION_MS, MAX_INVITATIONS
from lobby.players import INVITATIONS_LISTED
from services.rpc.errors import Reason
from tavolo.lobby.v1 import lobby_pb2
from tests.lobby.helpers import fails

SCOPONE = "scopone_scientifico"
UNKNOWN = "Zz9_unknown-player-id"


async def players_of(friends, *members: str) -> dict[str, str]:
    return {m: await friends.client.ensure_member(m, m.title()) for m in members}


async def test_an_invitation_is_made_once_and_listed_for_the_invitee(friends):
    ids = await players_of(friends, "alice", "bob", "carol")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    at = friends.clock.now

    invited = await friends.players.invite(game.id, "alice", ids["carol"])

    assert invited.created and invited.invitee_member_id == "carol"
    assert (invited.by.player, invited.by.display_name) == (ids["alice"], "Alice")
    assert invited.game.id == game.id and invited.game.status == lobby_pb2.GAME_STATUS_LOBBY
    assert invited.game.players[0].player == ids["alice"]
    listed = await friends.players.list_invitations("carol")
    assert [(i.game.id, i.by.player, i.invited_at.ToMilliseconds()) for i in listed] == [
        (game.id, ids["alice"], at)]
    assert listed[0].game.join_code == game.join_code  # joining works as usual, by the code
    assert await friends.players.list_invitations("bob") == []

    # Invited again, by another seated member: not made again; the first time, the latest inviter.
    await friends.client.join_game("bob", "Bob", game.join_code)
    friends.clock.advance(60_000)
    again = await friends.players.invite(game.id, "bob", ids["carol"])
    assert not again.created and again.invitee_member_id == "carol"
    listed = await friends.players.list_invitations("carol")
    assert [(i.by.player, i.invited_at.ToMilliseconds()) for i in listed] == [(ids["bob"], at)]


async def test_inviting_a_member_seated_there_changes_nothing(friends):
    ids = await players_of(friends, "alice", "bob")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    await friends.client.join_game("bob", "Bob", game.join_code)
    invited = await friends.players.invite(game.id, "alice", ids["bob"])
    assert not invited.created and invited.invitee_member_id == "bob"
    assert await friends.players.list_invitations("bob") == []


async def test_invite_refusals_in_their_order(friends):
    ids = await players_of(friends, "alice", "bob", "carol", "dave", "erin")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    invite = friends.players.invite

    await fails(invite(str(uuid.uuid4()), "alice", ids["bob"]), Reason.GAME_NOT_FOUND)
    await fails(invite("not-a-game", "alice", ids["bob"]), Reason.GAME_NOT_FOUND)
    # Game errors come before the invitee is looked at.
    await fails(invite(game.id, "bob", UNKNOWN), Reason.NOT_SEATED, "Not seated at this game")
    await fails(invite(game.id, "alice", UNKNOWN), Reason.PLAYER_NOT_FOUND, "Player not found")
    await fails(invite(game.id, "alice", "bob"), Reason.PLAYER_NOT_FOUND)  # not a player id
    await fails(invite(game.id, "alice", ids["alice"]), Reason.SELF_RELATION,
                "Cannot invite yourself")
    await friends.players.block("bob", ids["alice"])
    await fails(invite(game.id, "alice", ids["bob"]), Reason.BLOCKED, "Blocked")
    await friends.players.block("alice", ids["carol"])
    await fails(invite(game.id, "alice", ids["carol"]), Reason.BLOCKED, "Blocked")

    for field, call in (("member_id", invite(game.id, "", ids["dave"])),
                        ("player", invite(game.id, "alice", "")),
                        ("game_id", invite("", "alice", ids["dave"]))):
        error = await fails(call, Reason.INVALID_ARGUMENT)
        assert error.metadata["field"] == field

    for member in ("dave", "erin", "frank"):
        await friends.client.join_game(member, member.title(), game.join_code)
    started = await friends.client.get_game(game.id)
    assert started.started
    await fails(invite(game.id, "alice", ids["carol"]), Reason.GAME_STARTED, "Game already started")


async def test_inviting_to_a_full_game_waiting_for_its_table_is_refused(friends):
    ids = await players_of(friends, "alice", "erin")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    for member in ("bob", "carol"):
        await friends.client.join_game(member, member.title(), game.join_code)
    friends.games.fail_creates = 1  # the last seat is taken, the table not made yet
    await fails(friends.client.join_game("dave", "Dave", game.join_code), Reason.UNAVAILABLE)
    await fails(friends.players.invite(game.id, "alice", ids["erin"]), Reason.GAME_FULL,
                "Game is full")


async def test_at_most_50_members_are_invited_to_a_game(friends):
    await players_of(friends, "alice")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    invitees = [f"i-{n}" for n in range(MAX_INVITATIONS + 1)]
    players = [await friends.lobby.members.ensure(m, m) for m in invitees]
    for at in range(0, MAX_INVITATIONS, 5):
        await asyncio.gather(*(friends.players.invite(game.id, "alice", p)
                               for p in players[at:at + 5]))

    error = await fails(friends.players.invite(game.id, "alice", players[-1]),
                        Reason.TOO_MANY_RELATIONS)
    assert error.metadata == {"limit": str(MAX_INVITATIONS)}
    assert not (await friends.players.invite(game.id, "alice", players[0])).created  # held
    # An invitation past its time makes room.
    friends.clock.advance(INVITATION_MS + 1)
    assert (await friends.players.invite(game.id, "alice", players[-1])).created


async def test_racing_invitations_to_the_last_place_make_one(friends):
    await players_of(friends, "alice")
    game = await friends.client.create_game("alice", "Alice", SCOPONE)
    players = [await friends.lobby.members.ensure(f"r-{n}", "R") for n in range(MAX_INVITATIONS + 1)]
    for at in range(0, MAX_INVITATIONS - 1, 4):  # four at a time: every connection warm
        await asyncio.gather(*(friends.lobby.invitations.invite(
            game.id, "alice", f"r-{n}", friends.clock.now, 0)
            for n in range(at, min(at + 4, MAX_INVITATIONS - 1))))

    results = await asyncio.gather(*(friends.lobby.invitations.invite(
        game.id, "alice", f"r-{n}", friends.clock.now, 0)
        for n in (MAX_INVITATIONS - 1, MAX_INVITATIONS)), return_exceptions=True)

    assert sorted(type(r).__name__ for r in results) == ["Invited", "ServiceError"], results
    assert players  # (ensured above: the rows reference them)


async def test_invitations_lapse_after_24_hours_and_list_newest_first(friends):
    ids = await players_of(friends, "alice", "bob", "carol")
    old = await friends.client.create_game("alice", "Alice", SCOPONE)
    await friends.players.invite(old.id, "alice", ids["carol"])
    friends.clock.advance(INVITATION_MS // 2)
    new = await friends.client.create_game("bob", "Bob", SCOPONE)
    await friends.players.invite(new.id, "bob", ids["carol"])

    assert [i.game.id for i in await friends.players.list_invitations("carol")] == [new.id, old.id]
    friends.clock.advance(INVITATION_MS // 2)  # the first is 24 hours old now
    assert [i.game.id for i in await friends.players.list_invitations("carol")] == [new.id]
    # Invited again after it lapsed: a new invitation, from now.
    renewed = await friends.players.invite(old.id, "alice", ids["carol"])
    assert renewed.created
    listed = await friends.players.list_invitations("carol")
    assert [i.game.id for i in listed] == [old.id, new.id]
    assert listed[0].invited_at.ToMilliseconds() == friends.clock.now


async def test_invitations_hold_only_while_the_invitee_could_join(friends):
    ids = await players_of(friends, "alice", "bob", "carol", "dave", "erin")
    joined = await friends.client.create_game("alice", "Alice", SCOPONE)
    started = await friends.client.create_game("bob", "Bob", SCOPONE)
    blocked_inviter = await friends.client.create_game("carol", "Carol", SCOPONE)
    blocker_seated = await friends.client.create_game("dave", "Dave", SCOPONE)
    held = await friends.client.create_game("erin", "Erin", SCOPONE)
    for game, inviter in ((joined, "alice"), (started, "bob"), (blocked_inviter, "carol"),
                          (blocker_seated, "dave"), (held, "erin")):
        await friends.players.invite(game.id, inviter, await _player("zoe", friends))
        friends.clock.advance(1)
    await friends.client.join_game("zoe", "Zoe", joined.join_code)  # seated there now
    for member in ("m1", "m2", "m3"):
        await friends.client.join_game(member, member, started.join_code)
    await friends.players.block("zoe", ids["carol"])  # the invitee blocked the inviter
    await friends.client.join_game("bob", "Bob", blocker_seated.join_code)
    await friends.players.block("bob", await _player("zoe", friends))  # one seated blocked zoe

    assert [i.game.id for i in await friends.players.list_invitations("zoe")] == [held.id]
    await friends.client.leave_game(held.id, "erin")  # the game is gone with its last person
    assert await friends.players.list_invitations("zoe") == []


async def test_an_invitation_to_a_game_the_invitee_could_not_join_is_made_but_not_listed(friends):
    """Invite's ``listed`` says whether ListInvitations holds the invitation now, which is when the
    gateway tells the invitee: not while someone sits there whom the invitee blocked or who
    blocked them (their join would be refused), though a third member may invite them."""
    ids = await players_of(friends, "alice", "bob", "carol")
    game = await friends.client.create_game("carol", "Carol", SCOPONE)
    await friends.client.join_game("alice", "Alice", game.join_code)
    await friends.players.block("alice", ids["bob"])

    invited = await friends.players.invite(game.id, "carol", ids["bob"])

    assert invited.created and not invited.listed
    assert await friends.players.list_invitations("bob") == []
    await friends.client.leave_game(game.id, "alice")  # the blocker left: it holds again
    assert [i.game.id for i in await friends.players.list_invitations("bob")] == [game.id]
    other = await friends.client.create_game("carol", "Carol", SCOPONE)
    assert (await friends.players.invite(other.id, "carol", ids["bob"])).listed


async def _player(member: str, friends) -> str:
    return await friends.client.ensure_member(member, member.title())


async def test_at_most_50_invitations_are_listed(friends):
    await _player("zoe", friends)
    for n in range(INVITATIONS_LISTED + 2):
        member = f"host-{n}"
        await friends.client.ensure_member(member, "Host")
        game = await friends.client.create_game(member, "Host", SCOPONE)
        await friends.players.invite(game.id, member, await _player("zoe", friends))
        friends.clock.advance(1)
    listed = await friends.players.list_invitations("zoe")
    assert len(listed) == INVITATIONS_LISTED
    assert [i.by.display_name for i in listed] == ["Host"] * INVITATIONS_LISTED
    times = [i.invited_at.ToMilliseconds() for i in listed]
    assert times == sorted(times, reverse=True)
    await fails(friends.players.list_invitations(""), Reason.INVALID_ARGUMENT)
