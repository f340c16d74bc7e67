"""Abandonment: a person whose turns keep being auto-played while they are away has left the seat.

After ``limit`` auto-plays in a row of a person's seat while no socket of theirs is open in any
gateway process, a bot takes the seat over (CONTRACT, Bots; ABANDON_AFTER_TIMEOUTS). The rule
reads the typed facts the game sends beside each revision's views (game.view_parts.Facts: the
latest play's seat and whether the game made it), never a view. It lives here, apart from the
fan-out (gateway.table_feed), which only tells it each revision and who is connected; the
take-over itself is the lobby's call, which ``take_over`` makes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection

from game.view_parts import Facts
from lobby.models import Game
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

# Take seat ``index`` of table ``table_id`` over with a bot (the lobby's TakeOverSeat), and tell
# every gateway process that the seating changed.
TakeOver = Callable[[str, int], Awaitable[None]]


class Abandonment:
    """One table's count of auto-plays in a row, seat by seat, and the take-overs it started."""

    def __init__(self, table_id: str, limit: int, take_over: TakeOver):
        self.table_id = table_id
        self.limit = limit  # 0: never take a seat over
        self._take_over = take_over
        self._streak: dict[int, int] = {}  # seat index -> auto-plays in a row seen
        self._taking_over: set[int] = set()
        self._tasks: set[asyncio.Task] = set()

    @property
    def taking_over(self) -> frozenset[int]:
        """The seats whose take-over was asked for and has not answered yet."""
        return frozenset(self._taking_over)

    def saw(self, facts: Facts | None, game: Game, connected: Callable[[], Collection[int]]) -> None:
        """One revision of the table (``facts`` None: it showed no seat anything), with the
        seating as the feed holds it and the seats connected in any process (asked only when a
        streak is long enough)."""
        if not self.limit or facts is None or facts.last_play_seat is None:
            return
        seat = facts.last_play_seat
        self._streak[seat] = self._streak.get(seat, 0) + 1 if facts.last_play_auto else 0
        occupant = game.at(seat)
        if (self._streak[seat] >= self.limit and occupant is not None and not occupant.bot
                and seat not in connected() and seat not in self._taking_over):
            self._taking_over.add(seat)
            task = asyncio.create_task(self._take(seat), name=f"take over {self.table_id} seat {seat}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _take(self, seat: int) -> None:
        try:
            await self._take_over(self.table_id, seat)
            log.info("game %s: seat %d abandoned; a bot took it over", self.table_id, seat)
        except ServiceError as error:
            log.warning("game %s: seat %d not taken over: %s", self.table_id, seat, error.message)
        finally:
            self._taking_over.discard(seat)
            self._streak[seat] = 0
