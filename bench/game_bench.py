"""The game service's figures on real Postgres and Redis (its own database and key prefix).

A DummyEngine table of 8,000 moves of 16,000 bytes each: the view of a seat and a move on a
cached state, a full replay from the log and its peak memory. Then the live path's cost per
move (store calls and CPU) on scopone tables that are being watched, and Act over gRPC against
a `tavolo serve game` process: one table, and 200 tables in parallel.

`python -m bench.game_bench live` runs the live-path figures alone.

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
from collections import Counter
from collections.abc import AsyncIterator

import asyncpg
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
from testing.servers import REDIS_URL, dsn_for, scratch_database, scratch_prefix

SEATS = [f"seat:{i}" for i in range(4)]
MOVES = 8000
MOVE_BYTES = 16000
VIEWS = 3000
GRPC_ONE_TABLE_MOVES = 1000
PARALLEL_TABLES = 200
PARALLEL_MOVES_EACH = 10
LIVE_TABLES = 20
LIVE_MOVES_EACH = 60  # 40 plays and the 4 acknowledgements of the first hand, then the second's


def main(parts: list[str] | None = None) -> None:
    asyncio.run(_run(parts or ["log", "live", "grpc"]))


async def _run(parts: list[str]) -> None:
    async with scratch_database("bench") as dsn, scratch_prefix("bench") as prefix:
        await migrate(dsn, components=("game",))
        if "log" in parts:
            await _log_figures(dsn, prefix)
        if "live" in parts:
            for watching, elsewhere in (("seats", False), ("table", False), ("table", True)):
                await _live_figures(dsn, prefix, watching, elsewhere)
        if "grpc" in parts:
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


async def _live_figures(dsn: str, prefix: str, watching: str, elsewhere: bool) -> None:
    """Store calls and CPU per move: LIVE_TABLES scopone tables played at once, each watched
    by its four seats (a WatchTable of one seat each, as bots watch) or as one table (WatchTable,
    as a gateway watches it); each move is chosen from the views the watchers received, as a
    player would, and made on the watchers' replica or (``elsewhere``) on another one.

    Redis calls are INFO commandstats deltas (server-wide: run on a Redis of its own for exact
    figures; commands run by scripts count too), Postgres transactions the xact_commit delta of
    the scratch database; CPU is this process's (the game service and its watchers) and that
    of the Redis server and of the database's Postgres backends.
    """
    registry = default_registry()
    log_store = await PostgresLogStore.open(dsn)
    client = redis_client(REDIS_URL)
    cache = RedisTableCache(redis_client(REDIS_URL), Keys(prefix))
    tables = Tables(registry, log_store, cache)
    other_cache = RedisTableCache(redis_client(REDIS_URL), Keys(prefix))
    movers = Tables(registry, log_store, other_cache) if elsewhere else tables
    admin = await asyncpg.connect(dsn_for("postgres"))
    database = dsn.rpartition("/")[2]
    streams: list[asyncio.Task] = []
    try:
        table_ids = [(await tables.create_table("", "scopone_scientifico", '{"target_score": 121}', SEATS)).table_id
                     for _ in range(LIVE_TABLES)]
        latest: dict[str, dict[str, dict]] = {t: {} for t in table_ids}
        for table_id in table_ids:
            feeds = ([_seat_views(tables, table_id, seat) for seat in SEATS] if watching == "seats"
                     else [_table_views(tables, table_id)])
            streams += [asyncio.create_task(_follow(feed, latest[table_id])) for feed in feeds]
        await asyncio.gather(*(_play(movers, t, latest[t], 1) for t in table_ids))  # warm
        await asyncio.sleep(1.5)
        before = await _counters(client, admin, database)
        started = time.perf_counter()
        await asyncio.gather(*(_play(movers, t, latest[t], LIVE_MOVES_EACH) for t in table_ids))
        elapsed = time.perf_counter() - started
        await movers.drain()
        after = await _counters(client, admin, database)
        await asyncio.sleep(11)  # Postgres backends report their transactions within 10 s of idling
        xacts = await _xacts(admin, database) - before.xacts
        moves = LIVE_TABLES * LIVE_MOVES_EACH
        commands = after.commands - before.commands
        by_name = ", ".join(f"{name} {count / moves:.2f}" for name, count in commands.most_common())
        label = "4 seat watches" if watching == "seats" else "1 WatchTable"
        where = ", moves made on another replica" if elsewhere else ""
        print(f"   live path, {LIVE_TABLES} scopone tables at once, {label} each{where}: {moves} "
              f"moves in {elapsed:.1f} s")
        print(f"     per move: Redis {commands.total() / moves:.2f} commands ({by_name}); "
              f"Postgres {xacts / moves:.2f} transactions")
        print(f"     CPU per move: game {(after.own_cpu - before.own_cpu) * 1000 / moves:.2f} ms, Redis "
              f"{(after.redis_cpu - before.redis_cpu) * 1000 / moves:.2f} ms, Postgres "
              f"{_backend_cpu(before.backends, after.backends) * 1000 / moves:.2f} ms")
    finally:
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        for replica in {tables, movers}:
            await replica.close()
        await other_cache.close()
        await admin.close()
        await client.aclose()
        await cache.close()
        await log_store.close()


async def _seat_views(tables: Tables, table_id: str, seat: str) -> AsyncIterator[dict[str, dict]]:
    async for views in tables.watch_table(table_id, seat=seat):  # as a bot watches its seat
        yield {name: json.loads(view) for name, view in views.views}


async def _table_views(tables: Tables, table_id: str) -> AsyncIterator[dict[str, dict]]:
    async for views in tables.watch_table(table_id):
        yield {seat: json.loads(view) for seat, view in views.views}


async def _follow(feed: AsyncIterator[dict[str, dict]], latest: dict[str, dict]) -> None:
    async for views in feed:
        latest.update(views)


async def _play(tables: Tables, table_id: str, latest: dict[str, dict], moves: int) -> None:
    """``moves`` moves, each chosen from the views the watchers hold once all four show the
    revision of the one before: the seat on turn plays its first legal card, or at a hand's
    end the seats acknowledge."""
    for _ in range(moves):
        while len(latest) < len(SEATS) or len({v["revision"] for v in latest.values()}) > 1:
            await asyncio.sleep(0.001)
        seat, action = _next_move(latest)
        revision = latest[seat]["revision"]
        await tables.act(table_id, seat, json.dumps(action), expected_revision=revision)
        while min(v["revision"] for v in latest.values()) <= revision:
            await asyncio.sleep(0.001)


def _next_move(views: dict[str, dict]) -> tuple[str, dict]:
    for seat, view in views.items():
        if view.get("your_turn"):
            legal = view["legal"][0]
            return seat, {"action": "play", "card": legal["card"], "capture": legal["captures"][0]}
        if view["status"] == "hand_end" and view["you"] not in view["acknowledged"]:
            return seat, {"action": "ack"}
    raise AssertionError(f"no seat can move: {views}")


class _Counters:
    def __init__(self, commands: Counter, xacts: int, redis_cpu: float, backends: dict[int, float],
                 own_cpu: float):
        self.commands, self.xacts, self.redis_cpu = commands, xacts, redis_cpu
        self.backends, self.own_cpu = backends, own_cpu


async def _counters(client, admin, database: str) -> _Counters:
    stats = await client.info("commandstats")
    commands = Counter({name.removeprefix("cmdstat_"): value["calls"] for name, value in stats.items()
                        if name != "cmdstat_info"})
    cpu = await client.info("cpu")
    xacts = await _xacts(admin, database)
    pids = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE datname = $1", database)
    return _Counters(commands, xacts, cpu["used_cpu_user"] + cpu["used_cpu_sys"],
                     {row["pid"]: _process_cpu(row["pid"]) for row in pids}, time.process_time())


async def _xacts(admin, database: str) -> int:
    return await admin.fetchval("SELECT xact_commit FROM pg_stat_database WHERE datname = $1", database)


def _process_cpu(pid: int) -> float:
    """Seconds of CPU a process has used (user and system), 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _backend_cpu(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


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
               LOG_LEVEL="WARNING", METRICS_PORT="0")
    server = subprocess.Popen([sys.executable, "-m", "launcher.cli", "serve", "game"], env=env)
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
    main(sys.argv[1:])
