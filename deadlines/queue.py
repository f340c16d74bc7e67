"""The deadline queue: pending entries by due time, claimed entries under a lease, wake-ups.

One interface, :class:`DeadlineQueue`, with a Redis implementation (any number of consumer
replicas share it) and an in-memory one (a single process, used when REDIS_URL is unset).
Every operation is atomic: one Lua script in Redis, a stretch of code without ``await`` in
memory. That is what makes two replicas polling at once never claim the same entry.

The life of an entry: Schedule puts it in *pending*, scored by its due time. A poll claims the
due ones: it moves them to *in flight*, scored by a lease expiry. The consumer then settles
each claim: **ack** (fired, or the table is gone) removes it; **retry** (the game service
failed) puts it back in pending at a later time and counts the attempt; **release** (the
consumer is stopping) puts it back due now. A consumer that dies settles nothing: every poll
first sweeps the in-flight entries whose lease expired back to pending, so another replica
fires them (at-least-once; the engine's token check makes a repeat harmless).

Settling is fenced by the claim's lease expiry: if the lease ran out and another replica
re-claimed the entry, the first consumer's late ack or retry changes nothing.

Redis keys (``<prefix>`` is REDIS_KEY_PREFIX, "tavolo" in production); members are the
compact JSON of :attr:`Entry.member`. All of them carry the hash tag ``{<prefix>:deadlines}``
(services.stores.Keys): one slot, which the scripts moving entries between them need on a
Redis Cluster (one node serves the whole queue there).
- ``{<prefix>:deadlines}:pending``: sorted set, pending entries, score = due time (ms since
  the epoch);
- ``{<prefix>:deadlines}:inflight``: sorted set, claimed entries, score = lease expiry (ms);
- ``{<prefix>:deadlines}:attempts``: hash, member -> failed fires so far (for the backoff);
- ``{<prefix>:deadlines}:table:<table id>``: set, the table's members (pending or in flight),
  so CancelTable and SetTableDeadlines replace a table's entries without scanning the queue;
- ``{<prefix>:deadlines}:events``: (sharded) pub/sub channel; each schedule and requeue
  publishes the due time, so every consumer re-plans at once (its heartbeat is only the
  backstop);
- ``{<prefix>:deadlines}:epoch``: a random id set once (SET NX) and never changed: when the
  queue loses its entries (a flushed or new Redis) it is gone with them, the next read draws
  a new one, and the game service, seeing it change, schedules every pending deadline again.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from redis.exceptions import RedisError

from deadlines.entry import Claim, Entry, InvalidEntry, Poll
from services import redis_channels
from services.cancellation import raise_if_cancelled
from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_when

log = logging.getLogger(__name__)

# Called with the due time (ms) of a newly scheduled or requeued entry, or None when a wake-up
# may have been missed (e.g. after re-subscribing): the consumer re-plans either way.
WakeCallback = Callable[[int | None], None]

# How many expired leases one poll returns at most (the rest wait for the next poll).
SWEEP_BATCH = 500
# How long one read of the wake-up channel blocks before the listener checks it should stop.
_LISTEN_POLL_SECONDS = 1.0


class Counts(NamedTuple):
    """How many entries are pending and in flight."""

    pending: int
    in_flight: int


class DeadlineQueue(ABC):
    """The shared queue of deadline entries. Implementations keep each method atomic."""

    @abstractmethod
    async def schedule(self, entry: Entry, due_ms: int) -> None:
        """Add the entry due at ``due_ms``, or move it there if pending; publish a wake-up."""

    @abstractmethod
    async def cancel(self, entry: Entry) -> bool:
        """Remove the entry; True when it was pending (a claimed one is dropped too, quietly)."""

    @abstractmethod
    async def cancel_table(self, table_id: str) -> int:
        """Remove every entry of the table; how many were pending."""

    @abstractmethod
    async def set_tables(self, tables: Mapping[str, Sequence[tuple[Entry, int]]]) -> None:
        """Make each table's entries exactly its (entry, due ms) pairs, pending; every other
        entry of those tables goes, claimed ones too. One wake-up for the earliest due."""

    @abstractmethod
    async def epoch(self) -> str:
        """An id of the queue's contents: the same until the queue loses its entries."""

    @abstractmethod
    async def poll(self, now_ms: int, lease_until: int, limit: int) -> Poll:
        """Sweep expired leases back to pending, then claim up to ``limit`` entries due by now."""

    @abstractmethod
    async def ack(self, claim: Claim) -> bool:
        """The claim is done: remove it. False when the claim was no longer held."""

    @abstractmethod
    async def retry(self, claim: Claim, retry_at_ms: int) -> bool:
        """The fire failed: pending again at ``retry_at_ms``, one more attempt counted."""

    @abstractmethod
    async def release(self, claim: Claim, now_ms: int) -> bool:
        """Give the claim back unfired (the consumer stops): pending again, due now."""

    @abstractmethod
    async def listen(self, on_wake: WakeCallback) -> None:
        """Call ``on_wake`` for every wake-up until cancelled; survives lost connections."""

    @abstractmethod
    async def counts(self) -> Counts:
        """How many entries are pending and in flight (for tests and operators)."""

    @abstractmethod
    async def ping(self) -> None:
        """Raise while the store does not answer (the health probe)."""

    async def close(self) -> None:
        """Release connections."""


class MemoryDeadlineQueue(DeadlineQueue):
    """The queue in this process's memory: one replica, lost on restart (development, tests)."""

    def __init__(self) -> None:
        self._pending: dict[Entry, tuple[int, int]] = {}   # entry -> (due, sequence)
        self._pending_heap: list[tuple[int, int, Entry]] = []
        self._in_flight: dict[Entry, tuple[int, int]] = {}  # entry -> (lease_until, sequence)
        self._in_flight_heap: list[tuple[int, int, Entry]] = []
        self._attempts: dict[Entry, int] = {}
        self._tables: dict[str, set[Entry]] = {}
        self._listeners: set[WakeCallback] = set()
        self._sequence = itertools.count()
        self._epoch = secrets.token_hex(8)  # a restarted process has lost its entries

    # Heaps with lazy deletion: an item counts only while its dict still holds (score, seq).
    def _put(self, index: dict, heap: list, entry: Entry, score: int) -> None:
        sequence = next(self._sequence)
        index[entry] = (score, sequence)
        heapq.heappush(heap, (score, sequence, entry))

    @staticmethod
    def _first(index: dict, heap: list) -> tuple[int, Entry] | None:
        while heap:
            score, sequence, entry = heap[0]
            if index.get(entry) == (score, sequence):
                return score, entry
            heapq.heappop(heap)
        return None

    def _wake(self, due_ms: int) -> None:
        for listener in list(self._listeners):
            listener(due_ms)

    def _forget(self, entry: Entry) -> None:
        """Drop the entry from its table's index once it is neither pending nor in flight."""
        if entry in self._pending or entry in self._in_flight:
            return
        members = self._tables.get(entry.table_id)
        if members is not None:
            members.discard(entry)
            if not members:
                del self._tables[entry.table_id]

    async def schedule(self, entry: Entry, due_ms: int) -> None:
        self._put(self._pending, self._pending_heap, entry, due_ms)
        self._attempts.pop(entry, None)
        self._tables.setdefault(entry.table_id, set()).add(entry)
        self._wake(due_ms)

    async def cancel(self, entry: Entry) -> bool:
        removed = self._pending.pop(entry, None) is not None
        self._in_flight.pop(entry, None)
        self._attempts.pop(entry, None)
        self._forget(entry)
        return removed

    async def cancel_table(self, table_id: str) -> int:
        removed = 0
        for entry in self._tables.pop(table_id, set()):
            removed += self._pending.pop(entry, None) is not None
            self._in_flight.pop(entry, None)
            self._attempts.pop(entry, None)
        return removed

    async def set_tables(self, tables: Mapping[str, Sequence[tuple[Entry, int]]]) -> None:
        earliest: int | None = None
        for table_id, entries in tables.items():
            await self.cancel_table(table_id)
            for entry, due_ms in entries:
                self._put(self._pending, self._pending_heap, entry, due_ms)
                self._tables.setdefault(table_id, set()).add(entry)
                earliest = due_ms if earliest is None else min(earliest, due_ms)
        if earliest is not None:
            self._wake(earliest)

    async def epoch(self) -> str:
        return self._epoch

    async def poll(self, now_ms: int, lease_until: int, limit: int) -> Poll:
        returned = 0
        while returned < SWEEP_BATCH:
            first = self._first(self._in_flight, self._in_flight_heap)
            if first is None or first[0] > now_ms:
                break
            entry = first[1]
            del self._in_flight[entry]
            if entry not in self._pending:
                self._put(self._pending, self._pending_heap, entry, now_ms)
            returned += 1
        claims: list[Claim] = []
        while len(claims) < limit:
            first = self._first(self._pending, self._pending_heap)
            if first is None or first[0] > now_ms:
                break
            due_ms, entry = first
            del self._pending[entry]
            self._put(self._in_flight, self._in_flight_heap, entry, lease_until)
            claims.append(Claim(entry, due_ms, lease_until, self._attempts.get(entry, 0)))
        firsts = [self._first(self._pending, self._pending_heap),
                  self._first(self._in_flight, self._in_flight_heap)]
        scores = [first[0] for first in firsts if first is not None]
        return Poll(claims, min(scores) if scores else None, returned)

    def _holds(self, claim: Claim) -> bool:
        held = self._in_flight.get(claim.entry)
        return held is not None and held[0] == claim.lease_until

    async def ack(self, claim: Claim) -> bool:
        if not self._holds(claim):
            return False
        del self._in_flight[claim.entry]
        self._attempts.pop(claim.entry, None)
        self._forget(claim.entry)
        return True

    async def retry(self, claim: Claim, retry_at_ms: int) -> bool:
        return self._requeue(claim, retry_at_ms, count_attempt=True)

    async def release(self, claim: Claim, now_ms: int) -> bool:
        return self._requeue(claim, now_ms, count_attempt=False)

    def _requeue(self, claim: Claim, at_ms: int, count_attempt: bool) -> bool:
        if not self._holds(claim):
            return False
        entry = claim.entry
        del self._in_flight[entry]
        if count_attempt:
            self._attempts[entry] = self._attempts.get(entry, 0) + 1
        if entry not in self._pending:  # rescheduled meanwhile: the last schedule wins
            self._put(self._pending, self._pending_heap, entry, at_ms)
        self._wake(at_ms)
        return True

    async def listen(self, on_wake: WakeCallback) -> None:
        self._listeners.add(on_wake)
        on_wake(None)  # as Redis does on subscribing: anything scheduled before is polled again
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            self._listeners.discard(on_wake)

    async def counts(self) -> Counts:
        return Counts(len(self._pending), len(self._in_flight))

    async def ping(self) -> None:
        return None


# KEYS[1] pending, KEYS[2] attempts, KEYS[3] the table's index
# ARGV[1] member, ARGV[2] due (ms), ARGV[3] events channel
_SCHEDULE = """#!lua
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SPUBLISH', ARGV[3], ARGV[2])
return 1
"""

# KEYS[1] pending, KEYS[2] in flight, KEYS[3] attempts, KEYS[4] the table's index
# ARGV[1] member. Returns 1 when the entry was pending.
_CANCEL = """#!lua
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
return removed
"""

# KEYS as _CANCEL. Returns how many of the table's entries were pending.
_CANCEL_TABLE = """#!lua
local removed = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  removed = removed + redis.call('ZREM', KEYS[1], member)
  redis.call('ZREM', KEYS[2], member)
  redis.call('HDEL', KEYS[3], member)
end
redis.call('DEL', KEYS[4])
return removed
"""

# KEYS[1] pending, KEYS[2] in flight, KEYS[3] attempts, KEYS[3 + i] the i-th table's index
# ARGV[1] events channel, then for each table: its entry count n, then n (member, due) pairs.
_SET_TABLES = """#!lua
local earliest = false
local at = 2
for i = 4, #KEYS do
  local old = redis.call('SMEMBERS', KEYS[i])
  if #old > 0 then
    redis.call('ZREM', KEYS[1], unpack(old))
    redis.call('ZREM', KEYS[2], unpack(old))
    redis.call('HDEL', KEYS[3], unpack(old))
    redis.call('DEL', KEYS[i])
  end
  local count = tonumber(ARGV[at])
  at = at + 1
  if count > 0 then
    local scored, members = {}, {}
    for _ = 1, count do
      local member, due = ARGV[at], tonumber(ARGV[at + 1])
      at = at + 2
      scored[#scored + 1] = due
      scored[#scored + 1] = member
      members[#members + 1] = member
      if not earliest or due < earliest then earliest = due end
    end
    redis.call('ZADD', KEYS[1], unpack(scored))
    redis.call('SADD', KEYS[i], unpack(members))
  end
end
if earliest then redis.call('SPUBLISH', ARGV[1], earliest) end
return 1
"""

# KEYS[1] pending, KEYS[2] in flight, KEYS[3] attempts
# ARGV[1] now (ms), ARGV[2] lease expiry of new claims (ms), ARGV[3] claim limit,
# ARGV[4] sweep limit
# Returns {claims as member, due, attempts triples; next pending due; next lease expiry; swept}.
_POLL = """#!lua
local now = tonumber(ARGV[1])
-- The sweeper: expired leases go back to pending, due now. ZADD NX: a copy rescheduled
-- while in flight keeps the time of its last schedule.
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
for _, member in ipairs(expired) do
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZADD', KEYS[1], 'NX', now, member)
end
-- The claim: due entries move to in flight under the lease.
local claims = {}
local limit = tonumber(ARGV[3])
if limit > 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #due, 2 do
    local member = due[i]
    redis.call('ZREM', KEYS[1], member)
    redis.call('ZADD', KEYS[2], ARGV[2], member)
    claims[#claims + 1] = member
    claims[#claims + 1] = due[i + 1]
    claims[#claims + 1] = redis.call('HGET', KEYS[3], member) or '0'
  end
end
local next_due = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] or false
local next_lease = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2] or false
return {claims, next_due, next_lease, #expired}
"""

# KEYS[1] pending, KEYS[2] in flight, KEYS[3] attempts, KEYS[4] the table's index
# ARGV[1] member, ARGV[2] the claim's lease expiry. Returns 1 when the claim was still held.
_ACK = """#!lua
local lease = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not lease or tonumber(lease) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('SREM', KEYS[4], ARGV[1])
end
return 1
"""

# KEYS[1] pending, KEYS[2] in flight, KEYS[3] attempts
# ARGV[1] member, ARGV[2] the claim's lease expiry, ARGV[3] due again at (ms),
# ARGV[4] '1' to count a failed attempt, ARGV[5] events channel. Returns 1 when held.
_REQUEUE = """#!lua
local lease = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not lease or tonumber(lease) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[4] == '1' then
  redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[1])
redis.call('SPUBLISH', ARGV[5], ARGV[3])
return 1
"""


_unavailable = unavailable_when(REDIS_DOWN, "deadline queue")


def _score(value: str | None) -> int | None:
    return None if value is None else int(float(value))


class RedisDeadlineQueue(DeadlineQueue):
    """The queue in Redis, shared by every replica of the deadline service."""

    def __init__(self, client: RedisClient, keys: Keys):
        self.client = client
        self.pending_key = keys.group("deadlines", "pending")
        self.in_flight_key = keys.group("deadlines", "inflight")
        self.attempts_key = keys.group("deadlines", "attempts")
        self.channel = keys.group("deadlines", "events")
        self.epoch_key = keys.group("deadlines", "epoch")
        self._keys = keys
        self._schedule = client.register_script(_SCHEDULE)
        self._cancel = client.register_script(_CANCEL)
        self._cancel_table = client.register_script(_CANCEL_TABLE)
        self._set_tables = client.register_script(_SET_TABLES)
        self._poll = client.register_script(_POLL)
        self._ack = client.register_script(_ACK)
        self._requeue = client.register_script(_REQUEUE)

    def table_key(self, table_id: str) -> str:
        return self._keys.group("deadlines", "table", table_id)

    def _all_keys(self, table_id: str) -> list[str]:
        return [self.pending_key, self.in_flight_key, self.attempts_key, self.table_key(table_id)]

    @_unavailable
    async def schedule(self, entry: Entry, due_ms: int) -> None:
        await self._schedule(
            keys=[self.pending_key, self.attempts_key, self.table_key(entry.table_id)],
            args=[entry.member, due_ms, self.channel],
        )

    @_unavailable
    async def cancel(self, entry: Entry) -> bool:
        return bool(await self._cancel(keys=self._all_keys(entry.table_id), args=[entry.member]))

    @_unavailable
    async def cancel_table(self, table_id: str) -> int:
        return int(await self._cancel_table(keys=self._all_keys(table_id)))

    @_unavailable
    async def set_tables(self, tables: Mapping[str, Sequence[tuple[Entry, int]]]) -> None:
        if not tables:
            return
        keys = [self.pending_key, self.in_flight_key, self.attempts_key]
        args: list[str | int] = [self.channel]
        for table_id, entries in tables.items():
            keys.append(self.table_key(table_id))
            args.append(len(entries))
            for entry, due_ms in entries:
                args += [entry.member, due_ms]
        await self._set_tables(keys=keys, args=args)

    @_unavailable
    async def epoch(self) -> str:
        """The stored epoch; a missing one (a flushed Redis) is drawn anew, once for all replicas."""
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.set(self.epoch_key, secrets.token_hex(8), nx=True)
            pipe.get(self.epoch_key)
            _, current = await pipe.execute()
        return current

    @_unavailable
    async def poll(self, now_ms: int, lease_until: int, limit: int) -> Poll:
        raw_claims, next_due, next_lease, returned = await self._poll(
            keys=[self.pending_key, self.in_flight_key, self.attempts_key],
            args=[now_ms, lease_until, max(0, limit), SWEEP_BATCH],
        )
        claims: list[Claim] = []
        undecodable: list[str] = []
        for i in range(0, len(raw_claims), 3):
            member, due, attempts = raw_claims[i:i + 3]
            try:
                entry = Entry.from_member(member)
            except InvalidEntry:
                undecodable.append(member)
                continue
            claims.append(Claim(entry, int(float(due)), lease_until, int(attempts)))
        if undecodable:  # not written by this service: nothing could fire it
            await self.client.zrem(self.in_flight_key, *undecodable)
            await self.client.hdel(self.attempts_key, *undecodable)
        wakes = [score for score in (_score(next_due), _score(next_lease)) if score is not None]
        return Poll(claims, min(wakes) if wakes else None, int(returned), tuple(undecodable))

    @_unavailable
    async def ack(self, claim: Claim) -> bool:
        return bool(await self._ack(
            keys=self._all_keys(claim.entry.table_id),
            args=[claim.entry.member, claim.lease_until],
        ))

    @_unavailable
    async def retry(self, claim: Claim, retry_at_ms: int) -> bool:
        return await self._requeue_claim(claim, retry_at_ms, count_attempt=True)

    @_unavailable
    async def release(self, claim: Claim, now_ms: int) -> bool:
        return await self._requeue_claim(claim, now_ms, count_attempt=False)

    async def _requeue_claim(self, claim: Claim, at_ms: int, count_attempt: bool) -> bool:
        return bool(await self._requeue(
            keys=[self.pending_key, self.in_flight_key, self.attempts_key],
            args=[claim.entry.member, claim.lease_until, at_ms, "1" if count_attempt else "0",
                  self.channel],
        ))

    async def listen(self, on_wake: WakeCallback) -> None:
        delay = 0.1
        while True:
            raise_if_cancelled()
            pubsub = redis_channels.Subscription(self.client)
            try:
                await pubsub.subscribe(self.channel)
                delay = 0.1
                on_wake(None)  # wake-ups published while we were not subscribed are lost
                while True:
                    raise_if_cancelled()
                    message = await pubsub.get_message(timeout=_LISTEN_POLL_SECONDS)
                    if message is None:
                        continue
                    if message["type"] == "message":
                        on_wake(_due_of(message.get("data")))
                    elif message["type"] == "subscribe":  # again, after a lost connection
                        on_wake(None)
            except (RedisError, OSError) as error:
                log.warning("deadline wake-ups interrupted (re-subscribing in %.1f s): %s",
                            delay, error)
            finally:
                await pubsub.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    @_unavailable
    async def counts(self) -> Counts:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.zcard(self.pending_key)
            pipe.zcard(self.in_flight_key)
            pending, in_flight = await pipe.execute()
        return Counts(int(pending), int(in_flight))

    async def ping(self) -> None:
        await self.client.ping()
        raise_if_cancelled()  # the health reporter must stop when the server does

    async def close(self) -> None:
        await self.client.aclose()


def _due_of(data: object) -> int | None:
    try:
        return int(str(data))
    except ValueError:
        return None
