"""Commit, play, reveal: every random choice of a table comes from its secret seed.

This module is CONTRACT.md's Fairness section to the letter, so that anyone holding the revealed
seed can re-derive every deal and every auto-play and check the log. Change nothing here without
changing the contract (and the golden test that pins its test vector).

Players may add their own entropy: each seat commits to 32 random bytes, then reveals them, and
every stream is keyed with ``deal_key(seed, contributions)`` instead of the seed, so that neither
the server nor any one player chooses the deal (docs/fairness.md). The functions below take that
key wherever they take ``seed``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD_SPACE = 2**32

ENTROPY_BYTES = 32  # each seat's contribution r_s
WITHHELD = bytes(ENTROPY_BYTES)  # what a seat that did not commit or did not reveal contributes

SUITS = ("D", "C", "S", "B")
RANKS = tuple(range(1, 11))
# The canonical order the deal starts from: 01D..10D, 01C..10C, 01S..10S, 01B..10B.
DECK: tuple[str, ...] = tuple(f"{rank:02d}{suit}" for suit in SUITS for rank in RANKS)


def commitment(seed: bytes) -> str:
    """The public ``seed_commitment``: lowercase hex SHA-256 of the seed bytes."""
    return hashlib.sha256(seed).hexdigest()


def entropy_commitment(value: bytes) -> str:
    """A seat's ``commit`` hash: lowercase hex SHA-256 of its 32 random bytes r_s."""
    _check_entropy(value)
    return hashlib.sha256(value).hexdigest()


def deal_key(seed: bytes, contributions: Sequence[bytes | None]) -> bytes:
    """K = SHA-256(seed || r_0 || r_1 || ...), one r_s per seat in seat order; None (a seat that
    did not commit or did not reveal) is 32 zero bytes."""
    parts = [seed]
    for value in contributions:
        if value is None:
            parts.append(WITHHELD)
        else:
            _check_entropy(value)
            parts.append(value)
    return hashlib.sha256(b"".join(parts)).digest()


def _check_entropy(value: bytes) -> None:
    if not isinstance(value, (bytes, bytearray)) or len(value) != ENTROPY_BYTES:
        raise ValueError(f"a seat's entropy is exactly {ENTROPY_BYTES} bytes")


def stream(seed: bytes, label: str) -> Iterator[int]:
    """The endless uint32 stream of ``label``: word i is HMAC-SHA256(seed, f"{label}:{i}")[:4], big-endian."""
    i = 0
    while True:
        digest = hmac.new(seed, f"{label}:{i}".encode("ascii"), hashlib.sha256).digest()
        yield int.from_bytes(digest[:4], "big")
        i += 1


def uniform(words: Iterator[int], n: int) -> int:
    """An unbiased index in ``range(n)``: rejection sampling below the largest multiple of n."""
    if n < 1:
        raise ValueError("uniform() needs n >= 1")
    limit = _WORD_SPACE - (_WORD_SPACE % n)
    for x in words:
        if x < limit:
            return x % n
    raise RuntimeError("the stream ended")  # pragma: no cover - streams are endless


def choose(seed: bytes, label: str, n: int) -> int:
    """``uniform(stream(seed, label), n)``: one choice from a fresh labelled stream."""
    return uniform(stream(seed, label), n)


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> list[T]:
    """Fisher-Yates from the top: for i = len-1 down to 1, j = uniform(i + 1), swap i and j."""
    out = list(items)
    words = stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = uniform(words, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def shuffled_deck(seed: bytes, hand: int) -> list[str]:
    """The deck of hand ``hand`` (1-based), shuffled with label ``deal:<hand>``."""
    return shuffled(seed, f"deal:{hand}", DECK)


def deal(seed: bytes, hand: int, seats: int = 4) -> list[list[str]]:
    """Seat s receives cards 10*s .. 10*s+9 of the shuffled deck, each hand sorted as strings."""
    deck = shuffled_deck(seed, hand)
    size = len(deck) // seats
    return [sorted(deck[size * s : size * (s + 1)]) for s in range(seats)]
