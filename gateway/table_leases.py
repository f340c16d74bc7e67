"""Leases per table, held by gateway processes and read as their union: who is at a table now.

Presence (which seats have a socket open, gateway.presence) and watchers (which members watch,
gateway.watchers) are the same soft state: each process marks what its own sockets hold and
every process reads what all of them hold. :class:`RedisTableLeases` keeps, per table, a hash
``{<prefix>:tables:<bucket>}:<table>:<kind>`` (services.stores.Keys.table) whose fields
``<process>:<holder>`` hold when that lease lapses. A process renews its leases every
RENEW_SECONDS and drops them as its sockets close; a process that dies leaves leases that lapse
within TTL_SECONDS. Redis holds nothing here that cannot be rebuilt (DESIGN).
:class:`MemoryTableLeases` serves one process.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Sequence

from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_on

TTL_SECONDS = 60.0
RENEW_SECONDS = 20.0
RENEW_BATCH = 50  # tables a pipeline


class MemoryTableLeases:
    """One gateway process: its own leases are all there is."""

    def __init__(self) -> None:
        self._held: dict[str, set[str]] = {}

    async def mark(self, table_id: str, holder: str, held: bool) -> None:
        holders = self._held.setdefault(table_id, set())
        if held:
            holders.add(holder)
        else:
            holders.discard(holder)
            if not holders:
                del self._held[table_id]

    async def renew(self, leases: Iterable[tuple[str, str]]) -> None:
        return None

    async def holders(self, table_ids: Sequence[str]) -> list[set[str]]:
        return [set(self._held.get(table_id, ())) for table_id in table_ids]


class RedisTableLeases:
    def __init__(self, client: RedisClient, keys: Keys, kind: str, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        self.client = client
        self.keys = keys
        self.kind = kind
        self.process = process or uuid.uuid4().hex
        self.clock = clock
        self.ttl_ms = int(ttl_seconds * 1000)

    def _key(self, table_id: str) -> str:
        return self.keys.table(table_id, self.kind)

    def _until(self) -> int:
        return int(self.clock() * 1000) + self.ttl_ms

    async def mark(self, table_id: str, holder: str, held: bool) -> None:
        """This process holds (or no longer holds) ``holder``'s lease at the table."""
        key, field = self._key(table_id), f"{self.process}:{holder}"
        with unavailable_on(REDIS_DOWN, f"gateway {self.kind}"):
            if not held:
                await self.client.hdel(key, field)
                return
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.hset(key, field, self._until())
                pipe.pexpire(key, self.ttl_ms)
                await pipe.execute()

    async def renew(self, leases: Iterable[tuple[str, str]]) -> None:
        """This process still holds these (table, holder) leases: one HSET and one PEXPIRE a
        table, RENEW_BATCH tables a round trip, so the loop is never held long (one pipeline of
        2,000 sockets' marks held a gateway's loop for 80 ms)."""
        until = self._until()
        by_table: dict[str, list[str]] = {}
        for table_id, holder in leases:
            by_table.setdefault(table_id, []).append(holder)
        tables = list(by_table.items())
        with unavailable_on(REDIS_DOWN, f"gateway {self.kind}"):
            for start in range(0, len(tables), RENEW_BATCH):
                async with self.client.pipeline(transaction=False) as pipe:
                    for table_id, holders in tables[start:start + RENEW_BATCH]:
                        pipe.hset(self._key(table_id),
                                  mapping={f"{self.process}:{holder}": until for holder in holders})
                        pipe.pexpire(self._key(table_id), self.ttl_ms)
                    await pipe.execute()

    async def holders(self, table_ids: Sequence[str]) -> list[set[str]]:
        """Who holds a lease that has not lapsed at each table, in any process: one HGETALL a
        table, all in one round trip (GET /api/games/live asks for up to 50)."""
        if not table_ids:
            return []
        now = int(self.clock() * 1000)
        with unavailable_on(REDIS_DOWN, f"gateway {self.kind}"):
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id in table_ids:
                    pipe.hgetall(self._key(table_id))
                found = await pipe.execute()
        held = []
        for leases in found:
            holders = set()
            for field, until in leases.items():
                # A process id has no colon (a uuid's hex); a holder may have some.
                _, _, holder = (field.decode() if isinstance(field, bytes) else field).partition(":")
                if int(until) > now and holder:
                    holders.add(holder)
            held.append(holders)
        return held
