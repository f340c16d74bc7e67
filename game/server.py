"""``tavolo serve game``: the game service on GAME_ADDR.

With DATABASE_URL set it applies the game migrations and keeps the move logs in Postgres; with
REDIS_URL set the snapshots and change signals are shared with the other replicas in
Redis. Either unset: that part lives in this process's memory (then run one replica only).
With LOG_RETENTION_DAYS set, old finished logs are compacted in the background (game.retention).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from deadlines.client import DeadlinesClient
from game.cache import MemoryTableCache, RedisTableCache, TableCache
from game.deadline_keeper import BACKSTOP_GRACE_MS, BackstopQueue, DeadlineKeeper
from game.feeds import Feeds
from game.log_store import LogStore
from game.memory_log_store import MemoryLogStore
from game.postgres_log_store import PostgresLogStore
from game.queue_watch import QueueWatch
from game.recording import (
    RECORD_CAP_SECONDS,
    RECORD_SWEEP_SECONDS,
    RECORD_WARN_SECONDS,
    MatchRecorder,
    Recording,
)
from game.registry import Registry, default_registry
from game.retention import LogRetention
from game.servicer import GameServicer
from game.snapshots import SnapshotWriter
from game.states import States
from game.tables import TableParts, Tables, engine_lookup
from game.turn_notices import TurnAnnouncer
from services.background import Background, Retry
from services.components import GAME_SERVICE, Component
from services.config import Settings
from services.migrations import migrate
from services.observability import telemetry
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import Keys, redis_for, when_reachable
from services.timeutil import now_ms
from stats.client import StatsClient
from tavolo.game.v1 import game_pb2_grpc

log = logging.getLogger(__name__)

REDIS_CONNECTIONS = 64  # calls beyond this wait for a free connection instead of failing
TURN_NOTICE_CONNECTIONS = 4  # appends of turn notices, in the background


async def open_log(settings: Settings) -> LogStore:
    database = settings.database
    if database is None:
        log.info("game: DATABASE_URL unset, keeping move logs in memory (one replica only)")
        return MemoryLogStore()
    cache = database.statement_cache_size

    async def open_postgres() -> LogStore:
        await migrate(database.url, components=("game",), statement_cache_size=cache)
        return await PostgresLogStore.open(database.url, statement_cache_size=cache)

    return await when_reachable("game: Postgres", open_postgres)


def open_cache(settings: Settings) -> TableCache:
    client = redis_for(settings, max_connections=REDIS_CONNECTIONS)
    if client is None:
        log.info("game: REDIS_URL unset, keeping snapshots and signals in memory")
        return MemoryTableCache(ttl_seconds=settings.game_ttl_seconds)
    return RedisTableCache(client, Keys(settings.redis_key_prefix),
                           ttl_seconds=settings.game_ttl_seconds)


def build_tables(registry: Registry, log_store: LogStore, cache: TableCache,
                 deadlines: BackstopQueue | None = None, stats: MatchRecorder | None = None,
                 *, clock: Callable[[], int] = now_ms, memo_size: int = 512,
                 backstop_grace_ms: int = BACKSTOP_GRACE_MS,
                 watch_poll_seconds: float = 15.0, retry_seconds: float = 0.2,
                 retry_cap_seconds: float = 30.0, record_cap_seconds: float = RECORD_CAP_SECONDS,
                 record_sweep_seconds: float = RECORD_SWEEP_SECONDS,
                 record_warn_seconds: float = RECORD_WARN_SECONDS) -> Tables:
    """The live tables over these stores, with their collaborators made here: the states, the
    feeds, the snapshot writer, the match recording and (with a deadline service) the keeper
    of deadlines. ``deadlines`` None: no backstop; ``stats`` None: matches are not recorded."""
    engine_of = engine_lookup(registry)
    retry = Retry(retry_seconds, retry_cap_seconds)
    background = Background()
    states = States(engine_of, log_store, cache, memo_size)
    replica = uuid.uuid4().hex  # names this replica to the others (follower notices)
    recording = Recording(stats, engine_of, log_store, states, background, retry, clock,
                          first_seconds=retry_seconds, cap_seconds=record_cap_seconds,
                          sweep_seconds=record_sweep_seconds, warn_seconds=record_warn_seconds)
    keeper = None if deadlines is None else DeadlineKeeper(
        deadlines, None, background, retry, clock, grace_ms=backstop_grace_ms)
    return Tables(TableParts(
        registry=registry, log=log_store, cache=cache, clock=clock, background=background,
        states=states, feeds=Feeds(states, cache, watch_poll_seconds, replica=replica),
        snapshots=SnapshotWriter(states, background, replica=replica), recording=recording,
        deadline_keeper=keeper))


async def build_service(settings: Settings) -> tuple[ServiceSpec, Tables]:
    """The service's spec (API, health probe, background resume) and its tables."""
    registry = default_registry(turn_timeout_ms=round(settings.turn_timeout_seconds * 1000),
                                hand_ack_timeout_ms=round(settings.hand_ack_timeout_seconds * 1000),
                                entropy_timeout_ms=round(settings.entropy_timeout_seconds * 1000),
                                daily_timeout_ms=round(settings.daily_turn_hours * 3_600_000),
                                dummy=settings.dummy_game)
    log_store = await open_log(settings)
    cache = open_cache(settings)
    credentials = ClientCredentials.of(settings.grpc_security)
    deadlines = DeadlinesClient(settings.deadlines_addr,
                                credentials=credentials.for_service("deadlines"))
    stats = StatsClient(settings.stats_addr, credentials=credentials.for_service("stats"))
    tables = build_tables(registry, log_store, cache, deadlines, stats)
    # Whom daily tables wait for goes to the gateways over a Redis stream; without Redis the
    # gateways, other processes, cannot hear it (game.turn_notices).
    notices_client = redis_for(settings, max_connections=TURN_NOTICE_CONNECTIONS)
    if notices_client is not None:
        tables.turns = TurnAnnouncer(notices_client, Keys(settings.redis_key_prefix), tables.background)
    else:
        log.warning("game: REDIS_URL unset, daily games' turns are not announced (no your_turn notices)")
    servicer = GameServicer(tables)

    async def probe() -> None:
        await log_store.ping()
        await cache.ping()

    async def close() -> None:
        await tables.close()
        for part in (deadlines, stats, cache, log_store):
            await part.close()
        if notices_client is not None:
            await notices_client.aclose()

    spec = ServiceSpec(
        name=Component.GAME,
        full_names=(GAME_SERVICE,),
        register=lambda server: game_pb2_grpc.add_GameServiceServicer_to_server(servicer, server),
        probe=probe,
        on_stop=close,
        background=[tables.run, QueueWatch(deadlines, tables.resume_deadlines).run,
                    LogRetention(log_store, settings.log_retention_days).run],
        gauges=[telemetry.ongoing_games(cache.ongoing_count),  # telemetry hook
                telemetry.matches_unrecorded(tables.unrecorded_count)],
    )
    return spec, tables


async def run(settings: Settings) -> None:
    async with telemetry.running(settings, Component.GAME):  # telemetry hook: before any channel opens
        spec, _ = await build_service(settings)
        await serve(spec, settings.game_addr, security=settings.grpc_security,
                    max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
