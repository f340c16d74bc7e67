"""EraseMember takes every relation of and about the member with it, on both stores: follows,
blocks, settings and invitations, made by them or naming them."""

from __future__ import annotations

from services.rpc.errors import Reason
from tests.lobby.helpers import fails

SCOPONE = "scopone_scientifico"


async def test_erasure_removes_every_relation_of_and_about_the_member(friends):
    ids = {m: await friends.client.ensure_member(m, m.title()) for m in ("alice", "bob", "carol")}
    players = friends.players
    # bob follows and blocks, and is followed and blocked.
    await players.follow("bob", ids["alice"])
    await players.block("bob", ids["carol"])
    await players.follow("alice", ids["bob"])
    await players.follow("alice", ids["carol"])
    await players.block("carol", ids["bob"])
    await players.update_settings("bob", show_online=False)
    # bob invites, and is invited.
    by_bob = await friends.client.create_game("bob", "Bob", SCOPONE)
    await players.invite(by_bob.id, "bob", ids["alice"])
    by_alice = await friends.client.create_game("alice", "Alice", SCOPONE)
    await players.invite(by_alice.id, "alice", ids["bob"])
    assert len(await players.list_invitations("alice")) == 1

    await friends.client.erase_member("bob")

    assert [p.player for p in await players.list_following("alice")] == [ids["carol"]]
    assert await players.list_blocked("carol") == []
    assert await players.list_invitations("alice") == []  # his invitation is gone
    await fails(players.get_player("alice", ids["bob"]), Reason.PLAYER_NOT_FOUND)
    # Nothing of his own is left either: the same login coming back starts afresh.
    new_bob = await friends.client.ensure_member("bob", "Bob")
    assert new_bob != ids["bob"]
    assert await players.list_following("bob") == []
    assert await players.list_blocked("bob") == []
    assert await players.list_invitations("bob") == []
    assert (await players.get_settings("bob")).show_online is True
    page = await players.get_player("carol", new_bob)
    assert not page.following and not page.blocked
    # And carol's block was of the erased member, not of the login: bob may join her now.
    game = await friends.client.create_game("carol", "Carol", SCOPONE)
    assert len((await friends.client.join_game("bob", "Bob", game.join_code)).game.seats) == 2
