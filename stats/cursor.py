"""Page tokens of a member's match history: opaque to callers, tamper-evident for us.

A token is ``<payload>.<tag>``, both base64url without padding: the payload is the keyset
position (finished time in ms, match id) as compact JSON, the tag an HMAC-SHA256 over a version
label, the query the token belongs to (member id and game type filter) and the payload. A token
altered in any byte, made with another key, or replayed with another query fails to decode.
The position is not secret (the caller has seen that match); it is only unforgeable.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import uuid

from stats.model import Position

_LABEL = b"tavolo.stats.v1.page-token:1"
_TAG_BYTES = 16  # 128 bits: forging one is out of reach, and tokens stay short
_MAX_TOKEN_CHARS = 256


class CursorError(ValueError):
    """The token was not issued by this service for this query, or is corrupt."""


class CursorCodec:
    """Signs and checks page tokens with one secret key."""

    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError("the page-token key must be at least 16 bytes")
        self._secret = secret

    def encode(self, position: Position, scope: tuple[str, ...]) -> str:
        payload = json.dumps([position.finished_ms, position.match_id], separators=(",", ":"))
        body = payload.encode()
        return f"{_b64(body)}.{_b64(self._tag(body, scope))}"

    def decode(self, token: str, scope: tuple[str, ...]) -> Position:
        if len(token) > _MAX_TOKEN_CHARS or token.count(".") != 1:
            raise CursorError("malformed page token")
        encoded_body, encoded_tag = token.split(".")
        try:
            body, tag = _unb64(encoded_body), _unb64(encoded_tag)
        except (binascii.Error, ValueError):
            raise CursorError("malformed page token") from None
        if not hmac.compare_digest(tag, self._tag(body, scope)):
            raise CursorError("page token not issued for this query")
        # Signed by us, so well formed unless the format changed: check anyway, never trust.
        try:
            finished_ms, match_id = json.loads(body)
            canonical = str(uuid.UUID(match_id))
        except (ValueError, TypeError, AttributeError):
            raise CursorError("malformed page token") from None
        if type(finished_ms) is not int or canonical != match_id:
            raise CursorError("malformed page token")
        return Position(finished_ms, match_id)

    def _tag(self, body: bytes, scope: tuple[str, ...]) -> bytes:
        # Length-prefixed parts: ("ab", "c") and ("a", "bc") sign differently.
        message = bytearray(_LABEL)
        parts: tuple[str | bytes, ...] = (*scope, body)
        for part in parts:
            data = part if isinstance(part, bytes) else part.encode()
            message += len(data).to_bytes(4, "big") + data
        return hmac.new(self._secret, bytes(message), hashlib.sha256).digest()[:_TAG_BYTES]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    """Strict: only the one canonical spelling of each byte string decodes."""
    if not text.isascii():
        raise ValueError("not base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if _b64(data) != text:
        raise ValueError("not canonical base64url")
    return data
