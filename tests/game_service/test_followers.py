"""A change is signalled only while another replica follows its table (game.snapshots): on real
Redis, the owner of a table stops signalling a change nobody else receives, and a replica that
starts to follow the table gets every change from then on, at once, not at the next check of
the logs."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest

from testing.waiting import eventually
from tests.game_service.conftest import SEATS, Backend

ADD = json.dumps({"action": "add", "n": 1})


@pytest.fixture
def backend_spec(postgres_dsn, redis_url, redis_prefix):
    """Real Redis only: the in-memory cache serves one process, whose followers learn every
    change in-process (it always signals; test_tables covers it)."""
    return Backend("real", dsn=postgres_dsn, redis_url=redis_url, prefix=redis_prefix)


@contextlib.asynccontextmanager
async def _hearing(*replicas):
    """The replicas listen for new followers, as the service's background job has them do."""
    tasks = [asyncio.create_task(r.snapshots.hear_followers()) for r in replicas]
    await eventually(_all_hearing(replicas), timeout=5, interval=0.01)
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _all_hearing(replicas):
    async def check() -> bool:
        return all(r.snapshots._listening() for r in replicas)
    return check


async def _move(tables, table_id: str, revision: int) -> int:
    view = await tables.act(table_id, SEATS[revision % 4], ADD, expected_revision=revision)
    await tables.drain()  # its signal, if any, is sent
    return view.revision


async def test_a_table_nobody_else_follows_costs_no_signal_and_a_new_follower_gets_every_change(
        replicas):
    owner = await replicas.open(counting=True)
    other = await replicas.open()
    async with _hearing(owner, other):
        created = await owner.create_table("", "dummy", json.dumps({"target": 10_000}), SEATS)
        table_id = created.table_id
        await owner.drain()
        revision = 0
        for _ in range(3):
            revision = await _move(owner, table_id, revision)
        # The first change was signalled and reached nobody: the next two were not signalled.
        assert owner.cache.calls["publish"] == 1

        watch = other.watch_table(table_id)
        first = await anext(watch)
        assert first.revision == revision
        seen = [first.revision]

        async def follow() -> None:
            async for views in watch:
                seen.append(views.revision)

        following = asyncio.create_task(follow())
        try:
            for _ in range(5):
                revision = await _move(owner, table_id, revision)
            # every change, in order, long before the 15 s check of the logs
            await eventually(_seen(seen, revision), timeout=3, interval=0.02,
                             what=f"the follower saw {seen}, the owner is at {revision}")
            assert seen == list(range(first.revision, revision + 1))
            assert owner.cache.calls["publish"] > 1  # signalled again (a change the owner
            # made before it heard the notice is signalled as part of the newest state)
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following
            await watch.aclose()

        # Followed no more: the next change reaches nobody, and the ones after are not sent.
        await eventually(_unsubscribed(other, table_id), timeout=5, interval=0.02)
        revision = await _move(owner, table_id, revision)
        sent = owner.cache.calls["publish"]
        for _ in range(3):
            revision = await _move(owner, table_id, revision)
        assert owner.cache.calls["publish"] == sent


async def test_a_change_left_unsignalled_reaches_a_follower_that_came_after_it(replicas):
    """The owner stopped signalling, then moved: a replica that starts to follow the table is
    sent that newest state when its notice arrives, whatever it read before."""
    owner = await replicas.open(counting=True)
    other = await replicas.open()
    async with _hearing(owner, other):
        created = await owner.create_table("", "dummy", json.dumps({"target": 10_000}), SEATS)
        table_id = created.table_id
        revision = 0
        for _ in range(3):
            revision = await _move(owner, table_id, revision)
        before = owner.cache.calls["publish"]
        other_watch = other.watch_table(table_id)
        assert (await anext(other_watch)).revision == revision
        # the notice made the owner signal its newest state once more
        await eventually(_published_more(owner, before), timeout=3, interval=0.02)
        await other_watch.aclose()


def _seen(seen: list[int], revision: int):
    async def check() -> bool:
        return bool(seen) and seen[-1] >= revision
    return check


def _unsubscribed(replica, table_id: str):
    async def check() -> bool:
        return not replica.cache.receiving(table_id)
    return check


def _published_more(replica, before: int):
    async def check() -> bool:
        return replica.cache.calls["publish"] > before
    return check


async def test_a_table_forgotten_as_unfollowed_is_signalled_again_and_found_out_anew(
        replicas, monkeypatch):
    monkeypatch.setattr("game.snapshots.UNFOLLOWED_KEPT", 1)
    owner = await replicas.open(counting=True)
    async with _hearing(owner):
        tables = [(await owner.create_table("", "dummy", json.dumps({"target": 10_000}),
                                            SEATS)).table_id for _ in range(2)]
        revisions = dict.fromkeys(tables, 0)
        for table_id in tables:  # each: its first change signalled, its second not
            for _ in range(2):
                revisions[table_id] = await _move(owner, table_id, revisions[table_id])
        sent = owner.cache.calls["publish"]
        assert sent == 2
        first = tables[0]  # forgotten when the second was remembered: signalled once more
        for _ in range(2):
            revisions[first] = await _move(owner, first, revisions[first])
        assert owner.cache.calls["publish"] == sent + 1
