"""The key layout (services.stores.Keys) keeps every script's and every transaction's keys and
channels in one hash slot, as a Redis Cluster requires: each store runs its operations on the
machine's Redis through a client that records what it sends, and the names in each script call
and in each transaction must hash (redis.crc.key_slot, the Cluster's own CRC16) to one slot."""

from __future__ import annotations

import hashlib
import uuid

import pytest
import redis.asyncio as redis
from redis.asyncio.client import Pipeline
from redis.crc import key_slot

import deadlines.queue
import game.cache
import gateway.rate_limits
import gateway.sessions
from deadlines.entry import Entry
from deadlines.queue import RedisDeadlineQueue
from game.cache import RedisTableCache, SnapshotWrite
from gateway.events import RedisEventBus, SeatingChanged
from gateway.presence import RedisPresence
from gateway.rate_limits import Kind, RateLimits, RedisBuckets
from gateway.sessions import RedisSessionStore, Session, new_session_id
from services.config import RateLimitSettings
from services.stores import Keys
from testing.servers import REDIS_URL

T0 = 1_000_000
# Every Lua script of the stores, by the SHA-1 its EVALSHA names.
_SCRIPTS = {hashlib.sha1(text.encode()).hexdigest(): f"{module.__name__}.{name}"
            for module in (gateway.sessions, gateway.rate_limits, game.cache, deadlines.queue)
            for name, text in vars(module).items()
            if isinstance(text, str) and text.startswith("#!lua")}


class _RecordingPipeline(Pipeline):
    recorded: list[tuple[str, list[tuple]]]

    async def execute(self, raise_on_error: bool = True):
        kind = "transaction" if self.is_transaction else "pipeline"
        self.recorded.append((kind, [command[0] for command in self.command_stack]))
        return await super().execute(raise_on_error)


class _Recording(redis.Redis):
    """A real client that keeps what it sends: single commands (scripts among them) and the
    commands of each pipeline."""

    recorded: list[tuple[str, list[tuple]]]

    async def execute_command(self, *args, **options):
        self.recorded.append(("command", [args]))
        return await super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Pipeline:
        pipe = _RecordingPipeline(self.connection_pool, self.response_callbacks, transaction,
                                  shard_hint)
        pipe.recorded = self.recorded
        return pipe


@pytest.fixture
async def client(redis_prefix):
    client = _Recording.from_url(REDIS_URL, decode_responses=True)
    client.recorded = []
    yield client
    await client.aclose()


def _names(commands: list[tuple], keys: Keys) -> set[str]:
    """The keys and channels among the arguments: the names Keys builds (``{<prefix>:...``,
    and the plain ``<prefix>:...`` of the session records)."""
    return {arg for command in commands for arg in command[1:]
            if isinstance(arg, str) and arg.startswith((f"{{{keys.prefix}:", f"{keys.prefix}:"))}


def _slots(commands: list[tuple], keys: Keys) -> set[int]:
    return {key_slot(name.encode()) for name in _names(commands, keys)}


def _atomic(recorded: list[tuple[str, list[tuple]]]) -> list[list[tuple]]:
    """What a Cluster runs on one node as one unit: each script call, each transaction."""
    return [commands for kind, commands in recorded
            if kind == "transaction" or commands[0][0] in ("EVALSHA", "EVAL")]


def _member(sub: str) -> Session:
    return Session(id=new_session_id(), sub=sub, name=sub, provider="default")


async def _every_store(client: _Recording, keys: Keys) -> None:
    """Each Redis store's operations that change several keys at once."""
    events = RedisEventBus(client, keys)
    sessions = RedisSessionStore(client, keys, ttl_seconds=60, events=events)
    alice, pending = _member("alice"), Session(id=new_session_id())
    await sessions.save(pending)
    await sessions.save(alice)
    alice.sub = "bob"  # from one member's index to another's
    await sessions.save(alice)
    await sessions.save(_member("bob"))
    await sessions.delete(alice.id)
    await sessions.delete_member("bob")
    await sessions.count()
    await events.publish(SeatingChanged(("t1",)))
    # As on a Cluster: one script a slot (a single Redis takes a request's buckets in one).
    limits = RateLimits(RateLimitSettings(), RedisBuckets(client, cluster=True), keys)
    assert await limits.refusal(Kind.LOGIN, "digest", "198.51.100.7") is None

    tables = [str(uuid.uuid4()) for _ in range(3)]
    cache = RedisTableCache(client, keys)
    for table in tables:
        await cache.save(SnapshotWrite(table, 1, '{"revision":1}', T0, True))
    await cache.save(SnapshotWrite(tables[0], 2, '{"revision":2}', None, True))
    await cache.publish(tables[1], '{"revision":2}')
    await cache.forget(tables[2])
    await cache.ongoing_count()

    presence = RedisPresence(client, keys)
    await presence.mark(tables[0], 1, True)
    await presence.renew([(table, 2) for table in tables])

    queue = RedisDeadlineQueue(client, keys)
    await queue.schedule(Entry(tables[0], "turn", "a"), T0)
    await queue.set_tables({table: [(Entry(table, "turn", "b"), T0 + 1)] for table in tables})
    poll = await queue.poll(T0 + 1, T0 + 100, 10)
    await queue.ack(poll.claims[0])
    await queue.retry(poll.claims[1], T0 + 5)
    await queue.release(poll.claims[2], T0 + 5)
    await queue.cancel(Entry(tables[0], "turn", "b"))
    await queue.cancel_table(tables[1])
    await queue.epoch()
    await queue.counts()


async def test_every_script_and_transaction_keeps_its_names_in_one_slot(client, redis_prefix):
    keys = Keys(redis_prefix)
    await _every_store(client, keys)

    units = _atomic(client.recorded)
    assert [sorted(_names(unit, keys)) for unit in units if len(_slots(unit, keys)) > 1] == []
    called = {_SCRIPTS[unit[0][1]] for unit in units if unit[0][0] == "EVALSHA"}
    assert called == set(_SCRIPTS.values())  # every script of every store ran
    assert len([unit for unit in units if unit[0][0] != "EVALSHA"]) >= 3  # transactions
    assert sum(len(_names(unit, keys)) > 2 for unit in units) >= 10  # several names, one slot


def test_a_tables_names_share_its_buckets_slot_and_the_buckets_spread_over_the_slots():
    keys = Keys("tavolo")
    for _ in range(1000):
        table = str(uuid.uuid4())
        names = [keys.table(table, "snapshot"), keys.table(table, "events"),
                 keys.table(table, "presence"), keys.bucket(Keys.bucket_of(table), "ongoing")]
        assert len({key_slot(name.encode()) for name in names}) == 1
    slots = {key_slot(keys.bucket(bucket).encode()) for bucket in range(Keys.TABLE_BUCKETS)}
    assert len(slots) == Keys.TABLE_BUCKETS  # one slot each, spread over a Cluster's nodes
    assert max(slots) - min(slots) > 16384 * 0.9


def test_every_name_starts_with_the_prefix():
    keys = Keys("test-1:tavolo")

    assert keys("game", "followers") == "{test-1:tavolo:game:followers}"
    assert keys.group("gateway", "session", "abc") == "{test-1:tavolo:gateway}:session:abc"
    assert keys.table("t-1", "events") == f"{{test-1:tavolo:tables:{Keys.bucket_of('t-1')}}}:t-1:events"
    assert keys.plain("session", "abc") == "test-1:tavolo:session:abc"  # CONTRACT.md's name
    assert Keys("a*b").patterns == ("{a\\*b:*", "a\\*b:*")
