"""`your_turn` end to end (CONTRACT.md, Turn-based games): the whole stack as processes, two
gateways on one Redis and Postgres, a VAPID key, daily deadlines far away (DAILY_TURN_HOURS), and a
real push receiver on this machine (testing.push_receiver: it checks each push's signature and
decrypts it with http_ece).

When a daily game waits for a member who is away, their /ws/me is told and a push comes,
decrypted and correct, handled by one gateway of the two; a member at the table is told nothing;
two turns of one member within the hour are two `your_turn` messages and one push; a live game
never announces a turn."""

from __future__ import annotations

import json
import uuid

import pytest
import websockets
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from game.turn_notices import stream_name
from gateway.contract.push import PushPayload
from gateway.sessions import COOKIE_NAME
from services.stores import Keys, redis_client
from testing.players import Player, receive
from testing.prometheus import scrape
from testing.push_receiver import PushReceiver
from testing.servers import REDIS_URL
from testing.stack import real_stack
from testing.waiting import eventually

KEY_PEM = ec.generate_private_key(ec.SECP256R1()).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
DAILY_HOURS = 240  # nothing times out during a test


@pytest.fixture(scope="module")
def stack():
    with real_stack({"WEB_PUSH_VAPID_PRIVATE_KEY": KEY_PEM, "WEB_PUSH_SUBJECT": "mailto:ops@tavolo.example",
                     "DAILY_TURN_HOURS": str(DAILY_HOURS)}, label="turns", gateways=2) as running:
        yield running


@pytest.fixture
async def receiver():
    async with PushReceiver.running() as running:
        yield running


@pytest.fixture
async def redis(stack):
    client = redis_client(REDIS_URL)
    yield client, Keys(stack.env["REDIS_KEY_PREFIX"])
    await client.aclose()


class Member:
    """A logged-in player with a push subscription and a /ws/me socket (on either gateway)."""

    def __init__(self, player: Player, subscription: dict, me) -> None:
        self.player = player
        self.subscription = subscription
        self.me = me
        self.seat = -1
        self.table = None  # the game's socket, while at the table


async def _members(stack, receiver, *names: str) -> list[Member]:
    suffix = uuid.uuid4().hex[:6]
    made = []
    for number, name in enumerate(names):
        player = await Player(stack, f"{name}-{suffix}").login()
        subscription = receiver.subscribe()
        response = await player.http.post("/api/me/push", json=subscription)
        assert response.status_code == 201, response.text
        url = stack.gateway_urls[number % 2].replace("http://", "ws://") + "/ws/me"
        me = await websockets.connect(url, additional_headers={"Cookie": f"{COOKIE_NAME}={player.cookie}"},
                                      open_timeout=10)
        made.append(Member(player, subscription, me))
    return made


async def _close(members: list[Member]) -> None:
    for member in members:
        for socket in (member.me, member.table):
            if socket is not None:
                await socket.close()
        await member.player.close()


async def _seat(members: list[Member], options: dict) -> str:
    """The game the first member makes with ``options`` and the others join: its id (member i
    sits at seat i)."""
    first = members[0].player
    lobby = (await first.http.post("/api/games", json={"options": options})).json()
    for member in members[1:]:
        response = await member.player.http.post("/api/games/join", json={"code": lobby["join_code"]})
        assert response.status_code == 200, response.text
    for seat, member in enumerate(members):
        member.seat = seat
    return lobby["id"]


async def _told(stack, outcome: str) -> float:
    """How many turn notices both gateways handled with ``outcome``."""
    total = 0.0
    for gateway in ("gateway", "gateway2"):
        scraped = await scrape(stack, gateway)
        if scraped.has("tavolo_turn_notices_total", tavolo_turn_notice_outcome=outcome):
            total += scraped.value("tavolo_turn_notices_total", tavolo_turn_notice_outcome=outcome)
    return total


async def _handled(stack, outcome: str, count: int) -> None:
    async def enough():
        return await _told(stack, outcome) >= count

    await eventually(enough, timeout=30, what=f"not {count} turn notices {outcome}")


async def _sit_down(stack, member: Member, game_id: str, number: int) -> dict:
    """Open the member's game socket (on either gateway): the state it starts with."""
    member.table = await member.player.socket(game_id, gateway_url=stack.gateway_urls[number % 2],
                                              features="presence")
    return await receive(member.table, "state")


async def _connected(member: Member, game_id: str, seats: set[int]) -> None:
    """Wait until exactly ``seats`` are connected, as the game view says (the presence leases
    every gateway reads, which the turn notices read too)."""
    async def exactly():
        view = (await member.player.http.get(f"/api/games/{game_id}")).json()
        return {p["seat"] for p in view["players"] if p.get("connected") and not p.get("bot")} == seats

    await eventually(exactly, timeout=30, what=f"connected seats never became {sorted(seats)}")


async def _play(member: Member, game_id: str) -> None:
    """The member, on turn, plays their first legal card (the view read over REST: the socket's
    states may have been passed over while waiting for presence)."""
    state = (await member.player.http.get(f"/api/games/{game_id}")).json()
    assert state.get("your_turn"), state
    option = state["legal"][0]
    await member.table.send(json.dumps({"action": "play", "card": option["card"],
                                        "capture": option["captures"][0], "revision": state["revision"]}))


async def _wait_turn_left(members: list[Member], game_id: str, player: Member) -> None:
    async def moved():
        return await _turn(members, game_id) is not player

    await eventually(moved, timeout=30, interval=0.05, what="the play was not made")


async def _turn(members: list[Member], game_id: str) -> Member:
    view = (await members[0].player.http.get(f"/api/games/{game_id}")).json()
    return members[view["turn"]]


async def test_your_turn_reaches_the_member_away_once_and_never_the_one_at_the_table(stack, receiver, redis):
    members = await _members(stack, receiver, "ada", "ben", "cat", "dan")
    try:
        game_id = await _seat(members, {"pace": "daily"})

        # The table starts with nobody at it: the first to play is told, on one gateway only.
        leader = await _first_on_turn(members, game_id)
        told = await receive(leader.me, "your_turn", timeout=30)
        item = told["game"]
        assert (item["id"], item["your_turn"], item["status"], item["pace"]) == (game_id, True, "playing", "daily")
        assert [p["is_you"] for p in item["players"]] == [p["seat"] == leader.seat for p in item["players"]]
        push = await receiver.next_push(leader.subscription)
        PushPayload.model_validate(push.payload)
        assert push.payload == {"type": "your_turn", "game": game_id, "title": "Your turn",
                                "body": f"Scopone scientifico: it is your turn — {DAILY_HOURS - 1} h left",
                                "url": f"/games/{game_id}"}
        client, keys = redis
        assert await client.xlen(stream_name(keys)) >= 1
        await _handled(stack, "told", 1)
        assert await _told(stack, "told") == 1  # one gateway of the two handled it
        assert len(receiver.received(leader.subscription)) == 1

        # Everyone sits down: the turn passes to a member at the table, who is told nothing.
        for number, member in enumerate(members):
            await _sit_down(stack, member, game_id, number)
        await _connected(leader, game_id, {0, 1, 2, 3})
        await _play(leader, game_id)
        await _wait_turn_left(members, game_id, leader)
        await _handled(stack, "present", 1)
        nxt = await _turn(members, game_id)
        assert nxt is not leader

        # The leader leaves; the three others play: the turn comes back to the leader, who is told
        # again on /ws/me, but not pushed again within the hour.
        await leader.table.close()
        leader.table = None
        await _connected(nxt, game_id, {0, 1, 2, 3} - {leader.seat})
        for _ in range(3):
            player = await _turn(members, game_id)
            await _play(player, game_id)
            await _wait_turn_left(members, game_id, player)
        again = await receive(leader.me, "your_turn", timeout=30)
        assert (again["game"]["id"], again["game"]["your_turn"]) == (game_id, True)
        await _handled(stack, "told", 2)
        await _handled(stack, "present", 3)
        assert await _told(stack, "present") == 3  # the three at the table, none told
        assert await _told(stack, "told") == 2
        assert len(receiver.received(leader.subscription)) == 1
        for member in members:
            if member is not leader:
                assert receiver.received(member.subscription) == []
    finally:
        await _close(members)


async def _first_on_turn(members: list[Member], game_id: str) -> Member:
    async def started():
        view = (await members[0].player.http.get(f"/api/games/{game_id}")).json()
        return view.get("status") == "playing" and view.get("turn") is not None

    await eventually(started, timeout=30, what="the daily game did not start")
    return await _turn(members, game_id)


async def test_a_live_game_never_announces_a_turn(stack, receiver, redis):
    members = await _members(stack, receiver, "eve", "fay", "gus", "hal")
    client, keys = redis
    try:
        live_id = await _seat(members, {})
        leader = await _first_on_turn(members, live_id)
        await _sit_down(stack, leader, live_id, 0)
        await _play(leader, live_id)  # the turn passes to a member who is away

        # A daily game started after it is announced; the live one never was.
        others = await _members(stack, receiver, "ian", "joy", "kim", "lea")
        try:
            daily_id = await _seat(others, {"pace": "daily"})
            first = await _first_on_turn(others, daily_id)
            await receive(first.me, "your_turn", timeout=30)
            entries = await client.xrange(stream_name(keys))
            tables = {fields["table"] for _, fields in entries}
            assert daily_id in tables and live_id not in tables
            for member in members:
                assert receiver.received(member.subscription) == []
        finally:
            await _close(others)
    finally:
        await _close(members)
