"""The game service never sees a person: a seat id that could identify one is refused.

Seats are opaque ("seat:0".."seat:3"); which member sits where is the lobby's business. This
guard catches callers that pass a member id, an e-mail address or a user name by mistake
before it reaches the log, which is kept for good and shown to anyone once a match is over.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

from services.rpc.errors import Reason, ServiceError

MAX_SEAT_LENGTH = 64

# A dotted name ending in a common mail domain: "mario.rossi.gmail.com", "bob.outlook.it".
_MAIL_DOMAINS = (
    "gmail", "googlemail", "yahoo", "ymail", "rocketmail", "outlook", "hotmail", "live", "msn",
    "icloud", "me", "mac", "aol", "proton", "protonmail", "pm", "gmx", "web", "yandex", "mail",
    "zoho", "fastmail", "libero", "virgilio", "tiscali", "alice", "tin", "fastwebnet", "email",
    "inbox", "qq", "163", "126", "naver", "orange", "free", "laposte", "wanadoo", "t-online",
    "comcast", "verizon", "att", "sbcglobal", "btinternet",
)
_MAIL_DOMAIN = re.compile(
    r"(?:^|[.\-_+])(?:" + "|".join(re.escape(d) for d in _MAIL_DOMAINS) + r")"
    r"\.(?:[a-z]{2,6})(?:\.[a-z]{2})?$"
    # ... or a dotted name ending in one without its top-level domain: "mario.rossi.gmail"
    r"|\.(?:" + "|".join(re.escape(d) for d in _MAIL_DOMAINS) + r")$"
)
# A word that names an account, singular or plural, followed by a separator (any character
# but a letter) or digits: "user:42", "members/7", "uid-9", "email_bob", "account17", "user~1".
_ACCOUNT_WORD = re.compile(
    r"(?:member|user|account|customer|subscriber|profile|person|people|uid|login|e-?mail|mail)"
    r"s?(?=[^a-z])"
)


def identifying_reason(seat: str) -> str | None:
    """Why ``seat`` looks like it names a person, or None when it is opaque enough."""
    # Percent-decoded too: "user%3A42" is "user:42" in a URL.
    text = unquote(unicodedata.normalize("NFKC", seat)).lower()
    if "@" in text or "%40" in text:
        return "it contains an @ (an e-mail address?)"
    if _MAIL_DOMAIN.search(text):
        return "it ends in a mail domain"
    if _ACCOUNT_WORD.search(text):
        return "it names an account (member, user, e-mail, ...)"
    return None


def check_seat(seat: object, field: str = "seat") -> str:
    """The seat id unchanged; ServiceError IDENTIFYING_SEAT or INVALID_ARGUMENT otherwise.

    The message never repeats the refused value: it may be somebody's address.
    """
    if not isinstance(seat, str) or not seat:
        raise ServiceError(Reason.INVALID_ARGUMENT, f"{field} is required, e.g. \"seat:0\"", field=field)
    if len(seat) > MAX_SEAT_LENGTH or not seat.isprintable() or any(c.isspace() for c in seat):
        raise ServiceError(
            Reason.INVALID_ARGUMENT,
            f"{field} must be a short opaque id without spaces, e.g. \"seat:0\"", field=field,
        )
    reason = identifying_reason(seat)
    if reason is not None:
        raise ServiceError(
            Reason.IDENTIFYING_SEAT,
            f"{field} could identify a person ({reason}): use opaque seats such as \"seat:0\"",
            field=field,
        )
    return seat
