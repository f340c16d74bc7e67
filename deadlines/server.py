"""The deadline service process: the gRPC API and the consumer, one per replica.

``tavolo serve deadlines`` runs :func:`run`. With REDIS_URL set every replica shares the queue
in Redis; without it the queue lives in this process's memory (one replica, lost on restart).
"""

from __future__ import annotations

from deadlines.consumer import Consumer
from deadlines.queue import DeadlineQueue, MemoryDeadlineQueue, RedisDeadlineQueue
from deadlines.servicer import DeadlineServicer
from game.client import GameClient
from services.components import DEADLINE_SERVICE, Component
from services.config import Settings
from services.observability import telemetry
from services.rpc.server import ServiceSpec, serve
from services.rpc.transport_security import ClientCredentials
from services.stores import Keys, redis_for
from tavolo.deadlines.v1 import deadlines_pb2_grpc


def build_queue(settings: Settings) -> DeadlineQueue:
    client = redis_for(settings)
    if client is None:
        return MemoryDeadlineQueue()
    return RedisDeadlineQueue(client, Keys(settings.redis_key_prefix))


# The consumer retries fires with its own backoff, so the channel only needs to reconnect
# promptly to a game service that is back (gRPC's default backoff grows to two minutes). No
# transport retries: a failed fire goes back to the queue, where any replica may retry it.
FIRE_CHANNEL_OPTIONS: tuple[tuple[str, object], ...] = (
    ("grpc.enable_retries", 0),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


def fire_timeout_seconds(lease_ms: int) -> float:
    """A fire must end well inside its lease, or another replica would take the entry meanwhile."""
    return min(10.0, lease_ms / 3000)


def fire_target(game_addr: str, timeout_seconds: float,
                credentials: ClientCredentials | None = None) -> GameClient:
    """The game service as the consumer fires at it: each fire with its own deadline."""
    return GameClient(game_addr, deadline_seconds=timeout_seconds,
                      channel_options=FIRE_CHANNEL_OPTIONS, credentials=credentials)


def build_service(settings: Settings, lease_ms: int | None = None
                  ) -> tuple[ServiceSpec, Consumer]:
    """The service's spec (API, health probe, the consumer as a background job) and its consumer."""
    lease_ms = settings.deadline_lease_ms if lease_ms is None else lease_ms
    queue = build_queue(settings)
    target = fire_target(settings.game_addr, fire_timeout_seconds(lease_ms),
                         ClientCredentials.of(settings.grpc_security).for_service("game"))
    consumer = Consumer(queue, target, heartbeat_ms=settings.deadline_heartbeat_ms,
                        lease_ms=lease_ms)
    servicer = DeadlineServicer(queue)

    async def close() -> None:
        await target.close()
        await queue.close()

    spec = ServiceSpec(
        name=Component.DEADLINES,
        full_names=(DEADLINE_SERVICE,),
        register=lambda server: deadlines_pb2_grpc.add_DeadlineServiceServicer_to_server(
            servicer, server),
        probe=queue.ping,
        on_stop=close,
        background=[consumer.run],
        gauges=telemetry.deadline_queue_depth(queue.counts),  # telemetry hook
    )
    return spec, consumer


async def run(settings: Settings) -> None:
    async with telemetry.running(settings, Component.DEADLINES):  # telemetry hook: before any channel opens
        spec, _ = build_service(settings)
        await serve(spec, settings.deadlines_addr, security=settings.grpc_security,
                    max_connection_age_seconds=settings.grpc_max_connection_age_seconds)
