"""Every Redis store on a real Redis Cluster of three masters: each script, transaction and
multi-key command works there (a Cluster refuses keys of two slots in one of them), and pub/sub
reaches subscribers whichever node their channel lives on."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from deadlines.entry import Entry
from deadlines.queue import RedisDeadlineQueue
from game.cache import RedisTableCache, SnapshotWrite
from gateway.events import (
    MemberEnded,
    Missed,
    RedisEventBus,
    SeatingChanged,
    SessionEnded,
    session_digest,
)
from gateway.presence import RedisPresence
from gateway.rate_limits import Kind, Rate, RateLimits, RedisBuckets
from gateway.sessions import RedisSessionStore, Session, new_session_id
from services.config import RateLimitSettings
from services.stores import Keys, RedisClient, redis_client
from testing.redis_deployments import ClusterDeployment, redis_cluster
from testing.servers import new_prefix
from testing.waiting import eventually

T0 = 1_000_000


@pytest.fixture(scope="module")
def cluster():
    with redis_cluster() as deployment:
        yield deployment


@pytest.fixture
async def client(cluster: ClusterDeployment):
    client = redis_client(cluster.url)
    yield client
    await client.aclose()


@pytest.fixture
def keys() -> Keys:
    return Keys(new_prefix("cluster"))


async def _nodes_holding(client: RedisClient, keys: Keys) -> int:
    """On how many of the masters the prefix has keys."""
    nodes = 0
    for node in client.get_primaries():
        found = await client.execute_command("SCAN", 0, "MATCH", keys.patterns[0], "COUNT", 10_000,
                                             target_nodes=node)
        nodes += bool(found[1])
    return nodes


def _member(sub: str) -> Session:
    return Session(id=new_session_id(), sub=sub, name=sub, provider="default")


async def test_sessions_save_delete_count_and_end_a_members_sessions(client, keys):
    heard: list = []
    events = RedisEventBus(client, keys)
    await events.listen(heard.append)
    store = RedisSessionStore(client, keys, ttl_seconds=3600, events=events)
    try:
        alice, alice_too, bob = _member("alice"), _member("alice"), _member("bob")
        pending = Session(id=new_session_id())
        for session in (alice, alice_too, bob, pending):
            await store.save(session)
        assert await store.get(alice.id) == alice and await store.count() == 3
        bob.sub = bob.name = "alice"  # bob's session logs in as alice: it leaves bob's index
        await store.save(bob)
        await store.delete(alice.id)
        assert await store.get(alice.id) is None and await store.count() == 2
        assert await store.delete_member("alice") == 2
        assert await store.count() == 0 and await store.get(pending.id) == pending
        await eventually(lambda: _async(len(heard) == 2), timeout=5)
        assert heard == [SessionEnded(session_digest(alice.id)), MemberEnded("alice")]
    finally:
        await events.aclose()


async def _async(value):
    return value


async def test_a_listener_whose_connection_is_cut_listens_again_and_says_it_missed_events(
        cluster, client, keys):
    heard: list = []
    events = RedisEventBus(client, keys)
    await events.listen(heard.append)
    try:
        for port in cluster.ports:  # the listener's connection, wherever its channel lives
            with cluster.node(port) as node:
                node.client_kill_filter(_type="pubsub")
        await eventually(lambda: _async(Missed() in heard), timeout=10)
        await events.publish(SeatingChanged(("t1",)))
        await eventually(lambda: _async(SeatingChanged(("t1",)) in heard), timeout=5)
    finally:
        await events.aclose()


async def test_a_burst_of_commands_waits_for_connections_rather_than_failing(cluster, keys):
    client = redis_client(cluster.url, max_connections=2)
    try:
        names = [keys.table(str(uuid.uuid4()), "x") for _ in range(200)]
        assert await asyncio.gather(*(client.set(name, 1, ex=60) for name in names)) == [True] * 200
    finally:
        await client.aclose()


async def test_the_rate_limits_take_a_sessions_and_an_addresss_tokens_at_once(client, keys):
    limits = RateLimits(RateLimitSettings(login_per_minute=60, login_burst=2), RedisBuckets(client),
                        keys)
    assert [await limits.refusal(Kind.LOGIN, "digest", "198.51.100.7") for _ in range(2)] == [None] * 2
    assert await limits.refusal(Kind.LOGIN, "digest", "203.0.113.9") == 1  # the session's are gone


async def test_the_rate_limits_spread_their_buckets_over_the_nodes(client, keys):
    buckets = RedisBuckets(client)
    limits = RateLimits(RateLimitSettings(writes_per_minute=60, writes_burst=5), buckets, keys)
    for n in range(30):
        assert await limits.refusal(Kind.WRITE, f"session-{n}", f"198.51.100.{n}") is None
    assert await _nodes_holding(client, keys) == 3
    # a session's and an address's buckets are two slots: a call each, and still the tighter wins
    pair = [(limits.key(Kind.WRITE, "session", "s"), Rate(0.01, 1)),
            (limits.key(Kind.WRITE, "ip", "a"), Rate(0.01, 4))]
    assert len(buckets.calls(pair)) == 2
    assert await buckets.take(pair) == 0
    assert await buckets.take(pair) > 0
    # buckets of one slot still go in one script
    assert len(buckets.calls([(limits.key(Kind.WRITE, "session", "s"), Rate(1, 1)),
                              (limits.key(Kind.LOGIN, "session", "s"), Rate(1, 1))])) == 1


async def test_presence_marks_and_renews_tables_on_every_node(client, keys):
    one = RedisPresence(client, keys, process="one")
    two = RedisPresence(client, keys, process="two")
    tables = [str(uuid.uuid4()) for _ in range(30)]
    for table in tables:
        await one.mark(table, 0, True)
    await two.renew([(table, 3) for table in tables])
    assert [await two.seats(table) for table in tables] == [{0, 3}] * len(tables)
    await one.mark(tables[0], 0, False)
    assert await one.seats(tables[0]) == {3}
    assert await _nodes_holding(client, keys) == 3  # the tables are spread over the masters


async def test_table_cache_saves_signals_and_counts_tables_in_every_bucket(cluster, keys):
    caches = [RedisTableCache(redis_client(cluster.url), keys) for _ in range(2)]
    owner, follower = caches
    tables = [str(uuid.uuid4()) for _ in range(20)]
    try:
        async with follower.subscribe(tables[0]) as signals, follower.followers() as notices:
            assert follower.receiving(tables[0]) and follower.hearing_followers()
            for score, table in enumerate(tables):
                snapshot = json.dumps({"revision": 1, "table": table})
                assert await owner.save(SnapshotWrite(table, 1, snapshot, score, table == tables[0]))
            assert await signals.wait(5) and signals.payloads() == [
                json.dumps({"revision": 1, "table": tables[0]})]
            # SPUBLISH counts the subscribers wherever they are: the snapshots' writer relies on it.
            assert await owner.publish(tables[0], json.dumps({"revision": 2})) == 1
            assert await owner.publish(tables[1], json.dumps({"revision": 2})) == 0
            assert await signals.wait(5)
            await owner.announce_follower(f"replica-1 {tables[0]}")
            assert await notices.wait(5) and notices.payloads() == [f"replica-1 {tables[0]}"]
        assert await owner.ongoing_count() == 20 and await owner.ongoing() == tables
        assert await owner.ongoing(limit=3) == tables[:3]
        finished = json.dumps({"revision": 2, "table": tables[5]})
        assert await owner.save(SnapshotWrite(tables[5], 2, finished, None, False))
        await owner.forget(tables[6])
        assert await follower.load(tables[5]) == finished and await follower.load(tables[6]) is None
        assert await owner.ongoing() == [t for t in tables if t not in (tables[5], tables[6])]
    finally:
        for cache in caches:
            await cache.close()


async def test_the_deadline_queue_moves_entries_and_wakes_its_consumers(cluster, keys):
    queue = RedisDeadlineQueue(redis_client(cluster.url), keys)
    listener = RedisDeadlineQueue(redis_client(cluster.url), keys)
    heard: list[int | None] = []
    listening = asyncio.create_task(listener.listen(heard.append))
    try:
        await eventually(lambda: _async(None in heard), timeout=5)
        first, second = Entry("t1", "turn", "a"), Entry("t2", "turn", "b")
        await queue.schedule(first, T0 + 10)
        await queue.set_tables({"t2": [(second, T0 + 5)], "t3": [(Entry("t3", "turn", "c"), T0)]})
        await eventually(lambda: _async(T0 + 10 in heard and T0 in heard), timeout=5)
        assert await queue.cancel(Entry("t3", "turn", "c"))
        assert tuple(await queue.counts()) == (2, 0)
        poll = await queue.poll(T0 + 10, T0 + 1000, 10)
        assert [claim.entry for claim in poll.claims] == [second, first]
        assert await queue.retry(poll.claims[0], T0 + 20)
        assert await queue.ack(poll.claims[1])
        assert not await queue.release(poll.claims[1], T0 + 20)  # no longer held
        assert await queue.cancel_table("t2") == 1
        epoch = await queue.epoch()
        assert await listener.epoch() == epoch and tuple(await queue.counts()) == (0, 0)
    finally:
        listening.cancel()
        await asyncio.gather(listening, return_exceptions=True)
        await queue.close()
        await listener.close()
