"""Calls spread over every replica of a service, and keep spreading as replicas go and come.

Every channel sends its calls round robin over all the addresses its target resolves to
(services.rpc.channels); a replica killed fails no idempotent call (the channel's retries go to
the next replica); a server closes each caller's connection at its maximum age
(GRPC_MAX_CONNECTION_AGE_SECONDS, services.rpc.server), and the caller, resolving the name
again, finds the replicas that came since it connected.

The replicas are real `tavolo serve stats` processes (in-memory stores), each on a loopback
address of its own and one port (Linux routes all of 127/8 to lo). What each served is read
from its own metric (rpc.server.call.duration, scraped from its /metrics), never from the client.
The DNS name of the second test is served by a DNS server of the test's own (dnslib), which
the channel's target names (``dns://server/name:port``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator

import httpx
from dnslib import QTYPE, RR, A
from dnslib.server import BaseResolver, DNSLogger, DNSServer

from stats.client import StatsClient
from testing.processes import free_port, stop_process, wait_serving
from testing.prometheus import Scrape

log = logging.getLogger(__name__)

SERVED = "rpc_server_call_duration_seconds_count"
GET_RATINGS = "tavolo.stats.v1.StatsService/GetRatings"
NAME = "stats.tavolo.test"


class Replica:
    """One `tavolo serve stats` process at ``host``:``port``, its metrics at ``host``:``metrics_port``."""

    def __init__(self, host: str, port: int, metrics_port: int, **env: str):
        self.host, self.address = host, f"{host}:{port}"
        self.metrics = f"http://{host}:{metrics_port}/metrics"
        environ = {key: value for key, value in os.environ.items()
                   if not key.startswith(("DATABASE_", "REDIS_", "OTEL_"))}
        environ.update(STATS_ADDR=self.address, METRICS_PORT=str(metrics_port),
                       LOG_LEVEL="WARNING", STATS_CURSOR_SECRET="balancing-test-cursor-key", **env)
        self.process = subprocess.Popen([sys.executable, "-m", "launcher.cli", "serve", "stats"],
                                        env=environ)

    async def serving(self) -> Replica:
        await wait_serving(self.address, "tavolo.stats.v1.StatsService", process=self.process,
                           timeout=30)
        return self

    async def served(self, method: str = GET_RATINGS) -> int:
        """Calls of ``method`` this replica has answered, by its own count."""
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.get(self.metrics)
        scrape = Scrape(response.text)
        if not scrape.has(SERVED, rpc_method=method):
            return 0
        return int(scrape.value(SERVED, rpc_method=method, rpc_response_status_code="OK"))


@contextlib.asynccontextmanager
async def replicas(*hosts: str, **env: str) -> AsyncIterator[list[Replica]]:
    """A stats replica on each of ``hosts``, one port for all; stopped after the block."""
    port, metrics_port = free_port(), free_port()
    started = [Replica(host, port, metrics_port, **env) for host in hosts]
    try:
        yield list(await asyncio.gather(*(replica.serving() for replica in started)))
    finally:
        for replica in started:
            stop_process(replica.process)


async def shares(replicas_: list[Replica], before: list[int]) -> list[int]:
    """What each replica served since ``before``."""
    return [now - then for now, then in zip(await asyncio.gather(
        *(replica.served() for replica in replicas_)), before, strict=True)]


async def calls(client: StatsClient, count: int, lanes: int = 10) -> None:
    """``count`` idempotent reads, ``lanes`` at a time; any failure fails the test."""
    async def lane(share: int) -> None:
        for _ in range(share):
            assert await client.ratings("alice") == []

    await asyncio.gather(*(lane(count // lanes) for _ in range(lanes)))


async def test_calls_spread_over_every_replica_and_survive_a_killed_one():
    async with replicas("127.0.0.1", "127.0.0.2", "127.0.0.3") as (first, second, third):
        target = "ipv4:" + ",".join(replica.address for replica in (first, second, third))
        async with StatsClient(target) as client:
            # Connected to all three (the first calls go to whichever connection came first).
            give_up_at = time.monotonic() + 30
            while 0 in (warm := await shares([first, second, third], [0, 0, 0])):
                assert time.monotonic() < give_up_at, f"a replica got no call: {warm}"
                await calls(client, 10, lanes=1)
            await calls(client, 300)
            served = await shares([first, second, third], warm)
            assert sum(served) == 300
            for count in served:
                assert 0.20 * 300 <= count <= 0.45 * 300, served

            third.process.send_signal(signal.SIGKILL)  # no goodbye: its connections just drop
            third.process.wait(10)
            await calls(client, 300)  # every call succeeds: retried on UNAVAILABLE elsewhere

            after = await shares([first, second], [w + s for w, s in zip(warm[:2], served[:2])])
            assert sum(after) == 300, after
            for count in after:
                assert count >= 0.30 * 300, after


class Zone(BaseResolver):
    """``NAME``'s A records: the addresses the test says, with no time to live (every query
    asks again); counts the queries."""

    def __init__(self) -> None:
        self.addresses: list[str] = []
        self.queries = 0

    def resolve(self, request, handler):
        reply = request.reply()
        question = request.q
        if question.qtype == QTYPE.A and str(question.qname).rstrip(".") == NAME:
            self.queries += 1
            for address in self.addresses:
                reply.add_answer(RR(question.qname, QTYPE.A, rdata=A(address), ttl=0))
        return reply


@contextlib.contextmanager
def dns_server(zone: Zone) -> Iterator[str]:
    """A DNS server (UDP, 127.0.0.1) answering from ``zone``; its host:port."""
    server = DNSServer(zone, address="127.0.0.1", port=0,
                       logger=DNSLogger("error", prefix=False, logf=log.warning))
    server.start_thread()
    try:
        yield f"127.0.0.1:{server.server.server_address[1]}"
    finally:
        server.stop()
        server.server.server_close()


async def test_a_long_lived_channel_spreads_to_a_replica_that_came_after_it_connected():
    zone = Zone()
    with dns_server(zone) as dns:
        port, metrics_port = free_port(), free_port()
        age = {"GRPC_MAX_CONNECTION_AGE_SECONDS": "1"}
        old = await Replica("127.0.0.1", port, metrics_port, **age).serving()
        new: Replica | None = None
        try:
            zone.addresses = ["127.0.0.1"]
            async with StatsClient(f"dns://{dns}/{NAME}:{port}") as client:
                await calls(client, 10, lanes=1)  # connected: the name gave one replica
                resolved = zone.queries
                new = await Replica("127.0.0.2", port, metrics_port, **age).serving()
                zone.addresses = ["127.0.0.1", "127.0.0.2"]

                # The old replica closes the channel's connection within its age (1 s + 10 %),
                # the channel resolves the name again (at most every 5 s) and connects to both.
                give_up_at = time.monotonic() + 30
                while await new.served() == 0:
                    assert time.monotonic() < give_up_at, "the new replica got no call"
                    await calls(client, 10, lanes=1)
                    await asyncio.sleep(0.05)
                assert zone.queries > resolved

                # Both take calls from now on (each connection still closes every second).
                before = [await old.served(), await new.served()]
                await calls(client, 200)
                spread = await shares([old, new], before)
                assert sum(spread) == 200
                for count in spread:
                    assert count >= 0.20 * 200, spread
        finally:
            stop_process(old.process)
            if new is not None:
                stop_process(new.process)
