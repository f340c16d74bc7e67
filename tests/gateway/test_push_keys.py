"""The VAPID settings: WEB_PUSH_VAPID_PRIVATE_KEY in each form it takes (PEM, base64url of the
raw key or of DER), WEB_PUSH_SUBJECT required with it, and keys that cannot sign refused at
start with a ConfigError naming the variable."""

from __future__ import annotations

import base64
import time

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pywebpush import WebPushException

from gateway.push_sender import PushSender, _retry_after, load_vapid_key
from services.config import ConfigError, Settings, WebPushSettings
from testing.push_receiver import b64url, verify_vapid

SUBJECT = "mailto:operators@tavolo.example"
KEY = ec.generate_private_key(ec.SECP256R1())
PUBLIC = b64url(KEY.public_key().public_bytes(serialization.Encoding.X962,
                                              serialization.PublicFormat.UncompressedPoint))
PEM = KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                        serialization.NoEncryption()).decode()
DER = b64url(KEY.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption()))
RAW = b64url(KEY.private_numbers().private_value.to_bytes(32, "big"))  # the 32-byte private value


@pytest.mark.parametrize("text", [PEM, DER, RAW, f"  {RAW}\n"], ids=["pem", "der", "raw", "spaced"])
def test_each_form_of_the_key_loads_and_signs(text):
    key = load_vapid_key(WebPushSettings(text, SUBJECT))
    assert key.public_key == PUBLIC
    assert len(base64.urlsafe_b64decode(key.public_key + "=")) == 65
    endpoint = "https://push.example.net/wpush/1"
    headers = key.vapid.sign({"sub": SUBJECT, "aud": "https://push.example.net",
                              "exp": int(time.time()) + 3600})
    assert verify_vapid(headers["Authorization"], endpoint) == (PUBLIC, {
        "sub": SUBJECT, "aud": "https://push.example.net", "exp": pytest.approx(time.time() + 3600, abs=5)})


@pytest.mark.parametrize("text", [
    "not a key", b64url(b"\x01" * 31),
    ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
], ids=["text", "short", "p384"])
def test_a_key_that_cannot_sign_is_a_config_error(text):
    with pytest.raises(ConfigError, match="WEB_PUSH_VAPID_PRIVATE_KEY"):
        load_vapid_key(WebPushSettings(text, SUBJECT))


def test_the_settings():
    assert Settings.from_env({}).web_push is None
    assert Settings.from_env({"WEB_PUSH_SUBJECT": SUBJECT}).web_push is None  # no key: disabled
    pushing = Settings.from_env({"WEB_PUSH_VAPID_PRIVATE_KEY": RAW, "WEB_PUSH_SUBJECT": SUBJECT}).web_push
    assert pushing == WebPushSettings(RAW, SUBJECT)
    assert RAW not in repr(pushing)  # a logged Settings does not leak the key
    https = Settings.from_env({"WEB_PUSH_VAPID_PRIVATE_KEY": RAW, "WEB_PUSH_SUBJECT": "https://tavolo.example"})
    assert https.web_push is not None
    with pytest.raises(ConfigError, match="WEB_PUSH_SUBJECT is required"):
        Settings.from_env({"WEB_PUSH_VAPID_PRIVATE_KEY": RAW})
    for subject in ("operators@tavolo.example", "http://tavolo.example", "mailto:nobody"):
        with pytest.raises(ConfigError, match="WEB_PUSH_SUBJECT must be"):
            Settings.from_env({"WEB_PUSH_VAPID_PRIVATE_KEY": RAW, "WEB_PUSH_SUBJECT": subject})


class _Answer:
    def __init__(self, retry_after: str):
        self.headers = {"Retry-After": retry_after}


def test_retry_after_in_seconds_or_as_a_date():
    assert _retry_after(WebPushException("busy", _Answer("7"))) == 7.0
    assert _retry_after(WebPushException("busy", _Answer("Wed, 21 Oct 2015 07:28:00 GMT"))) == 0.0  # past
    assert _retry_after(WebPushException("busy", _Answer("soon"))) is None
    assert _retry_after(WebPushException("busy")) is None


async def test_a_full_queue_drops_the_push_at_once():
    sender = PushSender(load_vapid_key(WebPushSettings(RAW, SUBJECT)), players=None,  # type: ignore[arg-type]
                        queue_size=1, workers=0)
    sender.enqueue("alice", {"type": "invited"})
    sender.enqueue("alice", {"type": "invited"})  # full: dropped, not awaited
    assert sender._queue.qsize() == 1
    await sender.aclose()
