"""PlayersService's Web Push subscriptions, over gRPC, on both stores: adding, the endpoint as
one browser's, the limit of 10 (the oldest replaced), removing (the member's, and any member's
after a 404/410), and erasure."""

from __future__ import annotations

from lobby.push_subscriptions import MAX_PUSH_SUBSCRIPTIONS
from services.rpc.errors import Reason
from tests.lobby.helpers import fails

P256DH = "B" + "A" * 86  # the gateway checks the keys' meaning; the lobby keeps the text
AUTH = "A" * 22


def endpoint(n: int | str) -> str:
    return f"https://push.example.net/wpush/{n}"


async def endpoints(players, member: str) -> list[str]:
    return [s.endpoint for s in await players.list_push_subscriptions(member)]


async def test_add_list_and_remove(friends):
    await friends.client.ensure_member("alice", "Alice")
    await friends.players.add_push_subscription("alice", endpoint(1), P256DH, AUTH)
    friends.clock.advance(1000)
    await friends.players.add_push_subscription("alice", endpoint(2), P256DH, "B" * 22)

    listed = await friends.players.list_push_subscriptions("alice")
    assert [s.endpoint for s in listed] == [endpoint(2), endpoint(1)]  # newest first
    assert (listed[0].p256dh, listed[0].auth) == (P256DH, "B" * 22)
    assert listed[0].created_at.ToMilliseconds() == friends.clock.now

    await friends.players.remove_push_subscription("alice", endpoint(2))
    await friends.players.remove_push_subscription("alice", endpoint(9))  # idempotent
    assert await endpoints(friends.players, "alice") == [endpoint(1)]
    assert await friends.players.list_push_subscriptions("nobody") == []


async def test_an_endpoint_is_one_browsers(friends):
    for member in ("alice", "bob"):
        await friends.client.ensure_member(member, member.title())
    await friends.players.add_push_subscription("alice", endpoint(1), P256DH, AUTH)
    # Subscribing again takes the new keys, without a second row.
    await friends.players.add_push_subscription("alice", endpoint(1), P256DH, "C" * 22)
    assert [s.auth for s in await friends.players.list_push_subscriptions("alice")] == ["C" * 22]
    # The browser changed hands: it is bob's now, and alice's pushes no longer go there.
    await friends.players.add_push_subscription("bob", endpoint(1), P256DH, AUTH)
    assert await endpoints(friends.players, "alice") == []
    assert await endpoints(friends.players, "bob") == [endpoint(1)]
    # Another member cannot remove it by its endpoint.
    await friends.players.remove_push_subscription("alice", endpoint(1))
    assert await endpoints(friends.players, "bob") == [endpoint(1)]


async def test_one_more_than_the_limit_replaces_the_oldest(friends):
    await friends.client.ensure_member("alice", "Alice")
    for n in range(MAX_PUSH_SUBSCRIPTIONS + 2):
        friends.clock.advance(1000)
        await friends.players.add_push_subscription("alice", endpoint(n), P256DH, AUTH)
    kept = await endpoints(friends.players, "alice")
    assert kept == [endpoint(n) for n in reversed(range(2, MAX_PUSH_SUBSCRIPTIONS + 2))]


async def test_remove_endpoint_forgets_it_whoevers_it_is(friends):
    await friends.client.ensure_member("alice", "Alice")
    await friends.players.add_push_subscription("alice", endpoint(1), P256DH, AUTH)
    await friends.players.add_push_subscription("alice", endpoint(2), P256DH, AUTH)
    await friends.players.remove_endpoint(endpoint(1))
    await friends.players.remove_endpoint(endpoint(1))  # idempotent
    assert await endpoints(friends.players, "alice") == [endpoint(2)]


async def test_erasure_removes_the_members_subscriptions(friends):
    await friends.client.ensure_member("alice", "Alice")
    await friends.client.ensure_member("bob", "Bob")
    await friends.players.add_push_subscription("alice", endpoint(1), P256DH, AUTH)
    await friends.players.add_push_subscription("bob", endpoint(2), P256DH, AUTH)

    await friends.client.erase_member("alice")

    assert await endpoints(friends.players, "alice") == []
    assert await endpoints(friends.players, "bob") == [endpoint(2)]
    # The same login coming back starts without them.
    await friends.client.ensure_member("alice", "Alice")
    assert await endpoints(friends.players, "alice") == []


async def test_bad_arguments(friends):
    await friends.client.ensure_member("alice", "Alice")
    players = friends.players
    await fails(players.add_push_subscription("", endpoint(1), P256DH, AUTH), Reason.INVALID_ARGUMENT,
                "member_id is required")
    await fails(players.add_push_subscription("alice", "", P256DH, AUTH), Reason.INVALID_ARGUMENT,
                "endpoint is required")
    await fails(players.add_push_subscription("alice", endpoint("x" * 1024), P256DH, AUTH),
                Reason.INVALID_ARGUMENT, "endpoint is longer than 1024 characters")
    await fails(players.add_push_subscription("alice", endpoint(1), "", AUTH), Reason.INVALID_ARGUMENT,
                "p256dh is required")
    await fails(players.add_push_subscription("alice", endpoint(1), P256DH, "a\nb"),
                Reason.INVALID_ARGUMENT, "auth must be printable ASCII")
    # A member the directory does not know has nobody to push to.
    await fails(players.add_push_subscription("stranger", endpoint(1), P256DH, AUTH),
                Reason.INVALID_ARGUMENT)
    await fails(players.remove_endpoint(""), Reason.INVALID_ARGUMENT, "endpoint is required")
    await fails(players.list_push_subscriptions(""), Reason.INVALID_ARGUMENT, "member_id is required")
    assert await endpoints(players, "stranger") == []
