"""The live side of a table: its snapshot, its lock, its change signals and the set of running tables.

Redis keys (every one built from the configured prefix, ``tavolo`` by default):
- ``tavolo:game:<id>``: the JSON snapshot, sliding TTL. A save is a compare-and-set on the
  snapshot's ``revision`` (a Lua script), so a slow writer never replaces a newer snapshot.
- ``tavolo:game:<id>:lock``: redis-py's Lock, with a TTL so a dead process frees the table.
- ``tavolo:game:<id>:events``: a pub/sub channel; the message is the new revision.
- ``tavolo:games:ongoing``: sorted set of running tables (score: the last change, ms).

The in-memory cache (REDIS_URL unset) keeps the same rules in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import cast

import redis.asyncio as redis
from redis.exceptions import LockError, NoScriptError

from services.signals import MemorySignalHub, RedisSignalHub, Signals
from services.stores import Keys

log = logging.getLogger(__name__)

LOCK_TTL_SECONDS = 10.0  # longer than any mutation; a dead holder frees the table after it
LOCK_WAIT_SECONDS = 5.0  # how long a mutation queues for a busy table before giving up
_LOCK_POLL_SECONDS = 0.005

# KEYS: snapshot, ongoing set. ARGV: revision, snapshot, ttl seconds, table id, ongoing score
# ("" removes the table from the set), channel ("" publishes nothing).
_SAVE_SCRIPT = """
local current = redis.call('GET', KEYS[1])
local newer = true
if current then
  local ok, doc = pcall(cjson.decode, current)
  if ok and type(doc) == 'table' and type(doc['revision']) == 'number'
     and doc['revision'] >= tonumber(ARGV[1]) then
    newer = false
  end
end
if newer then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  if ARGV[5] == '' then
    redis.call('ZREM', KEYS[2], ARGV[4])
  else
    redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
  end
end
if ARGV[6] ~= '' then
  redis.call('PUBLISH', ARGV[6], ARGV[1])
end
return newer and 1 or 0
"""


class LockTimeout(Exception):
    """The table stayed locked by another mutation for longer than the wait allows."""


@dataclass(frozen=True)
class SnapshotWrite:
    """A snapshot to store (see :meth:`TableCache.save`)."""

    table_id: str
    revision: int
    snapshot: str
    ongoing_score: int | None  # None: the table is no longer running
    publish: bool


class TableLock(ABC):
    """One holding of a table's lock."""

    @abstractmethod
    async def acquire(self) -> None:
        """Wait for the lock; LockTimeout when it stays taken."""

    @abstractmethod
    async def release(self, write: SnapshotWrite | None = None) -> bool:
        """Give it back, storing ``write`` first (in Redis, in the same round trip).

        False when the lock had expired meanwhile (another may hold it now).
        """


def _stored_revision(snapshot: str) -> int | None:
    """The ``revision`` of a stored snapshot, None when it is not one (the same test as the script)."""
    try:
        doc = json.loads(snapshot)
    except ValueError:
        return None
    revision = doc.get("revision") if isinstance(doc, dict) else None
    return revision if isinstance(revision, int) and not isinstance(revision, bool) else None


class TableCache(ABC):
    """Snapshots, locks, signals and the running set, for every table."""

    @abstractmethod
    async def load(self, table_id: str) -> str | None:
        """The snapshot text (its TTL starts again), or None."""

    @abstractmethod
    async def save(self, write: SnapshotWrite) -> bool:
        """Store the snapshot unless one of this revision or later is there (then False).

        A stored snapshot also updates the running set (``ongoing_score`` None removes the
        table); ``publish`` signals the table's subscribers either way.
        """

    @abstractmethod
    def lock(self, table_id: str) -> TableLock:
        """A new, not yet acquired, holding of the table's lock."""

    @abstractmethod
    def subscribe(self, table_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        """Signals of the table's changes, active once the context is entered."""

    @abstractmethod
    async def forget(self, table_id: str) -> None:
        """Drop the snapshot and the table from the running set."""

    @abstractmethod
    async def ongoing(self, limit: int = 1000) -> list[str]:
        """Running tables, least recently changed first."""

    @abstractmethod
    async def ongoing_count(self) -> int:
        """How many tables are running."""

    async def ping(self) -> None:
        """Raise when the cache does not answer."""

    async def close(self) -> None:
        """Release connections."""


class MemoryTableCache(TableCache):
    """Everything in this process: a dict with expiry, locks with a TTL, an asyncio broadcast."""

    def __init__(self, ttl_seconds: float = 86400, lock_ttl_seconds: float = LOCK_TTL_SECONDS,
                 lock_wait_seconds: float = LOCK_WAIT_SECONDS):
        self.ttl_seconds = ttl_seconds
        self.lock_ttl_seconds = lock_ttl_seconds
        self.lock_wait_seconds = lock_wait_seconds
        self._snapshots: dict[str, tuple[str, float]] = {}
        self._ongoing: dict[str, int] = {}
        self._hub = MemorySignalHub()
        self._holders: dict[str, tuple[object, float]] = {}
        self._released: dict[str, asyncio.Event] = {}

    async def load(self, table_id: str) -> str | None:
        entry = self._snapshots.get(table_id)
        if entry is None:
            return None
        if entry[1] <= time.monotonic():
            del self._snapshots[table_id]
            return None
        self._snapshots[table_id] = (entry[0], time.monotonic() + self.ttl_seconds)
        return entry[0]

    async def save(self, write: SnapshotWrite) -> bool:
        table_id = write.table_id
        current = await self.load(table_id)
        stored = None if current is None else _stored_revision(current)
        newer = stored is None or stored < write.revision
        if newer:
            self._snapshots[table_id] = (write.snapshot, time.monotonic() + self.ttl_seconds)
            if write.ongoing_score is None:
                self._ongoing.pop(table_id, None)
            else:
                self._ongoing[table_id] = write.ongoing_score
        if write.publish:
            self._hub.notify(table_id)
        return newer

    def put_raw(self, table_id: str, snapshot: str) -> None:
        """Store any text as the snapshot, bypassing the compare-and-set (tests of bad snapshots)."""
        self._snapshots[table_id] = (snapshot, time.monotonic() + self.ttl_seconds)

    def lock(self, table_id: str) -> TableLock:
        return _MemoryLock(self, table_id)

    def subscribe(self, table_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(table_id)

    async def forget(self, table_id: str) -> None:
        self._snapshots.pop(table_id, None)
        self._ongoing.pop(table_id, None)

    async def ongoing(self, limit: int = 1000) -> list[str]:
        return [t for t, _ in sorted(self._ongoing.items(), key=lambda item: item[1])][:limit]

    async def ongoing_count(self) -> int:
        return len(self._ongoing)

    def flush(self) -> None:
        """Lose every snapshot and the running set, as a flushed Redis would."""
        self._snapshots.clear()
        self._ongoing.clear()


class _MemoryLock(TableLock):
    def __init__(self, cache: MemoryTableCache, table_id: str):
        self._cache = cache
        self._table_id = table_id
        self._token = object()
        self._ttl = cache.lock_ttl_seconds
        self._wait = cache.lock_wait_seconds

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self._wait
        while True:
            now = loop.time()
            holder = self._cache._holders.get(self._table_id)
            if holder is None or holder[1] <= now:
                self._cache._holders[self._table_id] = (self._token, now + self._ttl)
                return
            if now >= give_up_at:
                raise LockTimeout(f"table {self._table_id} stayed locked")
            released = self._cache._released.setdefault(self._table_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(released.wait(), min(holder[1], give_up_at) - now)

    async def release(self, write: SnapshotWrite | None = None) -> bool:
        if write is not None:
            await self._cache.save(write)
        holder = self._cache._holders.get(self._table_id)
        if holder is None or holder[0] is not self._token:
            return False
        del self._cache._holders[self._table_id]
        released = self._cache._released.pop(self._table_id, None)
        if released is not None:
            released.set()
        return True


class RedisTableCache(TableCache):
    """The shared cache of every replica, in Redis (a client with ``decode_responses``: values are str)."""

    def __init__(self, client: redis.Redis, keys: Keys, ttl_seconds: int = 86400,
                 lock_ttl_seconds: float = LOCK_TTL_SECONDS,
                 lock_wait_seconds: float = LOCK_WAIT_SECONDS):
        self._redis = client
        self._keys = keys
        self.ttl_seconds = int(ttl_seconds)
        self.lock_ttl_seconds = lock_ttl_seconds
        self.lock_wait_seconds = lock_wait_seconds
        self._save = client.register_script(_SAVE_SCRIPT)
        self._hub = RedisSignalHub(client, "game events")

    def snapshot_key(self, table_id: str) -> str:
        return self._keys("game", table_id)

    def lock_key(self, table_id: str) -> str:
        return self._keys("game", table_id, "lock")

    def channel(self, table_id: str) -> str:
        return self._keys("game", table_id, "events")

    @property
    def ongoing_key(self) -> str:
        return self._keys("games", "ongoing")

    async def load(self, table_id: str) -> str | None:
        return cast("str | None", await self._redis.getex(self.snapshot_key(table_id), ex=self.ttl_seconds))

    async def save(self, write: SnapshotWrite) -> bool:
        return bool(await self.save_in(self._redis, write))

    def save_in(self, client, write: SnapshotWrite, sha_only: bool = False):
        """The save script, run by ``client``; ``sha_only`` queues a bare EVALSHA in a pipeline."""
        keys = [self.snapshot_key(write.table_id), self.ongoing_key]
        args: list[str | int] = [write.revision, write.snapshot, self.ttl_seconds, write.table_id,
                "" if write.ongoing_score is None else write.ongoing_score,
                self.channel(write.table_id) if write.publish else ""]
        if sha_only:
            return client.evalsha(self._save.sha, len(keys), *keys, *args)
        return self._save(keys=keys, args=args, client=client)

    def lock(self, table_id: str) -> TableLock:
        return _RedisLock(self, self._redis.lock(
            self.lock_key(table_id), timeout=self.lock_ttl_seconds, sleep=_LOCK_POLL_SECONDS,
            blocking_timeout=self.lock_wait_seconds, thread_local=False,
        ))

    def subscribe(self, table_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(self.channel(table_id))

    async def forget(self, table_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.snapshot_key(table_id))
            pipe.zrem(self.ongoing_key, table_id)
            await pipe.execute()

    async def ongoing(self, limit: int = 1000) -> list[str]:
        return cast("list[str]", await self._redis.zrange(self.ongoing_key, 0, limit - 1))

    async def ongoing_count(self) -> int:
        return int(await self._redis.zcard(self.ongoing_key))

    async def ping(self) -> None:
        await self._redis.ping()

    async def close(self) -> None:
        await self._hub.close()
        await self._redis.aclose()


class _RedisLock(TableLock):
    """redis-py's Lock; a release with a snapshot runs the Lock's own release script in the
    same pipeline as the save."""

    def __init__(self, cache: RedisTableCache, lock):
        self._cache = cache
        self._lock = lock

    async def acquire(self) -> None:
        if not await self._lock.acquire():
            raise LockTimeout(f"{self._lock.name} stayed locked")

    async def release(self, write: SnapshotWrite | None = None) -> bool:
        if write is None:
            try:
                await self._lock.release()
            except LockError:  # it expired: the conditional append kept the log right anyway
                return False
            return True
        token, self._lock.local.token = self._lock.local.token, None
        name = self._lock.name
        # EVALSHA straight into the pipeline (a pipeline given scripts would first ask Redis
        # whether it knows them: a round trip more); a script Redis forgot is run again alone.
        async with self._cache._redis.pipeline(transaction=False) as pipe:
            self._cache.save_in(pipe, write, sha_only=True)
            pipe.evalsha(self._lock.lua_release.sha, 1, name, token)
            saved, released = await pipe.execute(raise_on_error=False)
        if isinstance(saved, NoScriptError):
            await self._cache.save_in(self._cache._redis, write)
        if isinstance(released, NoScriptError):
            released = await self._lock.lua_release(keys=[name], args=[token])
        if isinstance(released, Exception):
            raise released
        return bool(released)
