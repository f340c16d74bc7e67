"""Servers that tests and benchmarks start: free local ports, waiting for SERVING, stopping;
an ASGI app under uvicorn as the gateway serves it; a private redis-server."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator

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
def redis_server(binary: str = "redis-server", timeout: float = 10.0) -> Iterator[tuple[str, subprocess.Popen]]:
    """A private redis-server of the caller's own (free port, empty, no persistence): its URL and
    process, stopped when the block ends. For figures no other client may disturb (INFO
    commandstats, the server's CPU time)."""
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
         "--loglevel", "warning"],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    give_up_at = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {process.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
            if time.monotonic() > give_up_at:
                raise TimeoutError(f"redis-server did not answer on port {port} within {timeout} s")
            time.sleep(0.05)
        yield url, process
    finally:
        stop_process(process)
