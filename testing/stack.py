"""The whole platform as real processes, for end-to-end tests: `tavolo serve ...` per component.

Every process gets free ports on 127.0.0.1; the gateway's default OIDC provider is a
`tavolo dev-idp` of the stack's own. Stores: in memory unless redis_url / database_url given.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from testing.processes import free_port
from testing.servers import REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix

SERVICES = ("game", "deadlines", "stats", "lobby")


class Stack:
    def __init__(self, extra_env: dict[str, str] | None = None):
        self.ports = {name: free_port() for name in (*SERVICES, "gateway", "idp")}
        # Each gRPC service's Prometheus port (the gateway serves /metrics on its own).
        self.metrics_ports = {name: free_port() for name in SERVICES}
        self.gateway_url = f"http://127.0.0.1:{self.ports['gateway']}"
        self.issuer = f"http://127.0.0.1:{self.ports['idp']}/tavolo"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("OIDC_", "DATABASE_", "REDIS_", "CORS_"))}
        env.update({
            "LOBBY_ADDR": f"127.0.0.1:{self.ports['lobby']}",
            "GAME_ADDR": f"127.0.0.1:{self.ports['game']}",
            "DEADLINES_ADDR": f"127.0.0.1:{self.ports['deadlines']}",
            "STATS_ADDR": f"127.0.0.1:{self.ports['stats']}",
            "APP_HOST": "127.0.0.1",
            "APP_PORT": str(self.ports["gateway"]),
            "OIDC_0_PROVIDER": "default",
            "OIDC_0_ISSUER": self.issuer,
            "OIDC_0_REDIRECT_URI": f"{self.gateway_url}/auth/default/callback",
            "LOG_LEVEL": "WARNING",
            "METRICS_PORT": "0",  # per service in _spawn: one port each
        })
        env.update(extra_env or {})
        self.env = env
        self.processes: dict[str, subprocess.Popen] = {}

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service]}"

    def start(self, timeout: float = 30.0) -> Stack:
        self._spawn("idp", ["dev-idp", "--port", str(self.ports["idp"]), "--issuer", self.issuer])
        for name in (*SERVICES, "gateway"):
            self._spawn(name, ["serve", name])
        deadline = time.monotonic() + timeout
        for name in SERVICES:
            self.wait_serving(name, deadline)
        self._wait_http(f"{self.gateway_url}/api/health", deadline)
        self._wait_http(f"{self.issuer}/.well-known/openid-configuration", deadline)
        return self

    def metrics_url(self, name: str) -> str:
        """Where component ``name`` serves its Prometheus metrics."""
        if name == "gateway":
            return f"{self.gateway_url}/metrics"
        return f"http://127.0.0.1:{self.metrics_ports[name]}/metrics"

    def _spawn(self, name: str, args: list[str]) -> None:
        env = self.env
        if name in self.metrics_ports:
            env = {**env, "METRICS_PORT": str(self.metrics_ports[name])}
        elif name == "gateway":  # any port but 0: the gateway serves /metrics on its own
            env = {**env, "METRICS_PORT": str(self.ports["gateway"])}
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "services.cli", *args], env=env,
        )

    def restart(self, name: str) -> None:
        self.kill(name, signal.SIGTERM)
        self.start_again(name)

    def start_again(self, name: str) -> None:
        """Start a component that was stopped (``kill``) and wait until it serves."""
        self._spawn(name, ["serve", name])
        if name == "gateway":
            self._wait_http(f"{self.gateway_url}/api/health", time.monotonic() + 30)
        else:
            self.wait_serving(name, time.monotonic() + 20)

    def kill(self, name: str, signum: int = signal.SIGKILL) -> None:
        process = self.processes[name]
        process.send_signal(signum)
        process.wait(timeout=15)

    def wait_serving(self, name: str, deadline: float) -> None:
        while True:
            self._check_all_alive()
            try:
                with grpc.insecure_channel(self.address(name)) as channel:
                    status = health_pb2_grpc.HealthStub(channel).Check(
                        health_pb2.HealthCheckRequest(), timeout=1
                    ).status
                if status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} never became SERVING")
            time.sleep(0.1)

    def _wait_http(self, url: str, deadline: float) -> None:
        while True:
            self._check_all_alive()
            try:
                if httpx.get(url, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} never answered")
            time.sleep(0.1)

    def _check_all_alive(self) -> None:
        for name, process in self.processes.items():
            code = process.poll()
            if code is not None:
                raise RuntimeError(f"{name} exited with {code} during start-up")

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def real_stack(extra_env: dict[str, str] | None = None, label: str = "e2e") -> Iterator[Stack]:
    """A started Stack on the real servers: a migrated database and a Redis key prefix of its own."""
    database, prefix = asyncio.run(create_database(label)), new_prefix(label)
    stack = Stack({"DATABASE_URL": dsn_for(database), "REDIS_URL": REDIS_URL,
                   "REDIS_KEY_PREFIX": prefix, **(extra_env or {})})
    try:
        subprocess.run([sys.executable, "-m", "services.cli", "migrate"], env=stack.env,
                       check=True, capture_output=True)
        yield stack.start()
    finally:
        stack.stop()
        asyncio.run(delete_keys(prefix))
        asyncio.run(drop_database(database))
