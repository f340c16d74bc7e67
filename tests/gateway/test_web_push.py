"""Web Push end to end (CONTRACT.md, Turn-based games): the whole stack as processes on real
Postgres and Redis, a VAPID key in the settings, and a real push receiver on this machine
(testing.push_receiver: it checks each push's VAPID signature and decrypts it with http_ece).

The key, subscribing and unsubscribing, an invitation's ``invited`` push arriving decrypted and
correct, a 410 removing the subscription, 5xx answers retried until a 201, bad subscriptions
(422 and 400), erasure taking the subscriptions, and push disabled without a key.
"""

from __future__ import annotations

import uuid

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gateway.contract.push import (
    AUTH_TEXT,
    ENDPOINT_LENGTH_TEXT,
    ENDPOINT_TEXT,
    P256DH_TEXT,
    PUSH_DISABLED_TEXT,
    PushPayload,
)
from lobby.players_client import PlayersClient
from testing.players import Player
from testing.prometheus import scrape
from testing.push_receiver import PushReceiver, b64url
from testing.stack import Stack, real_stack
from testing.waiting import eventually

SUBJECT = "mailto:operators@tavolo.example"
KEY = ec.generate_private_key(ec.SECP256R1())
KEY_PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
PUBLIC_KEY = b64url(KEY.public_key().public_bytes(serialization.Encoding.X962,
                                                  serialization.PublicFormat.UncompressedPoint))


@pytest.fixture(scope="module")
def stack():
    with real_stack({"WEB_PUSH_VAPID_PRIVATE_KEY": KEY_PEM, "WEB_PUSH_SUBJECT": SUBJECT},
                    label="push") as running:
        yield running


@pytest.fixture
async def people(stack):
    made: list[Player] = []

    async def login(*names: str) -> list[Player]:
        suffix = uuid.uuid4().hex[:6]
        new = [await Player(stack, f"{name}-{suffix}").login() for name in names]
        made.extend(new)
        return new

    yield login
    for player in made:
        await player.close()


@pytest.fixture
async def receiver():
    async with PushReceiver.running() as running:
        yield running


@pytest.fixture
async def players(stack):
    """PlayersService as the gateway calls it: where the subscriptions are kept."""
    async with PlayersClient(stack.address("lobby"), credentials=stack.credentials) as client:
        yield client


async def endpoints_of(players: PlayersClient, player: Player) -> list[str]:
    """The endpoints the lobby keeps for ``player``."""
    member_id = (await players.get_player("web-push-test", await player.player_id())).member_id
    return [s.endpoint for s in await players.list_push_subscriptions(member_id)]


async def subscribe(player: Player, subscription: dict) -> None:
    response = await player.http.post("/api/me/push", json=subscription)
    assert response.status_code == 201, response.text


async def invite(host: Player, guest: Player) -> dict:
    """``host`` makes a game and invites ``guest``: the game."""
    game = (await host.http.post("/api/games")).json()
    response = await host.http.post(f"/api/games/{game['id']}/invite", json={"player": await guest.player_id()})
    assert response.status_code == 204, response.text
    return game


async def test_the_key_needs_no_session(stack):
    async with httpx.AsyncClient(base_url=stack.gateway_url, timeout=10) as http:
        response = await http.get("/api/push/key")
    assert response.status_code == 200
    assert response.json() == {"public_key": PUBLIC_KEY}


async def test_an_invitation_pushes_invited(people, receiver, players):
    host, guest = await people("carol", "dave")
    subscription = receiver.subscribe()
    await subscribe(guest, subscription)
    assert await endpoints_of(players, guest) == [subscription["endpoint"]]

    game = await invite(host, guest)

    push = await receiver.next_push(subscription)
    PushPayload.model_validate(push.payload)
    assert push.payload == {
        "type": "invited", "game": game["id"], "title": f"{host.username} invites you",
        "body": f"{host.username} invites you to a game of Scopone scientifico.",
        "url": f"/join/{game['join_code']}"}
    # Signed by the server's key, for this endpoint's push service, with the operators' contact.
    assert push.vapid_key == PUBLIC_KEY
    assert push.claims["sub"] == SUBJECT
    assert (push.headers["ttl"], push.headers["urgency"]) == ("86400", "normal")
    assert push.status == 201


async def test_a_410_removes_the_subscription(people, receiver, players):
    host, guest = await people("erin", "fred")
    gone, kept = receiver.subscribe(410), receiver.subscribe()
    await subscribe(guest, gone)
    await subscribe(guest, kept)

    await invite(host, guest)

    assert (await receiver.next_push(gone)).status == 410
    assert (await receiver.next_push(kept)).status == 201

    async def forgotten():
        return await endpoints_of(players, guest) == [kept["endpoint"]]

    await eventually(forgotten, timeout=30, what="the 410'd subscription was kept")

    async def counted():  # the gateway's metrics count each outcome
        metrics = await scrape(guest.stack, "gateway")
        return (metrics.has("tavolo_pushes_total", tavolo_push_outcome="gone")
                and metrics.has("tavolo_pushes_total", tavolo_push_outcome="sent"))

    await eventually(counted, timeout=30, what="tavolo_pushes_total has no gone and sent")


async def test_5xx_answers_are_retried_until_one_lands(people, receiver, players):
    host, guest = await people("gina", "hugo")
    flaky = receiver.subscribe(503, 500)
    await subscribe(guest, flaky)

    await invite(host, guest)

    landed = await receiver.next_push(flaky, count=3, timeout=30)
    statuses = [received.status for received in receiver.received(flaky)]
    assert statuses == [503, 500, 201]
    assert all(r.payload == landed.payload for r in receiver.received(flaky))  # the same push
    assert await endpoints_of(players, guest) == [flaky["endpoint"]]  # a retry is not a removal


async def test_unsubscribing_and_subscribing_again(people, receiver, players):
    (ivy,) = await people("ivy")
    first, second = receiver.subscribe(), receiver.subscribe()
    await subscribe(ivy, first)
    await subscribe(ivy, second)
    await subscribe(ivy, {**second, "keys": first["keys"]})  # the same browser again: one row
    assert sorted(await endpoints_of(players, ivy)) == sorted([first["endpoint"], second["endpoint"]])

    response = await ivy.http.request("DELETE", "/api/me/push", json={"endpoint": first["endpoint"]})
    assert response.status_code == 204
    # Unknown, and of no possible browser: 204 all the same.
    for endpoint in (first["endpoint"], "https://push.example.net/x" + "y" * 2000, "https://a\u0000b", ""):
        response = await ivy.http.request("DELETE", "/api/me/push", json={"endpoint": endpoint})
        assert response.status_code == 204
    assert await endpoints_of(players, ivy) == [second["endpoint"]]


async def test_bad_subscriptions(people, receiver, players):
    (jack,) = await people("jack")
    good = receiver.subscribe()
    keys = good["keys"]
    off_curve = b64url(b"\x04" + b"\x01" * 64)
    unprocessable = {
        ENDPOINT_TEXT: [
            {**good, "endpoint": "http://push.example.net/wpush/1"},  # plain http beyond loopback
            {**good, "endpoint": "ftp://push.example.net/1"},
            {**good, "endpoint": "https:///no-host"},
            {**good, "endpoint": "https://user:secret@push.example.net/1"},
            {**good, "endpoint": "https://push.example.net:99999/1"},
            {**good, "endpoint": "not a url"},
            {**good, "endpoint": ""},
        ],
        ENDPOINT_LENGTH_TEXT: [{**good, "endpoint": "https://push.example.net/" + "a" * 1024}],
        P256DH_TEXT: [
            {**good, "keys": {**keys, "p256dh": keys["p256dh"][:-4]}},  # too short
            {**good, "keys": {**keys, "p256dh": off_curve}},  # not a point of P-256
            {**good, "keys": {**keys, "p256dh": "not+base64/url"}},
            {**good, "keys": {**keys, "p256dh": ""}},
        ],
        AUTH_TEXT: [
            {**good, "keys": {**keys, "auth": b64url(b"\x00" * 15)}},
            {**good, "keys": {**keys, "auth": "%%%"}},
        ],
    }
    for detail, bodies in unprocessable.items():
        for body in bodies:
            response = await jack.http.post("/api/me/push", json=body)
            assert (response.status_code, response.json()) == (422, {"detail": detail}), body
    bad_requests = {
        "Unknown field: expirationTime": {**good, "expirationTime": None},
        "Unknown field: keys.extra": {**good, "keys": {**keys, "extra": "x"}},
        "endpoint must be a string": {**good, "endpoint": 7},
        "keys must be an object": {**good, "keys": "p256dh"},
        "keys.auth must be a string": {**good, "keys": {**keys, "auth": 16}},
        "keys.p256dh is required": {**good, "keys": {"auth": keys["auth"]}},
        "endpoint is required": {"keys": keys},
        "keys is required": {"endpoint": good["endpoint"]},
    }
    for detail, body in bad_requests.items():
        response = await jack.http.post("/api/me/push", json=body)
        assert (response.status_code, response.json()) == (400, {"detail": detail}), body
    assert await endpoints_of(players, jack) == []
    async with httpx.AsyncClient(base_url=jack.stack.gateway_url, timeout=10) as anonymous:
        assert (await anonymous.post("/api/me/push", json=good)).status_code == 401


async def test_erasure_removes_the_subscriptions(people, receiver, players):
    (kim,) = await people("kim")
    await subscribe(kim, receiver.subscribe())
    member_id = (await players.get_player("web-push-test", await kim.player_id())).member_id
    assert len(await players.list_push_subscriptions(member_id)) == 1

    assert (await kim.http.delete("/api/me")).status_code == 204

    assert await players.list_push_subscriptions(member_id) == []


async def test_push_is_disabled_without_a_key():
    stack = Stack()  # in memory, no WEB_PUSH_* setting
    player = Player(stack, "lena")
    try:
        stack.start(timeout=60)  # inside the try: a start that times out stops what it started
        await player.login()
        async with PushReceiver.running() as receiver:
            key = await player.http.get("/api/push/key")
            assert (key.status_code, key.json()) == (404, {"detail": PUSH_DISABLED_TEXT})
            posted = await player.http.post("/api/me/push", json=receiver.subscribe())
            assert (posted.status_code, posted.json()) == (404, {"detail": PUSH_DISABLED_TEXT})
    finally:
        await player.close()
        stack.stop()
