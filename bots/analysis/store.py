"""The analyses members asked for: a durable queue, and the finished analyses kept.

One analysis per (table, member). ``request`` queues it unless the member has ``limit`` queued
or running already (TOO_MANY_ANALYSES); ``claim`` hands the oldest claimable one to a worker,
which holds it by a lease it renews (``renew``) while it runs, so that the analysis of a worker
that died (or restarted) is claimed again once its lease lapses; ``finish`` keeps the result;
``retry_later`` puts it back in the queue after a failure that may pass (the game service out of
reach). An analysis is claimable when it is queued or running and its ``not_before`` (a lease's
end, or a retry's time) has passed.

:class:`PostgresAnalysisStore` is shared by every bots replica (bots/migrations/0002_analyses.sql);
:class:`MemoryAnalysisStore` serves one.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import asyncpg

from services.rpc.errors import Reason, ServiceError
from services.stores import POSTGRES_DOWN, unavailable_when

QUEUED, RUNNING, DONE = "queued", "running", "done"
_unavailable = unavailable_when(POSTGRES_DOWN, "analysis store")


@dataclass(frozen=True)
class Analysis:
    table_id: str
    member_id: str
    seat: int
    status: str  # queued | running | done
    result: dict[str, Any] | None = None  # once done: {"plays": [...], "summary": {...}}
    attempts: int = 0  # claims so far


def too_many(limit: int) -> ServiceError:
    return ServiceError(Reason.TOO_MANY_ANALYSES, "Too many analyses", limit=str(limit))


class AnalysisStore(ABC):
    @abstractmethod
    async def request(self, table_id: str, member_id: str, seat: int, limit: int) -> tuple[Analysis, bool]:
        """(the analysis, whether this call queued it). TOO_MANY_ANALYSES when it is new and the
        member has ``limit`` queued or running."""

    @abstractmethod
    async def get(self, table_id: str, member_id: str) -> Analysis | None:
        """The member's analysis of the table, None when never asked."""

    @abstractmethod
    async def claim(self, owner: str, lease_seconds: float) -> Analysis | None:
        """The oldest claimable analysis, now running under ``owner``'s lease; None when none is."""

    @abstractmethod
    async def renew(self, table_id: str, member_id: str, owner: str, lease_seconds: float) -> bool:
        """Extend ``owner``'s lease; False when it no longer holds the analysis."""

    @abstractmethod
    async def finish(self, table_id: str, member_id: str, owner: str, result: dict[str, Any]) -> bool:
        """Keep the result (done); False when ``owner`` no longer holds the analysis."""

    @abstractmethod
    async def retry_later(self, table_id: str, member_id: str, owner: str, delay_seconds: float) -> bool:
        """Queue it again, claimable after ``delay_seconds``; False when ``owner`` no longer holds it."""

    @abstractmethod
    async def erase_member(self, member_id: str) -> int:
        """Delete every analysis of the member; how many there were."""

    async def probe(self) -> None:
        """Raise while the store does not answer."""

    async def close(self) -> None:
        """Release connections."""


class MemoryAnalysisStore(AnalysisStore):
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        # (table, member) -> (analysis, owner, not_before, order of creation)
        self._rows: dict[tuple[str, str], tuple[Analysis, str, float, int]] = {}
        self._made = 0

    async def request(self, table_id: str, member_id: str, seat: int, limit: int) -> tuple[Analysis, bool]:
        found = self._rows.get((table_id, member_id))
        if found is not None:
            return found[0], False
        pending = sum(1 for (_, member), (a, *_) in self._rows.items() if member == member_id and a.status != DONE)
        if pending >= limit:
            raise too_many(limit)
        self._made += 1
        analysis = Analysis(table_id, member_id, seat, QUEUED)
        self._rows[(table_id, member_id)] = (analysis, "", float("-inf"), self._made)
        return analysis, True

    async def get(self, table_id: str, member_id: str) -> Analysis | None:
        found = self._rows.get((table_id, member_id))
        return found[0] if found else None

    async def claim(self, owner: str, lease_seconds: float) -> Analysis | None:
        now = self.clock()
        ready = [(made, key) for key, (a, _, not_before, made) in self._rows.items()
                 if a.status != DONE and not_before < now]
        if not ready:
            return None
        _, key = min(ready)
        analysis, _, _, made = self._rows[key]
        analysis = replace(analysis, status=RUNNING, attempts=analysis.attempts + 1)
        self._rows[key] = (analysis, owner, now + lease_seconds, made)
        return analysis

    def _held(self, key: tuple[str, str], owner: str) -> tuple[Analysis, int] | None:
        found = self._rows.get(key)
        if found is None or found[0].status != RUNNING or found[1] != owner:
            return None
        return found[0], found[3]

    async def renew(self, table_id: str, member_id: str, owner: str, lease_seconds: float) -> bool:
        held = self._held((table_id, member_id), owner)
        if held is None:
            return False
        self._rows[(table_id, member_id)] = (held[0], owner, self.clock() + lease_seconds, held[1])
        return True

    async def finish(self, table_id: str, member_id: str, owner: str, result: dict[str, Any]) -> bool:
        held = self._held((table_id, member_id), owner)
        if held is None:
            return False
        self._rows[(table_id, member_id)] = (replace(held[0], status=DONE, result=result), "", float("inf"), held[1])
        return True

    async def retry_later(self, table_id: str, member_id: str, owner: str, delay_seconds: float) -> bool:
        held = self._held((table_id, member_id), owner)
        if held is None:
            return False
        self._rows[(table_id, member_id)] = (replace(held[0], status=QUEUED), "", self.clock() + delay_seconds,
                                             held[1])
        return True

    async def erase_member(self, member_id: str) -> int:
        keys = [key for key in self._rows if key[1] == member_id]
        for key in keys:
            del self._rows[key]
        return len(keys)


_COLUMNS = "table_id, member_id, seat_index, status, result::text AS result, attempts"


class PostgresAnalysisStore(AnalysisStore):
    """``owns_pool`` False: the pool is shared (the bots' tables use it too) and closed by its owner."""

    def __init__(self, pool: asyncpg.Pool, *, owns_pool: bool = True):
        self.pool = pool
        self.owns_pool = owns_pool

    @_unavailable
    async def request(self, table_id: str, member_id: str, seat: int, limit: int) -> tuple[Analysis, bool]:
        async with self.pool.acquire() as connection, connection.transaction():
            # One member's requests one at a time, so that two at once cannot both pass the limit.
            await connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                                     f"bot_analysis:{member_id}")
            row = await connection.fetchrow(
                f"SELECT {_COLUMNS} FROM bot_analysis WHERE table_id = $1 AND member_id = $2",
                table_id, member_id)
            if row is not None:
                return _analysis(row), False
            pending = await connection.fetchval(
                "SELECT count(*) FROM bot_analysis WHERE member_id = $1 AND status <> 'done'", member_id)
            if pending >= limit:
                raise too_many(limit)
            row = await connection.fetchrow(
                f"INSERT INTO bot_analysis (table_id, member_id, seat_index) VALUES ($1, $2, $3) "
                f"RETURNING {_COLUMNS}", table_id, member_id, seat)
            assert row is not None  # an INSERT ... RETURNING returns its row
            return _analysis(row), True

    @_unavailable
    async def get(self, table_id: str, member_id: str) -> Analysis | None:
        row = await self.pool.fetchrow(
            f"SELECT {_COLUMNS} FROM bot_analysis WHERE table_id = $1 AND member_id = $2", table_id, member_id)
        return _analysis(row) if row is not None else None

    @_unavailable
    async def claim(self, owner: str, lease_seconds: float) -> Analysis | None:
        row = await self.pool.fetchrow(
            "UPDATE bot_analysis SET status = 'running', owner = $1, attempts = attempts + 1, "
            "not_before = now() + make_interval(secs => $2) "
            "WHERE (table_id, member_id) = (SELECT table_id, member_id FROM bot_analysis "
            "  WHERE status <> 'done' AND not_before < now() ORDER BY created_at LIMIT 1 "
            "  FOR UPDATE SKIP LOCKED) "
            f"RETURNING {_COLUMNS}", owner, float(lease_seconds))
        return _analysis(row) if row is not None else None

    @_unavailable
    async def renew(self, table_id: str, member_id: str, owner: str, lease_seconds: float) -> bool:
        return await self._held(
            "UPDATE bot_analysis SET not_before = now() + make_interval(secs => $4)", table_id, member_id, owner,
            float(lease_seconds))

    @_unavailable
    async def finish(self, table_id: str, member_id: str, owner: str, result: dict[str, Any]) -> bool:
        return await self._held(
            "UPDATE bot_analysis SET status = 'done', result = $4::jsonb, owner = '', "
            "not_before = 'infinity', finished_at = now()", table_id, member_id, owner, json.dumps(result))

    @_unavailable
    async def retry_later(self, table_id: str, member_id: str, owner: str, delay_seconds: float) -> bool:
        return await self._held(
            "UPDATE bot_analysis SET status = 'queued', owner = '', not_before = now() + make_interval(secs => $4)",
            table_id, member_id, owner, float(delay_seconds))

    async def _held(self, update: str, table_id: str, member_id: str, owner: str, value: Any) -> bool:
        done = await self.pool.fetchval(
            f"{update} WHERE table_id = $1 AND member_id = $2 AND owner = $3 AND status = 'running' "
            "RETURNING true", table_id, member_id, owner, value)
        return bool(done)

    @_unavailable
    async def erase_member(self, member_id: str) -> int:
        deleted = await self.pool.fetch("DELETE FROM bot_analysis WHERE member_id = $1 RETURNING 1", member_id)
        return len(deleted)

    async def probe(self) -> None:
        await self.pool.fetchval("SELECT 1")

    async def close(self) -> None:
        if self.owns_pool:
            await self.pool.close()


def _analysis(row: asyncpg.Record) -> Analysis:
    return Analysis(row["table_id"], row["member_id"], row["seat_index"], row["status"],
                    json.loads(row["result"]) if row["result"] is not None else None, row["attempts"])
