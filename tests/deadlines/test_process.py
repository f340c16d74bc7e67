"""`tavolo serve deadlines` as a real process on real Redis: killed mid-fire, and restarted."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from deadlines.client import DeadlinesClient
from deadlines.queue import RedisDeadlineQueue
from services.stores import Keys, redis_client
from testing.processes import free_port, wait_serving
from tests.deadlines.conftest import consuming, until_empty
from tests.deadlines.fakes import due_token

SHORT_LEASE_MS = 1000
TAVOLO = Path(sys.executable).with_name("tavolo")


class Replica:
    """One `tavolo serve deadlines` process."""

    def __init__(self, redis_url: str, prefix: str, game_addr: str, log: Path, **extra: str):
        self.address = f"127.0.0.1:{free_port()}"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("REDIS_", "DATABASE_", "DEADLINE"))}
        env.update(REDIS_URL=redis_url, REDIS_KEY_PREFIX=prefix, DEADLINES_ADDR=self.address,
                   GAME_ADDR=game_addr, LOG_LEVEL="INFO", **extra)
        self._log = log.open("ab")
        self.process = subprocess.Popen([str(TAVOLO), "serve", "deadlines"], env=env,
                                        stdout=self._log, stderr=subprocess.STDOUT)

    async def ready(self) -> None:
        await wait_serving(self.address, timeout=20)

    async def stop(self, signum: int) -> int:
        self.process.send_signal(signum)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(None, lambda: self.process.wait(timeout=20))
        finally:
            self._log.close()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._log.close()


@pytest.fixture
async def replicas(redis_url, redis_prefix, game_server, tmp_path):
    started: list[Replica] = []

    def start(**extra: str) -> Replica:
        replica = Replica(redis_url, redis_prefix, game_server.address,
                          tmp_path / "deadlines.log", **extra)
        started.append(replica)
        return replica

    yield start
    for replica in started:
        replica.kill()


@pytest.fixture
async def shared_queue(redis_url, redis_prefix):
    queue = RedisDeadlineQueue(redis_client(redis_url), Keys(redis_prefix))
    yield queue
    await queue.close()


def now_ms() -> int:
    return int(time.time() * 1000)


async def test_a_replica_killed_between_claim_and_fire_leaves_the_entry_to_another(
        replicas, shared_queue, game_server, game_target):
    game = game_server.game
    doomed = replicas(DEADLINE_LEASE_MS=str(SHORT_LEASE_MS))
    await doomed.ready()
    token = due_token(now_ms(), "doomed")
    game.hang_first.add(token)  # the killed replica's fire never completes
    async with DeadlinesClient(doomed.address) as client:
        await client.schedule("table-1", "turn", token, now_ms())
    [hung] = await game.wait_for(token)
    doomed.process.send_signal(signal.SIGKILL)
    doomed.kill()
    assert tuple(await shared_queue.counts()) == (0, 1)  # claimed, never settled

    async with consuming(shared_queue, game_target):  # the surviving replica
        _, fired = await game.wait_for(token, count=2, timeout=10)
        await until_empty(shared_queue)
    assert fired.answer == "fired"
    # not before the killed replica's lease ran out, and promptly after it
    assert SHORT_LEASE_MS - 100 <= fired.at_ms - hung.at_ms < SHORT_LEASE_MS + 1000


async def test_a_restarted_service_loses_nothing(replicas, shared_queue, game_server):
    game = game_server.game
    first = replicas()
    await first.ready()
    start = now_ms()
    later = due_token(start + 1500, "later")     # still pending at the restart
    running = due_token(start, "running")        # in flight at the restart
    game.hang_first.add(running)
    async with DeadlinesClient(first.address) as client:
        await client.schedule("table-1", "turn", later, start + 1500)
        await client.schedule("table-1", "hand_end", running, start)
    await game.wait_for(running)
    assert await first.stop(signal.SIGTERM) == 0
    # the stopping replica gave its claim back instead of leaving it to its 30 s lease
    assert tuple(await shared_queue.counts()) == (2, 0)

    second = replicas()
    await second.ready()
    calls = await game.wait_for_all([later], timeout=10)
    _, rerun = await game.wait_for(running, count=2, timeout=1)
    assert rerun.answer == "fired"
    assert calls[later].answer == "fired" and calls[later].at_ms >= start + 1500
    await until_empty(shared_queue)
    assert await second.stop(signal.SIGTERM) == 0


async def test_a_bad_lease_setting_is_a_clear_start_up_error(replicas):
    replica = replicas(DEADLINE_LEASE_MS="soon")
    loop = asyncio.get_running_loop()
    code = await loop.run_in_executor(None, lambda: replica.process.wait(timeout=20))
    assert code == 2
