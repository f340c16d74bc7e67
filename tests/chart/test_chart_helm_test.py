"""The default `helm test`: every service's standard gRPC health check (its readiness, which follows
the Redis and Postgres it uses) and the gateway's readiness, by the program the Pod runs
(files/check_health.py), checked here against this machine's real stack."""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from testing.stack import real_stack

from .support import GRPC_COMPONENTS, REPO, Rendered


def _health_pod(rendered: Rendered) -> dict[str, Any]:
    return rendered.get("Pod", "rel-tavolo-test-health")


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


def test_the_pod_asks_every_service_on_its_headless_service_and_the_gateway(default_render: Rendered,
                                                                           grpc_tls_render: Rendered) -> None:
    pod = _health_pod(default_render)
    (container,) = pod["spec"]["containers"]

    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "test"
    assert container["command"][:2] == ["python", "-c"]
    assert container["command"][2] == (REPO / "charts/tavolo/files/check_health.py").read_text()
    ports = {"lobby": 50051, "game": 50052, "deadlines": 50053, "stats": 50054, "bots": 50055}
    assert container["command"][3:] == [
        "120", "http://rel-tavolo-gateway:8080/api/health",
        *(f"{component}=rel-tavolo-{component}-replicas:{ports[component]}" for component in GRPC_COMPONENTS)]
    # With TLS the kubelet's plaintext health port, which the probes use too.
    (tls,) = _health_pod(grpc_tls_render)["spec"]["containers"]
    assert tls["command"][5:] == [f"{component}=rel-tavolo-{component}-replicas:50050"
                                  for component in GRPC_COMPONENTS]


def test_the_check_passes_on_a_ready_stack_and_names_what_is_not_ready(default_render: Rendered) -> None:
    script = _health_pod(default_render)["spec"]["containers"][0]["command"][2]
    with real_stack(label="helm-health", start_timeout=90) as stack:  # a busy CI machine starts it slowly
        targets = [f"{stack.gateway_url}/api/health",
                   *(f"{component}={stack.address(component)}" for component in GRPC_COMPONENTS)]
        ready = _run(script, "10", *targets)
        assert ready.returncode == 0, ready.stdout + ready.stderr
        assert sorted(line.split()[1] for line in ready.stdout.splitlines()) == sorted(
            ["gateway", *GRPC_COMPONENTS])

        stack.kill("deadlines", signal.SIGTERM)
        one_down = _run(script, "2", *targets)
    assert one_down.returncode == 1
    (failure,) = [line for line in one_down.stdout.splitlines() if line.startswith("NOT READY")]
    assert failure.startswith(f"NOT READY: deadlines ({stack.address('deadlines')}): UNAVAILABLE")
    assert "ready: game" in one_down.stdout
