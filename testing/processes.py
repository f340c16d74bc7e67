"""Servers that tests and benchmarks start: free local ports, waiting for SERVING, stopping;
an ASGI app under uvicorn as the gateway serves it; a private redis-server; a private PgBouncer."""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import itertools
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

import grpc
import uvicorn
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.server import uvicorn_config
from services.config import Settings

# Servers get ports below the kernel's ephemeral range (32768-60999 on Linux). A port that
# bind(0) picked from that range could be taken by any outgoing connection (a Postgres or Redis
# client of the other test worker) between the pick and the server's own bind. Each pytest-xdist
# worker draws from a slice of its own, in turn, so two workers never pick the same port either.
_SERVER_PORTS = range(20000, 32000)
_candidates: Iterator[int] | None = None


def _worker_ports() -> Iterator[int]:
    """This process's slice of _SERVER_PORTS, endlessly, from a random place in it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    index = int(worker) if worker.isdigit() else 0
    count = max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), index + 1)
    size = len(_SERVER_PORTS) // count
    mine = _SERVER_PORTS[index * size:(index + 1) * size]
    first = secrets.randbelow(size)
    return itertools.cycle([*mine[first:], *mine[:first]])


def free_port() -> int:
    """A port on 127.0.0.1 that no one listens on, for a server this process starts next."""
    global _candidates
    if _candidates is None:
        _candidates = _worker_ports()
    for port in _candidates:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:  # in use, or still in TIME_WAIT
                continue
            return port
    raise AssertionError("unreachable: the candidates cycle")


def free_address() -> str:
    return f"127.0.0.1:{free_port()}"


async def wait_serving(address: str, service: str = "", process: subprocess.Popen | None = None,
                       timeout: float = 20.0) -> None:
    """Until the gRPC health check of ``service`` at ``address`` answers SERVING.

    With ``process``, its exit ends the wait at once (with its exit code in the error).
    """
    give_up_at = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the server at {address} exited with {process.returncode}")
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > give_up_at:
                raise TimeoutError(f"{address} did not report SERVING within {timeout} s")
            await asyncio.sleep(0.05)


def stop_process(process: subprocess.Popen, timeout: float = 15.0) -> int:
    """SIGTERM, then SIGKILL if it is still running after ``timeout``; its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait()


@contextlib.asynccontextmanager
async def served(app, settings: Settings | None = None) -> AsyncIterator[str]:
    """``app`` under uvicorn as the gateway configures it, on a free port; its host:port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn_config(app, settings or Settings()))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


@contextlib.contextmanager
def redis_server(binary: str = "redis-server", timeout: float = 10.0, *, port: int | None = None,
                 config_file: str | None = None, options: Sequence[str] = (),
                 ) -> Iterator[tuple[str, subprocess.Popen]]:
    """A private redis-server of the caller's own (free port, empty, no persistence): its URL and
    process, stopped when the block ends. For figures no other client may disturb (INFO
    commandstats, the server's CPU time), and for the deployments of testing.redis_deployments
    (``binary`` redis-sentinel, a ``config_file`` first, more ``options``)."""
    port = free_port() if port is None else port
    process = subprocess.Popen(
        [binary, *([config_file] if config_file else []), "--bind", "127.0.0.1",
         "--port", str(port), "--save", "", "--appendonly", "no", "--loglevel", "warning",
         *options],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    give_up_at = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{binary} exited with {process.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
            if time.monotonic() > give_up_at:
                raise TimeoutError(f"{binary} did not answer on port {port} within {timeout} s")
            time.sleep(0.05)
        yield url, process
    finally:
        stop_process(process)


class PgBouncer:
    """A running PgBouncer of :func:`pgbouncer_server`: the DSN of each database it pools, and
    its admin console's figures."""

    def __init__(self, port: int, admin: str):
        self.port = port
        self.admin = admin

    def url(self, alias: str, user: str | None = None) -> str:
        """The DSN of database ``alias`` through the pooler."""
        return f"postgresql://{user or self.admin}@127.0.0.1:{self.port}/{alias}"

    def show(self, what: str) -> list[dict[str, str]]:
        """``SHOW <what>`` (POOLS, STATS, CLIENTS, SERVERS...) on the admin console: one dict a
        row. psql, since the console speaks only the simple query protocol."""
        answer = subprocess.run(
            ["psql", "-X", "--csv", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.admin,
             "-c", f"SHOW {what}", "pgbouncer"],
            capture_output=True, text=True, timeout=10, check=True)
        return list(csv.DictReader(io.StringIO(answer.stdout)))

    def pool(self, alias: str) -> dict[str, str]:
        """The SHOW POOLS row of database ``alias``."""
        (row,) = [row for row in self.show("POOLS") if row["database"] == alias]
        return row


@contextlib.contextmanager
def pgbouncer_server(databases: Mapping[str, str], pool_size: int = 2,
                     timeout: float = 10.0) -> Iterator[PgBouncer]:
    """A private PgBouncer (the Debian package) in transaction pooling, on a free loopback port:
    ``databases`` maps each alias it serves to the DSN of the real database. Every alias gets
    ``pool_size`` server connections at most, however many clients connect: transactions
    really do share them. Clients log in with no password (``auth_type = trust``) as the
    users of those DSNs. Stopped, and its files removed, when the block ends.

    PgBouncer refuses to run as root: then it runs as the ``postgres`` user."""
    binary = shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")
    if binary is None:
        raise RuntimeError("pgbouncer is not installed (apt-get install -y pgbouncer)")
    port = free_port()
    entries, users = [], []
    for alias, dsn in databases.items():
        target = urlsplit(dsn)
        user = unquote(target.username or "postgres")
        users.append(user)
        entries.append(f"{alias} = host={target.hostname or '127.0.0.1'} port={target.port or 5432} "
                       f"dbname={target.path.lstrip('/')} user={user}"
                       + (f" password={unquote(target.password)}" if target.password else ""))
    folder = Path(tempfile.mkdtemp(prefix="tavolo-pgbouncer-"))
    (folder / "users.txt").write_text("".join(f'"{user}" ""\n' for user in dict.fromkeys(users)))
    (folder / "pgbouncer.ini").write_text("\n".join([
        "[databases]", *entries, "",
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        f"listen_port = {port}",
        "unix_socket_dir =",
        "auth_type = trust",
        f"auth_file = {folder / 'users.txt'}",
        f"admin_users = {users[0]}",
        "pool_mode = transaction",
        f"default_pool_size = {pool_size}",
        "max_client_conn = 500",
        "server_login_retry = 1",
        "log_connections = 0",
        "log_disconnections = 0",
        "logfile =",
        "pidfile =",
        "",
    ]))
    as_postgres: dict = {}
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for path in (folder, *folder.iterdir()):
            os.chown(path, owner.pw_uid, owner.pw_gid)
        as_postgres = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    log_path = folder / "pgbouncer.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen([binary, str(folder / "pgbouncer.ini")], stdout=log_file,
                                   stderr=subprocess.STDOUT, **as_postgres)
    try:
        give_up_at = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"pgbouncer exited with {process.returncode}: "
                                   f"{log_path.read_text()[-2000:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > give_up_at:
                raise TimeoutError(f"pgbouncer did not listen on port {port} within {timeout} s")
            time.sleep(0.05)
        yield PgBouncer(port, users[0])
    finally:
        stop_process(process)
        shutil.rmtree(folder, ignore_errors=True)
