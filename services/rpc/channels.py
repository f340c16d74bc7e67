"""Client channels to tavolo's services: calls spread over every replica (round robin), per-call
deadlines, retries only where a call is safe to repeat, and keepalive pings at the rate the
servers accept (services.rpc.server)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import grpc

# telemetry hook (services.observability.telemetry imports no OpenTelemetry)
from services.observability.telemetry import client_interceptors
from services.rpc.transport_security import ClientCredentials


@dataclass(frozen=True)
class CallPolicy:
    """How long a caller waits for a service that does not answer.

    ``attempts`` and ``max_backoff_seconds`` shape the transport's retries of an idempotent
    call on UNAVAILABLE: the n-th retry waits 0.1 s x 2^(n-1), capped at ``max_backoff_seconds``,
    give or take 20 % (gRPC's jitter); ``attempts`` counts the first try (gRPC allows 5 at most).
    ``read_deadline_seconds``, when set, is the deadline of a client's reads (calls that change
    nothing), retries included: the clients pass it per call, because grpcio mis-times a
    service-config timeout under about two seconds (it fails the call at once; grpc/grpc#34547).
    """

    attempts: int = 5
    max_backoff_seconds: float = 2.0
    read_deadline_seconds: float | None = None


# Between services: the retries ride out a peer's brief absence (a restart, a replica that
# went away) for about 1.5 s (0.1 + 0.2 + 0.4 + 0.8 s) before a caller sees UNAVAILABLE.
SERVICE_CALLS = CallPolicy()
# For the gateway, whose callers are people waiting for a page: a dead service is UNAVAILABLE
# (503) after about 0.7 s of retries (0.1 + 0.2 + 0.4 s), and a read gives up after 1 s
# whatever happens behind it: a live lobby whose game service is dead answers UNAVAILABLE only
# after its own retries, which the gateway's retries would otherwise repeat (5 x 1.5 s = 9 s).
PEOPLE_CALLS = CallPolicy(attempts=4, max_backoff_seconds=0.4, read_deadline_seconds=1.0)

# How often a channel pings its peer while calls are open: a peer that vanished without closing
# the connection (a node lost, a partition) fails the channel's calls within
# KEEPALIVE_TIME_MS + KEEPALIVE_TIMEOUT_MS, and a stream that waits for a quiet table is not
# dropped by a proxy's idle timeout. services.rpc.server accepts pings at three times this rate
# (server_keepalive_options): the two must agree, or the server answers GOAWAY too_many_pings,
# which ends every call of the channel at once.
KEEPALIVE_TIME_MS = 30_000
KEEPALIVE_TIMEOUT_MS = 10_000


def keepalive_options(time_ms: int = KEEPALIVE_TIME_MS,
                      timeout_ms: int = KEEPALIVE_TIMEOUT_MS) -> tuple[tuple[str, object], ...]:
    """The channel arguments of a client that pings every ``time_ms`` while calls are open."""
    return (
        ("grpc.keepalive_time_ms", time_ms),
        ("grpc.keepalive_timeout_ms", timeout_ms),
        # gRPC stops pinging after two pings with no data sent: a view stream (the client sends
        # its request, then only listens) would go unchecked after a minute. 0: no such limit.
        ("grpc.http2.max_pings_without_data", 0),
    )


# How often, at most, a channel resolves a service's name again. gRPC resolves it when a
# connection is lost or closed by its server (GOAWAY, as at the servers' maximum connection age:
# services.rpc.server.connection_age_options), never on a timer: this only keeps a flapping
# replica from sending its callers to the DNS at every reconnection. Kubernetes' DNS answers
# with a 5 s TTL (and game.owners resolves the replicas as often).
DNS_MIN_RESOLVE_INTERVAL_MS = 5_000

# A target that names its scheme: dns:, ipv4:, ipv6:, unix:... (but not host:port, a port is
# no target).
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(?!\d+$)")


def channel_target(address: str) -> str:
    """The gRPC target of ``address``: ``host:port`` (a DNS name or an IP literal) as
    ``dns:///host:port``, so that the channel knows every address the name resolves to (a
    Kubernetes headless Service: one per ready pod) and resolves it again as they change; a
    target that names its scheme (``dns://server/host:port``, ``ipv4:a:p,b:p``, ``unix:...``)
    as it is."""
    return address if _SCHEME.match(address) else f"dns:///{address}"


def service_config(service: str, idempotent: tuple[str, ...], timeout_seconds: float,
                   streams: tuple[str, ...] = (), policy: CallPolicy = SERVICE_CALLS) -> str:
    """A gRPC service config: round robin over the replicas, a default deadline for unary
    calls, retries for idempotent ones.

    Round robin keeps a connection to every address the target resolves to and sends each
    call to the next ready one; a replica that fails its connection is passed over until it is
    back. Only idempotent methods are retried (on UNAVAILABLE, when the peer is briefly down or
    a replica was lost: the retry goes to the next replica); a move or a join is never sent
    twice by the transport. ``streams`` are server-streaming methods that live as long as what
    they watch: no deadline, no retry.
    """
    timeout = f"{timeout_seconds:g}s"
    configs: list[dict[str, Any]] = [{"name": [{"service": service}], "timeout": timeout}]
    if streams:
        configs.insert(0, {"name": [{"service": service, "method": m} for m in streams]})
    if idempotent:
        configs.insert(0, {
            "name": [{"service": service, "method": method} for method in idempotent],
            "timeout": timeout,
            "retryPolicy": {
                "maxAttempts": policy.attempts,
                "initialBackoff": "0.1s",
                "maxBackoff": f"{policy.max_backoff_seconds:g}s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        })
    return json.dumps({"loadBalancingConfig": [{"round_robin": {}}], "methodConfig": configs})


def open_channel(address: str, service: str, idempotent: tuple[str, ...] = (),
                 timeout_seconds: float = 10.0,
                 options: tuple[tuple[str, object], ...] = (),
                 streams: tuple[str, ...] = (),
                 policy: CallPolicy = SERVICE_CALLS,
                 credentials: ClientCredentials | None = None) -> grpc.aio.Channel:
    """A grpc.aio channel to ``address`` (channel_target) for ``service`` (its full proto name),
    its calls spread over every replica behind it (service_config).

    ``timeout_seconds`` is the default deadline of unary calls; keep it at 2 s or more (grpcio
    fails every call at once under a service-config timeout of about a second: shorter
    deadlines go with each call). ``policy`` shapes the retries of the ``idempotent`` methods.
    ``options`` add to or override the channel arguments. Calls never wait for the channel to
    become ready: a service that cannot be reached fails them (UNAVAILABLE) as soon as the
    retries are spent. ``credentials``: TLS (docs/grpc-auth.md); None, plaintext. (Their bearer
    token goes with each call: services.rpc.client.)
    """
    credentials = credentials or ClientCredentials()
    defaults = {
        "grpc.service_config": service_config(service, idempotent, timeout_seconds, streams,
                                              policy),
        # This service config, always: a TXT record in the DNS never replaces it.
        "grpc.service_config_disable_resolution": 1,
        "grpc.enable_retries": 1,
        "grpc.dns_min_time_between_resolutions_ms": DNS_MIN_RESOLVE_INTERVAL_MS,
        "grpc.max_receive_message_length": 4 * 1024 * 1024,
        **dict(keepalive_options()),
        # A peer that was down (a restart) is retried within two seconds, not gRPC's default
        # two minutes: callers see UNAVAILABLE only that long after it is back.
        "grpc.initial_reconnect_backoff_ms": 200,
        "grpc.max_reconnect_backoff_ms": 2000,
    }
    defaults.update(dict(credentials.channel_options()))
    defaults.update(dict(options))
    target = channel_target(address)
    # telemetry hook: call durations, and client spans with the W3C traceparent in the metadata
    # when tracing (None when telemetry is off)
    if credentials.channel is not None:
        return grpc.aio.secure_channel(target, credentials.channel,
                                       options=list(defaults.items()),
                                       interceptors=client_interceptors())
    return grpc.aio.insecure_channel(target, options=list(defaults.items()),
                                     interceptors=client_interceptors())
