"""How many members watch each table now (CONTRACT, Spectators: ``"spectators": N``), across
every gateway process.

Each gateway process knows its own spectators' sockets (gateway.table_feed); a member may watch
through any replica, with any number of sockets. So each process holds a lease
(gateway.table_leases, kind ``watchers``) for each member it has a watching socket of, per table,
and every process counts the union: the distinct members whose leases have not lapsed.
:class:`RedisWatchers` shares them through Redis; :class:`MemoryWatchers` serves one process.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from gateway.table_leases import RENEW_SECONDS, TTL_SECONDS, MemoryTableLeases, RedisTableLeases
from services.stores import Keys, RedisClient

__all__ = ["RENEW_SECONDS", "MemoryWatchers", "RedisWatchers", "Watchers"]


class Watchers:
    def __init__(self, leases: MemoryTableLeases | RedisTableLeases):
        self._leases = leases

    async def mark(self, table_id: str, member_id: str, watching: bool) -> None:
        """This process has (or no longer has) a socket of ``member_id`` watching the table."""
        await self._leases.mark(table_id, member_id, watching)

    async def renew(self, marks: Iterable[tuple[str, str]]) -> None:
        """This process still has watching sockets of these (table, member) pairs."""
        await self._leases.renew(marks)

    async def counts(self, table_ids: Sequence[str]) -> list[int]:
        """How many members watch each table, in any process."""
        return [len(members) for members in await self._leases.holders(table_ids)]

    async def count(self, table_id: str) -> int:
        return (await self.counts([table_id]))[0]


class MemoryWatchers(Watchers):
    """One gateway process: its own marks are all there is."""

    def __init__(self) -> None:
        super().__init__(MemoryTableLeases())


class RedisWatchers(Watchers):
    def __init__(self, client: RedisClient, keys: Keys, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        super().__init__(RedisTableLeases(client, keys, "watchers", process, clock, ttl_seconds))
