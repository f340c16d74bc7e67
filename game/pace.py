"""A game's pace (CONTRACT, Turn-based games) and the one place that turns it into deadline lengths.

``live`` (the default) plays in one sitting: each deadline is the service's TURN_TIMEOUT_SECONDS,
HAND_ACK_TIMEOUT_SECONDS or ENTROPY_TIMEOUT_SECONDS. ``daily`` is turn-based: every deadline is
DAILY_TURN_HOURS. Options without ``pace`` (games created before it) are live.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LIVE = "live"
DAILY = "daily"
PACES = (LIVE, DAILY)


def pace_of(options: Any) -> str:
    """The pace of a game with these (normalized) options; anything but ``daily`` is live."""
    if isinstance(options, dict) and options.get("pace") == DAILY:
        return DAILY
    return LIVE


@dataclass(frozen=True)
class Timeouts:
    """How long each deadline of a table runs, in milliseconds."""

    turn_ms: int
    hand_ack_ms: int
    entropy_ms: int


@dataclass(frozen=True)
class Paces:
    """The deadline lengths of each pace, as the service's settings give them."""

    live: Timeouts
    daily_ms: int

    def timeouts(self, options: Any) -> Timeouts:
        """The deadline lengths of a table with these options."""
        if pace_of(options) == DAILY:
            return Timeouts(self.daily_ms, self.daily_ms, self.daily_ms)
        return self.live
