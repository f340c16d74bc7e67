"""Each component admits only its callers: gateway -> lobby, game, stats; lobby -> game, bots;
game -> deadlines, stats; deadlines -> game; stats -> lobby; bots -> game. The gateway is the
way in."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .support import COMPONENTS, RELEASE, Rendered

CALLS = {
    "gateway": {"lobby", "game", "stats"},
    "lobby": {"game", "bots"},
    "game": {"deadlines", "stats"},
    "deadlines": {"game"},
    "stats": {"lobby"},
    "bots": {"game"},
}
CALLERS = {component: {caller for caller, callees in CALLS.items() if component in callees} for component in COMPONENTS}


HELM_TEST = {"podSelector": {"matchLabels": {
    "app.kubernetes.io/name": "tavolo", "app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/component": "test"}}}


def _rules(rendered: Rendered, component: str) -> list[dict]:
    """The ingress rules but the helm test's (the last one, on the health port: _helm_test_rule)."""
    policy = rendered.component("NetworkPolicy", component)
    assert policy["spec"]["podSelector"]["matchLabels"] == {
        "app.kubernetes.io/name": "tavolo",
        "app.kubernetes.io/instance": RELEASE,
        "app.kubernetes.io/component": component,
    }
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    rules = [rule for rule in policy["spec"]["ingress"] if rule.get("from") != [HELM_TEST]]
    assert len(rules) <= 2  # the serving port's, and the metrics port's unless metrics are off
    return rules


def _rule(rendered: Rendered, component: str) -> dict:
    return _rules(rendered, component)[0]


def _metrics_rule(rendered: Rendered, component: str) -> dict | None:
    rules = _rules(rendered, component)
    return rules[1] if len(rules) > 1 else None


def _helm_test_rule(rendered: Rendered, component: str) -> dict | None:
    rules = rendered.component("NetworkPolicy", component)["spec"]["ingress"]
    return rules[-1] if rules[-1].get("from") == [HELM_TEST] else None


def _caller_components(rule: dict) -> set[str]:
    callers = set()
    for peer in rule.get("from", []):
        labels = peer["podSelector"]["matchLabels"]
        assert set(peer) == {"podSelector"}, "a caller is a pod of this release, in this namespace"
        assert labels["app.kubernetes.io/instance"] == RELEASE
        assert labels["app.kubernetes.io/name"] == "tavolo"
        callers.add(labels["app.kubernetes.io/component"])
    return callers


def _port(rendered: Rendered, component: str) -> int:
    (container,) = rendered.component("Deployment", component)["spec"]["template"]["spec"]["containers"]
    return container["ports"][0]["containerPort"]


def test_the_call_graph_has_the_gateway_as_its_only_entry() -> None:
    assert CALLERS["gateway"] == set()
    assert all(CALLERS[component] for component in COMPONENTS if component != "gateway")


@pytest.mark.parametrize("component", [c for c in COMPONENTS if c != "gateway"])
def test_a_service_admits_only_its_callers(default_render: Rendered, component: str) -> None:
    rule = _rule(default_render, component)

    assert _caller_components(rule) == CALLERS[component]
    assert rule["ports"] == [{"port": _port(default_render, component), "protocol": "TCP"}]


def test_the_bots_admit_only_the_lobby_and_the_game_admits_the_bots(default_render: Rendered,
                                                                    render: Callable[..., Rendered]) -> None:
    """The lobby hands the bots their seats (DriveTable); the bots play them through the game."""
    assert _caller_components(_rule(default_render, "bots")) == {"lobby"}
    assert _rule(default_render, "bots")["ports"] == [{"port": 50055, "protocol": "TCP"}]
    assert "bots" in _caller_components(_rule(default_render, "game"))
    for component in ("gateway", "deadlines", "stats"):
        assert "bots" not in _caller_components(_rule(default_render, component))
    # a custom port, and the peers another team's pods are admitted by, follow
    rendered = render({"bots": {"port": 7055, "networkPolicy": {"extraFrom": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "qa"}}}]}}})
    rule = _rule(rendered, "bots")
    assert rule["ports"] == [{"port": 7055, "protocol": "TCP"}]
    assert rule["from"][-1] == {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "qa"}}}


def test_the_gateway_admits_any_source_on_its_port(default_render: Rendered) -> None:
    rule = _rule(default_render, "gateway")

    assert "from" not in rule
    assert rule["ports"] == [{"port": 8080, "protocol": "TCP"}]


def test_egress_stays_open_for_the_external_stores(default_render: Rendered) -> None:
    for component in COMPONENTS:
        assert default_render.component("NetworkPolicy", component)["spec"]["egress"] == [{}]


def test_extra_sources_are_added_to_the_callers(production_render: Rendered) -> None:
    rule = _rule(production_render, "stats")
    extra = [peer for peer in rule["from"] if "namespaceSelector" in peer]
    callers = {peer["podSelector"]["matchLabels"]["app.kubernetes.io/component"] for peer in rule["from"] if peer not in extra}

    assert callers == CALLERS["stats"]
    assert extra == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "analytics"}}}]


def test_a_restricted_gateway_still_admits_the_helm_test(production_render: Rendered) -> None:
    peers = _rule(production_render, "gateway")["from"]

    assert {"podSelector": {"matchLabels": {
        "app.kubernetes.io/name": "tavolo",
        "app.kubernetes.io/instance": RELEASE,
        "app.kubernetes.io/component": "test",
    }}} in peers
    assert any("namespaceSelector" in peer for peer in peers)
    (pod,) = production_render.of_kind("Pod")
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "test"


@pytest.mark.parametrize("component", COMPONENTS)
def test_a_component_admits_prometheus_on_its_metrics_port_only(default_render: Rendered,
                                                                 production_render: Rendered,
                                                                 component: str) -> None:
    # By default from any source; the production values name them.
    assert _metrics_rule(default_render, component) == {"ports": [{"port": 9464, "protocol": "TCP"}]}
    rule = _metrics_rule(production_render, component)
    assert rule is not None and rule["ports"] == [{"port": 9464, "protocol": "TCP"}]
    assert rule["from"] == [{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "monitoring"}}}]


def test_prometheus_is_no_peer_of_the_gateways_public_port(production_render: Rendered) -> None:
    peers = _rule(production_render, "gateway")["from"]

    assert {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}} \
        not in peers


def test_without_metrics_no_port_is_opened_for_them(render: Callable[..., Rendered]) -> None:
    rendered = render({"metrics": {"port": 0}})

    for component in COMPONENTS:
        assert _metrics_rule(rendered, component) is None


def test_policies_follow_custom_ports(render: Callable[..., Rendered]) -> None:
    rendered = render({"deadlines": {"port": 7000}})

    assert _rule(rendered, "deadlines")["ports"] == [{"port": 7000, "protocol": "TCP"}]


@pytest.mark.parametrize("component", [c for c in COMPONENTS if c != "gateway"])
def test_a_service_admits_the_helm_test_on_its_health_port_only(default_render: Rendered,
                                                                grpc_tls_render: Rendered,
                                                                render: Callable[..., Rendered],
                                                                component: str) -> None:
    """`helm test` asks each service's standard health check: on the serving port, or on the
    plaintext health port (grpcAuth.tls.healthPort) with TLS; nothing without the test."""
    assert _helm_test_rule(default_render, component) == {
        "ports": [{"port": _port(default_render, component), "protocol": "TCP"}], "from": [HELM_TEST]}
    assert _helm_test_rule(grpc_tls_render, component) == {
        "ports": [{"port": 50050, "protocol": "TCP"}], "from": [HELM_TEST]}
    assert _helm_test_rule(render({"helmTest": {"enabled": False}}), component) is None
