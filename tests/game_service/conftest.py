"""Every game service test runs twice: with the in-memory stores and with real Postgres + Redis.

``backend`` opens the stores of one kind; two Tables opened on one backend are two replicas
(in memory they share the stores' objects, for real each has its own pool and connections).
The deadline and stats services are in-process fakes behind real gRPC sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace

import pytest

from deadlines.client import DeadlinesClient
from game.cache import MemoryTableCache, RedisTableCache, TableCache
from game.log_store import LogStore
from game.memory_log_store import MemoryLogStore
from game.postgres_log_store import PostgresLogStore
from game.registry import default_registry
from game.server import build_tables
from game.servicer import GameServicer
from game.tables import Tables
from services.config import GrpcSecurity
from services.migrations import migrate
from services.rpc.server import ServiceSpec, serve
from services.stores import Keys, redis_client
from stats.client import StatsClient
from tavolo.game.v1 import game_pb2_grpc
from testing.processes import free_port
from tests.game_service.fakes import FakeDeadlines, FakeStats, serve_fakes

SEATS = ["seat:0", "seat:1", "seat:2", "seat:3"]


@dataclass
class Backend:
    kind: str  # "memory" or "real"
    dsn: str | None = None
    redis_url: str | None = None
    prefix: str | None = None
    _memory_log: MemoryLogStore = field(default_factory=MemoryLogStore)
    _memory_cache: MemoryTableCache = field(default_factory=MemoryTableCache)
    _closing: list = field(default_factory=list)
    _migrated: bool = False

    @property
    def real(self) -> bool:
        return self.kind == "real"

    async def open_log(self) -> LogStore:
        if not self.real:
            return self._memory_log
        if not self._migrated:
            await migrate(self.dsn, components=("game",))
            self._migrated = True
        store = await PostgresLogStore.open(self.dsn, max_size=5)
        self._closing.append(store)
        return store

    def open_cache(self) -> TableCache:
        if not self.real:
            return self._memory_cache
        cache = RedisTableCache(redis_client(self.redis_url), Keys(self.prefix))
        self._closing.append(cache)
        return cache

    async def flush(self, cache: TableCache) -> None:
        """Lose every cached key of this test, as a flushed Redis would."""
        if not self.real:
            cache.flush()
            return
        client = redis_client(self.redis_url)
        keys = [key for pattern in Keys(self.prefix).patterns
                async for key in client.scan_iter(match=pattern)]
        if keys:
            await client.delete(*keys)
        await client.aclose()

    async def put_snapshot(self, cache: TableCache, table_id: str, text: str) -> None:
        """Store any text as the snapshot, bypassing the compare-and-set."""
        if not self.real:
            cache.put_raw(table_id, text)
            return
        client = redis_client(self.redis_url)
        await client.set(cache.snapshot_key(table_id), text)
        await client.aclose()

    async def corrupt(self, store: LogStore, table_id: str, number: int, payload_json: str) -> None:
        """Overwrite one stored move's payload text."""
        if not self.real:
            moves = store._moves[table_id]
            moves[number - 1] = replace(moves[number - 1], payload_json=payload_json)
            return
        await store._pool.execute(
            "UPDATE game_move SET payload_json = $3 WHERE table_id = $1 AND number = $2",
            table_id, number, payload_json)

    async def close(self) -> None:
        for part in reversed(self._closing):
            await part.close()


@pytest.fixture(params=["memory", "real"])
def backend_spec(request) -> Backend:
    if request.param == "memory":
        return Backend("memory")
    return Backend("real", dsn=request.getfixturevalue("postgres_dsn"),
                   redis_url=request.getfixturevalue("redis_url"),
                   prefix=request.getfixturevalue("redis_prefix"))


@pytest.fixture
async def backend(backend_spec):
    yield backend_spec
    await backend_spec.close()


@pytest.fixture
async def log_store(backend):
    return await backend.open_log()


@pytest.fixture
def cache(backend):
    return backend.open_cache()


@dataclass
class Fakes:
    deadlines: FakeDeadlines
    stats: FakeStats
    deadlines_addr: str
    stats_addr: str


@pytest.fixture
async def fakes():
    deadlines, stats = FakeDeadlines(), FakeStats()
    server, deadlines_addr, stats_addr = await serve_fakes(deadlines, stats)
    yield Fakes(deadlines, stats, deadlines_addr, stats_addr)
    await server.stop(0)


class Counting:
    """A store that counts the calls made to it (``calls``), by method name."""

    COUNTED = frozenset({"header", "positions", "append", "take_back", "moves", "create", "load", "save", "publish",
                         "forget"})

    def __init__(self, inner) -> None:
        self._inner = inner
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str):
        value = getattr(self._inner, name)
        if name not in self.COUNTED:
            return value

        async def counted(*args, **kwargs):
            self.calls[name] += 1
            return await value(*args, **kwargs)

        return counted


class Replicas:
    """Opens Tables (replicas of the game service) on one backend, and closes them."""

    def __init__(self, backend: Backend, fakes: Fakes):
        self.backend = backend
        self.fakes = fakes
        self._opened: list = []

    async def open(self, *, stats: bool = True, deadlines: bool = True, counting: bool = False,
                   turn_timeout_ms: int = 30000, **options) -> Tables:
        """A replica; with ``counting`` its stores count the calls it makes (``tables.log.calls``,
        ``tables.cache.calls``)."""
        log_store = await self.backend.open_log()
        cache = self.backend.open_cache()
        if counting:
            log_store, cache = Counting(log_store), Counting(cache)
        deadline_client = DeadlinesClient(self.fakes.deadlines_addr) if deadlines else None
        stats_client = StatsClient(self.fakes.stats_addr) if stats else None
        options.setdefault("retry_seconds", 0.02)
        options.setdefault("retry_cap_seconds", 0.1)
        tables = build_tables(default_registry(turn_timeout_ms=turn_timeout_ms, hand_ack_timeout_ms=30000,
                                               dummy=True),
                              log_store, cache, deadline_client, stats_client, **options)
        self._opened.append((tables, deadline_client, stats_client))
        return tables

    async def close(self) -> None:
        for tables, *clients in self._opened:
            await tables.close(timeout=0.5)
            for client in clients:
                if client is not None:
                    await client.close()


@pytest.fixture
async def replicas(backend, fakes):
    opened = Replicas(backend, fakes)
    yield opened
    await opened.close()


@pytest.fixture
async def tables(replicas):
    return await replicas.open()


@dataclass
class RunningService:
    """A game service started by :func:`start_service`, at ``address``."""

    address: str
    _stop: asyncio.Event
    _task: asyncio.Task

    async def stop(self) -> None:
        """Stop it (a second call does nothing more)."""
        self._stop.set()
        await asyncio.wait_for(self._task, 10)


async def start_service(tables: Tables, address: str | None = None,
                        servicer: GameServicer | None = None,
                        security: GrpcSecurity | None = None,
                        **serve_options: float) -> RunningService:
    """Serve ``tables`` (with ``servicer``, a GameServicer of them by default) over gRPC, with
    the kit's error interceptor, on a free port or at ``address``, with ``security`` (TLS,
    callers) when given; ``serve_options`` go to services.rpc.server.serve (e.g. a maximum
    connection age)."""
    address = address or f"127.0.0.1:{free_port()}"
    servicer = servicer or GameServicer(tables)

    async def probe() -> None:
        return None

    spec = ServiceSpec(name="game", full_names=("tavolo.game.v1.GameService",),
                       register=lambda s: game_pb2_grpc.add_GameServiceServicer_to_server(servicer, s),
                       probe=probe)
    started, stop = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop,
                                     security=security, **serve_options))
    await asyncio.wait_for(started.wait(), 10)
    return RunningService(address, stop, task)


@contextlib.asynccontextmanager
async def serving(tables: Tables, **options) -> AsyncIterator[RunningService]:
    """:func:`start_service` for the length of a block, stopped however it ends."""
    running = await start_service(tables, **options)
    try:
        yield running
    finally:
        await running.stop()


def hold_the_first_answer(tables: Tables, monkeypatch) -> asyncio.Event:
    """Make ``tables``' first Act append its move, then hold its answer back (for a minute), so
    the test can cut the stream in between; the event is set once the move is in the log."""
    appended = asyncio.Event()
    act = tables.act

    async def act_then_hold_the_answer(*args, **kwargs):
        view = await act(*args, **kwargs)
        if not appended.is_set():
            appended.set()
            await asyncio.sleep(60)
        return view

    monkeypatch.setattr(tables, "act", act_then_hold_the_answer)
    return appended


async def play(tables: Tables, table_id: str, moves: int, note: str | None = None) -> int:
    """Play ``moves`` dummy adds of 1 in turn order; returns the revision after them."""
    revision = 0
    for _ in range(moves):
        view = await tables.get_view(table_id, SEATS[0])
        turn = json.loads(view.view_json)["turn"]
        action = {"action": "add", "n": 1} if note is None else {"action": "add", "n": 1, "note": note}
        revision = (await tables.act(table_id, SEATS[turn], json.dumps(action))).revision
    return revision
