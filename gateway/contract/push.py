"""Web Push (CONTRACT.md, Turn-based games): the key a browser subscribes with, a subscription,
and the payload the service worker receives (decrypted)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gateway.contract import examples
from gateway.contract.common import Body, GameId, Request

PUBLIC_KEY_EXAMPLE = ("BNbxGYNMhEIi9zrneh7mqV4oUanjLUK3m-mYZBc62frMKrEoMk88r3Lk596T0ck9xlT-n2"
                      "W8lSk7Fbb-3zVxuIw")
ENDPOINT_EXAMPLE = "https://push.example.net/wpush/v2/gAAAAABnx3"
P256DH_EXAMPLE = ("BOrIvRMnRNnF6vE0D3T2aOW5P0sAaL8pWd6b6oXnqT3mYx8pHhV0rZ0mJZ8u8n4sL8sE1hQ4h6m9cQp7vXjQe0M")
AUTH_EXAMPLE = "q9m6bH0Qk8yQd8m2aX2sEw"
SUBSCRIPTION: dict[str, Any] = {"endpoint": ENDPOINT_EXAMPLE, "keys": {"p256dh": P256DH_EXAMPLE, "auth": AUTH_EXAMPLE}}
PAYLOAD: dict[str, Any] = {"type": "your_turn", "game": examples.GAME_ID, "title": "Your turn",
           "body": "carol played: your turn in scopone scientifico", "url": f"/games/{examples.GAME_ID}"}
MAX_SUBSCRIPTIONS = 10  # the lobby's: an eleventh replaces the member's oldest
MAX_ENDPOINT = 1024  # the lobby's
PUSH_DISABLED_TEXT = "Push is not enabled"  # no VAPID key is set
ENDPOINT_TEXT = "endpoint must be an https URL"
ENDPOINT_LENGTH_TEXT = f"endpoint is longer than {MAX_ENDPOINT} characters"
P256DH_TEXT = "keys.p256dh must be a P-256 public key: 65 bytes, base64url"
AUTH_TEXT = "keys.auth must be 16 bytes, base64url"
SUBSCRIPTION_ERRORS = (ENDPOINT_TEXT, ENDPOINT_LENGTH_TEXT, P256DH_TEXT, AUTH_TEXT)  # the 422s


class PushKey(Body):
    """The VAPID application server key: the browser's `pushManager.subscribe` takes it as its
    `applicationServerKey`. When it changes (the operators replaced the key), every subscription made
    with the old one must be made again."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"public_key": PUBLIC_KEY_EXAMPLE}]})
    public_key: str = Field(description="The uncompressed P-256 public key (65 bytes), base64url without "
                                        "padding.")


class PushKeys(Request):
    """The subscription's keys, as the browser's `PushSubscription.toJSON()` gives them."""

    p256dh: str = Field(description="The browser's P-256 public key: 65 bytes (an uncompressed point), "
                                    "base64url.")
    auth: str = Field(description="The authentication secret: 16 bytes, base64url.")


class PushSubscribeRequest(Request):
    """A push subscription of this browser (`PushSubscription.toJSON()` without `expirationTime`)."""

    model_config = ConfigDict(json_schema_extra={"examples": [SUBSCRIPTION]})
    endpoint: str = Field(description="The push service's URL for this browser: https (http only for a "
                                      "loopback host, for tests), at most 1024 characters.")
    keys: PushKeys


class PushUnsubscribeRequest(Request):
    """The subscription to forget."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"endpoint": ENDPOINT_EXAMPLE}]})
    endpoint: str = Field(description="The subscription's endpoint.")


class PushPayload(BaseModel):  # not a Body: its field `body` would hide Body.body()
    """What a push carries (aes128gcm-encrypted, RFC 8291): the service worker shows `title` and `body`
    and opens `url` when the notification is tapped."""

    model_config = ConfigDict(json_schema_extra={"examples": [PAYLOAD]})
    type: Literal["your_turn", "invited"] = Field(description="`your_turn`: the turn passed to the member in "
                                                              "a daily game; `invited`: an invitation.")
    game: GameId
    title: str = Field(description="The notification's title.")
    body: str = Field(description="The notification's text.")
    url: str = Field(description="The app's page to open: `/games/{id}` for `your_turn`, `/join/{code}` for "
                                 "`invited`.")
