"""Who has a socket open at which table, across every gateway process.

Each gateway process knows its own sockets (gateway.table_feed); a player may be connected to
any replica. So each process holds a lease (gateway.table_leases, kind ``presence``) for each
seat it has a socket open at, and every process reads the union: the seats whose leases have not
lapsed. :class:`RedisPresence` shares them through Redis; :class:`MemoryPresence` serves one
process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from gateway.table_leases import RENEW_BATCH, RENEW_SECONDS, TTL_SECONDS, MemoryTableLeases, RedisTableLeases
from services.stores import Keys, RedisClient

__all__ = ["RENEW_BATCH", "RENEW_SECONDS", "MemoryPresence", "Presence", "RedisPresence"]


class Presence:
    def __init__(self, leases: MemoryTableLeases | RedisTableLeases):
        self._leases = leases

    async def mark(self, table_id: str, seat: int, present: bool) -> None:
        """This process has (or no longer has) a socket open at ``seat`` of the table."""
        await self._leases.mark(table_id, str(seat), present)

    async def renew(self, marks: Iterable[tuple[str, int]]) -> None:
        """This process still has sockets at these (table, seat) pairs."""
        await self._leases.renew((table_id, str(seat)) for table_id, seat in marks)

    async def seats(self, table_id: str) -> set[int]:
        """The seats with a socket open at the table in any process."""
        holders = (await self._leases.holders([table_id]))[0]
        return {int(seat) for seat in holders if seat.isdigit()}


class MemoryPresence(Presence):
    """One gateway process: its own marks are all there is."""

    def __init__(self) -> None:
        super().__init__(MemoryTableLeases())


class RedisPresence(Presence):
    def __init__(self, client: RedisClient, keys: Keys, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        super().__init__(RedisTableLeases(client, keys, "presence", process, clock, ttl_seconds))
