"""gateway.push_sender in process, against the real push receiver: push() never waits, and what
each answer of a push service leads to (sent, retried, refused, given up, removed), with the
backoff's sleeps recorded instead of slept."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from gateway.push_sender import PushSender, load_vapid_key, push
from services.config import WebPushSettings
from services.rpc.errors import Reason, ServiceError
from testing.push_receiver import PushReceiver

PAYLOAD = {"type": "your_turn", "game": "g-1", "title": "Your turn", "body": "carol played", "url": "/games/g-1"}
KEY = load_vapid_key(WebPushSettings(
    ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
    "mailto:operators@tavolo.example"))


@dataclass
class Row:
    endpoint: str
    p256dh: str
    auth: str


class Players:
    """PlayersService's push calls, in memory; ``hold`` keeps the list call waiting."""

    def __init__(self, *subscriptions: dict) -> None:
        self.rows = [Row(s["endpoint"], s["keys"]["p256dh"], s["keys"]["auth"]) for s in subscriptions]
        self.removed: list[str] = []
        self.hold: asyncio.Event | None = None
        self.failures = 0  # the next list calls that fail UNAVAILABLE

    async def list_push_subscriptions(self, member_id: str) -> list[Row]:
        if self.hold is not None:
            await self.hold.wait()
        if self.failures:
            self.failures -= 1
            raise ServiceError(Reason.UNAVAILABLE, "lobby unavailable")
        return list(self.rows)

    async def remove_endpoint(self, endpoint: str) -> None:
        self.removed.append(endpoint)
        self.rows = [row for row in self.rows if row.endpoint != endpoint]


@pytest.fixture
async def receiver():
    async with PushReceiver.running() as running:
        yield running


def sender_for(players: Players, sleeps: list[float]) -> PushSender:
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return PushSender(KEY, players, attempts=3, first_delay_seconds=1.0, max_delay_seconds=60.0,  # type: ignore[arg-type]
                      sleep=sleep)


async def test_push_returns_at_once_and_the_worker_sends(receiver):
    subscription = receiver.subscribe()
    players, sleeps = Players(subscription), []
    players.hold = asyncio.Event()
    sender = sender_for(players, sleeps)
    app = SimpleNamespace(state=SimpleNamespace(push=sender))
    try:
        # The lobby does not answer yet: push() returns all the same.
        await asyncio.wait_for(push(app, "member-1", PAYLOAD), 0.5)
        assert receiver.received(subscription) == []
        players.hold.set()
        received = await receiver.next_push(subscription)
        assert received.payload == PAYLOAD
        assert received.vapid_key == KEY.public_key
        await sender.idle()
        assert sleeps == []
    finally:
        await sender.aclose()


async def test_a_payload_not_as_the_contract_says_is_not_queued(receiver):
    subscription = receiver.subscribe()
    sender = sender_for(Players(subscription), [])
    app = SimpleNamespace(state=SimpleNamespace(push=sender))
    try:
        for bad in ({**PAYLOAD, "type": "hello"}, {k: v for k, v in PAYLOAD.items() if k != "url"}):
            await push(app, "member-1", bad)
        assert sender._queue.qsize() == 0
    finally:
        await sender.aclose()


async def test_a_push_without_a_sender_is_nothing():
    await push(SimpleNamespace(state=SimpleNamespace()), "member-1", PAYLOAD)
    await push(SimpleNamespace(state=SimpleNamespace(push=None)), "member-1", PAYLOAD)


async def test_a_429_is_retried_with_backoff(receiver):
    busy = receiver.subscribe(429, 429)
    players, sleeps = Players(busy), []
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert [r.status for r in receiver.received(busy)] == [429, 429, 201]
        assert len(sleeps) == 2 and 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0  # doubled, jittered
    finally:
        await sender.aclose()


async def test_another_4xx_is_not_retried_nor_removed(receiver):
    refused = receiver.subscribe(403)
    players, sleeps = Players(refused), []
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert [r.status for r in receiver.received(refused)] == [403]
        assert (sleeps, players.removed) == ([], [])
    finally:
        await sender.aclose()


async def test_a_404_removes_the_endpoint_and_the_others_still_get_it(receiver):
    gone, kept = receiver.subscribe(404), receiver.subscribe()
    players, sleeps = Players(gone, kept), []
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert players.removed == [gone["endpoint"]]
        assert [r.status for r in receiver.received(kept)] == [201]
    finally:
        await sender.aclose()


async def test_an_unreachable_push_service_is_tried_a_few_times_then_given_up(receiver):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now: every connection is refused
    subscription = {**receiver.subscribe(), "endpoint": f"http://127.0.0.1:{port}/push/x"}
    players, sleeps = Players(subscription), []
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert len(sleeps) == 2  # three attempts in all
        assert players.removed == []  # unreachable is not gone
    finally:
        await sender.aclose()


async def test_a_lobby_that_does_not_answer_for_a_while_delays_the_push(receiver):
    subscription = receiver.subscribe()
    players, sleeps = Players(subscription), []
    players.failures = 2
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert [r.status for r in receiver.received(subscription)] == [201]
        assert len(sleeps) == 2
    finally:
        await sender.aclose()


async def test_a_lobby_down_past_the_attempts_drops_the_push(receiver):
    subscription = receiver.subscribe()
    players, sleeps = Players(subscription), []
    players.failures = 3
    sender = sender_for(players, sleeps)
    try:
        sender.enqueue("member-1", PAYLOAD)
        await sender.idle()
        assert receiver.received(subscription) == []
        assert len(sleeps) == 2
    finally:
        await sender.aclose()
