"""The bots service's domain: which tables this replica drives, and their bots at play.

DriveTable stores a table's bot seats and claims leases at once, so the replica that heard the
call usually drives the table from then on. Every ``lease_seconds / 3`` each replica renews its
leases and takes the lapsed ones (store.claim): it starts the bots of tables it gained or whose
seats changed, and stops those it lost. A table whose match finished is forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from bots.catalogue import LEVEL_IDS
from bots.driver import GameApi, TableBots
from bots.store import Assignment, BotSeats, DriveStore
from game import inputs
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

LEASE_SECONDS = 6.0  # how long a replica that died keeps its tables from the others


class Bots:
    def __init__(self, store: DriveStore, game: GameApi, think_ms: int, *,
                 lease_seconds: float = LEASE_SECONDS, replica: str | None = None):
        self.store = store
        self.game = game
        self.think_ms = think_ms
        self.lease_seconds = lease_seconds
        self.replica = replica or uuid.uuid4().hex
        self._driving: dict[str, TableBots] = {}
        self._claiming = asyncio.Lock()

    async def drive_table(self, table_id: str, seats: list[tuple[int, str]]) -> None:
        table_id = inputs.table_id(table_id)
        indexes = [index for index, _ in seats]
        if len(set(indexes)) != len(indexes) or any(not 0 <= i <= 3 for i in indexes):
            raise ServiceError(Reason.INVALID_ARGUMENT, "each seat once, numbered 0..3",
                               field="seats")
        for _, level in seats:
            if level not in LEVEL_IDS:
                raise ServiceError(Reason.UNKNOWN_BOT_LEVEL, f"Unknown bot level: {level}",
                                   field="seats", level=level)
        await self.store.set(table_id, tuple(sorted(seats)))
        await self.claim()

    async def claim(self) -> None:
        """Renew this replica's leases, take the lapsed ones, and drive exactly those tables."""
        async with self._claiming:
            owned = {a.table_id: a for a in await self.store.claim(self.replica, self.lease_seconds)}
            for table_id in [t for t in self._driving if t not in owned]:
                log.info("table %s: no longer driven here", table_id)
                await self._driving.pop(table_id).stop()
            for assignment in owned.values():
                self._drive(assignment)

    def _drive(self, assignment: Assignment) -> None:
        running = self._driving.get(assignment.table_id)
        if running is not None and running.seats == assignment.seats and not running.task.done():
            return
        if running is not None:
            running.task.cancel()
        self._driving[assignment.table_id] = TableBots(
            self.game, assignment.table_id, assignment.seats, self.think_ms, self._finished,
            self.store.seats)
        log.info("table %s: bots play seats %s", assignment.table_id,
                 ", ".join(f"{index} ({level})" for index, level in assignment.seats))

    async def _finished(self, table_id: str) -> None:
        await self.store.forget(table_id)
        self._driving.pop(table_id, None)
        log.info("table %s: finished, its bots are done", table_id)

    async def run(self) -> None:
        """Keep the leases, for as long as the service runs."""
        try:
            while True:
                try:
                    await self.claim()
                except ServiceError as error:
                    log.warning("bots: leases not renewed: %s", error.message)
                await asyncio.sleep(self.lease_seconds / 3)
        finally:
            for bots in list(self._driving.values()):
                with contextlib.suppress(Exception):
                    await bots.stop()
            self._driving.clear()

    @property
    def tables(self) -> list[str]:
        """The tables this replica drives now."""
        return sorted(self._driving)


def seats_of(request_seats) -> BotSeats:
    return tuple((seat.seat_index, seat.level) for seat in request_seats)
