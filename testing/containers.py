"""The chart's pods as podman containers on this machine: each container of a rendered Deployment,
Job or Pod run as the kubelet would run it (its image, command and arguments, user and groups,
read-only root, dropped capabilities, no privilege escalation, its volumes and its environment),
on the host's network, so that it reaches the machine's Postgres and Redis.

What a cluster would add and podman cannot is left out: Services and their DNS names (the
rendering is given 127.0.0.1 addresses instead) and resource limits (this host's cgroups refuse
them). With the host's network every container shares one port space, so each gets its own
METRICS_PORT where a pod would have its own address.

Volumes: an emptyDir is a tmpfs of its sizeLimit; a Secret, a ConfigMap or a projection of them
is written to a folder of files, as the kubelet writes them (defaultMode, group fsGroup) and
mounted read-only.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

# crun fails on this host kind's cgroups, and raising limits is refused: runc, and the limits the
# host already has (docs/operations.md, "The image in CI").
PODMAN_RUN = ["podman", "run", "--runtime", "runc", "--cgroup-manager", "cgroupfs", "--network", "host",
              "--pull", "never", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=32768:32768"]
_SIZE = re.compile(r"^(\d+)(Ki|Mi|Gi)?$")


def tmpfs_size(limit: str | None) -> str:
    """An emptyDir's sizeLimit (64Mi) as tmpfs' size option (64m)."""
    if not limit:
        return ""
    found = _SIZE.fullmatch(str(limit))
    assert found, f"sizeLimit {limit!r}: only whole Ki, Mi or Gi here"
    number, unit = found.groups()
    return f",tmpfs-size={number}{(unit or '')[:1].lower()}"


class Pods:
    """Containers of one rendering (``rendered``, a tests.chart.support.Rendered), named
    ``<prefix>-<name>``; every one of them is removed by :meth:`remove_all`."""

    def __init__(self, rendered: Any, prefix: str | None = None) -> None:
        self.rendered = rendered
        self.prefix = prefix or f"tavolo-it-{uuid.uuid4().hex[:8]}"
        self.names: list[str] = []
        self._files = Path(tempfile.mkdtemp(prefix="tavolo-pod-files-"))

    def command(self, name: str, pod: dict[str, Any], container: dict[str, Any],
                env: dict[str, str] | None = None, detach: bool = True) -> list[str]:
        """The ``podman run`` line of ``container`` of the pod spec ``pod``; ``env`` adds to or
        replaces its rendered environment."""
        security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
        user, group = security.get("runAsUser"), security.get("runAsGroup")
        if security.get("runAsNonRoot"):
            assert user not in (None, 0), f"{name}: runAsNonRoot needs a numeric runAsUser"
        args = [*PODMAN_RUN, "--name", f"{self.prefix}-{name}"]
        if detach:
            args.append("--detach")
        if user is not None:
            args += ["--user", f"{user}:{group}" if group is not None else str(user)]
        if "fsGroup" in security:
            args += ["--group-add", str(security["fsGroup"])]
        if security.get("readOnlyRootFilesystem"):
            # Only what the pod mounts is writable: no tmpfs of podman's own on /tmp, /run.
            args += ["--read-only", "--read-only-tmpfs=false"]
        for capability in security.get("capabilities", {}).get("drop", []):
            args += ["--cap-drop", capability]
        for capability in security.get("capabilities", {}).get("add", []):
            args += ["--cap-add", capability]
        if security.get("allowPrivilegeEscalation") is False:
            args += ["--security-opt", "no-new-privileges"]
        args += self._mounts(name, pod, container, security.get("fsGroup"))
        for key, value in {**self._env(container), **(env or {})}.items():
            args += ["--env", f"{key}={value}"]
        if container.get("command"):
            args += ["--entrypoint", container["command"][0]]
        args.append(container["image"])
        args += container.get("command", [])[1:] + container.get("args", [])
        return args

    def run(self, name: str, pod: dict[str, Any], container: dict[str, Any],
            env: dict[str, str] | None = None) -> str:
        """Start ``container`` in the background: its container name."""
        args = self.command(name, pod, container, env)
        self.names.append(args[args.index("--name") + 1])
        subprocess.run(args, check=True, capture_output=True, text=True, timeout=60)
        return self.names[-1]

    def run_to_end(self, name: str, pod: dict[str, Any], container: dict[str, Any],
                   env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run ``container`` (a Job's) to its end: its exit code and output."""
        args = self.command(name, pod, container, env, detach=False)
        self.names.append(args[args.index("--name") + 1])
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout)

    def running(self, container: str) -> bool:
        state = subprocess.run(["podman", "inspect", "--format", "{{.State.Running}}", container],
                               capture_output=True, text=True, timeout=30)
        return state.stdout.strip() == "true"

    def logs(self, container: str) -> str:
        result = subprocess.run(["podman", "logs", container], capture_output=True, text=True, timeout=30)
        return result.stdout + result.stderr

    def remove_all(self) -> None:
        if self.names:
            subprocess.run(["podman", "rm", "--force", "--ignore", "--time", "10", *self.names],
                           capture_output=True, timeout=120)
        shutil.rmtree(self._files, ignore_errors=True)

    def _env(self, container: dict[str, Any]) -> dict[str, str]:
        env = self.rendered.env(container)
        missing = [key for key, value in env.items() if not isinstance(value, str)]
        assert not missing, f"read from Secrets outside the rendering: {missing}"
        return env

    def _mounts(self, name: str, pod: dict[str, Any], container: dict[str, Any],
                fs_group: int | None) -> list[str]:
        volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
        args: list[str] = []
        for mount in container.get("volumeMounts", []):
            volume = volumes[mount["name"]]
            if "emptyDir" in volume:
                args += ["--mount", f"type=tmpfs,destination={mount['mountPath']},tmpfs-mode=1777"
                                    + tmpfs_size(volume["emptyDir"].get("sizeLimit"))]
                continue
            folder = self._files / name / mount["name"]
            self._write_volume(volume, folder, fs_group)
            args += ["--volume", f"{folder}:{mount['mountPath']}:ro"]
        return args

    def _write_volume(self, volume: dict[str, Any], folder: Path, fs_group: int | None) -> None:
        if "projected" in volume:
            mode = volume["projected"].get("defaultMode", 0o644)
            sources = volume["projected"]["sources"]
        elif "secret" in volume or "configMap" in volume:
            kind = "secret" if "secret" in volume else "configMap"
            mode = volume[kind].get("defaultMode", 0o644)
            sources = [{kind: {"name": volume[kind].get("secretName", volume[kind].get("name")),
                               "items": volume[kind].get("items")}}]
        else:
            raise NotImplementedError(f"volume {volume['name']}: only emptyDir, secret, configMap, projected")
        for source in sources:
            for path, content in self._source_files(source):
                target = folder / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
                os.chmod(target, mode)
                if fs_group is not None:
                    os.chown(target, 0, fs_group)
        for directory in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
            os.chmod(directory, 0o755)

    def _source_files(self, source: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
        kind = "secret" if "secret" in source else "configMap"
        ref = source[kind]
        obj = self.rendered.get("Secret" if kind == "secret" else "ConfigMap", ref["name"])
        if kind == "secret":
            data = {key: base64.b64decode(value) for key, value in (obj.get("data") or {}).items()}
        else:
            data = {key: value.encode() for key, value in (obj.get("data") or {}).items()}
        for item in ref.get("items") or [{"key": key, "path": key} for key in data]:
            yield item["path"], data[item["key"]]


def grpc_probe(port: int, service: str = "") -> bool:
    """One kubelet gRPC probe: grpc.health.v1 Check of ``service`` answers SERVING."""
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            answer = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=1)
        return answer.status == health_pb2.HealthCheckResponse.SERVING
    except grpc.RpcError:
        return False


def http_probe(port: int, path: str) -> bool:
    """One kubelet HTTP probe: a status from 200 to 399."""
    try:
        return 200 <= httpx.get(f"http://127.0.0.1:{port}{path}", timeout=1).status_code < 400
    except httpx.HTTPError:
        return False


def probe(container: dict[str, Any], kind: str) -> bool:
    """One check of the container's ``kind`` probe (startupProbe, readinessProbe,
    livenessProbe) as the kubelet makes it, a named port resolved to its containerPort."""
    spec = container[kind]
    ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
    if "grpc" in spec:
        return grpc_probe(int(spec["grpc"]["port"]), spec["grpc"].get("service", ""))
    handler = spec["httpGet"]
    port = handler["port"]
    return http_probe(int(ports.get(port, port)), handler["path"])


def wait_until(check, what: str, timeout: float, alive=lambda: True) -> float:
    """Seconds until ``check()`` held (asked every 0.1 s); fails after ``timeout`` or as soon
    as ``alive()`` is false."""
    start = time.monotonic()
    while not check():
        assert alive(), f"{what}: the container stopped"
        assert time.monotonic() - start < timeout, f"{what}: not within {timeout:.0f} s"
        time.sleep(0.1)
    return time.monotonic() - start


@contextmanager
def pods(rendered: Any) -> Iterator[Pods]:
    """A :class:`Pods` whose containers are removed however the block ends."""
    runner = Pods(rendered)
    try:
        yield runner
    finally:
        runner.remove_all()
