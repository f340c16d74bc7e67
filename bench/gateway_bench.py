"""The live path at scale, through the gateway: the whole stack as processes on Redis and Postgres.

What is measured, in one run (issue 16):

- closed loop at 1, 50 and 500 tables: each table plays its next card as soon as all four of its
  sockets have the state of the last one; moves/s, and p50 and p99 of the latency from a play sent
  on one socket to the new state received on all four;
- paced, at 500 tables: each table plays on a schedule (its own random phase, then one card every
  tables / rate seconds: the think time) so the whole room offers 100, then 400 moves/s; a table
  that falls behind plays as soon as its last move is done. The achieved rate, p50, p99, p99.9;
- the cost of a move in each phase: the CPU time (user + system, psutil) each process spent
  during the phase, divided by the moves played: gateway, lobby, game, deadlines, stats, the
  development OIDC provider, redis-server, the Postgres backends serving the bench's database,
  and the Postgres processes every database shares (postmaster, WAL writer, checkpointer...); the
  Redis commands (``INFO commandstats``, every command's calls but INFO's) and the Postgres
  transactions (``pg_stat_database.xact_commit`` of the bench's database) per move;
- the idle cost: CPU ms per second of each process, Redis commands and Postgres transactions per
  second, with the 2,000 sockets of the 500 tables open and nobody moving (15 s);
- the deadline backstop's round trip, which the phases above never reach (their timers are at an
  hour, and a move only pushes the backstop's entry later): one stale entry per table, all due
  at once, each fired at the game service, which hands the table's current deadlines over in its
  place. CPU per round trip by process, Redis commands and Postgres transactions per round trip;
  and, for comparison, one SetTableDeadlines batch of every table (what the game replicas send
  every few seconds to move early entries before they fire), per table;
- garbage-collection pauses of each Python process of the stack in those phases: the longest
  (the wall-clock time the process stood still, which includes waiting for a core, and the
  collector's own CPU time), and how many lasted 1 ms or more. bench/probe is a
  ``sitecustomize`` put on the children's PYTHONPATH with TAVOLO_PROBE_LOG: the services' code is
  not touched;
- with BENCH_TIMELINE=1, where a paced move's time goes: each play carries an ``"id"``, the probe
  marks the moments it passes the gateway, the live link and the game service (its log append
  too), and the bench prints each hop's p50 and p99 and its mean over the slowest 1 % of moves,
  with every event-loop callback that held the gateway's or the game's loop 2 ms or more and
  the collections of 1 ms or more in each paced phase. The hooks cost CPU, so such a run's cost
  figures read high.

How: four players log in through the stack's development OIDC provider and sit at the tables
(target score 121 and no napola, whose ten denari would end a match at once, and few enough moves
that no table reaches the target; turn and hand timers at an hour, so nothing plays by itself),
each player with one WebSocket per table, opened without client pings (as a browser does). The
tables are seated as the phases need them: 1, then 49 more, then 450 more; the idle figures are
taken once the 500 are seated, before their first move; each phase plays on from where the last
left its tables. After each seating the load generator leaves what it holds out of its later
collections, so that its own GC pauses do not count in the latencies it measures.
Hand ends are acknowledged by all four seats as they come (not counted as moves; their cost is in
the phase's). The Postgres is the machine's (TAVOLO_TEST_POSTGRES), in a database of the bench's
own; the Redis is a private ``redis-server`` the bench starts (so that its command counts and CPU
are the stack's alone), or TAVOLO_TEST_REDIS when there is no redis-server binary, whose figures
then include whatever else uses that server. A phase's CPU and Redis figures are taken from its
first play to 0.25 s after its last state; Postgres publishes a backend's counters at most once a
second and up to 10 s after it goes idle, so a phase's transactions are read once the stores have
settled for 10.5 s (which adds what the stack does by itself in that time: little, since every
seated table has just moved). Everything runs on the one machine, the load generator (this
process) included, whose CPU is shown too: on a small machine the latencies include queueing for
the cores, and the figures are only as quiet as the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import psutil
import redis.asyncio as aioredis
import websockets

from deadlines.client import DeadlinesClient
from game.scopone.rules import legal_plays
from gateway.sessions import COOKIE_NAME
from services.rpc.server import YOUNG_COLLECTION_THRESHOLD
from services.stores import Keys
from testing.players import Player
from testing.processes import redis_server
from testing.servers import ADMIN_DSN, REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix
from testing.stack import Stack

TABLES = 500
CLOSED = ((1, 600), (50, 40), (TABLES, 8))           # (tables, moves per table)
PACED = ((100, 4), (400, 8))                         # (offered moves/s, moves per table) at TABLES
IDLE_SECONDS = 15.0      # the before code's view streams poll Postgres every 15 s when nothing moves
SETTLE_SECONDS = 10.5    # Postgres flushes an idle backend's counters within 10 s
DRAIN_SECONDS = 0.25     # after a phase's last state, for the writes that follow it
HANG_SECONDS = 120.0     # a socket that stays silent this long stops the bench (not a measure)
SETUP_CONCURRENCY = 25
STALE_DELAY_SECONDS = 1.0  # between putting the stale entries in and their falling due
PROBE = Path(__file__).parent / "probe"
# BENCH_TIMELINE=1 adds where a paced move's time goes, hop by hop, and what held the services'
# loops (bench/probe); its hooks cost CPU, so the cost figures of such a run read high.
TIMELINE = os.environ.get("BENCH_TIMELINE") == "1"
_MOVE_IDS = itertools.count()

SERVICES = ("gateway", "lobby", "game", "deadlines", "stats", "idp")
LABELS = {"idp": "dev-idp", "redis": "redis-server", "pg": "postgres (bench db)",
          "pg_shared": "postgres (shared)", "client": "bench client"}
PLATFORM = (*SERVICES, "redis", "pg")  # what "platform total" adds up


class Failed(RuntimeError):
    """The gateway refused a move or a socket closed: the bench cannot go on."""


class _Table:
    """The four sockets of one game (seat order), a reader per socket, each seat's last view.

    A play or an ack the gateway answers ``unavailable`` (the game service did not answer in
    time: an overloaded stack) is sent again and counted in ``errors``. The revision makes a
    play safe to repeat: if the first one went through after all, the second is refused with
    ``concurrent_move``; a repeated ack is refused with ``illegal_move``. The latency of such a
    move runs from its first sending.
    """

    def __init__(self, sockets):
        self.sockets = sockets
        self.game_id = ""
        self.queues: list[asyncio.Queue] = [asyncio.Queue() for _ in sockets]
        self.readers = [asyncio.create_task(self._read(s, q)) for s, q in zip(sockets, self.queues)]
        self.views: list[dict] = []
        self.errors = 0     # "unavailable" answers
        self.resent = 0     # actions sent again
        self.timed: list[tuple[str, float, float]] = []  # (move id, sent, on all four), perf_counter

    @staticmethod
    async def _read(socket, queue: asyncio.Queue) -> None:
        try:
            async for raw in socket:
                message = json.loads(raw)
                if message["type"] in ("state", "error", "game_over"):
                    await queue.put(message)
        finally:
            await queue.put({"type": "closed"})

    async def _next(self, seat: int) -> dict:
        message = await asyncio.wait_for(self.queues[seat].get(), HANG_SECONDS)
        if message["type"] not in ("state", "error"):
            raise Failed(f"seat {seat} got {message}")
        return message

    async def start(self) -> None:
        for seat in range(4):
            message = await self._next(seat)
            if message["type"] != "state":
                raise Failed(f"seat {seat} got {message}")
            self.views.append(message["game"])

    async def move(self, latencies: list[float]) -> bool:
        """Play one card (acknowledging a hand end first); False when the game cannot go on."""
        while self.views[0]["status"] == "hand_end":
            await self._acknowledge()
        turn = self.views[0]["turn"]
        if self.views[0]["status"] != "playing" or turn is None:
            return False
        mine = self.views[turn]
        card, capture = legal_plays(mine["hand"], mine["table"], False)[0]
        move_id = f"m{next(_MOVE_IDS)}"  # the id the probe's hops are keyed by
        play = json.dumps({"action": "play", "card": card, "capture": capture,
                           "revision": mine["revision"], "id": move_id})
        sent = time.perf_counter()
        await self.sockets[turn].send(play)
        self.views = list(await asyncio.gather(*(
            self._after(seat, mine["revision"], play if seat == turn else None) for seat in range(4))))
        done = time.perf_counter()
        latencies.append(done - sent)
        self.timed.append((move_id, sent, done))
        return True

    async def _acknowledge(self) -> None:
        """Every seat acknowledges the hand end; each seat's view once the next hand is dealt."""
        ack = json.dumps({"action": "ack"})
        for seat in range(4):
            await self.sockets[seat].send(ack)
        self.views = list(await asyncio.gather(*(self._dealt(seat, ack) for seat in range(4))))

    async def _after(self, seat: int, revision: int, sent: str | None) -> dict:
        """The seat's first view past ``revision``, answering errors (``sent``: this seat's play)."""
        while True:
            message = await self._next(seat)
            if message["type"] == "state":
                if message["game"]["revision"] > revision:
                    return message["game"]
            else:
                await self._answer(seat, message, sent)

    async def _dealt(self, seat: int, ack: str) -> dict:
        """The seat's first view after the hand end (each ack's view comes first)."""
        view = self.views[seat]
        while view["status"] == "hand_end":
            message = await self._next(seat)
            if message["type"] == "state":
                view = message["game"]
            else:
                await self._answer(seat, message, ack)
        return view

    async def _answer(self, seat: int, error: dict, sent: str | None) -> None:
        """An error on the seat's socket: ``unavailable`` or ``unconfirmed`` sends the seat's
        action again (an answer that comes after the action's effect, to an action done with, is
        only counted); the refusal of an action sent again is expected. Anything else stops the
        bench."""
        if error["code"] == "unavailable":
            self.errors += 1
            if sent is not None:
                self.resent += 1
                await self.sockets[seat].send(sent)
        elif error["code"] == "unconfirmed":  # made or not: the next state tells (the contract)
            self.errors += 1
            if sent is not None:
                self.resent += 1  # the move is sent again with its revision: never made twice
                await self.sockets[seat].send(sent)
        elif not (self.resent and error["code"] in ("already_played", "concurrent_move", "illegal_move")):
            raise Failed(f"seat {seat} got {error}")

    async def close(self) -> None:
        for socket in self.sockets:
            await socket.close()
        for reader in self.readers:
            reader.cancel()


async def _open_socket(player: Player, game_id: str):
    # The client sends no pings (as a browser does): the idle figures are the gateway's own.
    url = player.stack.gateway_url.replace("http://", "ws://") + f"/ws/games/{game_id}"
    return await websockets.connect(url, additional_headers={"Cookie": f"{COOKIE_NAME}={player.cookie}"},
                                    open_timeout=60, ping_interval=None)


async def _seat_table(players: list[Player], limit: asyncio.Semaphore) -> _Table:
    async with limit:
        created = await players[0].http.post("/api/games", json={"options": {"target_score": 121, "napola": False}})
        created.raise_for_status()
        lobby = created.json()
        for player in players[1:]:
            (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).raise_for_status()
        table = _Table([await _open_socket(player, lobby["id"]) for player in players])
        table.game_id = lobby["id"]
        await table.start()
        return table


# ---- what the processes and the stores did ----------------------------------------------------


@dataclass
class Sample:
    at: float                                   # time.time()
    cpu: dict[str, float]                       # role -> CPU seconds (user + system)
    redis_calls: int
    per_pid: dict[int, float] = field(default_factory=dict)  # Postgres backends, by pid


class Meter:
    """CPU times of the stack's processes and the stores' counters, sampled around a phase."""

    def __init__(self, stack: Stack, redis_url: str, redis_process: psutil.Process | None, database: str):
        self.python = {name: psutil.Process(stack.processes[name].pid) for name in SERVICES}
        self.python["client"] = psutil.Process()
        self.redis_process = redis_process
        self.redis = aioredis.Redis.from_url(redis_url)
        self.database = database
        self.admin: asyncpg.Connection | None = None

    async def open(self) -> None:
        self.admin = await asyncpg.connect(ADMIN_DSN)

    async def close(self) -> None:
        await self.redis.aclose()
        if self.admin is not None:
            await self.admin.close()

    async def _postgres(self) -> tuple[dict[int, psutil.Process], dict[int, psutil.Process]]:
        """The backends serving the bench's database, and the processes every database shares."""
        assert self.admin is not None
        rows = await self.admin.fetch("SELECT pid, datname FROM pg_stat_activity")
        ours = {row["pid"] for row in rows if row["datname"] == self.database}
        others = {row["pid"] for row in rows if row["datname"] is not None and row["datname"] != self.database}
        mine, shared = {}, {}
        for process in psutil.process_iter(["name"]):
            if process.info["name"] != "postgres":
                continue
            if process.pid in ours:
                mine[process.pid] = process
            elif process.pid not in others:
                shared[process.pid] = process
        return mine, shared

    async def sample(self) -> Sample:
        cpu = {name: _cpu(process) for name, process in self.python.items()}
        if self.redis_process is not None:
            cpu["redis"] = _cpu(self.redis_process)
        mine, shared = await self._postgres()
        per_pid = {pid: _cpu(process) for pid, process in mine.items()}
        cpu["pg_shared"] = sum(_cpu(process) for process in shared.values())
        stats = await self.redis.info("commandstats")
        calls = sum(value["calls"] for name, value in stats.items() if name != "cmdstat_info")
        return Sample(time.time(), cpu, calls, per_pid)

    async def xacts(self) -> int:
        assert self.admin is not None
        return await self.admin.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", self.database)


def _load() -> str:
    """The machine's load average (1, 5 min), for judging how quiet the figures are."""
    one, five, _ = os.getloadavg()
    return f" (load average {one:.2f}, {five:.2f})"


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:
        return math.nan
    return times.user + times.system


def _used(before: Sample, after: Sample) -> dict[str, float]:
    """CPU seconds per role between two samples; a Postgres backend born in between counts from 0
    (one that ended in between is lost: the services keep their pools open)."""
    used = {name: after.cpu[name] - before.cpu[name] for name in after.cpu}
    used["pg"] = sum(value - before.per_pid.get(pid, 0.0) for pid, value in after.per_pid.items())
    return used


@dataclass
class Phase:
    name: str
    moves: int
    seconds: float
    latencies: list[float]
    cpu: dict[str, float]          # role -> CPU seconds during the phase
    redis_calls: int
    xacts: int
    window: tuple[float, float]    # wall clock, for the GC pauses
    span: tuple[float, float] = (0.0, 0.0)  # perf_counter, for the moves' hops
    errors: int = 0                # actions answered "unavailable", and sent again


async def _measured(meter: Meter, name: str, tables: list[_Table], work) -> Phase:
    """Run ``work(latencies)`` (it returns the moves played) between two samples; then settle so
    that Postgres has published the phase's transactions."""
    errors = sum(table.errors for table in tables)
    xacts = await meter.xacts()
    latencies: list[float] = []
    before = await meter.sample()
    started = time.perf_counter()
    moves = await work(latencies)
    ended = time.perf_counter()
    seconds = ended - started
    await asyncio.sleep(DRAIN_SECONDS)
    after = await meter.sample()
    await asyncio.sleep(SETTLE_SECONDS)
    phase = Phase(name, moves, seconds, latencies, _used(before, after),
                  after.redis_calls - before.redis_calls, await meter.xacts() - xacts,
                  (before.at, after.at), errors=sum(table.errors for table in tables) - errors, span=(started, ended))
    print(f"   .. {name}: {moves} moves in {seconds:.1f} s{_load()}", flush=True)
    return phase


async def _idle(meter: Meter) -> Phase:
    """Nobody moves for IDLE_SECONDS: what the open sockets cost. The count of transactions is
    read at both ends without a settle: idle work is steady, so Postgres's lag cancels out."""
    xacts = await meter.xacts()
    before = await meter.sample()
    await asyncio.sleep(IDLE_SECONDS)
    after = await meter.sample()
    phase = Phase("idle", 0, after.at - before.at, [], _used(before, after),
                  after.redis_calls - before.redis_calls, await meter.xacts() - xacts, (before.at, after.at))
    print(f"   .. idle: {phase.seconds:.1f} s{_load()}", flush=True)
    return phase


def _closed(tables: list[_Table], moves_each: int):
    async def work(latencies: list[float]) -> int:
        async def one(table: _Table) -> int:
            played = 0
            while played < moves_each and await table.move(latencies):
                played += 1
            return played
        return sum(await asyncio.gather(*(one(table) for table in tables)))
    return work


def _paced(tables: list[_Table], rate: float, moves_each: int):
    period = len(tables) / rate                       # each table's think time between moves

    async def work(latencies: list[float]) -> int:
        start = time.perf_counter()

        async def one(table: _Table) -> int:
            due = start + random.uniform(0, period)
            played = 0
            for _ in range(moves_each):
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                if not await table.move(latencies):
                    break
                played += 1
                due += period
            return played
        return sum(await asyncio.gather(*(one(table) for table in tables)))
    return work


# ---- the run -------------------------------------------------------------------------------------


def _quiet_collector() -> None:
    """Keep the load generator's own collections out of the latencies it measures: what it holds
    for the open sockets is left out of later collections, and its young generation is collected
    as seldom as the services' (services.rpc.server)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])


async def _bench(stack: Stack, redis_url: str, redis_process: psutil.Process | None, database: str,
                 probe_folder: str) -> None:
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    for player in players:
        player.http.timeout = 120
    meter = Meter(stack, redis_url, redis_process, database)
    await meter.open()
    tables: list[_Table] = []
    try:
        phases: list[Phase] = []
        idle: Phase | None = None
        for count, moves_each in CLOSED:
            await _seat(players, tables, count)
            _quiet_collector()
            if count == TABLES:  # every socket open, nobody moving yet
                idle = await _idle(meter)
            phases.append(await _measured(meter, f"closed {count}", tables, _closed(tables[:count], moves_each)))
        for rate, moves_each in PACED:
            phases.append(await _measured(meter, f"paced {rate}", tables, _paced(tables, rate, moves_each)))
        phases.append(await _measured(meter, f"batch {TABLES}", tables, _hand_over(stack, tables)))
        due_at = await _stale_entries(stack, tables)
        phases.append(await _measured(meter, f"stale {TABLES}", tables,
                                      _stale_fires(stack, len(tables), due_at)))
        assert idle is not None, "CLOSED ends with TABLES"
        windows = [p.window for p in (*phases, idle)]
        _print(phases, idle, _gc_pauses(stack, probe_folder, windows), redis_process is not None)
        if TIMELINE:
            hops = _hops(stack, probe_folder)
            for phase in phases:
                if phase.name.startswith("paced"):
                    _print_timeline(phase, tables, hops)
                    _print_stalls(phase, stack, probe_folder)
    finally:
        await meter.close()
        await asyncio.gather(*(table.close() for table in tables), return_exceptions=True)
        for player in players:
            await player.close()


async def _stale_entries(stack: Stack, tables: list[_Table]) -> float:
    """Put one stale entry per table in the backstop, due STALE_DELAY_SECONDS from now (so that
    they fire inside the phase measured next, without their own hand-over); when they fall due."""
    due_at = time.time() + STALE_DELAY_SECONDS
    client = DeadlinesClient(stack.address("deadlines"), credentials=stack.credentials)
    try:
        await client.set_table_deadlines(
            {table.game_id: [("turn", "stale", int(due_at * 1000))] for table in tables})
    finally:
        await client.close()
    return due_at


def _hand_over(stack: Stack, tables: list[_Table]):
    """One SetTableDeadlines call for every table, as a game replica's batch (entries an hour
    ahead): what the backstop's upkeep costs per table, without a fire."""
    async def work(latencies: list[float]) -> int:
        due_ms = int((time.time() + 3600) * 1000)
        client = DeadlinesClient(stack.address("deadlines"), credentials=stack.credentials)
        try:
            await client.set_table_deadlines(
                {table.game_id: [("turn", "batched", due_ms)] for table in tables})
        finally:
            await client.close()
        return len(tables)
    return work


def _stale_fires(stack: Stack, count: int, due_at: float):
    """Wait until every stale entry was fired and replaced (nothing due or in flight)."""
    async def work(latencies: list[float]) -> int:
        prefix = stack.env["REDIS_KEY_PREFIX"]
        redis = aioredis.Redis.from_url(stack.env["REDIS_URL"])
        try:
            await asyncio.sleep(max(0.0, due_at - time.time()))
            while True:
                now_ms = int(time.time() * 1000)
                due = await redis.zcount(Keys(prefix).group("deadlines", "pending"), "-inf", now_ms)
                if due == 0 and await redis.zcard(Keys(prefix).group("deadlines", "inflight")) == 0:
                    return count
                await asyncio.sleep(0.05)
        finally:
            await redis.aclose()
    return work


async def _seat(players: list[Player], tables: list[_Table], count: int) -> None:
    """Seat tables until there are ``count``, then let the stores settle."""
    started = time.perf_counter()
    limit = asyncio.Semaphore(SETUP_CONCURRENCY)
    tables += await asyncio.gather(*(_seat_table(players, limit) for _ in range(count - len(tables))))
    print(f"   .. {len(tables)} tables seated, {4 * len(tables)} sockets open"
          f" ({time.perf_counter() - started:.1f} s)", flush=True)
    await asyncio.sleep(SETTLE_SECONDS)


def _percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank percentile of sorted values, in ms."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] * 1000 if ordered else math.nan


def _print(phases: list[Phase], idle: Phase, gc_pauses: dict[str, Pauses], private_redis: bool) -> None:
    closed = [p for p in phases if p.name.startswith("closed")]
    paced = [p for p in phases if p.name.startswith("paced")]
    print("   closed loop (next card once all four sockets have the last state); latency: play sent ->"
          " state on all 4;")
    print("   unavail: plays and acks the gateway answered 'unavailable' or 'unconfirmed' (sent again;"
          " latency from the first)")
    print(f"     {'tables':>7} {'moves':>6} {'moves/s':>10} {'p50 ms':>7} {'p99 ms':>7} {'':>8} {'unavail':>7}")
    for phase, (count, _) in zip(closed, CLOSED):
        ordered = sorted(phase.latencies)
        print(f"     {count:>7} {phase.moves:>6} {phase.moves / phase.seconds:>10.1f} "
              f"{_percentile(ordered, 0.5):>7.1f} {_percentile(ordered, 0.99):>7.1f} {'':>8} {phase.errors:>7}")
    print(f"   paced, {TABLES} tables (each waits {TABLES}/rate s between its moves)")
    print(f"     {'offered':>7} {'moves':>6} {'achieved/s':>10} {'p50 ms':>7} {'p99 ms':>7} {'p99.9 ms':>8}"
          f" {'unavail':>7}")
    for phase, (rate, _) in zip(paced, PACED):
        ordered = sorted(phase.latencies)
        print(f"     {rate:>7} {phase.moves:>6} {phase.moves / phase.seconds:>10.1f} {_percentile(ordered, 0.5):>7.1f} "
              f"{_percentile(ordered, 0.99):>7.1f} {_percentile(ordered, 0.999):>8.1f} {phase.errors:>7}")
    heads = [p.name.replace("closed ", "c").replace("paced ", "p").replace("batch ", "b")
             .replace("stale ", "s") for p in phases]
    print(f"   per move (CPU ms; store operations), by phase; idle: per second, {4 * TABLES} sockets open;")
    print(f"   b{TABLES}: per table of one hand-over batch to the backstop; s{TABLES}: per round trip of"
          " a stale backstop entry (fired, stale, the table's deadlines handed over in its place)")
    print(f"     {'':<22}" + "".join(f"{h:>9}" for h in heads) + f"{'idle/s':>9}")
    rows = [*SERVICES, "redis", "pg", "pg_shared", "client"]
    for role in rows:
        label = LABELS.get(role, role) + ("" if private_redis or role != "redis" else " (shared)")
        cells = [p.cpu.get(role, math.nan) * 1000 / p.moves for p in phases]
        print(f"     {label:<22}" + "".join(f"{c:>9.2f}" for c in cells)
              + f"{idle.cpu.get(role, math.nan) * 1000 / idle.seconds:>9.1f}")
    total = [sum(p.cpu.get(r, 0.0) for r in PLATFORM) * 1000 / p.moves for p in phases]
    print(f"     {'platform total':<22}" + "".join(f"{c:>9.2f}" for c in total)
          + f"{sum(idle.cpu.get(r, 0.0) for r in PLATFORM) * 1000 / idle.seconds:>9.1f}")
    print(f"     {'Redis commands':<22}" + "".join(f"{p.redis_calls / p.moves:>9.2f}" for p in phases)
          + f"{idle.redis_calls / idle.seconds:>9.1f}")
    print(f"     {'Postgres commits':<22}" + "".join(f"{p.xacts / p.moves:>9.2f}" for p in phases)
          + f"{idle.xacts / idle.seconds:>9.1f}")
    print("     (platform total: the services, dev-idp, redis-server and the bench database's backends;"
          " postgres (shared) also serves other databases)")
    if gc_pauses:
        print("   GC pauses in the measured phases and idle: the longest (wall ms / collector CPU ms);"
              " how many of 1 ms or more (of which full)")
        for name, pauses in gc_pauses.items():
            print(f"     {LABELS.get(name, name):<22}" + (
                f"{pauses.longest * 1000:>7.1f} / {pauses.longest_cpu * 1000:<7.1f}"
                f"{pauses.count:>6} ({pauses.gen2})" if pauses.count else "  none of 1 ms or more"))


@dataclass
class Pauses:
    longest: float = 0.0        # seconds, wall clock
    longest_cpu: float = 0.0    # the collector's CPU seconds in that pause
    count: int = 0              # pauses of 1 ms or more
    gen2: int = 0               # of which full collections


def _gc_pauses(stack: Stack, folder: str, windows: list[tuple[float, float]]) -> dict[str, Pauses]:
    """Per process: the GC pauses of 1 ms or more logged inside the windows (bench/gc_probe)."""
    found = {}
    for name in SERVICES:
        path = Path(folder) / f"{stack.processes[name].pid}.gc"
        if not path.exists():
            continue
        pauses = Pauses()
        for line in path.read_text().splitlines():
            at, wall, cpu, generation = (float(word) for word in line.split())
            if not any(start <= at <= end for start, end in windows):
                continue
            pauses.count += 1
            pauses.gen2 += generation == 2
            if wall > pauses.longest:
                pauses.longest, pauses.longest_cpu = wall, cpu
        found[name] = pauses
    return found


# ---- where a move's time goes (bench/probe) ------------------------------------------------------

# A move's path, hop to hop: (label, from, to); "sent" and "done" are the load generator's (the
# play sent; the new state on all four sockets), the rest the probe's marks in the services.
SEGMENTS = (
    ("socket -> gateway handles it", "sent", "gw.act"),
    ("gateway -> Act sent", "gw.act", "link.send"),
    ("Act on the stream -> game", "link.send", "game.act"),
    ("game: lock, decide", "game.act", "log.append"),
    ("game: log append (Postgres)", "log.append", "log.done"),
    ("game: after the append", "log.done", "game.done"),
    ("answer on the stream -> gateway", "game.done", "link.answer"),
    ("answer -> state on all four", "link.answer", "done"),
)


def _hops(stack: Stack, folder: str) -> dict[str, dict[str, float]]:
    """Move id -> hop -> the first moment the probe marked it, from every service."""
    hops: dict[str, dict[str, float]] = {}
    for name in SERVICES:
        path = Path(folder) / f"{stack.processes[name].pid}.hops"
        if path.exists():
            for line in path.read_text().splitlines():
                move, hop, at = line.split()
                hops.setdefault(move, {}).setdefault(hop, float(at))
    return hops


def _print_timeline(phase: Phase, tables: list[_Table], hops: dict[str, dict[str, float]]) -> None:
    """Each hop's share of a move's latency: its p50 and p99 over the phase's moves, and its mean
    over the slowest 1 % of them (where the tail's time goes)."""
    moves = []
    for table in tables:
        for move_id, sent, done in table.timed:
            marks = hops.get(move_id, {})
            if phase.span[0] <= sent <= phase.span[1] and all(hop in marks for _, hop, _ in SEGMENTS[1:-1]):
                moves.append({**marks, "sent": sent, "done": done})
    if not moves:
        return
    moves.sort(key=lambda marks: marks["done"] - marks["sent"])
    tail = moves[-max(1, len(moves) // 100):]
    print(f"   {phase.name}: where a move's time goes, hop by hop ({len(moves)} moves; ms)")
    print(f"     {'':<34}{'p50':>8}{'p99':>8}{'slowest 1 %':>13}")
    for label, start, end in (*SEGMENTS, ("the whole move", "sent", "done")):
        ordered = sorted(marks[end] - marks[start] for marks in moves)
        mean_tail = sum(marks[end] - marks[start] for marks in tail) / len(tail) * 1000
        print(f"     {label:<34}{_percentile(ordered, 0.5):>8.2f}{_percentile(ordered, 0.99):>8.2f}"
              f"{mean_tail:>13.2f}")


def _print_stalls(phase: Phase, stack: Stack, folder: str) -> None:
    """Per process, the event-loop callbacks that held the loop 2 ms or more during the phase,
    and the collections of 1 ms or more: how many, their total and the longest; what stalled most."""
    print(f"   {phase.name}: the loop held 2 ms or more by one callback; GC pauses of 1 ms or more")
    start, end = phase.window
    for name in ("gateway", "game"):
        pid = stack.processes[name].pid
        stalls: dict[str, list[float]] = {}
        for line in _lines(Path(folder) / f"{pid}.stalls"):
            at, held, what = line.split(maxsplit=2)
            if start <= float(at) <= end:
                stalls.setdefault(what, []).append(float(held))
        collections = [line.split() for line in _lines(Path(folder) / f"{pid}.gc")]
        collections = [c for c in collections if start <= float(c[0]) <= end]
        pauses = [float(c[1]) for c in collections]
        older = [float(c[1]) for c in collections if c[3] != "0"]
        held = [h for hs in stalls.values() for h in hs]
        worst = sorted(stalls.items(), key=lambda item: -sum(item[1]))[:3]
        print(f"     {name:<8} stalls {len(held):>4}, {sum(held) * 1000:>6.1f} ms in all, longest "
              f"{max(held, default=0) * 1000:>5.1f} ms; GC {len(pauses):>4}, {sum(pauses) * 1000:>6.1f} ms,"
              f" longest {max(pauses, default=0) * 1000:>5.1f} ms; of which older generations"
              f" {len(older)}, longest {max(older, default=0) * 1000:.1f} ms")
        for what, times in worst:
            print(f"       {len(times):>4} x {what} ({sum(times) * 1000:.1f} ms)")


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@contextlib.contextmanager
def _redis() -> Iterator[tuple[str, psutil.Process | None, str]]:
    """A private redis-server when there is one to start, else the shared TAVOLO_TEST_REDIS (with
    a key prefix of the bench's own): URL, server process (None when shared), key prefix."""
    prefix = new_prefix("bench")
    if shutil.which("redis-server") is None:
        try:
            yield REDIS_URL, None, prefix
        finally:
            asyncio.run(delete_keys(prefix))
        return
    with redis_server() as (url, process):
        yield url, psutil.Process(process.pid), prefix


def main() -> None:
    database = asyncio.run(create_database("bench"))
    path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    try:
        with _redis() as (redis_url, redis_process, prefix), tempfile.TemporaryDirectory() as probe_folder:
            # No turn times out while the players play: seating 500 tables takes long enough for
            # automatic plays to race the measured ones.
            stack = Stack({"DATABASE_URL": dsn_for(database), "REDIS_URL": redis_url, "REDIS_KEY_PREFIX": prefix,
                           "TURN_TIMEOUT_SECONDS": "3600", "HAND_ACK_TIMEOUT_SECONDS": "3600",
                           "PYTHONPATH": os.pathsep.join([*path, str(PROBE)]), "TAVOLO_PROBE_LOG": probe_folder,
                           "TAVOLO_PROBE_TIMELINE": "1" if TIMELINE else ""})
            subprocess.run([sys.executable, "-m", "launcher.cli", "migrate"], env=stack.env,
                           check=True, capture_output=True)
            try:
                stack.start()
                asyncio.run(_bench(stack, redis_url, redis_process, database, probe_folder))
            finally:
                stack.stop()
    finally:
        asyncio.run(drop_database(database))


if __name__ == "__main__":
    main()
