"""How many members watch each table now (CONTRACT, Spectators: ``"spectators": N``), across
every gateway process.

Each gateway process knows its own spectators' sockets (gateway.tables_feed); a member may watch
through any replica, with any number of sockets. So each process marks here the members it has a
watching socket of, per table, and every process counts the union: :class:`RedisWatchers` keeps,
per table, a hash ``{<prefix>:tables:<bucket>}:<table>:watchers`` (services.stores.Keys.table)
whose fields ``<process>:<member>`` hold when that mark lapses; the count is the number of
distinct members with a mark that has not lapsed. As with gateway.presence, a process renews its
marks every RENEW_SECONDS and drops them as its sockets close; a process that dies leaves marks
that lapse within TTL_SECONDS. Soft state, rebuilt by the processes themselves (DESIGN).
:class:`MemoryWatchers` serves one process.
"""

from __future__ import annotations

import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence

from gateway.presence import RENEW_BATCH, RENEW_SECONDS, TTL_SECONDS
from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_when

__all__ = ["RENEW_SECONDS", "MemoryWatchers", "RedisWatchers", "Watchers"]

_unavailable = unavailable_when(REDIS_DOWN, "gateway watchers")


class Watchers(ABC):
    @abstractmethod
    async def mark(self, table_id: str, member_id: str, watching: bool) -> None:
        """This process has (or no longer has) a socket of ``member_id`` watching the table."""

    @abstractmethod
    async def renew(self, marks: Iterable[tuple[str, str]]) -> None:
        """This process still has watching sockets of these (table, member) pairs."""

    @abstractmethod
    async def counts(self, table_ids: Sequence[str]) -> list[int]:
        """How many members watch each table, in any process."""

    async def count(self, table_id: str) -> int:
        return (await self.counts([table_id]))[0]


class MemoryWatchers(Watchers):
    """One gateway process: its own marks are all there is."""

    def __init__(self) -> None:
        self._marks: dict[str, set[str]] = {}

    async def mark(self, table_id: str, member_id: str, watching: bool) -> None:
        members = self._marks.setdefault(table_id, set())
        if watching:
            members.add(member_id)
        else:
            members.discard(member_id)
            if not members:
                del self._marks[table_id]

    async def renew(self, marks: Iterable[tuple[str, str]]) -> None:
        return None

    async def counts(self, table_ids: Sequence[str]) -> list[int]:
        return [len(self._marks.get(table_id, ())) for table_id in table_ids]


class RedisWatchers(Watchers):
    def __init__(self, client: RedisClient, keys: Keys, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        self.client = client
        self.keys = keys
        self.process = process or uuid.uuid4().hex
        self.clock = clock
        self.ttl_ms = int(ttl_seconds * 1000)

    def _key(self, table_id: str) -> str:
        return self.keys.table(table_id, "watchers")

    def _until(self) -> int:
        return int(self.clock() * 1000) + self.ttl_ms

    @_unavailable
    async def mark(self, table_id: str, member_id: str, watching: bool) -> None:
        key, field = self._key(table_id), f"{self.process}:{member_id}"
        if not watching:
            await self.client.hdel(key, field)
            return
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(key, field, self._until())
            pipe.pexpire(key, self.ttl_ms)
            await pipe.execute()

    @_unavailable
    async def renew(self, marks: Iterable[tuple[str, str]]) -> None:
        """One HSET and one PEXPIRE a table, RENEW_BATCH tables a round trip."""
        until = self._until()
        members: dict[str, list[str]] = {}
        for table_id, member_id in marks:
            members.setdefault(table_id, []).append(member_id)
        tables = list(members.items())
        for start in range(0, len(tables), RENEW_BATCH):
            async with self.client.pipeline(transaction=False) as pipe:
                for table_id, ids in tables[start:start + RENEW_BATCH]:
                    pipe.hset(self._key(table_id), mapping={f"{self.process}:{m}": until for m in ids})
                    pipe.pexpire(self._key(table_id), self.ttl_ms)
                await pipe.execute()

    @_unavailable
    async def counts(self, table_ids: Sequence[str]) -> list[int]:
        """One HGETALL a table, in one round trip (GET /api/games/live asks for up to 50)."""
        if not table_ids:
            return []
        now = int(self.clock() * 1000)
        async with self.client.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hgetall(self._key(table_id))
            found = await pipe.execute()
        counts = []
        for marks in found:
            members = set()
            for field, until in marks.items():
                _, _, member = (field.decode() if isinstance(field, bytes) else field).partition(":")
                if int(until) > now and member:
                    members.add(member)
            counts.append(len(members))
        return counts
