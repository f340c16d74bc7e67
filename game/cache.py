"""The shared, rebuildable side of a table: its snapshot, its change signals and the set of running tables.

Redis keys (services.stores.Keys; the prefix is ``tavolo`` by default). A table's keys are in
the group of its bucket, ``{tavolo:tables:<bucket>}`` (one of 64, from the table id), which
the bucket's running set shares: one hash slot, as the save script needs on a Redis Cluster.
- ``{tavolo:tables:<bucket>}:<id>:snapshot``: the JSON snapshot, sliding TTL. A save is a
  compare-and-set on the snapshot's ``revision`` (a Lua script), so a slow writer never
  replaces a newer snapshot.
- ``{tavolo:tables:<bucket>}:<id>:events``: a (sharded) pub/sub channel; the message is the new
  state's snapshot, so a replica that follows the table learns the change without reading
  anything.
- ``{tavolo:game:followers}``: a pub/sub channel; a replica that starts to follow a table says
  so here (``<replica> <table id>``), so that the table's changes are signalled to it
  (game.snapshots).
- ``{tavolo:tables:<bucket>}:ongoing``: sorted set of the bucket's running tables (score: when
  the table entered it, ms: its first save in this Redis, so a table comes back after a loss of
  Redis with its next save). The running tables are the union of the buckets' sets.

Nothing here guards a change: the move log's revision-checked append does (game.tables). A change
is signalled (one SPUBLISH) while another replica follows the table, and stored only now and then
(game.snapshots): a save is one script call that stores the snapshot, updates the running set
and signals the change.
The in-memory cache (REDIS_URL unset) keeps the same rules in this process.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import cast

from services.signals import MemorySignalHub, RedisSignalHub, Signals
from services.stores import Keys, RedisClient

log = logging.getLogger(__name__)

# KEYS: snapshot, the bucket's ongoing set. ARGV: revision, snapshot, ttl seconds, table id,
# ongoing score ("" removes the table from the set), channel ("" publishes nothing; else the
# snapshot is the message; in the keys' slot). The snapshot is written first (SET ... GET: one
# command a save) and the old one put back in the rare case it was newer. The stored revision
# is read from the snapshot's first bytes (Live.snapshot_json writes it first): decoding the
# whole state on every save would cost Redis more than the save itself.
# The running set changes only when a table enters it (no snapshot before) or leaves it.
_SAVE_SCRIPT = """#!lua
local current = redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3], 'GET')
local newer = true
if current then
  local stored = tonumber(string.match(current, '^{"revision":(%d+),'))
  if stored == nil then
    local ok, doc = pcall(cjson.decode, current)
    if ok and type(doc) == 'table' and type(doc['revision']) == 'number' then
      stored = doc['revision']
    end
  end
  if stored ~= nil and stored >= tonumber(ARGV[1]) then
    newer = false
    redis.call('SET', KEYS[1], current, 'KEEPTTL')
  end
end
if newer then
  if ARGV[5] == '' then
    redis.call('ZREM', KEYS[2], ARGV[4])
  elseif not current then
    redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
  end
end
if ARGV[6] ~= '' then
  redis.call('SPUBLISH', ARGV[6], ARGV[2])
end
return newer and 1 or 0
"""


@dataclass(frozen=True)
class SnapshotWrite:
    """A snapshot to store (see :meth:`TableCache.save`)."""

    table_id: str
    revision: int
    snapshot: str
    ongoing_score: int | None  # None: the table is no longer running
    publish: bool


def _stored_revision(snapshot: str) -> int | None:
    """The ``revision`` of a stored snapshot, None when it is not one (the same test as the script)."""
    try:
        doc = json.loads(snapshot)
    except ValueError:
        return None
    revision = doc.get("revision") if isinstance(doc, dict) else None
    return revision if isinstance(revision, int) and not isinstance(revision, bool) else None


class TableCache(ABC):
    """Snapshots, signals and the running set, for every table."""

    @abstractmethod
    async def load(self, table_id: str) -> str | None:
        """The snapshot text (its TTL starts again), or None."""

    @abstractmethod
    async def save(self, write: SnapshotWrite) -> bool:
        """Store the snapshot unless one of this revision or later is there (then False).

        A stored snapshot also updates the running set: a table enters it with its first
        snapshot (scored ``ongoing_score``), and ``ongoing_score`` None removes it; ``publish``
        signals the table's subscribers either way, with the snapshot.
        """

    @abstractmethod
    async def publish(self, table_id: str, snapshot: str) -> int | None:
        """Signal the table's subscribers with ``snapshot``, storing nothing (a change made
        between two stored snapshots); how many subscriptions, in every process, received it
        (None: not known)."""

    def receiving(self, table_id: str) -> bool:
        """Whether this process's subscription to the table's signals is in place now (it is
        among those a signal reaches)."""
        return False

    def hearing_followers(self) -> bool:
        """Whether this process's subscription to the follower notices is in place now."""
        return False

    @abstractmethod
    async def announce_follower(self, notice: str) -> None:
        """Tell every replica that a table has a new follower (``notice`` names the table)."""

    @abstractmethod
    def followers(self) -> contextlib.AbstractAsyncContextManager[Signals]:
        """The notices of :meth:`announce_follower`, as signal payloads, once entered."""

    @abstractmethod
    def subscribe(self, table_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        """Signals of the table's changes, active once the context is entered; each signal's
        payload is the snapshot of the state the change made (from a replica of an earlier
        version: its revision alone)."""

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


_FOLLOWERS = "followers"  # the memory hub's channel of follower notices (table ids are UUIDs)


class MemoryTableCache(TableCache):
    """Everything in this process: a dict with expiry and an asyncio broadcast."""

    def __init__(self, ttl_seconds: float = 86400):
        self.ttl_seconds = ttl_seconds
        self._snapshots: dict[str, tuple[str, float]] = {}
        self._ongoing: dict[str, int] = {}
        self._hub = MemorySignalHub()

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
            elif current is None:
                self._ongoing[table_id] = write.ongoing_score
        if write.publish:
            self._hub.notify(table_id, write.snapshot)
        return newer

    async def publish(self, table_id: str, snapshot: str) -> int | None:
        self._hub.notify(table_id, snapshot)
        return None  # one process: its followers learn in-process anyway

    async def announce_follower(self, notice: str) -> None:
        self._hub.notify(_FOLLOWERS, notice)

    def followers(self) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(_FOLLOWERS)

    def put_raw(self, table_id: str, snapshot: str) -> None:
        """Store any text as the snapshot, bypassing the compare-and-set (tests of bad snapshots)."""
        self._snapshots[table_id] = (snapshot, time.monotonic() + self.ttl_seconds)

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


class RedisTableCache(TableCache):
    """The shared cache of every replica, in Redis (a client with ``decode_responses``: values are str)."""

    def __init__(self, client: RedisClient, keys: Keys, ttl_seconds: int = 86400):
        self._redis = client
        self._keys = keys
        self.ttl_seconds = int(ttl_seconds)
        self._save = client.register_script(_SAVE_SCRIPT)
        self._hub = RedisSignalHub(client, "game events")

    def snapshot_key(self, table_id: str) -> str:
        return self._keys.table(table_id, "snapshot")

    def channel(self, table_id: str) -> str:
        return self._keys.table(table_id, "events")

    def ongoing_key(self, table_id: str) -> str:
        """The running set of the table's bucket."""
        return self._keys.bucket(Keys.bucket_of(table_id), "ongoing")

    def _ongoing_keys(self) -> list[str]:
        return [self._keys.bucket(bucket, "ongoing") for bucket in range(Keys.TABLE_BUCKETS)]

    async def load(self, table_id: str) -> str | None:
        return cast("str | None", await self._redis.getex(self.snapshot_key(table_id), ex=self.ttl_seconds))

    async def save(self, write: SnapshotWrite) -> bool:
        keys = [self.snapshot_key(write.table_id), self.ongoing_key(write.table_id)]
        args: list[str | int] = [write.revision, write.snapshot, self.ttl_seconds, write.table_id,
                                 "" if write.ongoing_score is None else write.ongoing_score,
                                 self.channel(write.table_id) if write.publish else ""]
        return bool(await self._save(keys=keys, args=args))

    @property
    def followers_channel(self) -> str:
        return self._keys("game", "followers")

    async def publish(self, table_id: str, snapshot: str) -> int | None:
        return await self._hub.publish(self.channel(table_id), snapshot)

    def receiving(self, table_id: str) -> bool:
        return self._hub.subscribed(self.channel(table_id))

    def hearing_followers(self) -> bool:
        return self._hub.subscribed(self.followers_channel)

    async def announce_follower(self, notice: str) -> None:
        await self._hub.publish(self.followers_channel, notice)

    def followers(self) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(self.followers_channel)

    def subscribe(self, table_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(self.channel(table_id))

    async def forget(self, table_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.snapshot_key(table_id))
            pipe.zrem(self.ongoing_key(table_id), table_id)
            await pipe.execute()

    async def ongoing(self, limit: int = 1000) -> list[str]:
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in self._ongoing_keys():
                pipe.zrange(key, 0, limit - 1, withscores=True)
            buckets = await pipe.execute()
        # Each bucket's are in (score, id) order already, as one sorted set's would be.
        merged = heapq.merge(*([(score, table) for table, score in bucket] for bucket in buckets))
        return [table for _, table in list(merged)[:limit]]

    async def ongoing_count(self) -> int:
        async with self._redis.pipeline(transaction=False) as pipe:
            for key in self._ongoing_keys():
                pipe.zcard(key)
            return sum(int(count) for count in await pipe.execute())

    async def ping(self) -> None:
        await self._redis.ping()

    async def close(self) -> None:
        await self._hub.close()
        await self._redis.aclose()
