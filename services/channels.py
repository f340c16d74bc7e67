"""Client channels to tavolo's services: per-call deadlines, retries only where a call is safe to repeat."""

from __future__ import annotations

import json

import grpc

# telemetry hook (services.telemetry imports no OpenTelemetry)
from services.telemetry import client_interceptors


def service_config(service: str, idempotent: tuple[str, ...], timeout_seconds: float,
                   streams: tuple[str, ...] = ()) -> str:
    """A gRPC service config: a default deadline for unary calls, retries for idempotent ones.

    Only idempotent methods are retried (on UNAVAILABLE, when the peer is briefly down); a
    move or a join is never sent twice by the transport. ``streams`` are server-streaming
    methods that live as long as what they watch: no deadline, no retry.
    """
    timeout = f"{timeout_seconds:g}s"
    configs: list[dict] = [{"name": [{"service": service}], "timeout": timeout}]
    if streams:
        configs.insert(0, {"name": [{"service": service, "method": m} for m in streams]})
    if idempotent:
        configs.insert(0, {
            "name": [{"service": service, "method": method} for method in idempotent],
            "timeout": timeout,
            "retryPolicy": {
                "maxAttempts": 5,
                "initialBackoff": "0.1s",
                "maxBackoff": "2s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        })
    return json.dumps({"methodConfig": configs})


def open_channel(address: str, service: str, idempotent: tuple[str, ...] = (),
                 timeout_seconds: float = 10.0,
                 options: tuple[tuple[str, object], ...] = (),
                 streams: tuple[str, ...] = ()) -> grpc.aio.Channel:
    """An insecure grpc.aio channel to ``address`` for ``service`` (its full proto name).

    ``timeout_seconds`` is the default deadline of unary calls; keep it at 2 s or more (grpcio
    fails every call at once under a service-config timeout of about a second). ``options``
    add to or override the channel arguments.
    """
    defaults = {
        "grpc.service_config": service_config(service, idempotent, timeout_seconds, streams),
        "grpc.enable_retries": 1,
        "grpc.max_receive_message_length": 4 * 1024 * 1024,
        "grpc.keepalive_time_ms": 30000,
        # A peer that was down (a restart) is retried within two seconds, not gRPC's default
        # two minutes: callers see UNAVAILABLE only that long after it is back.
        "grpc.initial_reconnect_backoff_ms": 200,
        "grpc.max_reconnect_backoff_ms": 2000,
    }
    defaults.update(dict(options))
    # telemetry hook: client spans and the W3C traceparent in the metadata (None when off)
    return grpc.aio.insecure_channel(address, options=list(defaults.items()),
                                     interceptors=client_interceptors())
