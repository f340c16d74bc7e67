"""The whole platform as real processes, for end-to-end tests: `tavolo serve ...` per component.

Every process gets free ports on 127.0.0.1; the gateway's default OIDC provider is a
`tavolo dev-idp` of the stack's own. Stores: in memory unless redis_url / database_url given.

With ``game_replicas`` > 1 the game service runs as that many processes ("game", "game2", ...),
and its callers find them as Kubernetes' headless service would give them: one gRPC target
listing every replica (``ipv4:a,b``). The lobby and deadlines spread their calls over the live
ones (round robin, as every channel does: services.rpc.channels); the gateways send each
table's moves and watches to the table's owner (game.owners). With ``gateways`` > 1 there are
as many gateways ("gateway", "gateway2", ...); with ``bots_replicas`` > 1 as many bots services
("bots", "bots2", ...), which the lobby finds as one ``ipv4:`` target too.

Callers are checked as the chart sets them up (docs/grpc-auth.md): each component sends a token
of its own and every service holds the callers file; ``caller_auth=False`` turns that off. A
test calling a service itself uses ``stack.credentials`` (a caller that may call everything).
``tls=True`` adds mutual TLS as the chart's grpcAuth.tls does (Stack._use_tls).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from launcher.cli import STACK
from services.components import Component
from services.config import GrpcSecurity
from services.rpc.transport_security import ClientCredentials
from testing.certificates import CertificateAuthority
from testing.processes import free_port
from testing.servers import REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix

SERVICES = tuple(component for component in STACK if component != Component.GATEWAY)
COMPONENTS = STACK
TEST_CALLER = "tests"  # the tests' own caller: every method
OUTSIDE_CALLER = "reporting"  # another team's, with the default allow list: reads history
TLS_DOMAIN = "tavolo.test"  # with tls=True, each component's certificate holds <component>.<this>


def caller_tokens(folder: Path) -> dict[str, Path]:
    """A token file per component, for the tests and for an outside team, and the callers file
    naming them all (``callers.yaml``) in ``folder``: the files the GRPC_* settings name."""
    files, entries = {}, []
    for name in (*COMPONENTS, TEST_CALLER, OUTSIDE_CALLER):
        token = secrets.token_urlsafe(32)
        files[name] = folder / f"{name}.token"
        files[name].write_text(token + "\n")
        entries.append(f"  - name: {name}\n"
                       f"    token_sha256: {hashlib.sha256(token.encode()).hexdigest()}\n"
                       + ("    methods: ['*']\n" if name == TEST_CALLER else ""))
    files["callers"] = folder / "callers.yaml"
    files["callers"].write_text("callers:\n" + "".join(entries))
    return files


def _numbered(service: str, count: int) -> list[str]:
    return [service if number == 1 else f"{service}{number}" for number in range(1, count + 1)]


class Stack:
    def __init__(self, extra_env: dict[str, str] | None = None, *, game_replicas: int = 1,
                 gateways: int = 1, bots_replicas: int = 1, caller_auth: bool = True,
                 tls: bool = False):
        self.games = _numbered("game", game_replicas)
        self.gateways = _numbered("gateway", gateways)
        self.bots = _numbered("bots", bots_replicas)
        self.service_of = ({name: name for name in SERVICES} | dict.fromkeys(self.games, "game")
                           | dict.fromkeys(self.gateways, "gateway") | dict.fromkeys(self.bots, "bots"))
        self.ports = {name: free_port() for name in (*self.service_of, "idp")}
        self.gateway_urls = [f"http://127.0.0.1:{self.ports[name]}" for name in self.gateways]
        self.gateway_url = self.gateway_urls[0]
        # Each process's Prometheus port (METRICS_PORT), the gateways' too.
        self.metrics_ports = {name: free_port() for name in self.service_of}
        self.issuer = f"http://127.0.0.1:{self.ports['idp']}/tavolo"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("OIDC_", "DATABASE_", "REDIS_", "CORS_"))}
        env.update({
            "LOBBY_ADDR": f"127.0.0.1:{self.ports['lobby']}",
            "GAME_ADDR": f"127.0.0.1:{self.ports['game']}",
            "DEADLINES_ADDR": f"127.0.0.1:{self.ports['deadlines']}",
            "STATS_ADDR": f"127.0.0.1:{self.ports['stats']}",
            "BOTS_ADDR": f"127.0.0.1:{self.ports['bots']}",
            "BOT_THINK_MS": "0",  # tests wait for events, not for people to follow
            "APP_HOST": "127.0.0.1",
            "APP_PORT": str(self.ports["gateway"]),
            "OIDC_0_PROVIDER": "default",
            "OIDC_0_ISSUER": self.issuer,
            "OIDC_0_REDIRECT_URI": f"{self.gateway_url}/auth/default/callback",
            "LOG_LEVEL": "WARNING",
            "METRICS_PORT": "0",  # per service in _spawn: one port each
            # Scripted players (tests, benchmarks) log in, write and play far faster than people,
            # and all from 127.0.0.1: the limits stay on, far above the defaults (a test of the
            # limits sets its own).
            "RATE_LIMIT_LOGIN_PER_MINUTE": "60000", "RATE_LIMIT_LOGIN_BURST": "1000",
            "RATE_LIMIT_WRITES_PER_MINUTE": "60000", "RATE_LIMIT_WRITES_BURST": "1000",
            "RATE_LIMIT_WS_MESSAGES_PER_SECOND": "1000", "RATE_LIMIT_WS_MESSAGES_BURST": "1000",
            "RATE_LIMIT_PER_IP_FACTOR": "1000",
        })
        self.credentials = ClientCredentials()
        self.outside_token: str | None = None  # an outside team's token (read-only)
        self._secrets: str | None = None
        self._token_files: dict[str, Path] = {}
        if caller_auth:
            self._secrets = tempfile.mkdtemp(prefix="tavolo-callers-")
            self._token_files = caller_tokens(Path(self._secrets))
            env["GRPC_CALLERS_FILE"] = str(self._token_files["callers"])
            self.credentials = ClientCredentials(
                token=self._token_files[TEST_CALLER].read_text().strip())
            self.outside_token = self._token_files[OUTSIDE_CALLER].read_text().strip()
        if game_replicas > 1:
            env["GAME_ADDR"] = "ipv4:" + ",".join(self.address(name) for name in self.games)
        if bots_replicas > 1:
            env["BOTS_ADDR"] = "ipv4:" + ",".join(self.address(name) for name in self.bots)
        env.update(extra_env or {})
        self.env = env
        self.own_env: dict[str, dict[str, str]] = {name: {"GAME_ADDR": self.address(name)}
                                                   for name in self.games}
        self.own_env.update({name: {"BOTS_ADDR": self.address(name)} for name in self.bots})
        for name in self.gateways[1:]:
            self.own_env[name] = {"APP_PORT": str(self.ports[name])}
        self.health_ports: dict[str, int] = {}  # with TLS: each service's plaintext health port
        self._tls_dir: str | None = None
        if tls:
            self._use_tls()
        self.processes: dict[str, subprocess.Popen] = {}

    def _use_tls(self) -> None:
        """Mutual TLS between the processes, as the chart's grpcAuth.tls sets it up: one CA,
        a certificate per component holding <component>.tavolo.test but not 127.0.0.1, the
        address its callers dial, so that they must check it against the name set for the
        service (<SERVICE>_TLS_SERVER_NAME), as the chart's callers, which dial a headless
        Service; the health service in the clear on a port of each service process's own."""
        self._tls_dir = tempfile.mkdtemp(prefix="tavolo-tls-")
        authority = CertificateAuthority(Path(self._tls_dir))
        self.env["GRPC_TLS_CA_FILE"] = str(authority.ca_file)
        for service in SERVICES:
            self.env[f"{service.upper()}_TLS_SERVER_NAME"] = f"{service}.{TLS_DOMAIN}"
        for name, component in self.service_of.items():
            cert, key = authority.issue(component, dns_names=(f"{component}.{TLS_DOMAIN}",),
                                        file_name=name, ip_address=False)
            own = self.own_env.setdefault(name, {})
            own.update({"GRPC_TLS_CERT_FILE": str(cert), "GRPC_TLS_KEY_FILE": str(key)})
            if name not in self.gateways:
                self.health_ports[name] = free_port()
                own["GRPC_HEALTH_PORT"] = str(self.health_ports[name])
        cert, key = authority.issue(TEST_CALLER, file_name=TEST_CALLER)
        names = tuple((service.value, f"{service}.{TLS_DOMAIN}") for service in SERVICES)
        tls = ClientCredentials.of(GrpcSecurity(tls_cert_file=str(cert), tls_key_file=str(key),
                                                tls_ca_file=str(authority.ca_file),
                                                tls_service_names=names))
        self.credentials = replace(tls, token=self.credentials.token)

    def address(self, service: str) -> str:
        return f"127.0.0.1:{self.ports[service]}"

    def start(self, timeout: float = 30.0) -> Stack:
        self._spawn("idp", ["dev-idp", "--port", str(self.ports["idp"]), "--issuer", self.issuer])
        for name in self.service_of:
            self._spawn(name, ["serve", self.service_of[name]])
        deadline = time.monotonic() + timeout
        for name in self.service_of:
            if name not in self.gateways:
                self.wait_serving(name, deadline)
        for url in self.gateway_urls:
            self._wait_http(f"{url}/api/health", deadline)
        self._wait_http(f"{self.issuer}/.well-known/openid-configuration", deadline)
        return self

    def metrics_url(self, name: str) -> str:
        """Where process ``name`` (``game``, ``gateway2``...) serves its Prometheus metrics."""
        return f"http://127.0.0.1:{self.metrics_ports[name]}/metrics"

    def _spawn(self, name: str, args: list[str]) -> None:
        env = {**self.env, **self.own_env.get(name, {})}
        token_file = self._token_files.get(self.service_of.get(name, ""))
        if token_file is not None:
            env["GRPC_TOKEN_FILE"] = str(token_file)
        if name in self.metrics_ports:
            env["METRICS_PORT"] = str(self.metrics_ports[name])
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "launcher.cli", *args], env=env,
        )

    def restart(self, name: str) -> None:
        self.kill(name, signal.SIGTERM)
        self.start_again(name)

    def start_again(self, name: str) -> None:
        """Start a component that was stopped (``kill``) and wait until it serves."""
        self._spawn(name, ["serve", self.service_of[name]])
        if name in self.gateways:
            url = self.gateway_urls[self.gateways.index(name)]
            self._wait_http(f"{url}/api/health", time.monotonic() + 30)
        else:
            self.wait_serving(name, time.monotonic() + 20)

    def kill(self, name: str, signum: int = signal.SIGKILL) -> None:
        process = self.processes[name]
        process.send_signal(signum)
        process.wait(timeout=15)

    def wait_serving(self, name: str, deadline: float) -> None:
        health = (f"127.0.0.1:{self.health_ports[name]}" if name in self.health_ports
                  else self.address(name))
        while True:
            self._check_all_alive()
            try:
                with grpc.insecure_channel(health) as channel:
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
        for folder in (self._secrets, self._tls_dir):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def real_stack(extra_env: dict[str, str] | None = None, label: str = "e2e", start_timeout: float = 30.0,
               **options: bool | int) -> Iterator[Stack]:
    """A started Stack on the real servers: a migrated database and a Redis key prefix of its
    own; ``options`` as Stack's (game_replicas, gateways, bots_replicas, caller_auth, tls);
    ``start_timeout`` bounds the wait until every process serves (Stack.start)."""
    database, prefix = asyncio.run(create_database(label)), new_prefix(label)
    stack = Stack({"DATABASE_URL": dsn_for(database), "REDIS_URL": REDIS_URL,
                   "REDIS_KEY_PREFIX": prefix, **(extra_env or {})}, **options)
    try:
        subprocess.run([sys.executable, "-m", "launcher.cli", "migrate"], env=stack.env,
                       check=True, capture_output=True)
        yield stack.start(start_timeout)
    finally:
        stack.stop()
        asyncio.run(delete_keys(prefix))
        asyncio.run(drop_database(database))
