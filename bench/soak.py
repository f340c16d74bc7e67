"""`make soak`: the whole stack playing whole matches for half an hour; does its memory stay flat?

SOAK_TABLES tables (300) each play one card every SOAK_TABLES / SOAK_RATE seconds (the room
offers SOAK_RATE moves/s, 300) for SOAK_MINUTES (30), on real Redis and Postgres, through the
gateway, as gateway_bench's players do (bench/gateway_bench.py: four players, one socket each per
table). Matches are played to their end with the default rules: a finished table is closed and a
new one created and seated in its slot, so the lobby, the stats recording and the sockets'
openings and closings are in the mix, as in real play.

It prints, minute by minute, the moves played and each process's resident memory; then, for each
process, its memory once every slot has played for SOAK_WARMUP_MINUTES (2), half way through
the rest, and at the end, with its verdict: flat when the second half grew it by at most
FLAT_BYTES or FLAT_SHARE, whichever is larger (caches fill in the first half). The same for Redis's
``used_memory``. And what a move costs over the steady part (after the warm-up), the figures
docs/capacity.md is built from: the CPU of each process, Redis commands, Postgres commits, WAL
bytes (``pg_current_wal_lsn``: the whole server's, so keep the machine's Postgres otherwise idle)
and the growth of the bench's database on disk.

Not part of `make bench` (it takes half an hour): `make soak`, or `python -m bench.soak`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field

import asyncpg
import httpx
import psutil

from bench.gateway_bench import LABELS, PLATFORM, SERVICES, Meter, Sample, _load, _open_socket, _redis, _Table, _used
from testing.players import Player
from testing.servers import ADMIN_DSN, create_database, drop_database, dsn_for
from testing.stack import Stack

MINUTES = float(os.environ.get("SOAK_MINUTES", "30"))
RATE = float(os.environ.get("SOAK_RATE", "300"))
TABLES = int(os.environ.get("SOAK_TABLES", "300"))
WARMUP_MINUTES = float(os.environ.get("SOAK_WARMUP_MINUTES", "2"))
REPORT_SECONDS = float(os.environ.get("SOAK_REPORT_SECONDS", "60"))
FLAT_BYTES = 8 * 2**20
FLAT_SHARE = 0.03
SEAT_CONCURRENCY = 10
ROLES = (*SERVICES, "bots")  # gateway_bench leaves the bots out: no bot sits at its tables


@dataclass
class Snapshot:
    at: float                                   # seconds since the start
    moves: int
    rss: dict[str, int]                         # role -> resident bytes
    redis_memory: int


@dataclass
class Costs:
    sample: Sample
    moves: int
    xacts: int
    wal: int                                    # pg_current_wal_lsn, bytes
    database_bytes: int


@dataclass
class Room:
    players: list[Player]
    deadline: float
    period: float                               # each table's think time between its moves
    moves: int = 0
    matches: int = 0
    errors: int = 0
    unavailable: int = 0                        # lobby calls sent again (503, connection lost)
    latencies: list[float] = field(default_factory=list)

    async def _post(self, player: Player, path: str, body: dict) -> dict:
        """A lobby call, sent again after a 503 (an overloaded lobby: the contract's answer) or a
        connection the server closed as it was reused (keep-alive's race)."""
        for attempt in range(5):
            try:
                answer = await player.http.post(path, json=body)
            except httpx.TransportError:
                answer = None
            if answer is not None and answer.status_code != 503:
                break
            self.unavailable += 1
            await asyncio.sleep(0.5 * 2**attempt)
        if answer is None:
            raise RuntimeError(f"POST {path}: no answer after 5 tries")
        answer.raise_for_status()
        return answer.json()

    async def seat(self, limit: asyncio.Semaphore) -> _Table:
        async with limit:
            lobby = await self._post(self.players[0], "/api/games", {"options": {}})
            for player in self.players[1:]:
                await self._post(player, "/api/games/join", {"code": lobby["join_code"]})
            table = _Table([await _open_socket(player, lobby["id"]) for player in self.players])
            table.game_id = lobby["id"]
            await table.start()
            return table

    async def slot(self, limit: asyncio.Semaphore) -> None:
        """One table after another in this slot, each played to its end, until the deadline."""
        due = time.perf_counter() + random.uniform(0, self.period)
        while time.perf_counter() < self.deadline:
            table = await self.seat(limit)
            try:
                while time.perf_counter() < self.deadline:
                    await asyncio.sleep(max(0.0, due - time.perf_counter()))
                    due = max(due + self.period, time.perf_counter() - self.period)
                    if not await table.move(self.latencies):
                        self.matches += 1
                        break
                    self.moves += 1
                self.errors += table.errors
            finally:
                await table.close()
            self.latencies = self.latencies[-100_000:]


def _rss(meter: Meter) -> dict[str, int]:
    rss = {}
    for name, process in meter.python.items():
        with contextlib.suppress(psutil.Error):
            rss[name] = process.memory_info().rss
    if meter.redis_process is not None:
        with contextlib.suppress(psutil.Error):
            rss["redis"] = meter.redis_process.memory_info().rss
    return rss


async def _snapshot(meter: Meter, room: Room, started: float) -> Snapshot:
    info = await meter.redis.info("memory")
    return Snapshot(time.perf_counter() - started, room.moves, _rss(meter), int(info["used_memory"]))


async def _costs(meter: Meter, room: Room, admin: asyncpg.Connection) -> Costs:
    wal = await admin.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
    size = await admin.fetchval("SELECT pg_database_size($1)", meter.database)
    return Costs(await meter.sample(), room.moves, await meter.xacts(), int(wal), int(size))


async def _soak(stack: Stack, redis_url: str, redis_process: psutil.Process | None, database: str) -> None:
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    for player in players:
        player.http.timeout = 120
    meter = Meter(stack, redis_url, redis_process, database)
    meter.python["bots"] = psutil.Process(stack.processes["bots"].pid)
    await meter.open()
    admin = await asyncpg.connect(ADMIN_DSN)
    started = time.perf_counter()
    room = Room(players, started + MINUTES * 60, TABLES / RATE)
    limit = asyncio.Semaphore(SEAT_CONCURRENCY)
    slots = [asyncio.create_task(room.slot(limit)) for _ in range(TABLES)]
    snapshots: list[Snapshot] = []
    steady: Costs | None = None
    try:
        print(f"   {TABLES} tables, {RATE:g} moves/s offered, {MINUTES:g} min; resident MB by process")
        print(f"     {'min':>5} {'moves/s':>8} " + "".join(f"{LABELS.get(n, n)[:12]:>13}" for n in (*ROLES, "redis"))
              + f"{'redis used':>13}")
        last = await _snapshot(meter, room, started)
        while not all(slot.done() for slot in slots):
            await asyncio.wait(slots, timeout=REPORT_SECONDS)
            for slot in slots:
                if slot.done() and slot.exception() is not None:
                    raise slot.exception()  # type: ignore[misc]
            now = await _snapshot(meter, room, started)
            rate = (now.moves - last.moves) / max(now.at - last.at, 1e-9)
            print(f"     {now.at / 60:>5.1f} {rate:>8.1f} " + "".join(
                f"{now.rss.get(n, 0) / 2**20:>13.1f}" for n in (*ROLES, "redis"))
                + f"{now.redis_memory / 2**20:>13.1f}{_load()}", flush=True)
            last = now
            if now.at >= WARMUP_MINUTES * 60 and steady is None:
                steady = await _costs(meter, room, admin)
                snapshots.append(now)
            elif steady is not None:
                snapshots.append(now)
        end = await _costs(meter, room, admin)
        _print(snapshots, steady, end, room, meter, redis_process is not None)
    finally:
        for slot in slots:
            slot.cancel()
        await asyncio.gather(*slots, return_exceptions=True)
        await admin.close()
        await meter.close()
        for player in players:
            await player.close()


def _verdict(start: int, half: int, end: int) -> str:
    grown = end - half
    return "flat" if grown <= max(FLAT_BYTES, FLAT_SHARE * half) else f"GROWING ({grown / 2**20:+.1f} MB)"


def _print(snapshots: list[Snapshot], steady: Costs | None, end: Costs, room: Room, meter: Meter,
           private_redis: bool) -> None:
    print(f"   {room.moves} moves, {room.matches} matches finished, {room.errors} actions and"
          f" {room.unavailable} lobby calls sent again")
    if steady is None or len(snapshots) < 3:
        print("   too short for a verdict: SOAK_MINUTES must be past SOAK_WARMUP_MINUTES by 2 reports")
        return
    first, half, last = snapshots[0], snapshots[len(snapshots) // 2], snapshots[-1]
    print(f"   resident memory (MB) at {first.at / 60:.1f}, {half.at / 60:.1f} and {last.at / 60:.1f} min;"
          f" flat: the second half grew it by at most {FLAT_BYTES // 2**20} MB or {FLAT_SHARE:.0%}")
    rows = [(LABELS.get(name, name), first.rss.get(name, 0), half.rss.get(name, 0), last.rss.get(name, 0))
            for name in (*ROLES, "redis") if name in last.rss]
    rows.append(("redis used_memory", first.redis_memory, half.redis_memory, last.redis_memory))
    for label, a, b, c in rows:
        print(f"     {label:<22}{a / 2**20:>9.1f}{b / 2**20:>9.1f}{c / 2**20:>9.1f}   {_verdict(a, b, c)}")
    moves = end.moves - steady.moves
    if moves <= 0:
        return
    used = _used(steady.sample, end.sample)
    seconds = end.sample.at - steady.sample.at
    print(f"   per move, over the steady {seconds / 60:.1f} min ({moves / seconds:.1f} moves/s,"
          f" matches included):")
    for role in (*ROLES, "redis", "pg", "pg_shared", "client"):
        if role in used:
            label = LABELS.get(role, role) + ("" if private_redis or role != "redis" else " (shared)")
            print(f"     {label:<22}{used[role] * 1000 / moves:>9.3f} ms CPU")
    total = sum(used.get(role, 0.0) for role in (*PLATFORM, "bots"))
    print(f"     {'platform total':<22}{total * 1000 / moves:>9.3f} ms CPU")
    print(f"     {'Redis commands':<22}{(end.sample.redis_calls - steady.sample.redis_calls) / moves:>9.2f}")
    print(f"     {'Postgres commits':<22}{(end.xacts - steady.xacts) / moves:>9.3f}")
    print(f"     {'WAL bytes':<22}{(end.wal - steady.wal) / moves:>9.0f}   (the whole server's)")
    print(f"     {'database growth':<22}{(end.database_bytes - steady.database_bytes) / moves:>9.0f} bytes")
    ordered = sorted(room.latencies)
    if ordered:
        p50, p99 = ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
        print(f"   latency, play sent -> state on all 4 (the last {len(ordered)} moves):"
              f" p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")


def main() -> None:
    database = asyncio.run(create_database("soak"))
    try:
        with _redis() as (redis_url, redis_process, prefix):
            # No turn or hand end times out: a load generator that falls behind on a busy machine
            # would race the automatic plays (as in gateway_bench).
            stack = Stack({"DATABASE_URL": dsn_for(database), "REDIS_URL": redis_url, "REDIS_KEY_PREFIX": prefix,
                           "TURN_TIMEOUT_SECONDS": "3600", "HAND_ACK_TIMEOUT_SECONDS": "3600"})
            subprocess.run([sys.executable, "-m", "launcher.cli", "migrate"], env=stack.env,
                           check=True, capture_output=True)
            try:
                stack.start()
                asyncio.run(_soak(stack, redis_url, redis_process, database))
            finally:
                stack.stop()
    finally:
        asyncio.run(drop_database(database))


if __name__ == "__main__":
    main()
