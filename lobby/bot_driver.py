"""Telling the bots service which seats of a started table bots play.

The telling is retried in the background until it is heard: a table whose bots are not driven
only auto-plays on timeouts meanwhile.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Protocol

from lobby.models import Game
from services.background import Background, Retry


class BotsService(Protocol):
    """What the lobby asks of the bots service (bots.client.BotsClient is one)."""

    async def drive_table(self, table_id: str, seats: Sequence[tuple[int, str]]) -> None: ...


class BotDriver:
    """Hands each started table's bot seats to the bots service (none: nobody is told)."""

    def __init__(self, bots: BotsService | None):
        self.bots = bots
        self.background = Background()
        self.retry = Retry(0.2, 30.0)
        self._bot_seats: dict[str, tuple[tuple[int, str], ...]] = {}  # waiting to be told

    def drive(self, game: Game) -> None:
        """Tell the bots service which seats of the started table bots play, in the background
        and until it hears; a newer seating sent meanwhile goes after it, never before."""
        if self.bots is None or not game.started:
            return
        self._bot_seats[game.id] = tuple((seat.index, seat.bot) for seat in game.bot_seats)
        self.background.start(self._tell_bots(self.bots, game.id), key=f"bots {game.id}")

    async def _tell_bots(self, bots: BotsService, table_id: str) -> None:
        while True:
            seats = self._bot_seats[table_id]
            await self.retry(f"telling the bots service of table {table_id}",
                             functools.partial(bots.drive_table, table_id, seats))
            if self._bot_seats[table_id] == seats:
                del self._bot_seats[table_id]
                return

    async def close(self) -> None:
        await self.background.cancel()
