"""The rate limits end to end: floods of logins, REST writes and WebSocket messages are refused
(429 with Retry-After; ``rate_limited`` on an open socket) per session and per client address,
while everyone else goes on.

Each player comes from an address of their own, given as X-Forwarded-For by 127.0.0.1, which the
gateway trusts (FORWARDED_ALLOW_IPS): the address uvicorn hands the gateway is the one limited.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json

import pytest
import websockets

from gateway.sessions import COOKIE_NAME
from testing.players import Player, receive
from testing.prometheus import scrape
from testing.stack import Stack

WS_PER_SECOND = 5
LIMITS = {
    "RATE_LIMIT_LOGIN_PER_MINUTE": "1", "RATE_LIMIT_LOGIN_BURST": "3",
    "RATE_LIMIT_WRITES_PER_MINUTE": "1", "RATE_LIMIT_WRITES_BURST": "3",
    "RATE_LIMIT_WS_MESSAGES_PER_SECOND": str(WS_PER_SECOND), "RATE_LIMIT_WS_MESSAGES_BURST": "5",
    "RATE_LIMIT_PER_IP_FACTOR": "2",
}
_addresses = (f"203.0.113.{n}" for n in itertools.count(1))


@pytest.fixture(scope="module")
def stack():
    running = Stack(LIMITS).start()
    yield running
    running.stop()


def from_address(player: Player, address: str | None = None) -> Player:
    player.http.headers["X-Forwarded-For"] = address or next(_addresses)
    return player


@pytest.fixture
async def people(stack):
    """alice, bob, carol and dave, logged in, each from an address of their own."""
    made = [await from_address(Player(stack, name)).login()
            for name in ("alice", "bob", "carol", "dave")]
    yield made
    for player in made:
        await player.close()


def refused(response) -> int:
    """The Retry-After of CONTRACT's 429."""
    assert response.status_code == 429, response.text
    assert response.json() == {"detail": "Too many requests"}
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= 60  # a token a minute
    return retry_after


async def test_a_flood_of_writes_is_refused_per_session_then_per_address(stack, people):
    alice, bob, carol, _ = people
    shared = next(_addresses)  # one household: 2 x 3 writes a burst
    for player in people[:3]:
        from_address(player, shared)
    flood = [await alice.http.post("/api/games/join", json={"code": "ZZZZZZ"}) for _ in range(8)]
    assert [r.status_code for r in flood[:3]] == [404] * 3
    for response in flood[3:]:
        refused(response)
    # Another session at the same address still writes: the address has 3 tokens left.
    assert (await bob.http.post("/api/games")).status_code == 201
    assert (await carol.http.post("/api/games/join", json={"code": "ZZZZZZ"})).status_code == 404
    assert (await carol.http.post("/api/games/join", json={"code": "ZZZZZZ"})).status_code == 404
    refused(await carol.http.post("/api/games/join", json={"code": "ZZZZZZ"}))  # the address's
    from_address(carol)  # her own session still has a token
    assert (await carol.http.post("/api/games/join", json={"code": "ZZZZZZ"})).status_code == 404
    assert (await alice.http.get("/api/me")).status_code == 200  # reads are not limited
    assert (await scrape(stack, "gateway")).value("tavolo_rate_limited_total",
                                                  tavolo_rate_limit_kind="write") >= 6


@contextlib.asynccontextmanager
async def newcomer(stack, name: str):
    player = Player(stack, name)
    try:
        yield from_address(player)
    finally:
        await player.close()


async def test_a_flood_of_logins_is_refused_per_address_and_per_session(stack):
    async with newcomer(stack, "erin") as erin:
        answers = [await erin.http.get("/auth/login") for _ in range(8)]  # no session: the address
        assert [r.status_code for r in answers[:6]] == [302] * 6  # 2 x 3
        for response in answers[6:]:
            refused(response)
    async with newcomer(stack, "frank") as frank:
        await frank.login()
        answers = []
        for _ in range(5):  # a new address each time: only the session is limited
            answers.append(await from_address(frank).http.get("/auth/default/login"))
        assert [r.status_code for r in answers[:3]] == [302] * 3
        for response in answers[3:]:
            refused(response)
        assert (await frank.http.get("/auth/logout")).status_code == 302  # never limited
    assert (await scrape(stack, "gateway")).value("tavolo_rate_limited_total",
                                                  tavolo_rate_limit_kind="login") >= 4


async def socket_of(player: Player, game_id: str):
    """The player's socket at the game, from the player's address."""
    url = player.stack.gateway_url.replace("http://", "ws://") + f"/ws/games/{game_id}"
    return await websockets.connect(url, open_timeout=10, additional_headers={
        "Cookie": f"{COOKIE_NAME}={player.cookie}",
        "X-Forwarded-For": player.http.headers["X-Forwarded-For"]})


async def play(socket, game: dict, message_id: str | None = None) -> None:
    move = game["legal"][0]
    await socket.send(json.dumps({"action": "play", "card": move["card"], "capture": move["captures"][0],
                                  **({"id": message_id} if message_id else {})}))


async def state_after(socket, seat: int) -> dict:
    """The next state in which ``seat`` made the last play."""
    while True:
        game = (await receive(socket, "state"))["game"]
        if (game.get("last_play") or {}).get("seat") == seat:
            return game


async def table_of(people) -> list:
    """A game of the four, started, and each one's socket at it."""
    lobby = (await people[0].http.post("/api/games")).json()
    for player in people[1:]:
        assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    return [await socket_of(player, lobby["id"]) for player in people]


async def test_a_socket_flood_is_refused_while_the_table_plays_on(stack, people):
    sockets = await table_of(people)
    try:
        views = [(await receive(socket, "state"))["game"] for socket in sockets]
        # The seats in turn from the leader of hand 1: the leader floods, the next one plays.
        seats = [(views[0]["turn"] + k) % 4 for k in range(4)]
        leader, second = sockets[seats[0]], sockets[seats[1]]
        await play(leader, views[seats[0]])
        game = await state_after(second, seats[0])

        # the leader floods (each message answered with its id), and the next seat plays meanwhile.
        flood = [f"f-{n}" for n in range(30)]
        for message_id in flood:
            await leader.send(json.dumps({"action": "ack", "id": message_id}))
        await play(second, game)
        assert (await state_after(second, seats[1]))["last_play"]["seat"] == seats[1]  # answered
        answers = {}
        while len(answers) < len(flood):
            message = await receive(leader, "error")
            answers[message["id"]] = message
        codes = [answers[message_id]["code"] for message_id in flood]
        assert set(codes) == {"illegal_move", "rate_limited"}  # ack mid-hand; or over the limit
        assert codes[:4] == ["illegal_move"] * 4  # the burst of 5 (one token went to the play)
        assert codes.count("rate_limited") >= 10
        limited = next(m for m in answers.values() if m["code"] == "rate_limited")
        assert limited["message"] == ("Too many messages: nothing was done. Wait a moment, then "
                                      "send it again")

        # the other two play on; then the leader, once its bucket has a token again, plays too.
        for before, seat in itertools.pairwise(seats[1:]):
            game = await state_after(sockets[seat], before)
            await play(sockets[seat], game)
        game = await state_after(leader, seats[3])
        for attempt in range(50):
            await play(leader, game, f"m-{attempt}")
            message = await receive(leader)
            if message["type"] == "state":
                break
            assert (message["code"], message["id"]) == ("rate_limited", f"m-{attempt}")
            await asyncio.sleep(1 / WS_PER_SECOND)  # a token's refill
        assert message["game"]["last_play"]["seat"] == seats[0]
        assert message["game"]["revision"] == game["revision"] + 1
    finally:
        for socket in sockets:
            await socket.close()
    assert (await scrape(stack, "gateway")).value("tavolo_rate_limited_total",
                                                  tavolo_rate_limit_kind="ws_message") >= 10


async def test_a_burst_of_500_messages_is_answered_and_the_socket_stays_open(stack, people):
    """500 messages sent at once: each one with an id is answered (refused, or over the limit),
    none closes the socket, and the player's move plays once the bucket refills."""
    sockets = await table_of(people)
    try:
        views = [(await receive(socket, "state"))["game"] for socket in sockets]
        turn = views[0]["turn"]
        flooder = sockets[turn]
        burst = [json.dumps({"action": "ack", "id": f"b-{n}"}) if n % 5 else '{"action": "ack"}'
                 for n in range(500)]
        for text in burst:  # written as fast as the connection takes them: nothing read meanwhile
            await flooder.send(text)
        wanted = {f"b-{n}" for n in range(500) if n % 5}
        answered: dict[str, str] = {}
        while not wanted <= answered.keys():
            message = await receive(flooder, "error")
            if "id" in message:
                answered[message["id"]] = message["code"]
        assert set(answered.values()) == {"illegal_move", "rate_limited"}
        assert answered.keys() == wanted  # each answered once, with its own id
        for attempt in range(100):  # the bucket refills: the move plays
            await play(flooder, views[turn], f"m-{attempt}")
            message = await receive(flooder)
            while message["type"] == "error" and not message.get("id", "").startswith("m-"):
                message = await receive(flooder)  # an answer to the burst's id-less messages
            if message["type"] == "state":
                break
            assert (message["code"], message["id"]) == ("rate_limited", f"m-{attempt}")
            await asyncio.sleep(1 / WS_PER_SECOND)  # a token's refill
        assert message["game"]["last_play"]["seat"] == turn
        assert message["game"]["revision"] == views[turn]["revision"] + 1
    finally:
        for socket in sockets:
            await socket.close()
