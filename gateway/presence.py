"""Who has a socket open at which table, across every gateway process.

Each gateway process knows its own sockets (gateway.tables_feed); a player may be connected to
any replica. So each process marks here the seats it has a socket open at, and every process
reads the union: :class:`RedisPresence` keeps, per table, a hash
``{<prefix>:tables:<bucket>}:<table>:presence`` (services.stores.Keys.table) whose fields
``<process>:<seat>`` hold when that mark lapses. A process renews its marks every
RENEW_SECONDS and drops them as its sockets close; a process that dies leaves marks that lapse
within TTL_SECONDS. Presence is soft state, rebuilt by the processes themselves, so Redis holds
nothing here that cannot be rebuilt (DESIGN). :class:`MemoryPresence` serves one process.
"""

from __future__ import annotations

import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable

from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_when

TTL_SECONDS = 60.0
RENEW_SECONDS = 20.0
RENEW_BATCH = 50  # tables a pipeline
_unavailable = unavailable_when(REDIS_DOWN, "gateway presence")


class Presence(ABC):
    @abstractmethod
    async def mark(self, table_id: str, seat: int, present: bool) -> None:
        """This process has (or no longer has) a socket open at ``seat`` of the table."""

    @abstractmethod
    async def renew(self, marks: Iterable[tuple[str, int]]) -> None:
        """This process still has sockets at these (table, seat) pairs."""

    @abstractmethod
    async def seats(self, table_id: str) -> set[int]:
        """The seats with a socket open at the table in any process."""


class MemoryPresence(Presence):
    """One gateway process: its own marks are all there is."""

    def __init__(self) -> None:
        self._marks: dict[str, set[int]] = {}

    async def mark(self, table_id: str, seat: int, present: bool) -> None:
        seats = self._marks.setdefault(table_id, set())
        if present:
            seats.add(seat)
        else:
            seats.discard(seat)
            if not seats:
                del self._marks[table_id]

    async def renew(self, marks: Iterable[tuple[str, int]]) -> None:
        return None

    async def seats(self, table_id: str) -> set[int]:
        return set(self._marks.get(table_id, ()))


class RedisPresence(Presence):
    def __init__(self, client: RedisClient, keys: Keys, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        self.client = client
        self.keys = keys
        self.process = process or uuid.uuid4().hex
        self.clock = clock
        self.ttl_ms = int(ttl_seconds * 1000)

    def _key(self, table_id: str) -> str:
        return self.keys.table(table_id, "presence")

    def _until(self) -> int:
        return int(self.clock() * 1000) + self.ttl_ms

    @_unavailable
    async def mark(self, table_id: str, seat: int, present: bool) -> None:
        key, field = self._key(table_id), f"{self.process}:{seat}"
        if not present:
            await self.client.hdel(key, field)
            return
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(key, field, self._until())
            pipe.pexpire(key, self.ttl_ms)
            await pipe.execute()

    @_unavailable
    async def renew(self, marks: Iterable[tuple[str, int]]) -> None:
        """One HSET and one PEXPIRE a table, RENEW_BATCH tables a round trip: the loop is never
        held long (one pipeline of 2,000 sockets' marks held a gateway's loop for 80 ms)."""
        until = self._until()
        seats: dict[str, list[int]] = {}
        for table_id, seat in marks:
            seats.setdefault(table_id, []).append(seat)
        tables = list(seats.items())
        for start in range(0, len(tables), RENEW_BATCH):
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id, indexes in tables[start:start + RENEW_BATCH]:
                    pipe.hset(self._key(table_id),
                              mapping={f"{self.process}:{seat}": until for seat in indexes})
                    pipe.pexpire(self._key(table_id), self.ttl_ms)
                await pipe.execute()

    @_unavailable
    async def seats(self, table_id: str) -> set[int]:
        now = int(self.clock() * 1000)
        marks = await self.client.hgetall(self._key(table_id))
        seats = set()
        for field, until in marks.items():
            _, _, seat = (field.decode() if isinstance(field, bytes) else field).rpartition(":")
            if int(until) > now and seat.isdigit():
                seats.add(int(seat))
        return seats
