"""The shared side of a table, in memory and in Redis: snapshots, signals, the running set."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
import redis.asyncio as redis

from game.cache import RedisTableCache, SnapshotWrite
from services.stores import Keys, redis_client


def _snapshot(revision: int, **extra) -> str:
    return json.dumps({"revision": revision, **extra})


@pytest.fixture
def table_id() -> str:
    return str(uuid.uuid4())


async def test_a_saved_snapshot_loads_back(cache, table_id):
    assert await cache.load(table_id) is None
    assert await cache.save(SnapshotWrite(table_id, 3, _snapshot(3, state="x"), 100, False))
    assert json.loads(await cache.load(table_id)) == {"revision": 3, "state": "x"}


async def test_an_older_or_equal_revision_never_replaces_a_newer_snapshot(cache, table_id):
    await cache.save(SnapshotWrite(table_id, 5, _snapshot(5, who="new"), 100, False))
    assert not await cache.save(SnapshotWrite(table_id, 4, _snapshot(4, who="stale"), 100, False))
    assert not await cache.save(SnapshotWrite(table_id, 5, _snapshot(5, who="twin"), 100, False))
    assert json.loads(await cache.load(table_id))["who"] == "new"
    assert await cache.save(SnapshotWrite(table_id, 6, _snapshot(6, who="next"), 100, False))
    assert json.loads(await cache.load(table_id))["who"] == "next"


async def test_a_corrupt_snapshot_is_replaced_by_any_save(cache, backend, table_id):
    for junk in ("{not json", '"a string"', '{"revision": "7"}'):
        await backend.put_snapshot(cache, table_id, junk)
        assert await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 100, False))


async def test_the_running_set_follows_the_saves(cache, table_id):
    other = str(uuid.uuid4())
    await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 200, False))
    await cache.save(SnapshotWrite(other, 1, _snapshot(1), 100, False))
    assert await cache.ongoing() == [other, table_id] and await cache.ongoing_count() == 2
    await cache.save(SnapshotWrite(other, 2, _snapshot(2), 300, False))  # a move: still entered at 100
    assert await cache.ongoing() == [other, table_id]
    await cache.save(SnapshotWrite(table_id, 2, _snapshot(2), None, False))  # finished
    assert await cache.ongoing() == [other] and await cache.ongoing_count() == 1
    assert not await cache.save(SnapshotWrite(other, 1, _snapshot(1), None, False))  # a stale save
    assert await cache.ongoing() == [other]
    await cache.forget(other)
    assert await cache.ongoing() == [] and await cache.load(other) is None
    assert await cache.ongoing_count() == 0


async def test_subscribers_are_signalled_by_published_saves_only(cache, table_id):
    async with cache.subscribe(table_id) as first, cache.subscribe(table_id) as second:
        await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 1, False))
        assert not await first.wait(0.05)
        await cache.save(SnapshotWrite(table_id, 2, _snapshot(2), 1, True))
        assert await first.wait(2) and await second.wait(2)
        await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 1, True))  # refused, still a signal
        assert await first.wait(2)
    async with cache.subscribe(str(uuid.uuid4())) as elsewhere:
        await cache.save(SnapshotWrite(table_id, 3, _snapshot(3), 1, True))
        assert not await elsewhere.wait(0.05)


async def test_signals_that_arrive_while_busy_merge_into_one(cache, table_id):
    async with cache.subscribe(table_id) as signals:
        for revision in (1, 2, 3):
            await cache.save(SnapshotWrite(table_id, revision, _snapshot(revision), 1, True))
        assert await signals.wait(2)
        await asyncio.sleep(0.05)
        if await signals.wait(0.05):  # Redis delivers them one by one: a later one may follow
            assert not await signals.wait(0.05)


async def test_the_compare_and_set_reads_the_revision_a_compact_snapshot_starts_with(cache, table_id):
    def compact(revision: int, who: str) -> str:  # as Live.snapshot_json writes it
        return json.dumps({"revision": revision, "who": who}, separators=(",", ":"))

    assert await cache.save(SnapshotWrite(table_id, 12, compact(12, "new"), 1, False))
    assert not await cache.save(SnapshotWrite(table_id, 9, compact(9, "stale"), 1, False))  # 9 < 12
    assert not await cache.save(SnapshotWrite(table_id, 12, compact(12, "twin"), 1, False))
    assert json.loads(await cache.load(table_id))["who"] == "new"
    assert await cache.save(SnapshotWrite(table_id, 100, compact(100, "next"), 1, False))
    assert json.loads(await cache.load(table_id))["who"] == "next"


async def test_a_signal_carries_the_snapshot_of_the_save_or_publish_that_sent_it(cache, table_id):
    async with cache.subscribe(table_id) as signals:
        await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 1, True))
        await cache.publish(table_id, _snapshot(2))
        await cache.save(SnapshotWrite(table_id, 3, _snapshot(3), 1, True))
        named: list[str] = []
        while len(named) < 3:
            assert await signals.wait(2)
            named += signals.payloads() or []
        assert named == [_snapshot(1), _snapshot(2), _snapshot(3)]
        assert signals.payloads() == []


async def test_a_publish_stores_nothing(cache, table_id):
    await cache.publish(table_id, _snapshot(1))
    assert await cache.load(table_id) is None and await cache.ongoing() == []
    await cache.save(SnapshotWrite(table_id, 2, _snapshot(2, who="stored"), 1, False))
    await cache.publish(table_id, _snapshot(3, who="published"))
    assert json.loads(await cache.load(table_id))["who"] == "stored"


async def test_the_redis_snapshot_has_a_sliding_ttl(redis_url, redis_prefix, table_id):
    client = redis_client(redis_url)
    cache = RedisTableCache(client, Keys(redis_prefix), ttl_seconds=1000)
    try:
        await cache.save(SnapshotWrite(table_id, 1, _snapshot(1), 1, False))
        key = cache.snapshot_key(table_id)
        assert 990 < await client.ttl(key) <= 1000
        await client.expire(key, 5)
        await cache.load(table_id)
        assert await client.ttl(key) > 990
        assert await client.zscore(cache.ongoing_key(table_id), table_id) == 1
    finally:
        await cache.close()


async def test_a_signal_reaches_a_subscriber_of_another_connection(redis_url, redis_prefix, table_id):
    publisher = RedisTableCache(redis_client(redis_url), Keys(redis_prefix))
    subscriber = RedisTableCache(redis_client(redis_url), Keys(redis_prefix))
    try:
        async with subscriber.subscribe(table_id) as signals:
            await publisher.save(SnapshotWrite(table_id, 1, _snapshot(1), 1, True))
            assert await signals.wait(2)
        async with subscriber.subscribe(table_id) as again:  # subscribing anew works too
            await publisher.save(SnapshotWrite(table_id, 2, _snapshot(2), 1, True))
            assert await again.wait(2)
    finally:
        await publisher.close()
        await subscriber.close()


async def test_a_subscriber_hears_of_changes_again_after_its_connection_is_cut(redis_url, redis_prefix, table_id):
    name = f"{redis_prefix.split(':')[0]}-events"
    subscriber = RedisTableCache(redis.Redis.from_url(redis_url, decode_responses=True, client_name=name),
                                 Keys(redis_prefix))
    admin = redis_client(redis_url)
    try:
        async with subscriber.subscribe(table_id) as signals:
            assert subscriber.receiving(table_id)
            clients = await admin.client_list()
            (ours,) = [c for c in clients if c.get("name") == name and int(c.get("ssub", 0)) > 0]
            await admin.client_kill_filter(_id=ours["id"])
            await admin.spublish(subscriber.channel(table_id), "1")  # may be lost: no one listens
            assert await signals.wait(5)  # the re-subscription counts as a change to re-read
            assert subscriber.receiving(table_id)  # in place again (the owner counts it)
            await subscriber.save(SnapshotWrite(table_id, 2, _snapshot(2), 1, True))
            assert await signals.wait(5)
    finally:
        await admin.aclose()
        await subscriber.close()
