"""REST for Web Push (CONTRACT.md, Turn-based games): the VAPID key a browser subscribes with,
and the caller's subscriptions, kept by the lobby's PlayersService (member data: erasure takes
them). gateway.push_sender sends.

A subscription is checked here, where its meaning is known; a bad one is 422 naming what is
wrong: the endpoint must be an https URL (http only for a loopback host: the tests' local push
receiver; no browser's push service is one), at most 1024 characters; ``p256dh`` base64url of an
uncompressed P-256 point (65 bytes, on the curve), ``auth`` base64url of 16 bytes. Unknown
fields and wrong JSON types are 400, as for every body (gateway.bodies).

With push disabled (no WEB_PUSH_VAPID_PRIVATE_KEY), GET /api/push/key and POST /api/me/push are
404 "Push is not enabled" (the app then hides its push setting); DELETE still forgets.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gateway.backends import backends_of
from gateway.bodies import check_type, field_types, json_object
from gateway.contract.push import (
    AUTH_TEXT,
    ENDPOINT_LENGTH_TEXT,
    ENDPOINT_TEXT,
    MAX_ENDPOINT,
    P256DH_TEXT,
    PUSH_DISABLED_TEXT,
    PushKey,
    PushKeys,
    PushSubscribeRequest,
    PushUnsubscribeRequest,
)
from gateway.members import require_member
from gateway.players import players_of
from gateway.push_sender import PushSender

_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
P256DH_BYTES = 65
AUTH_BYTES = 16


def _sender(request: Request) -> PushSender:
    sender: PushSender | None = request.app.state.push
    if sender is None:
        raise HTTPException(404, PUSH_DISABLED_TEXT)
    return sender


async def public_key(request: Request) -> JSONResponse:
    """GET /api/push/key: no session needed (the app asks before anyone logs in)."""
    return JSONResponse(PushKey(public_key=_sender(request).key.public_key).body())


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_endpoint(value: str) -> str:
    """``value`` as a push endpoint; 422 when it cannot be one."""
    if len(value) > MAX_ENDPOINT:
        raise HTTPException(422, ENDPOINT_LENGTH_TEXT)
    if not value.isascii() or not value.isprintable() or " " in value:
        raise HTTPException(422, ENDPOINT_TEXT)
    try:
        parts = urlsplit(value)
        host, _ = parts.hostname, parts.port  # a port that is not one raises
    except ValueError:
        raise HTTPException(422, ENDPOINT_TEXT) from None
    if not host or parts.username is not None:  # no push service puts credentials in it
        raise HTTPException(422, ENDPOINT_TEXT)
    if parts.scheme == "https" or (parts.scheme == "http" and _loopback(host)):
        return value
    raise HTTPException(422, ENDPOINT_TEXT)


def _base64url(value: str) -> bytes | None:
    if not _BASE64URL.fullmatch(value):
        return None
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return None


def checked_keys(keys: dict[str, Any]) -> tuple[str, str]:
    """(p256dh, auth) as the browser gave them; 422 unless they are keys of the right sizes."""
    p256dh = _base64url(keys["p256dh"])
    if p256dh is None or len(p256dh) != P256DH_BYTES or p256dh[0] != 4:
        raise HTTPException(422, P256DH_TEXT)
    try:  # a point that is not on the curve would fail every push
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), p256dh)
    except ValueError:
        raise HTTPException(422, P256DH_TEXT) from None
    auth = _base64url(keys["auth"])
    if auth is None or len(auth) != AUTH_BYTES:
        raise HTTPException(422, AUTH_TEXT)
    return keys["p256dh"], keys["auth"]


def _required_text(body: dict[str, Any], name: str, label: str | None = None) -> str:
    label = label or name
    if name not in body:
        raise HTTPException(400, f"{label} is required")
    check_type(label, body[name], str)
    value: str = body[name]
    return value


def _keys_object(body: dict[str, Any]) -> dict[str, Any]:
    if "keys" not in body:
        raise HTTPException(400, "keys is required")
    keys = body["keys"]
    if not isinstance(keys, dict):
        raise HTTPException(400, "keys must be an object")
    for name in keys:
        if name not in field_types(PushKeys):
            raise HTTPException(400, f"Unknown field: keys.{name}")
    for name in ("p256dh", "auth"):
        _required_text(keys, name, f"keys.{name}")
    return keys


async def subscriptions(request: Request) -> Response:
    """POST /api/me/push (subscribe, 201) and DELETE /api/me/push (unsubscribe, 204)."""
    member = await require_member(request)
    players = players_of(backends_of(request))
    if request.method == "DELETE":
        body = await json_object(request, PushUnsubscribeRequest)
        endpoint = _required_text(body, "endpoint")
        # An endpoint no browser could have (empty, too long, not printable ASCII) is nobody's.
        if endpoint and len(endpoint) <= MAX_ENDPOINT and endpoint.isascii() and endpoint.isprintable():
            await players.remove_push_subscription(member.sub, endpoint)
        return Response(status_code=204)
    _sender(request)
    body = await json_object(request, PushSubscribeRequest)
    endpoint = _required_text(body, "endpoint")
    keys = _keys_object(body)
    endpoint = checked_endpoint(endpoint)
    p256dh, auth = checked_keys(keys)
    await players.add_push_subscription(member.sub, endpoint, p256dh, auth)
    return Response(status_code=201)
