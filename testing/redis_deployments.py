"""Redis as production deploys it, on this machine: a master and its replica watched by Sentinels,
and a Cluster of three masters. Every server is a private process on free loopback ports, in a
temporary folder of its own, stopped when the block ends.

Sentinel failovers are quick here (down after 1 s), so that a test can live through one.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import redis

from testing.processes import free_port, redis_server

DOWN_AFTER_MS = 1000
FAILOVER_TIMEOUT_MS = 5000


def _until(check, timeout: float, what: str):
    give_up_at = time.monotonic() + timeout
    while True:
        with contextlib.suppress(redis.RedisError, OSError):
            result = check()
            if result:
                return result
        if time.monotonic() > give_up_at:
            raise TimeoutError(what)
        time.sleep(0.05)


@dataclass
class SentinelDeployment:
    """A master, a replica and the Sentinels watching them as ``service``."""

    service: str
    servers: dict[int, subprocess.Popen]  # by port: the master and the replica
    sentinel_ports: list[int]
    killed: list[int] = field(default_factory=list)

    @property
    def sentinels(self) -> str:
        """The REDIS_SENTINELS setting."""
        return ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)

    def _sentinel(self) -> redis.Redis:
        return redis.Redis(port=self.sentinel_ports[0], decode_responses=True, socket_timeout=2)

    def master_port(self) -> int:
        """The master's port, as the Sentinels see it now."""
        with self._sentinel() as sentinel:
            _, port = sentinel.sentinel_get_master_addr_by_name(self.service)
        return int(port)

    def wait_ready(self, timeout: float = 20.0) -> None:
        """Until the replica is in sync and every Sentinel knows it (so it could be promoted)."""
        master = self.master_port()
        (replica,) = [port for port in self.servers if port != master and port not in self.killed]

        def in_sync() -> bool:
            with redis.Redis(port=replica, decode_responses=True, socket_timeout=2) as client:
                if client.info("replication").get("master_link_status") != "up":
                    return False
            for port in self.sentinel_ports:
                with redis.Redis(port=port, decode_responses=True, socket_timeout=2) as sentinel:
                    known = sentinel.sentinel_slaves(self.service)
                    if not any(int(r["port"]) == replica and not r["is_sdown"] for r in known):
                        return False
            return True

        _until(in_sync, timeout, f"the replica on port {replica} never got in sync")

    def kill_master(self) -> int:
        """SIGKILL the master, as a crash would: its port (the Sentinels promote the replica
        about DOWN_AFTER_MS later: :meth:`wait_promoted`)."""
        old = self.master_port()
        process = self.servers[old]
        process.kill()
        process.wait()
        self.killed.append(old)
        return old

    def wait_promoted(self, old: int, timeout: float = 20.0) -> int:
        """Until the Sentinels name a master other than ``old`` and it says it is one: its port."""
        def promoted() -> int | None:
            port = self.master_port()
            if port == old:
                return None
            with redis.Redis(port=port, decode_responses=True, socket_timeout=2) as client:
                return port if client.info("replication")["role"] == "master" else None

        return _until(promoted, timeout, "the Sentinels never promoted the replica")


@contextlib.contextmanager
def redis_sentinel(sentinels: int = 1, service: str = "tavolo") -> Iterator[SentinelDeployment]:
    """A master, one replica and ``sentinels`` Sentinels (quorum 1) watching them."""
    folder = Path(tempfile.mkdtemp(prefix="tavolo-sentinel-"))
    try:
        with contextlib.ExitStack() as stack:
            master_url, master = stack.enter_context(redis_server(options=["--dir", str(folder)]))
            master_port = int(master_url.rsplit(":", 1)[1].split("/")[0])
            replica_port = free_port()
            _, replica = stack.enter_context(redis_server(  # its copy's dump goes to the folder
                port=replica_port,
                options=["--replicaof", "127.0.0.1", str(master_port), "--dir", str(folder)]))
            ports = []
            for index in range(sentinels):
                config = folder / f"sentinel-{index}.conf"  # Sentinel rewrites it: its own file
                config.write_text(
                    f"dir {folder}\n"
                    f"sentinel monitor {service} 127.0.0.1 {master_port} 1\n"
                    f"sentinel down-after-milliseconds {service} {DOWN_AFTER_MS}\n"
                    f"sentinel failover-timeout {service} {FAILOVER_TIMEOUT_MS}\n"
                    f"sentinel parallel-syncs {service} 1\n")
                url, _ = stack.enter_context(redis_server("redis-sentinel", config_file=str(config)))
                ports.append(int(url.rsplit(":", 1)[1].split("/")[0]))
            deployment = SentinelDeployment(service, {master_port: master, replica_port: replica},
                                            ports)
            deployment.wait_ready()
            yield deployment
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class ClusterDeployment:
    """A Redis Cluster of masters without replicas."""

    ports: list[int]

    @property
    def url(self) -> str:
        """The REDIS_URL that names it (any one node: the client learns the others)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, decode_responses=True, socket_timeout=2)


@contextlib.contextmanager
def redis_cluster(masters: int = 3) -> Iterator[ClusterDeployment]:
    """``masters`` redis-servers in cluster mode, their slots shared out by ``redis-cli --cluster
    create``; yielded once every node says the cluster is ok."""
    folder = Path(tempfile.mkdtemp(prefix="tavolo-cluster-"))
    try:
        with contextlib.ExitStack() as stack:
            ports = []
            for _ in range(masters):
                port = free_port()
                stack.enter_context(redis_server(port=port, options=[
                    "--cluster-enabled", "yes", "--cluster-port", str(free_port()),
                    "--cluster-config-file", str(folder / f"nodes-{port}.conf"),
                    "--dir", str(folder)]))
                ports.append(port)
            subprocess.run(["redis-cli", "--cluster", "create",
                            *(f"127.0.0.1:{port}" for port in ports), "--cluster-yes"],
                           check=True, capture_output=True, timeout=30)
            deployment = ClusterDeployment(ports)

            def ok() -> bool:
                for port in ports:
                    with deployment.node(port) as node:
                        if node.cluster("INFO").get("cluster_state") != "ok":
                            return False
                return True

            _until(ok, 20, "the cluster never reported cluster_state:ok")
            yield deployment
    finally:
        shutil.rmtree(folder, ignore_errors=True)
