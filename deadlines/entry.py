"""A deadline entry: the (table, kind, token) the game service scheduled, and its stored form.

Pure values, no I/O. In Redis an entry is a sorted-set member, so its encoding must be
canonical: the same entry always gives the same bytes, which is what makes Schedule idempotent
and lets Cancel find the member without reading anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# Ids, kinds and tokens are short engine/platform strings; a bound keeps one caller from
# filling the queue with megabyte members.
MAX_FIELD_LENGTH = 256


class InvalidEntry(ValueError):
    """A field of an entry is empty, too long or malformed; the message names the field, and
    so does ``field`` (its name: "table_id", "kind", "token"; "" for a stored member)."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Entry:
    """One pending wake-up of a table, identified by all three fields together."""

    table_id: str
    kind: str
    token: str

    def __post_init__(self) -> None:
        for name in ("table_id", "kind", "token"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise InvalidEntry(f"{name} must be a non-empty string", name)
            if len(value) > MAX_FIELD_LENGTH:
                raise InvalidEntry(f"{name} must be at most {MAX_FIELD_LENGTH} characters", name)

    @property
    def member(self) -> str:
        """The compact JSON stored in the queue: ``{"table":"..","kind":"turn","token":".."}``."""
        return json.dumps(
            {"table": self.table_id, "kind": self.kind, "token": self.token},
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_member(cls, member: str) -> Entry:
        """The inverse of :attr:`member`; raises InvalidEntry on anything else."""
        try:
            data = json.loads(member)
        except ValueError:
            raise InvalidEntry(f"not a deadline entry: {member[:80]!r}") from None
        if not isinstance(data, dict) or set(data) != {"table", "kind", "token"}:
            raise InvalidEntry(f"not a deadline entry: {member[:80]!r}")
        return cls(table_id=data["table"], kind=data["kind"], token=data["token"])


@dataclass(frozen=True)
class Claim:
    """An entry a consumer took from the queue to fire.

    ``lease_until`` (ms) is both the lease expiry and the claim's fencing token: settling a
    claim (ack, retry, release) only acts if the entry still carries this lease, so a consumer
    whose lease ran out and was re-claimed elsewhere cannot undo the new owner's claim.
    """

    entry: Entry
    due_ms: int
    lease_until: int
    attempts: int  # failed fires so far (0 on the first try)


@dataclass(frozen=True)
class Poll:
    """What one poll of the queue did: the claims, and when the next entry or lease falls due."""

    claims: list[Claim]
    next_wake_ms: int | None  # None: nothing pending and nothing in flight
    returned: int = 0          # expired leases put back to pending by this poll
    undecodable: tuple[str, ...] = ()  # members that are not entries (dropped, for the log)
