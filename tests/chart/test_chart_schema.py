"""values.schema.json rejects malformed values before anything renders, and the templates refuse
combinations that would deploy a broken stack."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import helm_python
import jsonschema
import pytest
import yaml

from services.config import ConfigError, Settings

from .support import CHART, COMPONENTS, PRODUCTION_VALUES, Rendered

REDIS = {"redis": {"url": "redis://redis.example:6379/0"}}
DATABASE = {"database": {"url": "postgres://tavolo:secret@postgres.example:5432/tavolo"}}
STORES = {"Redis": REDIS, "Postgres": DATABASE}
# The stores each component keeps its state in (gateway/server.py, lobby/server.py, game/server.py,
# deadlines/server.py, stats/server.py, bots/server.py), so those it needs to run more than one
# replica. Lobby, stats and bots keep nothing in Redis (the chart does not even give them
# REDIS_URL): the seatings, the matches and the bots' tables and leases are in Postgres.
NEEDS = {
    "gateway": {"Redis"},
    "lobby": {"Postgres"},
    "game": {"Redis", "Postgres"},
    "deadlines": {"Redis"},
    "stats": {"Postgres"},
    "bots": {"Postgres"},
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads((CHART / "values.schema.json").read_text())


@pytest.mark.parametrize("path", ["values.yaml", "ci/production-values.yaml", "ci/grpc-tls-values.yaml",
                                  "values-evaluation.yaml"])
def test_values_files_meet_the_schema(chart: helm_python.Chart, schema: dict[str, Any], path: str) -> None:
    """The schema itself, checked by another validator than Helm's, on what an install would use."""
    values = yaml.safe_load((CHART / path).read_text())

    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.Draft7Validator(schema).validate(chart.merge_values(values))


def test_schema_covers_every_value(schema: dict[str, Any]) -> None:
    """Every key of values.yaml is described, and every object refuses keys it does not know."""
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())

    def resolve(ref: str) -> dict[str, Any]:
        node = schema
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        return node

    def walk(value: Any, node: dict[str, Any], path: str) -> None:
        while "$ref" in node:
            node = resolve(node["$ref"])
        if not isinstance(value, dict) or node.get("additionalProperties") is not False:
            return
        for key, child in value.items():
            assert key in node["properties"], f"{path}{key} is not in values.schema.json"
            walk(child, node["properties"][key], f"{path}{key}.")

    walk(defaults, schema, "")
    assert set(schema["properties"]) - {"global"} == set(defaults)


@pytest.mark.parametrize(
    ("values", "where"),
    [
        ({"gateway": {"replicas": "two"}}, "/gateway/replicas"),
        ({"lobby": {"replicas": -1}}, "/lobby/replicas"),
        ({"replicas": 2}, "additional properties 'replicas'"),
        ({"stats": {"port": 70000}}, "/stats/port"),
        ({"game": {"autoscaling": {"enabled": "yes"}}}, "/game/autoscaling/enabled"),
        ({"deadlines": {"replica": 1}}, "additional properties 'replica'"),
        ({"config": {"LOG_LVL": "DEBUG"}}, "additional properties 'LOG_LVL'"),
        ({"config": {"LOG_LEVEL": "loud"}}, "/config/LOG_LEVEL"),
        ({"config": {"TURN_TIMEOUT_SECONDS": "half a minute"}}, "/config/TURN_TIMEOUT_SECONDS"),
        ({"config": {"OTEL_ENABLED": "maybe"}}, "/config/OTEL_ENABLED"),
        ({"config": {"LOBBY_ADDR": "lobby"}}, "/config/LOBBY_ADDR"),
        ({"config": {"DATABASE_ENGINE": "sqlite"}}, "/config/DATABASE_ENGINE"),
        ({"database": {"url": "mysql://db/tavolo"}}, "/database/url"),
        ({"redis": {"url": "localhost:6379"}}, "/redis/url"),
        ({"oidc": {"providers": [{"name": "has space"}]}}, "/oidc/providers/0/name"),
        ({"oidc": {"providers": [{"issuer": "https://sso.example.com"}]}}, "/oidc/providers/0"),
        ({"oidc": {"providers": [{"name": "a", "existingSecret": {"name": "s"}}]}}, "/oidc/providers/0/existingSecret"),
        ({"image": {"pullPolicy": "Sometimes"}}, "/image/pullPolicy"),
        ({"ingress": {"paths": ["api"]}}, "/ingress/paths/0"),
        ({"extraEnv": [{"value": "no name"}]}, "/extraEnv/0"),
        ({"gateway": {"service": {"type": "Public"}}}, "/gateway/service/type"),
        ({"stats": {"cursorSecret": "short"}}, "/stats/cursorSecret"),
        # uvicorn would take a host name for a never-matching literal, "*" among others too
        ({"config": {"FORWARDED_ALLOW_IPS": "ingress-nginx.internal"}}, "/config/FORWARDED_ALLOW_IPS"),
        ({"config": {"FORWARDED_ALLOW_IPS": "*,10.0.0.0/8"}}, "/config/FORWARDED_ALLOW_IPS"),
        ({"stats": {"replica": 2}}, "additional properties 'replica'"),
        ({"game": {"cursorSecret": "0123456789abcdef"}}, "additional properties 'cursorSecret'"),
    ],
)
def test_schema_rejects(render: Callable[..., Rendered], values: dict[str, Any], where: str) -> None:
    with pytest.raises(helm_python.HelmValuesError) as error:
        render(values)

    assert where in str(error.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"gateway": {"replicas": 2}}, "gateway: more than one replica (or autoscaling) needs Redis"),
        ({"game": {"autoscaling": {"enabled": True}}}, "game: more than one replica (or autoscaling) needs Redis"),
        ({**REDIS, "stats": {"replicas": 2}}, "stats: more than one replica (or autoscaling) needs Postgres"),
        ({**REDIS, "game": {"replicas": 2}}, "game: more than one replica (or autoscaling) needs Postgres"),
        ({**REDIS, "lobby": {"replicas": 2}}, "lobby: more than one replica (or autoscaling) needs Postgres"),
        ({**REDIS, "bots": {"autoscaling": {"enabled": True}}}, "bots: more than one replica (or autoscaling) needs Postgres"),
        ({"config": {"APP_PORT": 9090}}, "config.APP_PORT (9090) must equal gateway.port (8080)"),
        ({"config": {"GAME_ADDR": "game.example:6000"}}, "config.GAME_ADDR (game.example:6000) must end with the port of game.port (50052)"),
        ({"oidc": {"providers": [{"name": "sso"}, {"name": "sso"}]}}, 'the name "sso" is used twice'),
        ({"redis": {"url": "redis://r:6379", "existingSecret": {"name": "s", "key": "k"}}}, "redis: set url or existingSecret.name, not both"),
        ({"database": {"url": "postgres://db/t", "existingSecret": {"name": "s"}}}, "database: set url or existingSecret (with urlKey), not both"),
        ({"oidc": {"providers": [{"name": "a", "clientSecret": "x", "existingSecret": {"name": "s", "key": "k"}}]}}, "set clientSecret or existingSecret, not both"),
        ({"stats": {"cursorSecret": "0123456789abcdef", "cursorExistingSecret": {"name": "s", "key": "k"}}}, "stats: set cursorSecret or cursorExistingSecret.name, not both"),
        ({"lobby": {"podDisruptionBudget": {"maxUnavailable": None}}}, "lobby.podDisruptionBudget: set maxUnavailable or minAvailable"),
        ({**REDIS, "gateway": {"autoscaling": {"enabled": True, "targetCPUUtilizationPercentage": None}}}, "gateway.autoscaling: set targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage"),
    ],
)
def test_templates_refuse(render: Callable[..., Rendered], values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm_python.HelmError) as error:
        render(values)

    assert message in str(error.value)


@pytest.mark.parametrize("scale", [{"replicas": 3}, {"autoscaling": {"enabled": True}}], ids=["replicas", "autoscaling"])
@pytest.mark.parametrize("component", COMPONENTS)
def test_a_component_scales_with_just_the_stores_it_uses(
    render: Callable[..., Rendered], component: str, scale: dict[str, Any]
) -> None:
    """E.g. the stats scales with Postgres and no Redis, the gateway with Redis and no Postgres."""
    values: dict[str, Any] = {component: scale}
    for store in NEEDS[component]:
        values.update(STORES[store])

    rendered = render(values)

    if "replicas" in scale:
        assert rendered.component("Deployment", component)["spec"]["replicas"] == 3
    else:
        assert rendered.component("HorizontalPodAutoscaler", component)["spec"]["minReplicas"] == 2


@pytest.mark.parametrize(
    ("component", "store"), [(component, store) for component in COMPONENTS for store in sorted(NEEDS[component])]
)
def test_a_component_does_not_scale_without_a_store_it_uses(
    render: Callable[..., Rendered], component: str, store: str
) -> None:
    values: dict[str, Any] = {component: {"replicas": 2}}
    for other in NEEDS[component] - {store}:
        values.update(STORES[other])

    with pytest.raises(helm_python.HelmError) as error:
        render(values)

    assert f"{component}: more than one replica (or autoscaling) needs {store}" in str(error.value)


@pytest.mark.parametrize("component", COMPONENTS)
def test_autoscaling_refuses_more_min_than_max_replicas(render: Callable[..., Rendered], component: str) -> None:
    values = {**REDIS, **DATABASE, component: {"autoscaling": {"enabled": True, "minReplicas": 5, "maxReplicas": 3}}}

    with pytest.raises(helm_python.HelmError) as error:
        render(values)

    assert f"{component}.autoscaling: minReplicas (5) must not be greater than maxReplicas (3)" in str(error.value)


@pytest.mark.parametrize("component", ["lobby", "bots"])
def test_the_lobby_and_the_bots_scale_with_postgres_alone(render: Callable[..., Rendered], component: str) -> None:
    rendered = render({**DATABASE, component: {"replicas": 3}})

    assert rendered.component("Deployment", component)["spec"]["replicas"] == 3
    env = rendered.component_env(component)
    assert "DATABASE_URL" in env
    assert "REDIS_URL" not in render({**DATABASE, **REDIS}).component_env(component), "it keeps nothing in Redis"


@pytest.mark.parametrize("redis", [
    {"config": {"REDIS_SENTINELS": "sentinel-0.example:26379,sentinel-1.example:26379",
                "REDIS_SENTINEL_SERVICE": "mymaster"}},
    {"redis": {"url": "redis+cluster://:secret@redis-cluster.example:6379/0"}},
], ids=["sentinels", "cluster"])
def test_the_gateway_scales_on_redis_sentinels_or_a_redis_cluster(
        render: Callable[..., Rendered], redis: dict[str, Any]) -> None:
    rendered = render({**redis, "gateway": {"replicas": 3}})

    assert rendered.component("Deployment", "gateway")["spec"]["replicas"] == 3


@pytest.mark.parametrize("config", [{"REDIS_SENTINELS": "sentinel-0.example:26379"},
                                    {"REDIS_SENTINEL_SERVICE": "mymaster"}])
def test_the_sentinels_and_their_service_go_together(render: Callable[..., Rendered],
                                                     config: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="go together"):
        Settings.from_env(config)
    with pytest.raises(helm_python.HelmValuesError):
        render({"config": config})


def test_autoscaling_accepts_equal_min_and_max_replicas(render: Callable[..., Rendered]) -> None:
    values = {**DATABASE, "lobby": {"autoscaling": {"enabled": True, "minReplicas": 4, "maxReplicas": 4}}}

    spec = render(values).component("HorizontalPodAutoscaler", "lobby")["spec"]

    assert spec["minReplicas"] == spec["maxReplicas"] == 4


@pytest.mark.parametrize("component", COMPONENTS)
def test_several_replicas_render_with_both_stores(render: Callable[..., Rendered], component: str) -> None:
    values: dict[str, Any] = {**REDIS, "database": {"url": "postgres://db/tavolo"}, component: {"replicas": 3}}

    assert render(values).component("Deployment", component)["spec"]["replicas"] == 3


def test_production_values_scale_every_component() -> None:
    values = yaml.safe_load(PRODUCTION_VALUES.read_text())

    for component in COMPONENTS:
        settings = values[component]
        assert settings.get("replicas", 1) > 1 or settings["autoscaling"]["enabled"], component


# -- config.* against the application's own rules (services/config.py) --------------------------
#
# A value the schema accepts but the application refuses renders cleanly and then crash-loops every
# pod, so the schema mirrors Settings.from_env. One rule it cannot mirror: whether
# CORS_ALLOW_ORIGIN_REGEX compiles (JSON Schema has no "is a regex" check).
# Whether a regex compiles; whether an address or a network (without host bits) is one.
NOT_CHECKABLE_BY_THE_SCHEMA = {"CORS_ALLOW_ORIGIN_REGEX", "FORWARDED_ALLOW_IPS"}


def env_text(value: Any) -> str:
    """The text the chart puts in the ConfigMap for a value (tavolo.envValue): whole numbers as
    integers, as far as Helm's float64 holds them exactly, anything else as Go prints it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    return str(value)


def application_refuses(variable: str, value: Any) -> bool:
    try:
        Settings.from_env({variable: env_text(value)})
    except ConfigError:
        return True
    return False


# Refused by the application at start; the schema must refuse them before anything renders.
APPLICATION_REFUSES = [
    ("GAME_TTL_SECONDS", 0),
    ("GAME_TTL_SECONDS", "0"),
    ("GAME_TTL_SECONDS", -5),
    ("DEADLINE_HEARTBEAT_MS", 5),
    ("DEADLINE_HEARTBEAT_MS", "9"),
    ("DEADLINE_LEASE_MS", 500),
    ("DEADLINE_LEASE_MS", "999"),
    ("OTEL_METRIC_EXPORT_INTERVAL_MILLIS", 0),
    ("OTEL_METRIC_EXPORT_INTERVAL_MILLIS", "0"),
    ("OTEL_METRICS_POLL_INTERVAL_SECONDS", 0),
    ("OTEL_METRICS_POLL_INTERVAL_SECONDS", "00"),
    ("TURN_TIMEOUT_SECONDS", "0"),
    ("TURN_TIMEOUT_SECONDS", 0),
    ("TURN_TIMEOUT_SECONDS", "0.000"),
    ("TURN_TIMEOUT_SECONDS", 0.0001),
    ("HAND_ACK_TIMEOUT_SECONDS", "0.0009"),
    ("DATABASE_PORT", "99999"),
    ("DATABASE_PORT", 70000),
    ("DATABASE_PORT", "0"),
    ("DATABASE_PORT", 0),
    ("APP_PORT", "65536"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "foo"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "a=b,foo"),
    ("OTEL_EXPORTER_OTLP_HEADERS", " =b"),
    ("CORS_MAX_AGE", -1),
    ("CORS_MAX_AGE", "-1"),
    ("CORS_MAX_AGE", 1e19),  # Helm would print it as 1e+19
    ("GAME_ADDR", "game:0"),
    ("GAME_ADDR", "game:99999"),
    ("DUMMY_GAME", "enabled"),
    ("LOG_LEVEL", "verbose"),
    ("DATABASE_ENGINE", "mysql"),
    ("BOT_THINK_MS", -1),
    ("BOT_THINK_MS", "0.5"),
    ("ABANDON_AFTER_TIMEOUTS", "-1"),
    ("ABANDON_AFTER_TIMEOUTS", "twice"),
    ("LOG_RETENTION_DAYS", 0),
    ("LOG_RETENTION_DAYS", "1.5"),
    ("BOTS_ADDR", "bots"),
    ("REDIS_KEY_PREFIX", "tavolo{1}"),
    ("REDIS_SENTINELS", "sentinel-0"),
    ("REDIS_SENTINELS", "sentinel-0:26379,"),
]


@pytest.mark.parametrize(("variable", "value"), APPLICATION_REFUSES)
def test_schema_refuses_config_the_application_refuses(
    render: Callable[..., Rendered], variable: str, value: Any
) -> None:
    assert application_refuses(variable, value), "the application accepts it: not a case for this test"

    with pytest.raises(helm_python.HelmValuesError) as error:
        render({"config": {variable: value}})

    assert f"/config/{variable}" in str(error.value)


# Accepted by the application, at and around the limits; the schema must let them through.
APPLICATION_ACCEPTS = [
    ("GAME_TTL_SECONDS", 1),
    ("GAME_TTL_SECONDS", "1"),
    ("GAME_TTL_SECONDS", 9007199254740991),
    ("DEADLINE_HEARTBEAT_MS", 10),
    ("DEADLINE_HEARTBEAT_MS", "010"),
    ("DEADLINE_LEASE_MS", 1000),
    ("DEADLINE_LEASE_MS", "1000"),
    ("OTEL_METRIC_EXPORT_INTERVAL_MILLIS", 1),
    ("OTEL_METRICS_POLL_INTERVAL_SECONDS", "1"),
    ("TURN_TIMEOUT_SECONDS", 0.001),
    ("TURN_TIMEOUT_SECONDS", "0.001"),
    ("TURN_TIMEOUT_SECONDS", 45),
    ("HAND_ACK_TIMEOUT_SECONDS", ".5"),
    ("HAND_ACK_TIMEOUT_SECONDS", "2.25"),
    ("DATABASE_PORT", 1),
    ("DATABASE_PORT", "65535"),
    ("CORS_MAX_AGE", 0),
    ("CORS_MAX_AGE", "0"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer a=b, x-tenant = tavolo,"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "empty="),
    ("DUMMY_GAME", "Yes"),
    ("DUMMY_GAME", False),
    ("CORS_ALLOW_CREDENTIALS", "oN"),
    ("LOG_LEVEL", "Warning"),
    ("DATABASE_ENGINE", "PostgreSQL"),
    ("GAME_ADDR", "game.example:50052"),
    ("BOT_THINK_MS", 0),
    ("BOT_THINK_MS", "1500"),
    ("ABANDON_AFTER_TIMEOUTS", 0),
    ("ABANDON_AFTER_TIMEOUTS", "3"),
    ("LOG_RETENTION_DAYS", 30),
    ("LOG_RETENTION_DAYS", "365"),
    ("BOTS_ADDR", "bots.example:50055"),
]


@pytest.mark.parametrize(("variable", "value"), APPLICATION_ACCEPTS)
def test_schema_accepts_config_the_application_accepts(
    render: Callable[..., Rendered], variable: str, value: Any
) -> None:
    data = render({"config": {variable: value}}).get("ConfigMap", "rel-tavolo")["data"]

    assert data[variable] == env_text(value)
    Settings.from_env(data)


# Candidates for every variable: none that the schema accepts may be refused by the application.
CANDIDATES: list[Any] = [
    "", " ", "0", "00", "1", "5", "9", "10", "999", "0999", "1000", "30000", "65535", "65536",
    "99999", "-1", "+1", "1.5", "0.5", ".5", "5.", "0.001", "0.0009", "0.0", "1e3", "inf", "nan",
    "abc", "true", "OFF", "Yes", "maybe", "debug", "Warning", "loud", "postgres", "PostgreSQL",
    "sqlite", "foo", "a=b", "a=b,c=d", " a = b , ", "=b", "a=b,foo", ",,", "host:50051", "host:0",
    "host:99999", ":50051", "host", "host:", "[::1]:50051", "(", "[a-z]+",
    0, 1, 5, 10, 500, 999, 1000, 65535, 65536, -1, 0.0001, 0.001, 0.5, 1.5, 1e19, True, False,
]


@pytest.fixture(scope="module")
def config_validator(schema: dict[str, Any]) -> jsonschema.Draft7Validator:
    """The schema of config alone (with the definitions it refers to)."""
    return jsonschema.Draft7Validator({**schema["properties"]["config"], "definitions": schema["definitions"]})


@pytest.mark.parametrize(
    "variable",
    sorted(set(json.loads((CHART / "values.schema.json").read_text())["properties"]["config"]["properties"])
           - NOT_CHECKABLE_BY_THE_SCHEMA),
)
def test_the_application_accepts_whatever_the_schema_accepts(
    config_validator: jsonschema.Draft7Validator, variable: str
) -> None:
    accepted_then_refused = [
        value
        for value in CANDIDATES
        if config_validator.is_valid({variable: value}) and application_refuses(variable, value)
    ]

    assert accepted_then_refused == []


@pytest.mark.parametrize("value", ["10.0.0.1/8", "10.0.0.256", "1"])
def test_addresses_the_schema_cannot_check_are_left_to_the_application(
    render: Callable[..., Rendered], value: str
) -> None:
    """The schema takes what looks like addresses and networks; the application checks them."""
    data = render({"config": {"FORWARDED_ALLOW_IPS": value}}).get("ConfigMap", "rel-tavolo")["data"]

    assert application_refuses("FORWARDED_ALLOW_IPS", data["FORWARDED_ALLOW_IPS"])


def test_a_bad_cors_regex_is_left_to_the_application(render: Callable[..., Rendered]) -> None:
    """The one rule the schema cannot check: it renders, and the application refuses it at start."""
    data = render({"config": {"CORS_ALLOW_ORIGIN_REGEX": "("}}).get("ConfigMap", "rel-tavolo")["data"]

    assert application_refuses("CORS_ALLOW_ORIGIN_REGEX", data["CORS_ALLOW_ORIGIN_REGEX"])
