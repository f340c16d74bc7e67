"""A real Web Push receiver on this machine: the push service and the browser in one.

Each :meth:`PushReceiver.subscribe` makes a subscription as a browser would (an ECDH P-256 key
pair and a 16-byte auth secret), whose endpoint is a URL of this local HTTP server. A push that
arrives is checked as a push service checks it (RFC 8292: the ``Authorization: vapid t=<JWT>,
k=<key>`` header, the JWT signed ES256 by that key, its ``aud`` this endpoint's origin, its
``exp`` within 24 hours) and decrypted as the browser decrypts it (RFC 8291, ``aes128gcm``, with
http_ece). The test decides what the service answers (``answer``: 201, or 410, or a 503 first).

Usage::

    async with PushReceiver.running() as receiver:
        subscription = receiver.subscribe()   # {"endpoint", "keys": {"p256dh", "auth"}}
        ... POST it to /api/me/push, make something push ...
        push = await receiver.next_push(subscription)   # a Received, its payload decrypted
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import http_ece
import uvicorn
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    """One push the receiver accepted or refused: what it carried, decrypted and checked."""

    payload: dict[str, Any]
    headers: dict[str, str]
    status: int            # what the receiver answered
    vapid_key: str         # the `k` of the Authorization header (the server's public key)
    claims: dict[str, Any]  # the JWT's claims


@dataclass
class Subscriber:
    """A browser's subscription: its keys, the answers it will give, what it received."""

    token: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    answers: list[int] = field(default_factory=list)  # the next statuses to answer; then 201
    received: list[Received] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    def subscription(self) -> dict[str, Any]:
        """As the browser's PushSubscription.toJSON() (without expirationTime)."""
        public = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}


class PushError(AssertionError):
    """A push that a real push service or browser would refuse."""


def verify_vapid(authorization: str, endpoint: str) -> tuple[str, dict[str, Any]]:
    """The key and claims of a valid RFC 8292 ``Authorization`` header for ``endpoint``."""
    scheme, _, params = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise PushError(f"not a vapid Authorization: {authorization!r}")
    parts = dict(part.strip().split("=", 1) for part in params.split(","))
    token, key = parts["t"], parts["k"]
    header_b64, claims_b64, signature_b64 = token.split(".")
    header = json.loads(unb64url(header_b64))
    if header.get("alg") != "ES256":
        raise PushError(f"the JWT is not ES256: {header}")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    signature = unb64url(signature_b64)
    if len(signature) != 64:
        raise PushError("the JWT's signature is not r||s")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise PushError("the JWT's signature does not verify with k") from None
    claims = json.loads(unb64url(claims_b64))
    scheme_, _, rest = endpoint.partition("://")
    origin = f"{scheme_}://{rest.split('/', 1)[0]}"
    if claims.get("aud") != origin:
        raise PushError(f"aud {claims.get('aud')!r} is not the endpoint's origin {origin!r}")
    now = time.time()
    if not now < int(claims.get("exp", 0)) <= now + 24 * 3600:
        raise PushError(f"exp {claims.get('exp')!r} is not within the next 24 hours")
    if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
        raise PushError(f"sub {claims.get('sub')!r} is not a mailto: or https: URL")
    return key, claims


class PushReceiver:
    """The local push service and its subscribed browsers (see the module's docstring)."""

    def __init__(self) -> None:
        self.origin = ""
        self.subscribers: dict[str, Subscriber] = {}
        self.refused: list[str] = []  # pushes that failed a check: a test asserts there are none

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls) -> AsyncIterator[PushReceiver]:
        receiver = cls()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        app = Starlette(routes=[Route("/push/{token}", receiver._receive, methods=["POST"])])
        server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off"))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            assert not task.done(), "the push receiver did not start"
            await asyncio.sleep(0.01)
        receiver.origin = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            yield receiver
        finally:
            server.should_exit = True
            await asyncio.wait_for(task, 10)
            sock.close()
        assert not receiver.refused, f"pushes a push service would refuse: {receiver.refused}"

    def subscribe(self, *answers: int) -> dict[str, Any]:
        """A new browser subscription; its endpoint answers ``answers`` in turn, then 201."""
        token = secrets.token_urlsafe(12)
        subscriber = Subscriber(token, f"{self.origin}/push/{token}",
                                ec.generate_private_key(ec.SECP256R1()), os.urandom(16), list(answers))
        self.subscribers[subscriber.endpoint] = subscriber
        return subscriber.subscription()

    def subscriber(self, subscription: dict[str, Any]) -> Subscriber:
        return self.subscribers[subscription["endpoint"]]

    def received(self, subscription: dict[str, Any]) -> list[Received]:
        """Every push the subscription's endpoint answered so far (accepted or not), oldest first."""
        return list(self.subscriber(subscription).received)

    async def next_push(self, subscription: dict[str, Any], count: int = 1, timeout: float = 30.0) -> Received:
        """Wait until the endpoint has answered ``count`` pushes in all; the last of them."""
        subscriber = self.subscriber(subscription)

        async def enough() -> None:
            while len(subscriber.received) < count:
                subscriber.arrived.clear()
                await subscriber.arrived.wait()

        await asyncio.wait_for(enough(), timeout)
        return subscriber.received[count - 1]

    async def _receive(self, request: Request) -> Response:
        subscriber = self.subscribers.get(str(request.url.replace(query="")))
        if subscriber is None:
            return Response(status_code=404)
        body = await request.body()
        try:
            received = self._check(subscriber, request, body)
        except (PushError, KeyError, ValueError) as error:
            self.refused.append(f"{subscriber.endpoint}: {error!r}")
            return Response(status_code=400)
        received.status = subscriber.answers.pop(0) if subscriber.answers else 201
        subscriber.received.append(received)
        subscriber.arrived.set()
        return Response(status_code=received.status)

    def _check(self, subscriber: Subscriber, request: Request, body: bytes) -> Received:
        headers = {name.lower(): value for name, value in request.headers.items()}
        if headers.get("content-encoding") != "aes128gcm":
            raise PushError(f"Content-Encoding {headers.get('content-encoding')!r}, not aes128gcm")
        if not headers.get("ttl", "").isdigit():
            raise PushError(f"TTL {headers.get('ttl')!r}")
        key, claims = verify_vapid(headers.get("authorization", ""), subscriber.endpoint)
        plain = http_ece.decrypt(body, private_key=subscriber.private_key, auth_secret=subscriber.auth,
                                 version="aes128gcm")
        return Received(json.loads(plain), headers, 0, key, claims)
