"""Clock and timestamp helpers shared by every service.

Times travel as integer milliseconds since the Unix epoch inside the platform and as
CONTRACT.md's ISO 8601 text (UTC, milliseconds, ``Z``) at its edges.
"""

from __future__ import annotations

import functools
import time
from datetime import UTC, datetime


def now_ms() -> int:
    """The wall clock in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


@functools.lru_cache(maxsize=1024)
def iso_from_ms(ms: int) -> str:
    """``1764669630123`` -> ``"2025-12-02T10:00:30.123Z"``. Remembered: the four views of a
    change show the same deadlines, and strftime is the slowest part of a view."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def ms_from_iso(text: str) -> int:
    """Parse CONTRACT.md's timestamp form (or any ISO 8601 with an offset) to milliseconds."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {text!r}")
    return round(moment.timestamp() * 1000)
