"""Table talk's values: a message, a muted player, a report; and the rules of a free text, which
the gateway (for its error messages) and the talk service (for its own integrity) both apply."""

from __future__ import annotations

import unicodedata
import uuid
from dataclasses import dataclass

MAX_TEXT_CHARS = 200
MAX_REASON_CHARS = 200
MAX_NOTE_CHARS = 500
HISTORY_LIMIT = 100  # the most messages a listing returns
REPORTS_LIMIT = 500
# What a text is trimmed of: ECMA-262's blanks (gateway.contract.common.BLANKS), so that the app's
# own trimming and the server's agree.
BLANKS = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
         "\u2028\u2029\u202f\u205f\u3000\ufeff"


def new_id() -> str:
    """A message's, a report's or a request's id: 32 lowercase hex digits."""
    return uuid.uuid4().hex


class BadText(ValueError):
    """A free text that may not be said; its message says why, for people."""


# Control characters beyond Unicode's Cc, as a display name's (lobby.inputs): the line and
# paragraph separators (line breaks all the same), and the bidirectional marks, embeddings,
# overrides and isolates, which make a text display as something else than it is.
NOT_CC_CONTROLS = frozenset("\u2028\u2029\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                            "\u2066\u2067\u2068\u2069")


def clean_text(text: str) -> str:
    """``text`` trimmed, or BadText: empty (nothing but blanks and invisible format characters,
    such as a zero-width space), over MAX_TEXT_CHARS characters, or holding control characters
    (Unicode's Cc: line breaks and tabs inside too, and DEL, C1; and NOT_CC_CONTROLS)."""
    trimmed = text.strip(BLANKS)
    if all(unicodedata.category(character) == "Cf" for character in trimmed):
        raise BadText("Text is empty")
    if len(trimmed) > MAX_TEXT_CHARS:
        raise BadText(f"Text is over {MAX_TEXT_CHARS} characters")
    if any(character in NOT_CC_CONTROLS or unicodedata.category(character) == "Cc"
           for character in trimmed):
        raise BadText("Text holds control characters")
    return trimmed


def visible(author_spectator: bool, reader_spectator: bool, finished: bool) -> bool:
    """Whether a reader sees a message (CONTRACT, Table talk): players' messages reach everyone;
    spectators' reach spectators only, until the game is finished."""
    return not author_spectator or reader_spectator or finished


@dataclass(frozen=True)
class Message:
    id: str
    table_id: str
    member_id: str  # the author: never shown outside the talk service and the gateway
    player: str  # the author's public player id ("" for a bot)
    name: str
    spectator: bool
    seat: int  # the author's seat index; -1 for a spectator
    phrase: str  # "" for a text
    text: str  # "" for a phrase
    at_ms: int


@dataclass(frozen=True)
class Muted:
    player: str
    name: str
    at_ms: int


@dataclass(frozen=True)
class Report:
    id: str
    message: Message  # a copy, as reported (member_id and text empty once the author was erased)
    reporter: str
    reason: str
    at_ms: int
    closed_at_ms: int | None = None
    note: str = ""
