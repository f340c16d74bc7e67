"""The evaluation install (values-evaluation.yaml, NOT FOR PRODUCTION): the development OIDC
provider, a single-pod Redis and Postgres, the gateway's forwarder to the provider and the
`helm test` Pod that plays a match. Rendered and read here; the programs the pods run (the
provider's command line, the forwarder, the match) are run against this machine's stack."""

from __future__ import annotations

import base64
import copy
import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import helm_python
import httpx
import psutil
import pytest

from services.config import Settings
from testing.processes import free_port
from testing.stack import real_stack

from .support import COMPONENTS, EVALUATION_PASSWORDS, REPO, Rendered

RELEASE = "tavolo"  # the evaluation fixture renders as `helm install tavolo`
REDIS_READERS = {"gateway", "game", "deadlines"}
POSTGRES_READERS = {"lobby", "game", "stats", "bots"}
ISSUER = "http://localhost:8180/tavolo"


def _evaluation_objects(rendered: Rendered) -> list[dict[str, Any]]:
    return [obj for obj in rendered.objects
            if obj["metadata"]["labels"]["app.kubernetes.io/component"] in ("dev-oidc", "redis", "postgres", "evaluation")]


def _containers(obj: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {container["name"]: container for container in obj["spec"]["template"]["spec"]["containers"]}


def test_nothing_of_the_evaluation_by_default(default_render: Rendered) -> None:
    assert _evaluation_objects(default_render) == []
    assert default_render.of_kind("StatefulSet") == []
    assert list(_containers(default_render.component("Deployment", "gateway"))) == ["gateway"]


def test_every_evaluation_object_says_it_is_not_for_production(evaluation_render: Rendered) -> None:
    objects = _evaluation_objects(evaluation_render)

    assert {(obj["kind"], obj["metadata"]["name"]) for obj in objects} >= {
        ("Deployment", "tavolo-dev-oidc"), ("Service", "tavolo-dev-oidc"),
        ("StatefulSet", "tavolo-redis"), ("Service", "tavolo-redis"),
        ("StatefulSet", "tavolo-postgres"), ("Service", "tavolo-postgres"), ("Secret", "tavolo-evaluation")}
    for obj in objects:
        where = f"{obj['kind']}/{obj['metadata']['name']}"
        assert obj["metadata"]["labels"]["not-for-production"] == "true", where
        if obj["kind"] != "NetworkPolicy":
            assert "evaluation only" in obj["metadata"]["annotations"]["not-for-production"], where
        if obj["kind"] in ("Deployment", "StatefulSet"):
            assert obj["spec"]["template"]["metadata"]["labels"]["not-for-production"] == "true", where
            assert obj["spec"]["replicas"] == 1, where


def test_the_notes_say_not_for_production_and_how_to_open_it(evaluation_render: Rendered) -> None:
    notes = evaluation_render.notes

    assert "NOT FOR PRODUCTION" in notes
    assert "port-forward deployment/tavolo-gateway 8080:8080 8180:8180" in notes
    for name in ("tavolo-dev-oidc", "tavolo-redis", "tavolo-postgres"):
        assert name in notes
    assert "no Redis" not in notes and "no Postgres" not in notes
    assert "this chart does not deploy" not in notes


# -- the stores ----------------------------------------------------------------------------------


def _passwords(rendered: Rendered) -> dict[str, str]:
    data = rendered.get("Secret", "tavolo-evaluation")["data"]
    return {key: base64.b64decode(value).decode() for key, value in data.items()}


def test_the_components_find_the_stores_with_their_passwords(evaluation_render: Rendered) -> None:
    passwords = _passwords(evaluation_render)
    given = EVALUATION_PASSWORDS["evaluation"]
    assert passwords == {"redis-password": given["redis"]["password"], "postgres-password": given["postgres"]["password"]}

    for component in COMPONENTS:
        env = evaluation_render.component_env(component)
        assert ("REDIS_URL" in env) == (component in REDIS_READERS), component
        assert ("DATABASE_URL" in env) == (component in POSTGRES_READERS), component
        settings = Settings.from_env({key: value for key, value in env.items() if isinstance(value, str)})
        if component in REDIS_READERS:
            assert env["REDIS_URL"] == f"redis://:{passwords['redis-password']}@tavolo-redis:6379/0"
            assert settings.redis_url == env["REDIS_URL"]
        if component in POSTGRES_READERS:
            assert env["DATABASE_URL"] == f"postgres://tavolo:{passwords['postgres-password']}@tavolo-postgres:5432/tavolo"
            assert settings.database_url == env["DATABASE_URL"]


def test_the_stores_run_the_official_images_with_those_passwords(evaluation_render: Rendered) -> None:
    redis = _containers(evaluation_render.get("StatefulSet", "tavolo-redis"))["redis"]
    postgres = _containers(evaluation_render.get("StatefulSet", "tavolo-postgres"))["postgres"]

    assert redis["image"] == "redis:7" and postgres["image"] == "postgres:16"
    assert redis["args"][:2] == ["--requirepass", "$(REDIS_PASSWORD)"]
    redis_env = evaluation_render.env(redis)
    assert redis_env["REDIS_PASSWORD"] == redis_env["REDISCLI_AUTH"] == _passwords(evaluation_render)["redis-password"]
    postgres_env = evaluation_render.env(postgres)
    assert postgres_env["POSTGRES_PASSWORD"] == _passwords(evaluation_render)["postgres-password"]
    assert (postgres_env["POSTGRES_USER"], postgres_env["POSTGRES_DB"]) == ("tavolo", "tavolo")
    # initdb makes a folder of the volume, owned by the user it runs as (the volume's root is not).
    assert str(postgres_env["PGDATA"]).startswith("/var/lib/postgresql/data/")
    for name, port in (("tavolo-redis", 6379), ("tavolo-postgres", 5432)):
        service = evaluation_render.get("Service", name)
        statefulset = evaluation_render.get("StatefulSet", name)
        assert service["spec"]["ports"][0]["port"] == port
        assert service["spec"]["selector"] == statefulset["spec"]["selector"]["matchLabels"]
        assert statefulset["spec"]["serviceName"] == name


def test_postgres_keeps_its_data_on_a_claim_unless_told_not_to(
    evaluation_render: Rendered, render: Callable[..., Rendered], evaluation_values: dict[str, Any]
) -> None:
    (claim,) = evaluation_render.get("StatefulSet", "tavolo-postgres")["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "data"
    assert claim["spec"]["resources"]["requests"]["storage"] == "1Gi"

    values = copy.deepcopy(evaluation_values)
    values["evaluation"]["postgres"]["persistence"] = {"enabled": False, "size": "1Gi", "storageClassName": ""}
    statefulset = render(values, name=RELEASE).get("StatefulSet", "tavolo-postgres")
    assert "volumeClaimTemplates" not in statefulset["spec"]
    volumes = {volume["name"]: volume for volume in statefulset["spec"]["template"]["spec"]["volumes"]}
    assert "emptyDir" in volumes["data"]


def test_the_migration_hook_is_left_to_the_services(evaluation_render: Rendered) -> None:
    """A pre-install hook would run before the evaluation Postgres exists; the services apply
    their migrations at start."""
    assert evaluation_render.of_kind("Job") == []


def _admitted(rendered: Rendered, name: str) -> set[str]:
    (rule,) = rendered.get("NetworkPolicy", name)["spec"]["ingress"]
    return {peer["podSelector"]["matchLabels"]["app.kubernetes.io/component"] for peer in rule["from"]}


def test_only_their_readers_reach_the_stores_and_the_provider(evaluation_render: Rendered) -> None:
    assert _admitted(evaluation_render, "tavolo-redis") == REDIS_READERS
    assert _admitted(evaluation_render, "tavolo-postgres") == POSTGRES_READERS
    assert _admitted(evaluation_render, "tavolo-dev-oidc") == {"gateway", "test"}


# -- the development OIDC provider ----------------------------------------------------------------


def _provider_args(rendered: Rendered) -> list[str]:
    return _containers(rendered.get("Deployment", "tavolo-dev-oidc"))["dev-oidc"]["args"]


def test_the_provider_is_the_default_issuer_of_the_gateway(evaluation_render: Rendered) -> None:
    deployment = evaluation_render.get("Deployment", "tavolo-dev-oidc")
    container = _containers(deployment)["dev-oidc"]

    assert container["image"] == "tavolo-dev-oidc:0.1.0"
    assert _provider_args(evaluation_render) == ["dev-idp", "--port", "8180", "--issuer", ISSUER, "--host", "0.0.0.0"]
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert container["readinessProbe"]["httpGet"]["path"] == "/tavolo/.well-known/openid-configuration"
    gateway_env = evaluation_render.component_env("gateway")
    assert not any(name.startswith("OIDC_") for name in gateway_env), "the default provider: the dev issuer"
    assert [provider.issuer for provider in Settings.from_env({}).oidc_providers] == [ISSUER]


def test_the_gateway_pod_forwards_its_localhost_8180_to_the_provider(evaluation_render: Rendered) -> None:
    containers = _containers(evaluation_render.component("Deployment", "gateway"))
    forward = containers["dev-oidc-forward"]

    assert list(containers) == ["gateway", "dev-oidc-forward"]
    assert forward["command"][:2] == ["python", "-c"]
    assert forward["command"][3:] == ["8180", "tavolo-dev-oidc", "8180"]
    assert forward["command"][2] == (REPO / "charts/tavolo/files/forward.py").read_text()


@contextmanager
def _process(args: list[str]) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(args, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_listening(process: subprocess.Popen[bytes], port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def test_the_provider_and_the_forwarder_as_the_pods_run_them(evaluation_render: Rendered) -> None:
    """The provider's command line (its port moved to a free one) listens on every interface and
    answers its probe; the gateway's forwarder, run as the sidecar runs it, takes the gateway's
    discovery request to it and brings the issuer back, in both directions and to the end."""
    provider_port, forward_port = free_port(), free_port()
    args = [arg.replace("8180", str(provider_port)) for arg in _provider_args(evaluation_render)]
    forward = _containers(evaluation_render.component("Deployment", "gateway"))["dev-oidc-forward"]["command"]

    with _process([sys.executable, "-m", "launcher.cli", *args]) as provider:
        _wait_listening(provider, provider_port)
        listening = {conn.laddr.ip for conn in psutil.Process(provider.pid).net_connections("tcp")
                     if conn.status == psutil.CONN_LISTEN}
        assert listening == {"0.0.0.0"}
        probe = _containers(evaluation_render.get("Deployment", "tavolo-dev-oidc"))["dev-oidc"]["readinessProbe"]
        assert httpx.get(f"http://127.0.0.1:{provider_port}{probe['httpGet']['path']}").status_code == 200

        with _process([sys.executable, "-c", forward[2], str(forward_port), "127.0.0.1", str(provider_port)]) as sidecar:
            _wait_listening(sidecar, forward_port)
            document = httpx.get(f"http://localhost:{forward_port}/tavolo/.well-known/openid-configuration").json()
            assert document["issuer"] == f"http://localhost:{provider_port}/tavolo"
            keys = httpx.get(f"http://127.0.0.1:{forward_port}/tavolo/jwks").json()
            assert keys["keys"][0]["kty"] == "RSA"


# -- helm test: a match through the gateway --------------------------------------------------------


def _play_pod(rendered: Rendered) -> dict[str, Any]:
    return rendered.get("Pod", "tavolo-test-play")


def test_helm_test_plays_a_match_only_with_the_provider(default_render: Rendered, evaluation_render: Rendered) -> None:
    assert [pod["metadata"]["name"] for pod in default_render.of_kind("Pod")] == ["rel-tavolo-test-health"]
    pod = _play_pod(evaluation_render)
    (container,) = pod["spec"]["containers"]

    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert pod["spec"]["restartPolicy"] == "Never"
    assert container["image"] == "tavolo:0.1.0"
    assert container["command"][:2] == ["python", "-c"]
    assert container["command"][2] == (REPO / "charts/tavolo/files/play_match.py").read_text()
    assert container["command"][3:] == ["http://tavolo-gateway:8080", "http://tavolo-dev-oidc:8180"]


def test_the_helm_test_script_plays_a_match_through_a_real_stack(evaluation_render: Rendered) -> None:
    """The Pod's program, run against this machine's stack (Redis, Postgres, every service, the
    development provider, bots that think 50 ms): it signs in, plays to the end and finds the
    match recorded."""
    script = _play_pod(evaluation_render)["spec"]["containers"][0]["command"][2]
    with real_stack({"BOT_THINK_MS": "50"}, label="helm-test") as stack:
        provider = urlsplit(stack.issuer)
        result = subprocess.run(
            [sys.executable, "-c", script, stack.gateway_url, f"{provider.scheme}://{provider.netloc}"],
            cwd=REPO, capture_output=True, text=True, timeout=180,
        )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "signed in as helm-test" in result.stdout
    assert "ok: match" in result.stdout and "recorded" in result.stdout


def test_the_helm_test_script_fails_with_the_reason(evaluation_render: Rendered) -> None:
    script = _play_pod(evaluation_render)["spec"]["containers"][0]["command"][2]
    port = free_port()  # nothing listens there

    result = subprocess.run([sys.executable, "-c", script, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}"],
                            cwd=REPO, capture_output=True, text=True, timeout=60)

    assert result.returncode == 1
    assert result.stderr.startswith("failed: ConnectError")


# -- refusals ------------------------------------------------------------------------------------------


def _failure(render: Callable[..., Rendered], values: dict[str, Any]) -> str:
    with pytest.raises(helm_python.HelmError) as error:
        render(values, name=RELEASE)
    return str(error.value)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"redis": {"url": "redis://elsewhere:6379/0"}},
         "evaluation.redis: the chart's own Redis replaces redis.url and redis.existingSecret"),
        ({"database": {"url": "postgres://elsewhere/tavolo"}},
         "evaluation.postgres: the chart's own Postgres replaces database.* and config.DATABASE_*"),
        ({"config": {"DATABASE_HOST": "elsewhere"}}, "evaluation.postgres: the chart's own Postgres replaces"),
        ({"oidc": {"providers": [{"name": "sso", "issuer": "https://sso.example.com"}]}},
         "evaluation.devOidc: the development provider is the issuer of the application's default provider"),
    ],
)
def test_an_evaluation_part_and_what_it_replaces_are_refused_together(
    render: Callable[..., Rendered], evaluation_values: dict[str, Any], extra: dict[str, Any], message: str
) -> None:
    assert message in _failure(render, {**evaluation_values, **extra})


def test_an_offline_render_must_be_given_the_stores_passwords(render: Callable[..., Rendered], evaluation_values: dict[str, Any]) -> None:
    values = copy.deepcopy(evaluation_values)
    values["evaluation"]["redis"]["password"] = ""
    values["evaluation"]["postgres"]["password"] = ""
    message = _failure(render, values)
    assert "evaluation: Helm sees no cluster here" in message
    assert "Give evaluation.redis.password and evaluation.postgres.password" in message

    values["evaluation"]["redis"]["enabled"] = False
    assert "Give evaluation.postgres.password (" in _failure(render, values)


@pytest.mark.parametrize(
    ("values", "where"),
    [
        ({"evaluation": {"redis": {"password": "short"}}}, "/evaluation/redis/password"),
        ({"evaluation": {"postgres": {"password": "has-a-dash-in-it-0123"}}}, "/evaluation/postgres/password"),
        ({"evaluation": {"postgres": {"persistence": {"size": "lots"}}}}, "/evaluation/postgres/persistence/size"),
        ({"evaluation": {"devOidc": {"port": 9000}}}, "additional properties 'port'"),
        ({"evaluation": {"redis": {"image": {"pullPolicy": "Sometimes"}}}}, "/evaluation/redis/image/pullPolicy"),
    ],
)
def test_the_schema_rejects(render: Callable[..., Rendered], values: dict[str, Any], where: str) -> None:
    with pytest.raises(helm_python.HelmValuesError) as error:
        render(values)

    assert where in str(error.value)


def test_the_values_file_turns_every_part_on() -> None:
    text = (REPO / "charts/tavolo/values-evaluation.yaml").read_text()

    assert "NOT FOR PRODUCTION" in text
    assert "helm install tavolo charts/tavolo -f charts/tavolo/values-evaluation.yaml" in text
    assert json.dumps(sorted(part for part in ("devOidc", "redis", "postgres") if f"  {part}:\n    enabled: true" in text)) \
        == json.dumps(["devOidc", "postgres", "redis"])
