"""The Deployments' and autoscalers' knobs: update strategy, kept revisions, the spread over
zones, the HPA's behavior, and the Gateway API's HTTPRoute; every one rendered together and
validated strictly against each Kubernetes version the chart supports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import helm_python
import jsonschema
import pytest

from .support import COMPONENTS, KUBE_VERSIONS, RELEASE, WITH_DATABASE, Rendered, merged, validate

REDIS = {"redis": {"url": "redis://redis.example:6379/0"}}
EVERY_KNOB: dict[str, Any] = merged(WITH_DATABASE, REDIS, {
    "revisionHistoryLimit": 3,
    "deploymentStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "10%"}},
    "topologySpread": {"whenUnsatisfiable": "DoNotSchedule", "maxSkew": 2},
    "httpRoute": {"enabled": True, "hostnames": ["play.example.org"],
                  "parentRefs": [{"name": "public", "namespace": "gateways", "sectionName": "https"}],
                  "annotations": {"team": "games"}},
    "gateway": {"autoscaling": {"enabled": True}},
    "game": {"strategy": {"type": "Recreate"},
             "autoscaling": {"enabled": True, "behavior": {"scaleUp": {"stabilizationWindowSeconds": 0}}}},
})


@pytest.fixture(scope="module")
def knobs_render(render: Callable[..., Rendered]) -> Rendered:
    return render(EVERY_KNOB)


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
def test_every_knob_renders_valid_objects(knobs_render: Rendered, kube_version: str) -> None:
    for obj in knobs_render.objects:
        validate(obj, kube_version)


def test_deployments_keep_revisions_and_roll_without_losing_ready_pods(default_render: Rendered,
                                                                      knobs_render: Rendered) -> None:
    for component in COMPONENTS:
        spec = default_render.component("Deployment", component)["spec"]
        assert spec["revisionHistoryLimit"] == 10
        assert spec["strategy"] == {"type": "RollingUpdate",
                                    "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}}
    assert knobs_render.component("Deployment", "lobby")["spec"]["strategy"]["rollingUpdate"] == {
        "maxSurge": 1, "maxUnavailable": "10%"}
    assert knobs_render.component("Deployment", "game")["spec"]["strategy"] == {"type": "Recreate"}
    assert knobs_render.component("Deployment", "game")["spec"]["revisionHistoryLimit"] == 3


def test_replicas_spread_over_zones_by_default(default_render: Rendered, render: Callable[..., Rendered]) -> None:
    for component in COMPONENTS:
        pod = default_render.component("Deployment", component)["spec"]["template"]
        (constraint,) = pod["spec"]["topologySpreadConstraints"]
        assert constraint["topologyKey"] == "topology.kubernetes.io/zone"
        assert constraint["whenUnsatisfiable"] == "ScheduleAnyway"
        assert constraint["labelSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
        assert constraint["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] == component
    off = render({"topologySpread": {"enabled": False}})
    assert "topologySpreadConstraints" not in off.component("Deployment", "game")["spec"]["template"]["spec"]


def test_gateways_scale_down_slowly_and_others_as_told(knobs_render: Rendered) -> None:
    gateway = knobs_render.component("HorizontalPodAutoscaler", "gateway")["spec"]["behavior"]
    assert gateway["scaleDown"]["stabilizationWindowSeconds"] >= 300
    assert gateway["scaleDown"]["policies"] == [{"type": "Pods", "value": 1, "periodSeconds": 300}]
    game = knobs_render.component("HorizontalPodAutoscaler", "game")["spec"]
    assert game["behavior"] == {"scaleUp": {"stabilizationWindowSeconds": 0}}


def test_the_http_route_sends_the_ingress_paths_to_the_gateway(knobs_render: Rendered, default_render: Rendered) -> None:
    route = knobs_render.get("HTTPRoute", f"{RELEASE}-tavolo-gateway")
    service = knobs_render.get("Service", f"{RELEASE}-tavolo-gateway")
    (rule,) = route["spec"]["rules"]
    assert [match["path"]["value"] for match in rule["matches"]] == ["/", "/api", "/auth", "/ws"]
    assert rule["backendRefs"] == [{"name": service["metadata"]["name"],
                                    "port": service["spec"]["ports"][0]["port"]}]
    assert route["spec"]["hostnames"] == ["play.example.org"]
    assert default_render.of_kind("HTTPRoute") == []


def test_an_http_route_needs_a_gateway(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match=r"httpRoute\.parentRefs"):
        render({"httpRoute": {"enabled": True}})


def test_the_http_route_schema_rejects_a_malformed_route(knobs_render: Rendered) -> None:
    route = knobs_render.get("HTTPRoute", f"{RELEASE}-tavolo-gateway")
    broken = {**route, "spec": {**route["spec"], "hostnames": ["Not A Host"]}}
    with pytest.raises(jsonschema.ValidationError):
        validate(broken)


@pytest.mark.parametrize(("values", "where"), [
    ({"deploymentStrategy": {"type": "BlueGreen"}}, "/deploymentStrategy/type"),
    ({"revisionHistoryLimit": -1}, "/revisionHistoryLimit"),
    ({"topologySpread": {"whenUnsatisfiable": "Maybe"}}, "/topologySpread/whenUnsatisfiable"),
    ({"gateway": {"autoscaling": {"behavior": {"scaleSideways": {}}}}}, "/gateway/autoscaling/behavior"),
    ({"httpRoute": {"parentRefs": [{"namespace": "x"}]}}, "/httpRoute/parentRefs/0"),
])
def test_schema_rejects(render: Callable[..., Rendered], values: dict[str, Any], where: str) -> None:
    with pytest.raises(helm_python.HelmValuesError) as error:
        render(values)
    assert where in str(error.value)
