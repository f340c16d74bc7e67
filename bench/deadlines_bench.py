"""The deadline service under load: `tavolo serve deadlines` on real Redis, firing at a fake game
service over gRPC that records when each fire arrives.

Two runs, 10,000 entries each, every entry scheduled through the service's API beforehand:
- spread: due evenly over 10 seconds (1,000 a second): fires per second and lateness;
- burst: all due at the same instant: how fast one replica drains a backlog.
Lateness is the arrival time at the game service minus the due time (never negative: an entry
never fires early). Redis comes from TAVOLO_TEST_REDIS, as for the tests (default redis://127.0.0.1:6379/0);
everything lives under a key prefix of the bench's own, deleted afterwards.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

from deadlines.client import DeadlinesClient
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from testing.processes import free_port, stop_process, wait_serving
from testing.servers import REDIS_URL, delete_keys, new_prefix

ENTRIES = 10_000
SPREAD_MS = 10_000
SCHEDULING_CONCURRENCY = 64
PILOT_ENTRIES = 1_000


class RecordingGame(game_pb2_grpc.GameServiceServicer):
    """FireDeadline only: remembers when each token first arrived, and counts repeats."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self.repeats = 0
        self.all_arrived = asyncio.Event()
        self.expected = 0

    def expect(self, count: int) -> None:
        self.arrivals.clear()
        self.repeats = 0
        self.expected = count
        self.all_arrived.clear()

    async def FireDeadline(self, request, context):
        now = time.time() * 1000
        if request.token in self.arrivals:
            self.repeats += 1
        else:
            self.arrivals[request.token] = now
            if len(self.arrivals) >= self.expected:
                self.all_arrived.set()
        return game_pb2.FireDeadlineResponse(fired=True, revision=1)


def _percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


async def _schedule_all(client: DeadlinesClient, dues: list[int], label: str,
                        table: str | None = None) -> float:
    """Schedule one entry per due time (token = label:index:due); returns schedules per second."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(len(dues)):
        queue.put_nowait(index)

    async def worker() -> None:
        while not queue.empty():
            index = queue.get_nowait()
            due = dues[index]
            await client.schedule(table or f"table-{index % 500}", "turn", f"{label}:{index}:{due}",
                                  due)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(SCHEDULING_CONCURRENCY)))
    return len(dues) / (time.perf_counter() - started)


def _report(label: str, game: RecordingGame) -> None:
    lateness = sorted(at - int(token.rpartition(":")[2]) for token, at in game.arrivals.items())
    arrivals = sorted(game.arrivals.values())
    window_s = max(1e-3, (arrivals[-1] - arrivals[0]) / 1000)
    print(f"   {label}: {len(arrivals)} fired in {window_s:.2f} s = {len(arrivals) / window_s:,.0f}"
          f" fired/s; lateness p50 {_percentile(lateness, 0.5):.1f} ms,"
          f" p99 {_percentile(lateness, 0.99):.1f} ms, max {lateness[-1]:.1f} ms,"
          f" min {lateness[0]:.1f} ms; repeats {game.repeats}", flush=True)


async def _run() -> None:
    prefix = new_prefix("bench")
    game = RecordingGame()
    game_server = grpc.aio.server()
    game_pb2_grpc.add_GameServiceServicer_to_server(game, game_server)
    game_addr = f"127.0.0.1:{free_port()}"
    game_server.add_insecure_port(game_addr)
    await game_server.start()

    deadlines_addr = f"127.0.0.1:{free_port()}"
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("REDIS_", "DATABASE_", "DEADLINE"))}
    env.update(REDIS_URL=REDIS_URL, REDIS_KEY_PREFIX=prefix, DEADLINES_ADDR=deadlines_addr,
               GAME_ADDR=game_addr, LOG_LEVEL="WARNING", METRICS_PORT="0")
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below, after the crash report
    tavolo = str(Path(sys.executable).with_name("tavolo"))
    service = subprocess.Popen([tavolo, "serve", "deadlines"], env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    client = DeadlinesClient(deadlines_addr, timeout_seconds=10)
    try:
        await wait_serving(deadlines_addr)
        print(f"   {ENTRIES} entries per run, one replica (`tavolo serve deadlines`), real Redis,"
              " fake game service over gRPC", flush=True)

        # A pilot measures how fast this machine schedules, so that the runs below start their
        # due times only once every entry is in (a late schedule would count as a late fire).
        pilot = [int(time.time() * 1000) + 3_600_000] * PILOT_ENTRIES
        pilot_rate = await _schedule_all(client, pilot, "pilot", table="pilot")
        await client.cancel_table("pilot")
        head_start_ms = int(1.5 * ENTRIES / pilot_rate * 1000) + 2_000

        # spread: due evenly over SPREAD_MS, starting once everything is scheduled
        game.expect(ENTRIES)
        start = int(time.time() * 1000) + head_start_ms
        dues = [start + index * SPREAD_MS // ENTRIES for index in range(ENTRIES)]
        rate = await _schedule_all(client, dues, "spread")
        head_room = start - time.time() * 1000
        print(f"   scheduling: {rate:,.0f} Schedule calls/s over gRPC"
              f" ({head_room / 1000:.1f} s to spare before the first due time)", flush=True)
        await asyncio.wait_for(game.all_arrived.wait(), timeout=SPREAD_MS / 1000 + 60)
        _report(f"spread over {SPREAD_MS / 1000:.0f} s", game)

        # burst: every entry due at the same instant
        game.expect(ENTRIES)
        instant = int(time.time() * 1000) + head_start_ms
        await _schedule_all(client, [instant] * ENTRIES, "burst")
        await asyncio.wait_for(game.all_arrived.wait(), timeout=120)
        _report("burst, all due at once", game)
    finally:
        await client.close()
        stop_process(service, timeout=20)
        if service.returncode not in (0, -15):
            log.seek(0)
            print(log.read().decode(errors="replace")[-2000:], file=sys.stderr)
        log.close()
        await game_server.stop(0)
        await delete_keys(prefix)


def main() -> None:
    asyncio.run(_run())
