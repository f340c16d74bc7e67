"""What the chart renders: valid Kubernetes objects, one set per component, each optional part
behind its toggle, the migration hook, the Ingress and the `helm test` Pod."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import kubernetes_validate
import pytest

from .support import (
    COMPONENTS,
    GRPC_COMPONENTS,
    KUBE_VERSION,
    KUBE_VERSIONS,
    RELEASE,
    WITH_DATABASE,
    Rendered,
    validate,
)

REDIS = {"redis": {"url": "redis://redis.example:6379/0"}}


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
def test_every_object_is_valid_for_kubernetes(any_render: Rendered, kube_version: str) -> None:
    for obj in any_render.objects:
        validate(obj, kube_version)


def test_the_validator_rejects_a_malformed_object(default_render: Rendered) -> None:
    deployment = copy.deepcopy(default_render.component("Deployment", "game"))
    deployment["spec"]["replicas"] = "two"

    with pytest.raises(kubernetes_validate.ValidationError, match="two"):
        kubernetes_validate.validate(deployment, KUBE_VERSION, strict=True)


def test_every_object_is_in_the_release_namespace_and_labelled(any_render: Rendered) -> None:
    for obj in any_render.objects:
        metadata = obj["metadata"]
        assert metadata["namespace"] == "games", obj["kind"]
        labels = metadata["labels"]
        assert labels["app.kubernetes.io/name"] == "tavolo"
        assert labels["app.kubernetes.io/instance"] == RELEASE
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
        assert labels["app.kubernetes.io/part-of"] == "tavolo"
        assert "app.kubernetes.io/component" in labels
        assert "app.kubernetes.io/version" in labels


@pytest.mark.parametrize("component", COMPONENTS)
def test_each_component_has_its_objects(default_render: Rendered, component: str) -> None:
    for kind in ("ServiceAccount", "Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy"):
        assert default_render.component(kind, component)["metadata"]["name"] == f"{RELEASE}-tavolo-{component}"


def test_each_grpc_service_has_a_headless_service_where_its_callers_find_it(
        render: Callable[..., Rendered]) -> None:
    """Every caller spreads its calls over all the pods a gRPC service's name resolves to
    (services.rpc.channels): the chart's callers dial <fullname>-<component>-replicas, a
    headless Service (the game's is also where the gateways and the bots find each table's
    owner). Each component's own Service keeps its cluster IP and its type, for other callers
    (the bots' stays headless, as installations have it)."""
    rendered = render({**REDIS, **WITH_DATABASE, "lobby": {"port": 6001}})
    for component in GRPC_COMPONENTS:
        own = rendered.get("Service", f"{RELEASE}-tavolo-{component}")
        headless = rendered.get("Service", f"{RELEASE}-tavolo-{component}-replicas")
        deployment = rendered.component("Deployment", component)
        assert own["spec"]["type"] == "ClusterIP"
        assert ("clusterIP" in own["spec"]) == (component == "bots"), component
        assert headless["spec"]["clusterIP"] == "None"
        assert headless["spec"].get("type", "ClusterIP") == "ClusterIP"
        assert not headless["spec"].get("publishNotReadyAddresses")  # ready pods only
        assert headless["spec"]["selector"] == own["spec"]["selector"] == \
            deployment["spec"]["selector"]["matchLabels"]
        assert headless["spec"]["ports"] == own["spec"]["ports"]
        assert headless["metadata"]["labels"] == own["metadata"]["labels"]
        port = headless["spec"]["ports"][0]["port"]
        for caller in COMPONENTS:
            env = rendered.component_env(caller)
            assert env[f"{component.upper()}_ADDR"] == f"{RELEASE}-tavolo-{component}-replicas:{port}"
        services = {obj["metadata"]["name"] for obj in rendered.of_kind("Service")
                    if obj["metadata"]["labels"]["app.kubernetes.io/component"] == component}
        assert services == {own["metadata"]["name"], headless["metadata"]["name"]}
    assert rendered.get("Service", f"{RELEASE}-tavolo-lobby-replicas")["spec"]["ports"][0]["port"] == 6001
    assert "clusterIP" not in rendered.component("Service", "gateway")["spec"]
    assert f"{RELEASE}-tavolo-gateway-replicas" not in {obj["metadata"]["name"] for obj in rendered.of_kind("Service")}
    assert "GRPC_MAX_CONNECTION_AGE_SECONDS" not in rendered.component_env("lobby")  # 300
    # The gateways and the bots find every game replica behind GAME_ADDR; or an operator's list
    assert "GAME_REPLICAS_ADDR" not in rendered.component_env("gateway")
    own_list = render({"config": {"GAME_REPLICAS_ADDR": "ipv4:10.0.0.1:50052,10.0.0.2:50052"}})
    assert own_list.component_env("gateway")["GAME_REPLICAS_ADDR"] == "ipv4:10.0.0.1:50052,10.0.0.2:50052"
    # Another team's callers outside the cluster: a NodePort or a LoadBalancer, callers unchanged
    exposed = render({"stats": {"service": {"type": "LoadBalancer"}}, "lobby": {"service": {"type": "NodePort"}}})
    assert exposed.component("Service", "stats")["spec"]["type"] == "LoadBalancer"
    assert exposed.component("Service", "lobby")["spec"]["type"] == "NodePort"
    assert exposed.get("Service", f"{RELEASE}-tavolo-stats-replicas") == \
        rendered.get("Service", f"{RELEASE}-tavolo-stats-replicas")
    assert exposed.component_env("gateway")["STATS_ADDR"] == f"{RELEASE}-tavolo-stats-replicas:50054"
    # The bots' headless Service has no cluster IP to expose; the old switch is gone
    with pytest.raises(Exception, match=r"bots/service/type"):
        render({"bots": {"service": {"type": "NodePort"}}})
    with pytest.raises(Exception, match=r"additional properties 'headless'"):
        render({"lobby": {"service": {"headless": True}}})
    # a name so long that a component's two Services would be cut to one is refused
    with pytest.raises(Exception, match="collide"):
        render({"fullnameOverride": "t" * 58})


def test_the_bots_run_on_bots_addr_where_the_lobby_finds_them(render: Callable[..., Rendered]) -> None:
    """`tavolo serve bots` binds BOTS_ADDR, the lobby dials it, and the bots reach the game
    replica that owns each table (GAME_REPLICAS_ADDR); their tables and leases are in Postgres."""
    rendered = render({**REDIS, **WITH_DATABASE, "bots": {"port": 6055}})
    deployment = rendered.component("Deployment", "bots")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    service = rendered.component("Service", "bots")
    env = rendered.component_env("bots")

    assert deployment["metadata"]["name"] == service["metadata"]["name"] == f"{RELEASE}-tavolo-bots"
    assert container["args"] == ["serve", "bots"]
    assert container["ports"][0] == {"name": "grpc", "containerPort": 6055, "protocol": "TCP"}
    assert service["spec"]["ports"][0]["port"] == 6055
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    # Headless: the name resolves to every bots pod, and the lobby spreads its calls over them.
    assert env["BOTS_ADDR"] == f"{RELEASE}-tavolo-bots-replicas:6055"
    for component in COMPONENTS:  # the lobby calls it; everyone reads the same settings
        assert rendered.component_env(component)["BOTS_ADDR"] == f"{RELEASE}-tavolo-bots-replicas:6055"
    # the game's headless Service, where the bots find each table's owner too
    assert env["GAME_ADDR"] == f"{RELEASE}-tavolo-game-replicas:50052"
    assert env["DATABASE_URL"] == WITH_DATABASE["database"]["url"]
    assert "REDIS_URL" not in env
    assert container["resources"]["requests"]["cpu"] == "250m"
    # the application's own defaults apply unless set
    assert "BOT_THINK_MS" not in env and "ABANDON_AFTER_TIMEOUTS" not in env
    tuned = render({"config": {"BOT_THINK_MS": 0, "ABANDON_AFTER_TIMEOUTS": 3}})
    assert tuned.component_env("bots")["BOT_THINK_MS"] == "0"
    assert tuned.component_env("gateway")["ABANDON_AFTER_TIMEOUTS"] == "3"
    # an operator's own address must keep the bots' port, which the service binds
    assert render({"config": {"BOTS_ADDR": "bots.example:50055"}}).component_env("lobby")["BOTS_ADDR"] == "bots.example:50055"
    with pytest.raises(Exception, match=r"config\.BOTS_ADDR \(bots.example:6000\) must end with the port of bots.port \(50055\)"):
        render({"config": {"BOTS_ADDR": "bots.example:6000"}})


@pytest.mark.parametrize("component", COMPONENTS)
def test_each_component_runs_its_serve_command(default_render: Rendered, component: str) -> None:
    spec = default_render.component("Deployment", component)["spec"]["template"]["spec"]
    (container,) = spec["containers"]

    assert "command" not in container
    assert container["args"] == ["serve", component]
    assert container["image"] == "tavolo:0.1.0"


@pytest.mark.parametrize("component", GRPC_COMPONENTS)
def test_grpc_services_are_probed_with_the_grpc_health_check(default_render: Rendered, component: str) -> None:
    deployment = default_render.component("Deployment", component)
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    service = default_render.component("Service", component)
    port, metrics = container["ports"]   # the gRPC port, and the Prometheus one
    assert (port["name"], metrics["name"]) == ("grpc", "metrics")

    # readiness follows the stores; startup and liveness only the process (no restarts in an outage)
    assert container["readinessProbe"]["grpc"] == {"port": port["containerPort"]}
    for probe in ("startupProbe", "livenessProbe"):
        assert container[probe]["grpc"] == {"port": port["containerPort"], "service": "liveness"}
    assert service["spec"]["ports"] == [
        {"name": "grpc", "port": port["containerPort"], "targetPort": "grpc", "protocol": "TCP", "appProtocol": "grpc"}
    ]


def test_gateway_is_probed_on_api_health(default_render: Rendered) -> None:
    deployment = default_render.component("Deployment", "gateway")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]

    assert container["ports"] == [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                                  {"name": "metrics", "containerPort": 9464, "protocol": "TCP"}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/api/health", "port": "http"}


@pytest.mark.parametrize("component", COMPONENTS)
def test_replicas_are_spread_over_nodes(default_render: Rendered, component: str) -> None:
    spec = default_render.component("Deployment", component)["spec"]["template"]["spec"]
    (term,) = spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]

    assert term["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert term["podAffinityTerm"]["labelSelector"]["matchLabels"]["app.kubernetes.io/component"] == component


def test_a_component_affinity_replaces_the_default_anti_affinity(render: Callable[..., Rendered]) -> None:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["games"]}]}]}}}
    rendered = render({"game": {"affinity": affinity}})

    assert rendered.component("Deployment", "game")["spec"]["template"]["spec"]["affinity"] == affinity


def test_pod_disruption_budgets_select_their_component(default_render: Rendered) -> None:
    for component in COMPONENTS:
        pdb = default_render.component("PodDisruptionBudget", component)
        assert pdb["spec"]["maxUnavailable"] == 1
        assert pdb["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"] == component


def test_min_available_wins_over_the_default_max_unavailable(render: Callable[..., Rendered]) -> None:
    rendered = render({**REDIS, "gateway": {"replicas": 3, "podDisruptionBudget": {"minAvailable": 2}}})

    assert rendered.component("PodDisruptionBudget", "gateway")["spec"] == {
        "minAvailable": 2,
        "selector": {"matchLabels": {
            "app.kubernetes.io/name": "tavolo",
            "app.kubernetes.io/instance": RELEASE,
            "app.kubernetes.io/component": "gateway",
        }},
    }


def test_pods_roll_when_the_settings_change(render: Callable[..., Rendered]) -> None:
    def checksums(rendered: Rendered) -> dict[str, str]:
        annotations = rendered.component("Deployment", "game")["spec"]["template"]["metadata"]["annotations"]
        return {key: value for key, value in annotations.items() if key.startswith("checksum/")}

    before = checksums(render())
    after_config = checksums(render({"config": {"LOG_LEVEL": "DEBUG"}}))
    after_secret = checksums(render(REDIS))

    assert after_config["checksum/config"] != before["checksum/config"]
    assert after_secret["checksum/secret"] != before["checksum/secret"]


def test_toggles_leave_out_the_optional_parts(render: Callable[..., Rendered]) -> None:
    rendered = render({
        "serviceAccounts": {"create": False},
        "networkPolicies": {"create": False},
        "podAntiAffinity": {"enabled": False},
        "helmTest": {"enabled": False},
        **{component: {"podDisruptionBudget": {"enabled": False}} for component in COMPONENTS},
    })

    kinds = {obj["kind"] for obj in rendered.objects}
    assert kinds == {"ConfigMap", "Secret", "Deployment", "Service"}
    for _, spec in rendered.pod_specs():
        assert spec["serviceAccountName"] == "default"
        assert "affinity" not in spec


def test_autoscaling_replaces_the_replica_count(render: Callable[..., Rendered]) -> None:
    rendered = render({**REDIS, **WITH_DATABASE, "game": {"autoscaling": {
        "enabled": True, "minReplicas": 2, "maxReplicas": 8,
        "targetCPUUtilizationPercentage": 60, "targetMemoryUtilizationPercentage": 75,
    }}})

    assert "replicas" not in rendered.component("Deployment", "game")["spec"]
    hpa = rendered.component("HorizontalPodAutoscaler", "game")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": f"{RELEASE}-tavolo-game"}
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 8)
    targets = {m["resource"]["name"]: m["resource"]["target"]["averageUtilization"] for m in hpa["spec"]["metrics"]}
    assert targets == {"cpu": 60, "memory": 75}
    assert [obj["metadata"]["name"] for obj in rendered.of_kind("HorizontalPodAutoscaler")] == [f"{RELEASE}-tavolo-game"]


def test_no_migration_without_a_database(default_render: Rendered) -> None:
    assert default_render.of_kind("Job") == []


def test_migration_runs_as_a_pre_install_and_pre_upgrade_hook(render: Callable[..., Rendered]) -> None:
    rendered = render(WITH_DATABASE)
    job = rendered.get("Job", f"{RELEASE}-tavolo-migrate")
    spec = job["spec"]["template"]["spec"]
    (container,) = spec["containers"]

    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert container["args"] == ["migrate"]
    assert spec["restartPolicy"] == "Never"
    assert rendered.env(container)["DATABASE_URL"] == WITH_DATABASE["database"]["url"]


def test_migration_reads_hook_copies_of_the_settings_made_before_it(render: Callable[..., Rendered]) -> None:
    """Hooks run before the release's own ConfigMap and Secret exist (or are updated)."""
    rendered = render({
        **WITH_DATABASE,
        "redis": {"url": "redis://redis.example:6379/0"},
        "config": {"LOG_LEVEL": "DEBUG"},
        "oidc": {"providers": [{"name": "sso", "clientSecret": "for the gateway only"}]},
        "stats": {"cursorSecret": "for the stats pods only"},
    })
    job = rendered.get("Job", f"{RELEASE}-tavolo-migrate")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    sources = {source["configMapRef"]["name"] for source in container["envFrom"]}
    sources |= {item["valueFrom"]["secretKeyRef"]["name"] for item in container["env"]}

    assert sources == {f"{RELEASE}-tavolo-migrate"}
    for kind in ("ConfigMap", "Secret"):
        hook_copy = rendered.get(kind, f"{RELEASE}-tavolo-migrate")
        annotations = hook_copy["metadata"]["annotations"]
        assert annotations["helm.sh/hook"] == "pre-install,pre-upgrade"
        assert int(annotations["helm.sh/hook-weight"]) < int(job["metadata"]["annotations"]["helm.sh/hook-weight"])
    assert rendered.get("ConfigMap", f"{RELEASE}-tavolo-migrate")["data"] == rendered.get("ConfigMap", f"{RELEASE}-tavolo")["data"]
    assert set(rendered.get("Secret", f"{RELEASE}-tavolo-migrate")["data"]) == {"DATABASE_URL"}
    stats_env = rendered.component_env("stats")
    assert stats_env.pop("STATS_CURSOR_SECRET") == "for the stats pods only"
    # nor the gRPC credentials: the migration calls no service
    assert stats_env.pop("GRPC_TOKEN_FILE") and stats_env.pop("GRPC_CALLERS_FILE")
    assert rendered.env(container) == stats_env


def test_migration_can_be_turned_off(render: Callable[..., Rendered]) -> None:
    rendered = render({**WITH_DATABASE, "migration": {"enabled": False}})

    assert rendered.of_kind("Job") == []
    assert [obj["metadata"]["name"] for obj in rendered.of_kind("ConfigMap")
            if obj["metadata"]["name"].endswith("-migrate")] == []
    assert [obj["metadata"]["name"] for obj in rendered.of_kind("Secret")
            if obj["metadata"]["name"].endswith("-migrate")] == []


def test_ingress_routes_the_public_paths_to_the_gateway(production_render: Rendered) -> None:
    ingress = production_render.component("Ingress", "gateway")
    (rule,) = ingress["spec"]["rules"]
    backends = {path["path"]: (path["pathType"], path["backend"]["service"]) for path in rule["http"]["paths"]}

    assert rule["host"] == "tavolo.example.com"
    assert backends == {
        path: ("Prefix", {"name": f"{RELEASE}-tavolo-gateway", "port": {"name": "http"}}) for path in ("/", "/api", "/auth", "/ws")
    }
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [{"hosts": ["tavolo.example.com"], "secretName": "tavolo-tls"}]


def test_ingress_keeps_websockets_open_for_an_hour(production_render: Rendered) -> None:
    annotations = production_render.component("Ingress", "gateway")["metadata"]["annotations"]

    assert annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
    assert annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"


def test_ingress_is_off_by_default(default_render: Rendered) -> None:
    assert default_render.of_kind("Ingress") == []


def test_helm_test_pod_checks_the_gateway_health(default_render: Rendered) -> None:
    """And every gRPC service's: tests/chart/test_chart_helm_test.py."""
    (pod,) = default_render.of_kind("Pod")
    (container,) = pod["spec"]["containers"]

    assert pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert pod["spec"]["restartPolicy"] == "Never"
    assert container["command"][:2] == ["python", "-c"]
    assert container["command"][4] == f"http://{RELEASE}-tavolo-gateway:8080/api/health"
    assert '{"status": "ok"}' in container["command"][2]
    compile(container["command"][2], "helm-test", "exec")


def test_release_named_tavolo_is_not_repeated_in_names(render: Callable[..., Rendered]) -> None:
    rendered = render(name="tavolo")

    assert rendered.component("Deployment", "lobby")["metadata"]["name"] == "tavolo-lobby"
    assert rendered.component_env("gateway")["LOBBY_ADDR"] == "tavolo-lobby-replicas:50051"


def test_ports_are_configurable_and_follow_into_the_addresses(render: Callable[..., Rendered]) -> None:
    rendered = render({"lobby": {"port": 6001}, "gateway": {"port": 9000}})
    (lobby,) = rendered.component("Deployment", "lobby")["spec"]["template"]["spec"]["containers"]
    env = rendered.component_env("game")

    assert lobby["ports"][0]["containerPort"] == 6001
    assert lobby["readinessProbe"]["grpc"] == {"port": 6001}
    assert rendered.component("Service", "lobby")["spec"]["ports"][0]["port"] == 6001
    assert env["LOBBY_ADDR"] == f"{RELEASE}-tavolo-lobby-replicas:6001"
    assert env["APP_PORT"] == "9000"
    assert "port-forward service/rel-tavolo-gateway 8080:9000" in rendered.notes


def test_notes_warn_about_in_memory_state_and_the_development_login(default_render: Rendered, production_render: Rendered) -> None:
    assert "no Redis" in default_render.notes
    assert "no Postgres" in default_render.notes
    assert "development provider" in default_render.notes
    assert "WARNING" not in production_render.notes
    assert "https://tavolo.example.com/" in production_render.notes


def _image(rendered: Rendered) -> set[str]:
    return {container["image"] for _, container in rendered.containers()}


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ({"repository": "r.example/tavolo", "tag": "1.2.3"}, "r.example/tavolo:1.2.3"),
        ({"repository": "r.example/tavolo", "digest": "sha256:" + "a" * 64}, "r.example/tavolo@sha256:" + "a" * 64),
    ],
)
def test_every_pod_runs_the_one_image(render: Callable[..., Rendered], image: dict[str, Any], expected: str) -> None:
    assert _image(render({**WITH_DATABASE, "image": image})) == {expected}
