"""The game service's figures on real Postgres and Redis (its own database and key prefix).

A DummyEngine table of 8,000 moves of 16,000 bytes each: the view of a seat and a move on a
cached state, a full replay from the log and its peak memory. Then Act over gRPC against a
`tavolo serve game` process: one table, and 200 tables in parallel.

The servers are found like the tests find them: TAVOLO_TEST_POSTGRES (an admin DSN) and
TAVOLO_TEST_REDIS.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc

import grpc

from game.cache import MemoryTableCache, RedisTableCache
from game.client import GameClient
from game.log_store import LoggedMove, Position, PostgresLogStore
from game.registry import default_registry
from game.tables import Tables
from services.migrations import migrate
from services.stores import Keys, redis_client
from tavolo.deadlines.v1 import deadlines_pb2, deadlines_pb2_grpc
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc
from testing.processes import free_port, stop_process, wait_serving
from testing.servers import REDIS_URL, scratch_database, scratch_prefix

SEATS = [f"seat:{i}" for i in range(4)]
MOVES = 8000
MOVE_BYTES = 16000
VIEWS = 3000
GRPC_ONE_TABLE_MOVES = 1000
PARALLEL_TABLES = 200
PARALLEL_MOVES_EACH = 10


def main() -> None:
    asyncio.run(_run())


async def _run() -> None:
    async with scratch_database("bench") as dsn, scratch_prefix("bench") as prefix:
        await migrate(dsn, components=("game",))
        await _log_figures(dsn, prefix)
        await _grpc_figures(dsn, prefix)


async def _log_figures(dsn: str, prefix: str) -> None:
    registry = default_registry(dummy=True)
    log_store = await PostgresLogStore.open(dsn)
    cache = RedisTableCache(redis_client(REDIS_URL), Keys(prefix))
    tables = Tables(registry, log_store, cache)
    try:
        table_id = (await tables.create_table("", "dummy", '{"target": 1000000}', SEATS)).table_id
        notes = _notes()
        move_ms = []
        for number in range(MOVES):
            action = json.dumps({"action": "add", "n": 1, "note": next(notes)}, separators=(",", ":"))
            started = time.perf_counter()
            await tables.act(table_id, SEATS[number % 4], action)
            move_ms.append((time.perf_counter() - started) * 1000)
        (payload,) = [m.payload_json for m in await log_store.moves(table_id, 0, 1)]
        print(f"   dummy table: {MOVES} moves of {len(payload.encode())} bytes each, Postgres log, Redis cache")

        view_us = []
        for i in range(VIEWS):
            started = time.perf_counter()
            await tables.get_view(table_id, SEATS[i % 4])
            view_us.append((time.perf_counter() - started) * 1e6)
        live = await tables.current(table_id)
        started = time.perf_counter()
        for i in range(VIEWS):
            tables._render(live, i % 4)
        render_us = (time.perf_counter() - started) * 1e6 / VIEWS
        print(f"   view of a seat, cached state:  {statistics.mean(view_us):7.0f} µs mean, "
              f"{_pct(view_us, 50):.0f} µs p50  (reference 71 µs; of it the render: {render_us:.0f} µs,"
              f" the rest is the header row read from Postgres)")
        append_ms = await _append_only(log_store, registry, next(notes))
        print(f"   move, cached state:            {statistics.mean(move_ms):7.2f} ms mean, "
              f"{_pct(move_ms, 50):.2f} ms p50, {_pct(move_ms, 99):.2f} ms p99  (reference 0.2 ms;"
              f" Tables.act in process, deadline sync off; of it the Postgres append:"
              f" {append_ms:.2f} ms)")

        replay_s = []
        for _ in range(3):
            cold = Tables(registry, log_store, MemoryTableCache())  # nothing cached: the log alone
            started = time.perf_counter()
            rebuilt = await cold.current(table_id)
            replay_s.append(time.perf_counter() - started)
        assert rebuilt.state == live.state and rebuilt.move_count == MOVES
        tracemalloc.start()
        cold = Tables(registry, log_store, MemoryTableCache())
        await cold.current(table_id)
        peak_mb = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"   full replay from the log:      {min(replay_s):7.2f} s (best of 3)  (reference 0.43 s)")
        print(f"   its peak memory (tracemalloc): {peak_mb:7.1f} MB  (reference 15 MB)")
    finally:
        await cache.close()
        await log_store.close()


async def _append_only(log_store: PostgresLogStore, registry, note: str, moves: int = 200) -> float:
    """The mean time of the log append alone (one statement, committed), for a move of MOVE_BYTES."""
    tables = Tables(registry, log_store, MemoryTableCache())
    table_id = (await tables.create_table("", "dummy", '{"target": 1000000}', SEATS)).table_id
    live = await tables.current(table_id)
    payload = json.dumps({"n": 1, "note": note}, separators=(",", ":"))
    started = time.perf_counter()
    for number in range(1, moves + 1):
        entry = LoggedMove(number, "add", (number - 1) % 4, payload, False, False, live.updated_ms)
        await log_store.append(table_id, Position(number - 1, number - 1, live.seed_commitment), entry,
                               "playing", None)
    return (time.perf_counter() - started) * 1000 / moves


async def _grpc_figures(dsn: str, prefix: str) -> None:
    fakes = grpc.aio.server()
    deadlines_pb2_grpc.add_DeadlineServiceServicer_to_server(_Deadlines(), fakes)
    stats_pb2_grpc.add_StatsServiceServicer_to_server(_Stats(), fakes)
    deadlines_port = fakes.add_insecure_port("127.0.0.1:0")
    stats_port = fakes.add_insecure_port("127.0.0.1:0")
    await fakes.start()
    address = f"127.0.0.1:{free_port()}"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_", "REDIS_"))}
    env.update(DATABASE_URL=dsn, REDIS_URL=REDIS_URL, REDIS_KEY_PREFIX=prefix, GAME_ADDR=address,
               DEADLINES_ADDR=f"127.0.0.1:{deadlines_port}", STATS_ADDR=f"127.0.0.1:{stats_port}", DUMMY_GAME="true",
               LOG_LEVEL="WARNING")
    server = subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "game"], env=env)
    client = GameClient(address)
    try:
        await wait_serving(address, process=server, timeout=30)
        table_id = (await client.create_table("dummy", SEATS, {"target": 1000000}))["table_id"]
        started = time.perf_counter()
        latencies = await _act_many(client, table_id, GRPC_ONE_TABLE_MOVES)
        elapsed = time.perf_counter() - started
        _print_acts("Act over gRPC, one table:   ", len(latencies), elapsed, latencies)

        table_ids = [(await client.create_table("dummy", SEATS, {"target": 1000000}))["table_id"]
                     for _ in range(PARALLEL_TABLES)]
        started = time.perf_counter()
        runs = await asyncio.gather(*(_act_many(client, t, PARALLEL_MOVES_EACH) for t in table_ids))
        elapsed = time.perf_counter() - started
        latencies = [ms for run in runs for ms in run]
        _print_acts(f"Act over gRPC, {PARALLEL_TABLES} tables:", len(latencies), elapsed, latencies)
    finally:
        await client.close()
        stop_process(server)
        await fakes.stop(0)


async def _act_many(client: GameClient, table_id: str, moves: int) -> list[float]:
    latencies = []
    for number in range(moves):
        started = time.perf_counter()
        await client.act(table_id, SEATS[number % 4], {"action": "add", "n": 1}, expected_revision=number)
        latencies.append((time.perf_counter() - started) * 1000)
    return latencies


def _print_acts(label: str, moves: int, seconds: float, latencies: list[float]) -> None:
    print(f"   {label} {moves / seconds:7.0f} moves/s, p50 {_pct(latencies, 50):.2f} ms, "
          f"p99 {_pct(latencies, 99):.2f} ms ({moves} moves)")


def _pct(values: list[float], percent: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(percent / 100 * (len(ordered) - 1)))]


def _notes():
    """Move notes that fill a payload to MOVE_BYTES, random so that Postgres cannot compress them."""
    room = MOVE_BYTES - len('{"n":1,"note":""}')
    while True:
        yield base64.b64encode(os.urandom(room)).decode()[:room]


class _Deadlines(deadlines_pb2_grpc.DeadlineServiceServicer):
    async def Schedule(self, request, context):
        return deadlines_pb2.ScheduleResponse()

    async def Cancel(self, request, context):
        return deadlines_pb2.CancelResponse(cancelled=True)


class _Stats(stats_pb2_grpc.StatsServiceServicer):
    async def RecordMatch(self, request, context):
        return stats_pb2.RecordMatchResponse(created=True)


if __name__ == "__main__":
    main()
