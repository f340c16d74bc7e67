"""Log retention (game.retention, LogStore.compact): old finished logs become one archived row
each, read exactly as before; live and recent tables are never touched; one replica compacts at
a time, a batch at a time, each batch whole or not at all."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import asyncpg
import grpc
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from game.log_store import CompactionBusy, LoggedMove, LogStore, TableRecord
from game.memory_log_store import MemoryLogStore
from game.postgres_log_store import PostgresLogStore
from game.retention import DAY_MS, LogRetention
from services.migrations import migrate
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.timeutil import now_ms
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.waiting import eventually
from tests.game_service.conftest import SEATS, Backend, play, serving

LONG_AGO = 1_600_000_000_000  # 2020-09-13: finished long before any cutoff of these tests
PAYLOADS = ['{"z":1,"a":[0.1,1e-07,1.10]}', '{"note":"caff\\u00e8 \u2615 \\"q\\"","n":2}', "{}"]


def _record(created_ms: int) -> TableRecord:
    return TableRecord(table_id=str(uuid.uuid4()), game_type="dummy", engine_version="1",
                       seed=bytes(range(32)), seed_commitment="c0ffee", seats=tuple(SEATS),
                       options_json='{"target":20}', status="playing", created_ms=created_ms)


async def _table(store: LogStore, *, finished_ms: int | None, moves: int = 3,
                 created_ms: int = LONG_AGO) -> str:
    """A table of ``moves`` moves (odd payloads, request ids), the last one finishing it at
    ``finished_ms`` unless that is None."""
    record = _record(created_ms=created_ms)
    await store.create(record)
    for number in range(1, moves + 1):
        header = await store.header(record.table_id)
        last = number == moves and finished_ms is not None
        move = LoggedMove(number, "add", None if number == 2 else number % 4,
                          PAYLOADS[number % len(PAYLOADS)], auto=number == 3, random=number == 1,
                          created_ms=created_ms + number, request_id=f"r-{number}")
        await store.append(record.table_id, header.position, move, "finished" if last else "playing",
                           finished_ms if last else None)
    return record.table_id


async def _storage(backend: Backend, store: LogStore, table_id: str) -> tuple[int, bool, bool]:
    """(move rows, archive row, header marked archived) as stored."""
    if not backend.real:
        return len(store._moves.get(table_id, [])), table_id in store._archives, table_id in store._archives
    row = await store._pool.fetchrow(
        """SELECT (SELECT count(*) FROM game_move WHERE table_id = $1) AS rows,
                  EXISTS (SELECT 1 FROM game_archive WHERE table_id = $1) AS archive,
                  (SELECT archived_at IS NOT NULL FROM game_table WHERE table_id = $1) AS marked""",
        table_id)
    return row["rows"], row["archive"], row["marked"]


def _public(moves: list[LoggedMove]) -> list[tuple]:
    """What a read hands on (the Postgres rows do not carry the request id)."""
    return [(m.number, m.type, m.seat, m.payload_json, m.auto, m.random, m.created_ms) for m in moves]


# -- the store ----------------------------------------------------------------------------------

async def test_only_finished_tables_older_than_the_cutoff_are_compacted(backend, log_store):
    cutoff = LONG_AGO + 1000
    old = await _table(log_store, finished_ms=LONG_AGO + 10)
    at_cutoff = await _table(log_store, finished_ms=cutoff)
    recent = await _table(log_store, finished_ms=now_ms())
    running = await _table(log_store, finished_ms=None)  # created long ago, still being played
    headers = {t: await log_store.header(t) for t in (old, at_cutoff, recent, running)}

    assert await log_store.compact(cutoff, 50, now_ms()) == [old]

    assert await _storage(backend, log_store, old) == (0, True, True)
    for untouched in (at_cutoff, recent, running):
        assert await _storage(backend, log_store, untouched) == (3, False, False)
    assert {t: await log_store.header(t) for t in headers} == headers  # the headers stay
    assert await log_store.compact(cutoff, 50, now_ms()) == []  # compacted once


async def test_a_compacted_log_reads_exactly_as_before(backend, log_store):
    table_id = await _table(log_store, finished_ms=LONG_AGO + 20, moves=7)
    before = await log_store.moves(table_id, 0)
    pages = [await log_store.moves(table_id, after, 2) for after in range(9)]
    whole = await log_store.read_all(table_id)

    assert await log_store.compact(LONG_AGO + 1000, 50, now_ms()) == [table_id]

    assert await _storage(backend, log_store, table_id) == (0, True, True)
    assert _public(await log_store.moves(table_id, 0)) == _public(before)
    assert [m.payload_json for m in await log_store.moves(table_id, 0)] == [
        PAYLOADS[n % 3] for n in range(1, 8)]
    assert [_public(await log_store.moves(table_id, after, 2)) for after in range(9)] == [
        _public(page) for page in pages]
    assert await log_store.moves(table_id, 0, 0) == []
    again = await log_store.read_all(table_id)
    assert again[0] == whole[0] and _public(again[1]) == _public(whole[1])
    # A retried move's request id is still found (an Act retry answers "replayed").
    assert await log_store.find_request(table_id, "r-5") == 5
    assert await log_store.find_request(table_id, "r-unknown") is None


async def test_compaction_takes_the_oldest_first_a_batch_at_a_time(log_store):
    finished = [LONG_AGO + 50 - 10 * n for n in range(5)]  # created in reverse order of finish
    ids = [await _table(log_store, finished_ms=at, moves=1) for at in finished]
    oldest_first = [table_id for _, table_id in sorted(zip(finished, ids, strict=True))]

    batches = [await log_store.compact(LONG_AGO + 1000, 2, now_ms()) for _ in range(4)]

    assert batches == [oldest_first[:2], oldest_first[2:4], oldest_first[4:], []]


async def test_deleting_a_compacted_table_removes_its_archive(backend, log_store):
    table_id = await _table(log_store, finished_ms=LONG_AGO)
    await log_store.compact(LONG_AGO + 1, 50, now_ms())

    assert await log_store.delete(table_id)

    assert await _storage(backend, log_store, table_id) == (0, False, None if backend.real else False)
    assert await log_store.moves(table_id, 0) == []


# -- the game service ---------------------------------------------------------------------------

async def _log_bytes(stub: game_pb2_grpc.GameServiceStub, table_id: str, page_size: int) -> list[bytes]:
    """Every GetLog page of the table as the gateway reads them, serialized."""
    pages, after = [], 0
    while True:
        response = await stub.GetLog(game_pb2.GetLogRequest(table_id=table_id, after_number=after,
                                                            page_size=page_size))
        pages.append(response.SerializeToString(deterministic=True))
        after = response.next_after_number
        if not after:
            return pages


async def test_get_log_of_a_compacted_table_answers_the_same_bytes(backend, replicas, fakes):
    tables = await replicas.open()
    table_id = (await tables.create_table("", "dummy", '{"target":3}', SEATS)).table_id
    await play(tables, table_id, 4, note="caff\u00e8 \u2615")
    finish = await tables.act(table_id, "seat:0", '{"action":"add","n":1}', request_id="last-move")
    assert finish.status == "finished"
    await asyncio.wait_for(fakes.stats.recorded.wait(), 10)
    await eventually(lambda: _recorded(tables, table_id), timeout=10, interval=0.02,
                     what="the match was never marked recorded")
    header = await tables.log.header(table_id)
    async with serving(tables) as service, grpc.aio.insecure_channel(service.address) as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        before = await _log_bytes(stub, table_id, page_size=2)
        result = await stub.GetResult(game_pb2.GetResultRequest(table_id=table_id))
        retention = LogRetention(tables.log, 1, clock=lambda: now_ms() + 2 * DAY_MS)

        assert await retention.run_once() == 1

        assert await _storage(backend, tables.log, table_id) == (0, True, True)
        assert len(before) == 3 and await _log_bytes(stub, table_id, page_size=2) == before
        assert await tables.log.header(table_id) == header  # the finished header, recorded_ms too
        assert len(fakes.stats.matches) == 1
        # A replica that holds no state of the table replays it from the archive.
        await backend.flush(tables.cache)
        other = await replicas.open()
        assert await other.get_view(table_id, "seat:1") == await tables.get_view(table_id, "seat:1")
        assert await stub.GetResult(game_pb2.GetResultRequest(table_id=table_id)) == result
        again = await other.act(table_id, "seat:0", '{"action":"add","n":1}', request_id="last-move")
        assert again.replayed and again.revision == finish.revision


async def test_an_archive_that_cannot_be_read_back_is_a_corrupt_log_not_a_crash(backend, replicas):
    tables = await replicas.open()
    table_id = (await tables.create_table("", "dummy", '{"target":2}', SEATS)).table_id
    await play(tables, table_id, 3)
    assert await LogRetention(tables.log, 1, clock=lambda: now_ms() + 2 * DAY_MS).run_once() == 1
    if backend.real:
        await tables.log._pool.execute("UPDATE game_archive SET moves = 'not zlib' WHERE table_id = $1",
                                       table_id)
    else:
        tables.log._archives[table_id] = (1, b"not zlib")
    await backend.flush(tables.cache)
    other = await replicas.open()

    for read in (other.get_log(table_id, 0, 0), other.get_view(table_id, "seat:0")):
        with pytest.raises(ServiceError) as refused:
            await read
        assert refused.value.reason is Reason.CORRUPT_LOG
        assert "archived log cannot be read" in refused.value.message


async def _recorded(tables, table_id: str) -> bool:
    header = await tables.log.header(table_id)
    return header.recorded_ms is not None


async def test_running_and_recent_tables_are_never_touched(backend, replicas):
    started_long_ago = await replicas.open(clock=lambda: LONG_AGO)
    old_running = (await started_long_ago.create_table("", "dummy", '{"target":2}', SEATS)).table_id
    await play(started_long_ago, old_running, 1)
    old_finished = (await started_long_ago.create_table("", "dummy", '{"target":2}', SEATS)).table_id
    await play(started_long_ago, old_finished, 3)
    tables = await replicas.open()
    recent = (await tables.create_table("", "dummy", '{"target":2}', SEATS)).table_id
    await play(tables, recent, 3)

    assert await LogRetention(tables.log, 1).run_once() == 1

    assert await _storage(backend, tables.log, old_finished) == (0, True, True)
    assert await _storage(backend, tables.log, recent) == (3, False, False)
    assert await _storage(backend, tables.log, old_running) == (1, False, False)
    # The running table plays on (and finishes) as if nothing happened.
    assert (await tables.act(old_running, "seat:1", '{"action":"add","n":1}')).status == "playing"
    assert (await tables.act(old_running, "seat:2", '{"action":"add","n":1}')).status == "finished"


async def test_the_scheduled_pass_compacts_without_being_asked(backend, log_store):
    table_id = await _table(log_store, finished_ms=LONG_AGO)
    retention = LogRetention(log_store, 30, interval_seconds=0.01, first_pass_seconds=0)
    job = asyncio.create_task(retention.run())
    try:
        await eventually(lambda: _passed(retention, 3), timeout=10, interval=0.01,
                         what="the retention job never made three passes")
    finally:
        job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await job
    assert await _storage(backend, log_store, table_id) == (0, True, True)


async def _passed(retention: LogRetention, passes: int) -> bool:
    return retention.passes >= passes


async def test_no_retention_means_nothing_is_ever_compacted(backend, log_store):
    table_id = await _table(log_store, finished_ms=LONG_AGO)
    retention = LogRetention(log_store, None, interval_seconds=0, first_pass_seconds=0)

    await asyncio.wait_for(retention.run(), 5)  # returns at once: no loop at all

    assert await retention.run_once() == 0 and retention.passes == 0
    assert await _storage(backend, log_store, table_id) == (3, False, False)


async def test_a_retention_longer_than_the_epoch_compacts_nothing(backend, log_store):
    table_id = await _table(log_store, finished_ms=LONG_AGO)

    assert await LogRetention(log_store, 1_234_567).run_once() == 0

    assert await _storage(backend, log_store, table_id) == (3, False, False)


async def test_the_compacted_tables_are_counted():
    store = MemoryLogStore()
    for n in range(3):
        await _table(store, finished_ms=LONG_AGO + n)
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    instruments = metrics.bind(provider.get_meter("test"))
    try:
        assert await LogRetention(store, 1, batch_tables=2, pause_seconds=0).run_once() == 3
        assert await LogRetention(store, 1).run_once() == 0
    finally:
        metrics.unbind(instruments)
    (point,) = [point for resource in reader.get_metrics_data().resource_metrics
                for scope in resource.scope_metrics for metric in scope.metrics
                if metric.name == "tavolo.logs.compacted" for point in metric.data.data_points]
    assert point.value == 3


# -- several replicas, crashes (Postgres) -------------------------------------------------------

@pytest.fixture
async def stores(postgres_dsn):
    """Open PostgresLogStores (each a replica's pool) on one migrated database."""
    await migrate(postgres_dsn, components=("game",))
    opened: list[PostgresLogStore] = []

    async def open_store() -> PostgresLogStore:
        opened.append(await PostgresLogStore.open(postgres_dsn, max_size=3))
        return opened[-1]

    yield open_store
    for store in opened:
        await store.close()


async def test_two_replicas_compacting_at_once_compact_each_table_once(stores):
    first, second = await stores(), await stores()
    ids = {await _table(first, finished_ms=LONG_AGO + n, moves=2) for n in range(24)}
    compacted: list[list[str]] = [[], []]
    skipped = [0, 0]

    async def replica(index: int, store: PostgresLogStore) -> None:
        """Passes, batches of 3, until no table is left (a pass ends early on a taken lease)."""
        retention = LogRetention(store, 1, batch_tables=3, pause_seconds=0.005)
        original = store.compact

        async def noting(*args):
            try:
                batch = await original(*args)
            except CompactionBusy:
                skipped[index] += 1
                raise
            compacted[index].extend(batch)
            return batch

        store.compact = noting  # type: ignore[method-assign]
        while await store._pool.fetchval("SELECT count(*) FROM game_table WHERE archived_at IS NULL"):
            await retention.run_once()

    await asyncio.wait_for(asyncio.gather(replica(0, first), replica(1, second)), 30)

    assert sorted(compacted[0] + compacted[1]) == sorted(ids)  # each once, none left out
    assert sum(skipped) >= 1  # they did meet: one found the other at it
    assert await first._pool.fetchval("SELECT count(*) FROM game_archive") == 24
    assert await first._pool.fetchval("SELECT count(*) FROM game_move") == 0


async def test_a_replica_finding_the_lease_taken_skips_its_pass(stores, postgres_dsn):
    store = await stores()
    table_id = await _table(store, finished_ms=LONG_AGO)
    holder = await asyncpg.connect(postgres_dsn)
    try:
        async with holder.transaction():
            assert await holder.fetchval(
                "SELECT pg_try_advisory_xact_lock(hashtext('game-log-compaction'))")
            with pytest.raises(CompactionBusy):
                await store.compact(LONG_AGO + 1, 50, now_ms())
            assert await LogRetention(store, 1).run_once() == 0
        assert await LogRetention(store, 1).run_once() == 1  # the lease is free again
    finally:
        await holder.close()
    assert await store.moves(table_id, 0) != []


async def test_a_crash_mid_batch_leaves_every_table_whole(stores, postgres_dsn):
    store = await stores()
    ids = [await _table(store, finished_ms=LONG_AGO + n, moves=4) for n in range(5)]
    before = {table_id: _public(await store.moves(table_id, 0)) for table_id in ids}
    blocker = await asyncpg.connect(postgres_dsn)
    try:
        # Hold the last table's move rows: the batch inserts its archives, marks its headers
        # and then waits to delete those rows, where it is killed.
        transaction = blocker.transaction()
        await transaction.start()
        await blocker.execute("SELECT 1 FROM game_move WHERE table_id = $1 FOR UPDATE", ids[-1])
        batch = asyncio.create_task(store.compact(LONG_AGO + 1000, 50, now_ms()))
        waiting = await eventually(lambda: _waiting_on_a_lock(store), timeout=10, interval=0.02,
                                   what="the batch never reached its delete")
        assert await blocker.fetchval("SELECT pg_terminate_backend($1)", waiting)
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)):
            await batch
        await transaction.rollback()
    finally:
        await blocker.close()

    for table_id in ids:
        assert await _storage(Backend("real"), store, table_id) == (4, False, False)
        assert _public(await store.moves(table_id, 0)) == before[table_id]
    assert sorted(await store.compact(LONG_AGO + 1000, 50, now_ms())) == sorted(ids)
    for table_id in ids:
        assert _public(await store.moves(table_id, 0)) == before[table_id]


async def _waiting_on_a_lock(store: PostgresLogStore) -> int | None:
    """The pid of the batch's session if it waits for a row lock (asked outside a transaction,
    which would keep its first view of pg_stat_activity)."""
    return await store._pool.fetchval(
        """SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND pid <> pg_backend_pid() AND query LIKE '%INSERT INTO game_archive%'""")

