"""Change signals: one subscriber per waiting reader, delivered by memory, Redis or Postgres."""

from __future__ import annotations

import asyncpg

from services.signals import MemorySignalHub, PostgresSignalHub


async def test_memory_signals_reach_the_channels_subscribers_only():
    hub = MemorySignalHub()
    async with hub.subscribe("a") as first, hub.subscribe("a") as second, hub.subscribe("b") as other:
        hub.notify("a")
        assert await first.wait(1) and await second.wait(1)
        assert not await other.wait(0.05)
    assert not hub.listening


async def test_signals_that_arrive_while_busy_merge_into_one():
    hub = MemorySignalHub()
    async with hub.subscribe("a") as signals:
        hub.notify("a")
        hub.notify("a")
        assert await signals.wait(1)
        assert not await signals.wait(0.05)


async def test_merged_signals_keep_their_payloads_and_a_bare_one_says_read_anyway():
    hub = MemorySignalHub()
    async with hub.subscribe("a") as signals:
        hub.notify("a", "7")
        hub.notify("a", "8")
        assert await signals.wait(1)
        assert signals.payloads() == ["7", "8"]
        assert signals.payloads() == []
        hub.notify("a", "9")
        hub.notify("a")  # e.g. after a reconnect: what changed is not known
        assert await signals.wait(1)
        assert signals.payloads() is None
        assert signals.payloads() == []


async def test_postgres_signals_arrive_at_commit_not_before(postgres_dsn):
    hub = PostgresSignalHub(postgres_dsn, "tavolo_test")
    writer = await asyncpg.connect(postgres_dsn)
    try:
        async with hub.subscribe("game-1") as signals, hub.subscribe("game-2") as other:
            transaction = writer.transaction()
            await transaction.start()
            await hub.notify_in(writer, "game-1")
            assert not await signals.wait(0.2)  # not committed yet
            await transaction.commit()
            assert await signals.wait(2)
            assert not await other.wait(0.05)
    finally:
        await writer.close()
        await hub.close()


async def test_a_lost_postgres_listener_listens_again_and_signals_everyone(postgres_dsn):
    """A change made while the listener was gone may be missed: every subscriber is told to
    read again, and later changes arrive as before."""
    hub = PostgresSignalHub(postgres_dsn, "tavolo_test")
    admin = await asyncpg.connect(postgres_dsn)
    try:
        async with hub.subscribe("game-1") as signals:
            killed = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE query ILIKE 'LISTEN%' AND datname = current_database()")
            assert killed == 1
            assert await signals.wait(5)  # the resubscription's "read again"
            for _ in range(50):  # the new listener is up once a notification gets through
                await hub.notify_in(admin, "game-1")
                if await signals.wait(0.1):
                    break
            else:
                raise AssertionError("no signal after the listener came back")
    finally:
        await admin.close()
        await hub.close()
