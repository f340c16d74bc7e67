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

from .support import CHART, COMPONENTS, PRODUCTION_VALUES, Rendered

REDIS = {"redis": {"url": "redis://redis.example:6379/0"}}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads((CHART / "values.schema.json").read_text())


@pytest.mark.parametrize("path", ["values.yaml", "ci/production-values.yaml"])
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


@pytest.mark.parametrize("component", COMPONENTS)
def test_several_replicas_render_with_redis(render: Callable[..., Rendered], component: str) -> None:
    values: dict[str, Any] = {**REDIS, "database": {"url": "postgres://db/tavolo"}, component: {"replicas": 3}}

    assert render(values).component("Deployment", component)["spec"]["replicas"] == 3


def test_production_values_scale_every_component() -> None:
    values = yaml.safe_load(PRODUCTION_VALUES.read_text())

    for component in COMPONENTS:
        settings = values[component]
        assert settings.get("replicas", 1) > 1 or settings["autoscaling"]["enabled"], component
