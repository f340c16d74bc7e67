"""Which seats of which tables bots play, and which bots replica drives each table.

The lobby tells the bots service a table's bot seats whenever they change (DriveTable); the
store keeps them until the table finishes. Each table is driven by one replica at a time, the
holder of its lease: the holder renews it every few seconds (``claim``), and any replica takes
the tables whose lease lapsed, so the tables of a replica that died move within a lease. Two
replicas driving one table for a moment is harmless: every bot play is a revision-checked Act.

:class:`PostgresDriveStore` is shared by every replica; :class:`MemoryDriveStore` serves one.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import asyncpg

from services.stores import POSTGRES_DOWN, unavailable_when

BotSeats = tuple[tuple[int, str], ...]  # (seat index, level), by seat
_unavailable = unavailable_when(POSTGRES_DOWN, "bots store")


@dataclass(frozen=True)
class Assignment:
    """A table this replica drives, and the seats its bots play."""

    table_id: str
    seats: BotSeats


class DriveStore(ABC):
    @abstractmethod
    async def set(self, table_id: str, seats: BotSeats) -> None:
        """Bots play exactly ``seats`` of the table (none: forget it); the lease is kept."""

    @abstractmethod
    async def claim(self, owner: str, lease_seconds: float) -> list[Assignment]:
        """Renew ``owner``'s leases and take every lapsed one; all the tables it now drives."""

    @abstractmethod
    async def seats(self, table_id: str) -> BotSeats:
        """The seats bots play at the table now (none when it is forgotten)."""

    @abstractmethod
    async def forget(self, table_id: str) -> None:
        """The table finished: no bot plays there any more."""

    async def probe(self) -> None:
        """Raise while the store does not answer."""

    async def close(self) -> None:
        """Release connections."""


class MemoryDriveStore(DriveStore):
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._tables: dict[str, tuple[BotSeats, str, float]] = {}  # seats, owner, lease until

    async def set(self, table_id: str, seats: BotSeats) -> None:
        if not seats:
            self._tables.pop(table_id, None)
            return
        _, owner, until = self._tables.get(table_id, ((), "", float("-inf")))
        self._tables[table_id] = (seats, owner, until)

    async def claim(self, owner: str, lease_seconds: float) -> list[Assignment]:
        now = self.clock()
        claimed = []
        for table_id, (seats, holder, until) in self._tables.items():
            if holder == owner or until < now:
                self._tables[table_id] = (seats, owner, now + lease_seconds)
                claimed.append(Assignment(table_id, seats))
        return claimed

    async def seats(self, table_id: str) -> BotSeats:
        return self._tables.get(table_id, ((), "", 0.0))[0]

    async def forget(self, table_id: str) -> None:
        self._tables.pop(table_id, None)


class PostgresDriveStore(DriveStore):
    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def set(self, table_id: str, seats: BotSeats) -> None:
        if not seats:
            await self.pool.execute("DELETE FROM bot_table WHERE table_id = $1", table_id)
            return
        await self.pool.execute(
            "INSERT INTO bot_table (table_id, seats) VALUES ($1, $2::jsonb) "
            "ON CONFLICT (table_id) DO UPDATE SET seats = EXCLUDED.seats",
            table_id, json.dumps([list(seat) for seat in seats]))

    @_unavailable
    async def claim(self, owner: str, lease_seconds: float) -> list[Assignment]:
        rows = await self.pool.fetch(
            "UPDATE bot_table SET owner = $1, lease_until = now() + make_interval(secs => $2) "
            "WHERE owner = $1 OR lease_until < now() RETURNING table_id, seats::text",
            owner, float(lease_seconds))
        return [Assignment(row["table_id"], _seats(row["seats"])) for row in rows]

    @_unavailable
    async def seats(self, table_id: str) -> BotSeats:
        text = await self.pool.fetchval("SELECT seats::text FROM bot_table WHERE table_id = $1",
                                        table_id)
        return _seats(text) if text is not None else ()

    @_unavailable
    async def forget(self, table_id: str) -> None:
        await self.pool.execute("DELETE FROM bot_table WHERE table_id = $1", table_id)

    async def probe(self) -> None:
        await self.pool.fetchval("SELECT 1")

    async def close(self) -> None:
        await self.pool.close()


def _seats(text: str) -> BotSeats:
    return tuple((int(index), str(level)) for index, level in json.loads(text))
