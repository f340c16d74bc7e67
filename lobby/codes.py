"""Join codes (CONTRACT.md): 6 characters from an alphabet without look-alikes (no 0/O, 1/I/L)."""

from __future__ import annotations

import secrets

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 6
_ALLOWED = frozenset(ALPHABET)


def generate_code() -> str:
    """A fresh random code (31^6, about 887 million); uniqueness is the store's SET NX."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def normalize_code(text: str) -> str | None:
    """The canonical (upper-case) form of a code a person typed, or None when it cannot be one.

    Case-insensitive and tolerant of surrounding blanks; anything else that is not a code
    (wrong length, a 0 or an O) can name no game, so the caller answers "Game not found".
    """
    code = text.strip()
    if not code.isascii():  # "ß".upper() is "SS": only ASCII letters may change case
        return None
    code = code.upper()
    if len(code) != LENGTH or not set(code) <= _ALLOWED:
        return None
    return code
