"""An installation of the chart as it was before each gRPC service got its headless Service
upgrades in place: Kubernetes cannot give a Service a cluster IP or take its own away
(`spec.clusterIPs[0]: may not change once set`), so every Service the older chart made keeps its
spec; the certificates keep their names (the callers expect the names they always held), and
the NetworkPolicies, which select pods, are unchanged. The older chart is rendered from git."""

from __future__ import annotations

import io
import subprocess
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import helm_python
import pytest
import yaml

from .support import (
    GRPC_COMPONENTS,
    GRPC_TLS_VALUES,
    NAMESPACE,
    PRODUCTION_VALUES,
    RELEASE,
    REPO,
    WITH_DATABASE,
    Rendered,
    merged,
    with_tokens,
)

# Installations to upgrade from: main before the balanced gRPC calls (the lobby's, game's,
# deadlines' and stats' Services had a cluster IP, the bots' had none, the game had
# <fullname>-game-replicas besides), and the commit just before the calls were balanced.
EARLIER = "8a9240bcdf182d6b73f467d79c8d31146b4eb5ed"
LAST = "cfa34460f6da838085ecdbeb3cf82cd9ddd725a5"

# Each component's Service of a type and with annotations of the operator's, a port moved.
EXPOSED = {"lobby": {"service": {"type": "NodePort", "annotations": {"team": "analytics"}}},
           "stats": {"service": {"type": "LoadBalancer"}}, "game": {"port": 6002}}


def _chart_at(commit: str, folder: Path) -> helm_python.Chart:
    archive = subprocess.run(["git", "archive", "--format=tar", commit, "charts/tavolo"], cwd=REPO,
                             capture_output=True, timeout=60)
    assert archive.returncode == 0, (f"git archive {commit} failed (a shallow clone has no "
                                     f"history: fetch it): {archive.stderr.decode()}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return helm_python.Chart.load(folder / "charts" / "tavolo")


@pytest.fixture(scope="module")
def charts_before(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, helm_python.Chart]]:
    charts = {commit: _chart_at(commit, tmp_path_factory.mktemp(commit[:7])) for commit in (EARLIER, LAST)}
    yield charts
    for chart in charts.values():
        chart.close()


def _values(name: str) -> dict[str, Any]:
    tls = yaml.safe_load(GRPC_TLS_VALUES.read_text())
    return {"default": {}, "exposed": merged(WITH_DATABASE, EXPOSED), "grpc-tls": tls,
            "production+grpc-tls": merged(yaml.safe_load(PRODUCTION_VALUES.read_text()), tls)}[name]


def _renders(chart: helm_python.Chart, render: Callable[..., Rendered],
             values: dict[str, Any]) -> tuple[Rendered, Rendered]:
    """The same values rendered by an older chart and by this one."""
    before = Rendered(chart.render(with_tokens(values), name=RELEASE, namespace=NAMESPACE, is_install=True))
    return before, render(values)


def _specs(rendered: Rendered, kind: str) -> dict[str, Any]:
    return {obj["metadata"]["name"]: {"spec": _unversioned(obj["spec"]), "annotations": obj["metadata"].get("annotations")}
            for obj in rendered.of_kind(kind)}


def _unversioned(value: Any) -> Any:
    """``value`` without the helm.sh/chart labels (a Certificate's secretTemplate has them), which
    name the chart's version and so change with every release of it, by design."""
    if isinstance(value, dict):
        return {key: _unversioned(item) for key, item in value.items() if key != "helm.sh/chart"}
    if isinstance(value, list):
        return [_unversioned(item) for item in value]
    return value


@pytest.mark.parametrize("commit", [EARLIER, LAST], ids=["earlier", "last"])
@pytest.mark.parametrize("values", ["default", "exposed", "grpc-tls"])
def test_every_service_of_an_older_chart_keeps_its_spec(
        charts_before: dict[str, helm_python.Chart], render: Callable[..., Rendered], commit: str,
        values: str) -> None:
    before, after = (_specs(rendered, "Service") for rendered in _renders(charts_before[commit], render, _values(values)))

    assert before, "the older chart rendered no Service"
    assert {name: after.get(name) for name in before} == before
    # beside them only the headless Services the callers now dial (the game's was there)
    assert set(after) - set(before) == {f"{RELEASE}-tavolo-{component}-replicas"
                                        for component in GRPC_COMPONENTS if component != "game"}
    assert all(after[name]["spec"]["clusterIP"] == "None" for name in set(after) - set(before))


def _without_helm_test(policy: dict[str, Any]) -> dict[str, Any]:
    test = {"app.kubernetes.io/name": "tavolo", "app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/component": "test"}
    rules = [rule for rule in policy["spec"]["ingress"] if rule.get("from") != [{"podSelector": {"matchLabels": test}}]]
    return {**policy, "spec": {**policy["spec"], "ingress": rules}}


def _without_gateway(policy: dict[str, Any]) -> dict[str, Any]:
    """The bots' policy without the gateway among its callers (it asks for analyses since then)."""
    gateway = {"app.kubernetes.io/name": "tavolo", "app.kubernetes.io/instance": RELEASE,
               "app.kubernetes.io/component": "gateway"}
    rules = [{**rule, "from": [peer for peer in rule["from"] if peer != {"podSelector": {"matchLabels": gateway}}]}
             if "from" in rule else rule for rule in policy["spec"]["ingress"]]
    return {**policy, "spec": {**policy["spec"], "ingress": rules}}


@pytest.mark.parametrize("values", ["default", "production+grpc-tls"])
def test_the_certificates_and_network_policies_stay(
        charts_before: dict[str, helm_python.Chart], render: Callable[..., Rendered], values: str) -> None:
    """No certificate is issued again (the callers expect the names the certificates held), and
    the NetworkPolicies, which select pods and ports, not Services, admit the same callers."""
    renders = _renders(charts_before[LAST], render, _values(values))
    for kind in ("Certificate", "NetworkPolicy"):
        before, after = (_specs(rendered, kind) for rendered in renders)
        if kind == "NetworkPolicy":  # since then, each service admits `helm test` on its health port
            after = {name: _without_helm_test(spec) for name, spec in after.items()}
            after[f"{RELEASE}-tavolo-bots"] = _without_gateway(after[f"{RELEASE}-tavolo-bots"])
        assert before == after, kind
    assert renders[1].of_kind("NetworkPolicy")
    assert bool(renders[1].of_kind("Certificate")) == (values != "default")
