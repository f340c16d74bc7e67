"""Two `tavolo serve game` processes on one Redis and one Postgres behave as one service."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from game.client import GameClient
from game.live_link import LiveLink
from testing.processes import free_port, stop_process, wait_serving
from tests.game_service.conftest import SEATS
from tests.game_service.fakes import FakeDeadlines, FakeStats, serve_fakes


@pytest.fixture
async def replica_processes(postgres_dsn, redis_url, redis_prefix):
    """Two game processes, their clients, and the fake deadline and stats services."""
    deadlines, stats = FakeDeadlines(), FakeStats()
    server, deadlines_addr, stats_addr = await serve_fakes(deadlines, stats)
    addresses = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_", "REDIS_"))}
    env.update(DATABASE_URL=postgres_dsn, REDIS_URL=redis_url, REDIS_KEY_PREFIX=redis_prefix,
               DEADLINES_ADDR=deadlines_addr, STATS_ADDR=stats_addr, LOG_LEVEL="WARNING",
               DUMMY_GAME="true", METRICS_PORT="0")
    processes = [
        subprocess.Popen([sys.executable, "-m", "launcher.cli", "serve", "game"],
                         env={**env, "GAME_ADDR": address})
        for address in addresses
    ]
    clients = [GameClient(address) for address in addresses]
    try:
        await asyncio.gather(*(wait_serving(a, process=p, timeout=30)
                               for a, p in zip(addresses, processes)))
        yield clients, processes, deadlines, stats
    finally:
        for client in clients:
            await client.close()
        for process in processes:
            process.send_signal(signal.SIGTERM)  # both at once, then wait for each
        for process in processes:
            stop_process(process)
        await server.stop(0)


@pytest.fixture
async def two_replicas(replica_processes):
    clients, _, deadlines, stats = replica_processes
    return clients, deadlines, stats


async def _watch(client: GameClient, table_id: str, seat: str, into: list) -> None:
    """The seat's views as a bot watches them (WatchTable of one seat), at ``client``'s replica
    whether or not it owns the table."""
    link = LiveLink(client._address)
    try:
        async for views in link.watch_table(table_id, seat=seat):
            into.extend(view for _, view in views.views)
    finally:
        await link.close()


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
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + 5
    while ("set", table_id) not in deadlines.calls:  # the finished table handed over: no entry
        assert loop.time() < give_up_at, deadlines.calls
        await asyncio.sleep(0.02)
    assert deadlines.pending(table_id) == {}


async def test_a_replica_killed_after_its_moves_loses_none_and_blocks_nobody(replica_processes):
    """A move is answered once it is in the log: the snapshot saved behind it may die with the
    process, and no lock of it is left for the other replica to wait out."""
    (first, second), (process, _), _, _ = replica_processes
    table_id = (await first.create_table("dummy", SEATS, {"target": 100}))["table_id"]
    for number in range(6):
        await first.act(table_id, SEATS[number % 4], {"action": "add", "n": 1}, number)
    process.send_signal(signal.SIGKILL)  # at once: whatever it had not saved yet is lost
    process.wait(timeout=10)
    loop = asyncio.get_running_loop()
    started = loop.time()
    view = await second.get_view(table_id, "seat:0")
    assert view["revision"] == 6 and view["totals"] == [2, 2, 1, 1]
    moved = await second.act(table_id, "seat:2", {"action": "add", "n": 1}, 6)
    assert moved["revision"] == 7
    assert loop.time() - started < 2
