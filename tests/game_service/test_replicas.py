"""Two `tavolo serve game` processes on one Redis and one Postgres behave as one service."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from game.cache import RedisTableCache
from game.client import GameClient
from game.log_store import MemoryLogStore
from game.registry import default_registry
from game.tables import Tables
from services.stores import Keys, redis_client
from testing.processes import free_port, stop_process, wait_serving
from tests.game_service.conftest import SEATS
from tests.game_service.fakes import FakeDeadlines, FakeStats, serve_fakes


@pytest.fixture
async def two_replicas(postgres_dsn, redis_url, redis_prefix):
    deadlines, stats = FakeDeadlines(), FakeStats()
    server, deadlines_addr, stats_addr = await serve_fakes(deadlines, stats)
    addresses = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_", "REDIS_"))}
    env.update(DATABASE_URL=postgres_dsn, REDIS_URL=redis_url, REDIS_KEY_PREFIX=redis_prefix,
               DEADLINES_ADDR=deadlines_addr, STATS_ADDR=stats_addr, LOG_LEVEL="WARNING",
               DUMMY_GAME="true")
    processes = [
        subprocess.Popen([sys.executable, "-m", "services.cli", "serve", "game"],
                         env={**env, "GAME_ADDR": address})
        for address in addresses
    ]
    clients = [GameClient(address) for address in addresses]
    try:
        await asyncio.gather(*(wait_serving(a, process=p, timeout=30)
                               for a, p in zip(addresses, processes)))
        yield clients, deadlines, stats
    finally:
        for client in clients:
            await client.close()
        for process in processes:
            process.send_signal(signal.SIGTERM)  # both at once, then wait for each
        for process in processes:
            stop_process(process)
        await server.stop(0)


async def _watch(client: GameClient, table_id: str, seat: str, into: list) -> None:
    async for view in client.watch_views(table_id, seat):
        into.append(view)


async def test_two_replicas_stream_the_same_updates_whoever_makes_the_moves(two_replicas):
    (first, second), deadlines, stats = two_replicas
    table_id = (await first.create_table("dummy", SEATS, {"target": 4}))["table_id"]
    seen_on_first, seen_on_second = [], []
    watchers = [asyncio.create_task(_watch(first, table_id, "seat:0", seen_on_first)),
                asyncio.create_task(_watch(second, table_id, "seat:1", seen_on_second))]
    while not (seen_on_first and seen_on_second):
        await asyncio.sleep(0.01)
    replicas = [second, first]
    moves = 0
    while True:
        view = await replicas[moves % 2].get_view(table_id, "seat:0")
        if view["status"] == "finished":
            break
        seat = SEATS[view["turn"]]
        await replicas[moves % 2].act(table_id, seat, {"action": "add", "n": 1}, view["revision"])
        moves += 1
    await asyncio.wait_for(asyncio.gather(*watchers), 15)
    assert moves == 7  # A reaches 4 at its fourth add, the seventh move
    revisions = list(range(moves + 1))
    assert [v["revision"] for v in seen_on_first] == revisions
    assert [v["revision"] for v in seen_on_second] == revisions
    assert [v["totals"] for v in seen_on_first] == [v["totals"] for v in seen_on_second]
    assert (seen_on_first[0]["you"], seen_on_second[0]["you"]) == (0, 1)
    assert seen_on_first[-1]["status"] == seen_on_second[-1]["status"] == "finished"
    await asyncio.wait_for(stats.recorded.wait(), 10)  # one replica handed the result to stats
    assert list(stats.matches) == [table_id]
    assert any(call[0] == "schedule" and call[1] == table_id for call in deadlines.calls)


_LOCK_HOLDER = """
import asyncio, sys, time
from game.cache import RedisTableCache
from services.stores import Keys, redis_client

async def main(url, prefix, table_id):
    cache = RedisTableCache(redis_client(url), Keys(prefix), lock_ttl_seconds=1.5)
    await cache.lock(table_id).acquire()
    print("locked", flush=True)
    await asyncio.sleep(3600)  # killed here, the lock still held

asyncio.run(main(*sys.argv[1:]))
"""


async def test_a_table_locked_by_a_killed_process_is_free_again_after_the_lock_ttl(
        redis_url, redis_prefix):
    cache = RedisTableCache(redis_client(redis_url), Keys(redis_prefix))
    tables = Tables(default_registry(dummy=True), MemoryLogStore(), cache)
    table_id = (await tables.create_table("", "dummy", '{"target": 100}', tuple(SEATS))).table_id
    holder = subprocess.Popen([sys.executable, "-c", _LOCK_HOLDER, redis_url, redis_prefix, table_id],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        loop = asyncio.get_running_loop()
        started = loop.time()
        moved = await tables.act(table_id, "seat:0", '{"action": "add", "n": 1}')
        waited = loop.time() - started
    finally:
        stop_process(holder)
        await tables.close()
        await cache.close()
    assert moved.revision == 1
    assert 0.5 < waited < 5  # it waited for the dead holder's lease, and no longer
