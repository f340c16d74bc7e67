"""Prometheus in the chart: the metrics ports, the optional ServiceMonitor and PodMonitors, the
optional Grafana dashboard."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import helm_python
import jsonschema
import pytest

from .support import COMPONENTS, REPO, Rendered, validate

MONITORED = {"metrics": {"serviceMonitor": {"enabled": True, "interval": "15s",
                                            "labels": {"release": "kube-prometheus-stack"}}}}


def _container(rendered: Rendered, component: str) -> dict[str, Any]:
    (container,) = rendered.component("Deployment", component)["spec"]["template"]["spec"]["containers"]
    return container


def _ports(rendered: Rendered, component: str) -> dict[str, int]:
    return {port["name"]: port["containerPort"] for port in _container(rendered, component)["ports"]}


def _monitor(rendered: Rendered, component: str) -> dict[str, Any]:
    found = [obj for obj in rendered.objects if obj["apiVersion"].startswith("monitoring.coreos.com/")
             and obj["metadata"]["labels"]["app.kubernetes.io/component"] == component]
    assert len(found) == 1, component
    return found[0]


@pytest.mark.parametrize("component", COMPONENTS)
def test_each_component_exposes_its_metrics_port(default_render: Rendered, component: str) -> None:
    assert _ports(default_render, component)["metrics"] == 9464
    config = default_render.get("ConfigMap", "rel-tavolo")["data"]
    assert config["METRICS_PORT"] == "9464"


def test_the_gateway_keeps_its_metrics_out_of_its_service_and_ingress(
        render: Callable[..., Rendered]) -> None:
    rendered = render({**MONITORED, "ingress": {"enabled": True}})

    assert _ports(rendered, "gateway") == {"http": 8080, "metrics": 9464}
    service = rendered.component("Service", "gateway")
    assert [(port["name"], port["targetPort"]) for port in service["spec"]["ports"]] \
        == [("http", "http")]
    (ingress,) = rendered.of_kind("Ingress")
    backends = [path["backend"]["service"] for rule in ingress["spec"]["rules"]
                for path in rule["http"]["paths"]]
    assert backends and all(backend["port"] == {"name": "http"} for backend in backends)


def test_a_metrics_port_that_is_a_components_own_is_refused(
        render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match=r"metrics\.port \(8080\) must differ from gateway\.port"):
        render({"metrics": {"port": 8080}})


def test_no_monitor_unless_asked(default_render: Rendered) -> None:
    assert not [obj for obj in default_render.objects
                if obj["apiVersion"].startswith("monitoring.coreos.com/")]


def test_monitors_scrape_every_component_and_validate(render: Callable[..., Rendered]) -> None:
    rendered = render(MONITORED)

    for component in COMPONENTS:
        monitor = _monitor(rendered, component)
        assert monitor["kind"] == "PodMonitor"
        assert monitor["spec"]["podMetricsEndpoints"] == [
            {"port": "metrics", "path": "/metrics", "interval": "15s"}]
        pod_labels = rendered.component("Deployment", component)["spec"]["template"]["metadata"]["labels"]
        assert monitor["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
        assert "metrics" in _ports(rendered, component)
    for component in COMPONENTS:
        monitor = _monitor(rendered, component)
        assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
        assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["games"]}
        validate(monitor)


def test_the_monitor_schema_rejects_a_malformed_monitor(render: Callable[..., Rendered]) -> None:
    monitor = copy.deepcopy(_monitor(render(MONITORED), "game"))
    monitor["spec"]["podMetricsEndpoints"][0]["interval"] = "half a minute"

    with pytest.raises(jsonschema.ValidationError, match="half a minute"):
        validate(monitor)


def test_metrics_off_leave_no_port_and_no_monitor(render: Callable[..., Rendered]) -> None:
    rendered = render({"metrics": {"port": 0, "serviceMonitor": {"enabled": True}}})

    for component in COMPONENTS:
        assert "metrics" not in _ports(rendered, component)
    assert not [obj for obj in rendered.objects
                if obj["apiVersion"].startswith("monitoring.coreos.com/")]
    assert rendered.get("ConfigMap", "rel-tavolo")["data"]["METRICS_PORT"] == "0"


def test_a_custom_metrics_port_follows_everywhere(render: Callable[..., Rendered]) -> None:
    rendered = render({**MONITORED, "config": {"METRICS_PORT": 9100},
                       "metrics": {**MONITORED["metrics"], "port": 9100}})

    assert rendered.get("ConfigMap", "rel-tavolo")["data"]["METRICS_PORT"] == "9100"
    for component in ("gateway", "stats"):
        assert _ports(rendered, component)["metrics"] == 9100
        assert _monitor(rendered, component)["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"


def test_a_metrics_port_other_than_the_charts_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match=r"config\.METRICS_PORT \(9100\) must equal"):
        render({"config": {"METRICS_PORT": 9100}})


# -- the Grafana dashboard -----------------------------------------------------------------------


def _dashboard(rendered: Rendered) -> dict[str, Any]:
    config_map = rendered.get("ConfigMap", "rel-tavolo-dashboard")
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"
    return json.loads(config_map["data"]["tavolo.json"])


def test_the_dashboard_is_optional(default_render: Rendered, render: Callable[..., Rendered]) -> None:
    assert not [obj for obj in default_render.of_kind("ConfigMap")
                if obj["metadata"]["name"].endswith("-dashboard")]
    dashboard = _dashboard(render({"metrics": {"grafanaDashboard": {"enabled": True}}}))
    titles = {panel["title"] for panel in dashboard["panels"]}
    assert {"Moves per second", "Move latency (gateway -> game Act)", "Open WebSockets",
            "Matches", "Deadline lateness", "gRPC errors per second", "Event loop lag (p99)",
            "GC pauses (p99)", "Postgres pool connections"} <= titles


def test_every_metric_the_dashboard_queries_is_documented(render: Callable[..., Rendered]) -> None:
    """The dashboard asks only for metrics docs/operations.md lists, under the names Prometheus
    gives them."""
    dashboard = _dashboard(render({"metrics": {"grafanaDashboard": {"enabled": True}}}))
    operations = (REPO / "docs" / "operations.md").read_text()
    operator = operations[operations.index("## Metrics, traces, logs"):]
    documented = set(re.findall(r"`([a-z_]+)`", operator))
    queried = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            queried |= set(re.findall(r"\b((?:tavolo|rpc|db|http|process)_[a-z_]+)\b",
                                      target["expr"]))
    gauges = {"db_client_connection_count"}  # a name ending in _count that is no histogram's
    base = {name if name in gauges else re.sub(r"_(bucket|count|sum|total)$", "", name)
            for name in queried}
    assert "db_client_connection_count" in base
    assert base and base <= {re.sub(r"_total$", "", name) for name in documented}


def test_the_dashboard_tells_releases_and_pods_apart_and_shows_cpu_and_memory(
        render: Callable[..., Rendered]) -> None:
    dashboard = _dashboard(render({"metrics": {"grafanaDashboard": {"enabled": True}}}))
    variables = {variable["name"] for variable in dashboard["templating"]["list"]}
    assert {"namespace", "release", "pod"} <= variables
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert exprs and all('pod=~"($release)-.*",pod=~"$pod"' in expr for expr in exprs)
    titles = {panel["title"] for panel in dashboard["panels"]}
    assert {"CPU by pod", "Memory by pod"} <= titles
