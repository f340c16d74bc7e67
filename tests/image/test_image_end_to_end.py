"""The built images, run as the chart runs them (`make image-test`, which builds them and names
them in TAVOLO_IMAGE and TAVOLO_DEV_OIDC_IMAGE; skipped without them).

The chart is rendered with Helm's own library, given this machine's Postgres (a database of the
test's own) and Redis (a key prefix of its own) and 127.0.0.1 addresses on free ports; each pod's
container then runs with podman as the kubelet would run it (testing.containers): the migration
Job to its end, then every component, each waited for by its own probes (a gRPC service's gRPC
health, never the gateway's /api/health, which answers before any service listens). A person
signs in through the development provider (the tavolo-dev-oidc image) and plays a match against
three bots through the gateway.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import helm_python
import pytest

from testing.containers import Pods, http_probe, pods, probe, wait_until
from testing.players import Player, play_against_bots
from testing.processes import free_port
from testing.servers import REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix
from testing.waiting import eventually
from tests.chart.support import CHART, GRPC_COMPONENTS, NAMESPACE, RELEASE, Rendered, with_tokens

IMAGE = os.environ.get("TAVOLO_IMAGE", "")
DEV_OIDC_IMAGE = os.environ.get("TAVOLO_DEV_OIDC_IMAGE", "")
pytestmark = pytest.mark.skipif(
    not (IMAGE and DEV_OIDC_IMAGE and shutil.which("podman")),
    reason="`make image-test` builds the images and names them in TAVOLO_IMAGE, TAVOLO_DEV_OIDC_IMAGE",
)
START_SECONDS = 60  # the chart's startup probe gives 2 s x 30; allow as much


@dataclass
class Deployed:
    rendered: Rendered
    runner: Pods
    gateway_url: str
    containers: dict[str, str]  # component: container name
    metrics_ports: dict[str, int]
    seconds: dict[str, float] = field(default_factory=dict)  # what took how long


def _values(ports: dict[str, int], idp_port: int, database: str, prefix: str) -> dict[str, Any]:
    """The chart's defaults, given what a cluster would give by DNS: 127.0.0.1 and free ports."""
    repository, _, tag = IMAGE.rpartition(":")
    gateway = f"http://127.0.0.1:{ports['gateway']}"
    config: dict[str, Any] = {f"{c.upper()}_ADDR": f"127.0.0.1:{ports[c]}" for c in GRPC_COMPONENTS}
    config.update({"REDIS_KEY_PREFIX": prefix, "BOT_THINK_MS": 0, "LOG_LEVEL": "WARNING"})
    return with_tokens({
        "image": {"repository": repository, "tag": tag, "pullPolicy": "Never"},
        **{component: {"port": port} for component, port in ports.items()},
        "metrics": {"port": free_port()},
        "config": config,
        "redis": {"url": REDIS_URL},
        "database": {"url": dsn_for(database)},
        "oidc": {"providers": [{"name": "default", "issuer": f"http://127.0.0.1:{idp_port}/tavolo",
                                "redirectUri": f"{gateway}/auth/default/callback"}]},
    })


def _container(rendered: Rendered, kind: str, component: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(pod spec, the component's own container) of its Deployment or Job."""
    owner = rendered.component(kind, component)
    pod = owner["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == component]
    return pod, container


def _wait_probes(deployed: Deployed, component: str, container: dict[str, Any]) -> None:
    """As the kubelet: the startup probe until it passes, then the readiness probe."""
    name = deployed.containers[component]
    alive = lambda: deployed.runner.running(name)  # noqa: E731
    deployed.seconds[f"{component} started"] = wait_until(
        lambda: probe(container, "startupProbe"), f"{component}'s startup probe", START_SECONDS, alive)
    wait_until(lambda: probe(container, "readinessProbe"), f"{component}'s readiness probe", 30, alive)
    assert probe(container, "livenessProbe")


@pytest.fixture(scope="module")
def deployed(request: pytest.FixtureRequest) -> Iterator[Deployed]:
    """Every component running in its container; removed afterwards (their logs printed first
    when the start or a test failed), then the database and the keys."""
    database, prefix = asyncio.run(create_database("image")), new_prefix("image")
    ports = {component: free_port() for component in ("gateway", *GRPC_COMPONENTS)}
    idp_port = free_port()
    failed_before = request.session.testsfailed
    try:
        chart = helm_python.Chart.load(CHART)
        try:
            rendered = Rendered(chart.render(_values(ports, idp_port, database, prefix), name=RELEASE,
                                             namespace=NAMESPACE, is_install=True))
        finally:
            chart.close()
        with pods(rendered) as runner:
            deployed = Deployed(rendered, runner, f"http://127.0.0.1:{ports['gateway']}", {}, {})
            started = False
            try:
                yield _start(deployed, idp_port)
                started = True
                print("\nimage-test: " + ", ".join(f"{what} {seconds:.1f} s"
                                                   for what, seconds in deployed.seconds.items()))
            finally:
                if not started or request.session.testsfailed > failed_before:
                    for name in runner.names:
                        print(f"--- podman logs {name}\n{runner.logs(name)}")
    finally:
        asyncio.run(delete_keys(prefix))
        asyncio.run(drop_database(database))


def _start(deployed: Deployed, idp_port: int) -> Deployed:
    rendered, runner = deployed.rendered, deployed.runner
    began = time.monotonic()
    # The pre-install hook: the migrations, to their end, before any service starts.
    pod, job = _container(rendered, "Job", "migrate")
    migrated = runner.run_to_end("migrate", pod, job)
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    deployed.seconds["migrate"] = time.monotonic() - began

    # The development provider, in the gateway pod's shape (evaluation.devOidc runs it so).
    gateway_pod, gateway = _container(rendered, "Deployment", "gateway")
    provider = {**gateway, "name": "dev-oidc", "image": DEV_OIDC_IMAGE, "env": [], "envFrom": [],
                "args": ["dev-idp", "--port", str(idp_port), "--issuer",
                         f"http://127.0.0.1:{idp_port}/tavolo", "--host", "127.0.0.1"]}
    idp = runner.run("dev-oidc", gateway_pod, provider)
    wait_until(lambda: http_probe(idp_port, "/tavolo/.well-known/openid-configuration"),
               "the development provider", START_SECONDS, lambda: runner.running(idp))

    # Every component at once, as an install starts them; the gateway's probes only once every
    # service is ready, since /api/health says nothing of them.
    specs = {}
    for component in (*GRPC_COMPONENTS, "gateway"):
        pod, container = _container(rendered, "Deployment", component)
        specs[component] = container
        deployed.metrics_ports[component] = free_port()
        deployed.containers[component] = runner.run(
            component, pod, container, {"METRICS_PORT": str(deployed.metrics_ports[component])})
    for component in (*GRPC_COMPONENTS, "gateway"):
        _wait_probes(deployed, component, specs[component])
    deployed.seconds["every component ready"] = time.monotonic() - began
    return deployed


async def test_a_person_plays_a_match_against_three_bots_through_the_gateway(deployed: Deployed) -> None:
    alice = await Player(deployed, "alice").login()
    try:
        began = time.monotonic()
        game, over = await play_against_bots(alice)
        deployed.seconds["match"] = time.monotonic() - began
        assert over["winner"] in ("A", "B")

        async def recorded():
            return (await alice.http.get("/api/me/matches")).json()["items"]

        (item,) = await eventually(recorded, what="the match never reached alice's history")
        assert (item["id"], item["result"]["winner"]) == (game["id"], over["winner"])
        page = await alice.http.get("/")  # the SPA of the web stage
        assert page.status_code == 200 and '<div id="app"' in page.text
    finally:
        await alice.close()


def test_every_component_serves_its_metrics(deployed: Deployed) -> None:
    for component, port in deployed.metrics_ports.items():
        assert http_probe(port, "/metrics"), component


@pytest.mark.parametrize("component", ["gateway", "game"])
def test_a_component_runs_as_10001_and_can_write_only_to_tmp(deployed: Deployed, component: str) -> None:
    script = ("import os, tempfile\n"
              "print(os.getuid(), os.getgid())\n"
              "for folder in ('/', '/app', '/opt/venv'):\n"
              "    try:\n"
              "        open(os.path.join(folder, 'probe'), 'w')\n"
              "        print('wrote', folder)\n"
              "    except OSError as error:\n"
              "        print('refused', folder, error.errno)\n"
              "tempfile.NamedTemporaryFile(dir='/tmp')\n")
    result = subprocess.run(["podman", "exec", deployed.containers[component], "python", "-c", script],
                            capture_output=True, text=True, timeout=30)

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "10001 10001"
    assert [line.rsplit(" ", 1)[0] for line in lines[1:]] == ["refused /", "refused /app", "refused /opt/venv"]


def test_the_runtime_image_holds_no_compiler_nor_installer(deployed: Deployed) -> None:
    script = ("import importlib.util, shutil\n"
              "print([name for name in ('gcc', 'cc', 'make', 'pip', 'apt-get') if shutil.which(name)],\n"
              "      [name for name in ('pip', 'setuptools', 'grpc_tools') if importlib.util.find_spec(name)])\n")
    result = subprocess.run(["podman", "exec", deployed.containers["lobby"], "python", "-c", script],
                            capture_output=True, text=True, timeout=30)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == "['apt-get'] []"  # the base's apt: the Debian way to add a package
