"""Every variable of the README's configuration table can be set from the chart's values and
reaches the environment of every tavolo container; secrets travel in Secrets only."""

from __future__ import annotations

import json
import os
import pathlib
import re
from collections.abc import Callable
from typing import Any

import helm_python
import pytest
import yaml

from services.config import Settings

from .support import CHART, COMPONENTS, REPO, Rendered, SecretKeyRef, table_names

# The table lives in README.md. CHART_TESTS_CONFIG_TABLE names another markdown file with the same
# table, for running these tests before the README has it.
TABLE_FILE = pathlib.Path(os.environ.get("CHART_TESTS_CONFIG_TABLE") or REPO / "README.md")

NAME = re.compile(r"^[A-Z][A-Z0-9_]*(<n>_[A-Z0-9_]+)?$")
PROVIDERS = ("alpha", "beta")
# OIDC_<n>_<FIELD> comes from the n-th entry of oidc.providers.
OIDC_FIELDS = {
    "PROVIDER": "name",
    "ISSUER": "issuer",
    "CLIENT_ID": "clientId",
    "CLIENT_SECRET": "clientSecret",
    "REDIRECT_URI": "redirectUri",
    "POST_LOGIN_REDIRECT": "postLoginRedirect",
    "POST_LOGOUT_REDIRECT": "postLogoutRedirect",
}
# The secrets, which have their own values outside config.
SECRETS = {
    "REDIS_URL": (("redis", "url"), "redis://:hunter2@redis.example:6379/1"),
    "DATABASE_URL": (("database", "url"), "postgres://tavolo:hunter2@postgres.example:5432/tavolo"),
    "DATABASE_PASSWORD": (("database", "password"), "hunter2"),
    "DATABASE_LISTEN_URL": (("database", "listenUrl"), "postgres://tavolo:hunter2@postgres-rw.example/tavolo"),
    "DATABASE_READ_URL": (("database", "readUrl"), "postgres://tavolo:hunter2@postgres-ro.example/tavolo"),
    "STATS_CURSOR_SECRET": (("stats", "cursorSecret"), "hunter2-hunter2-hunter2"),
    "WEB_PUSH_VAPID_PRIVATE_KEY": (("gateway", "webPushVapidPrivateKey"), "hunter2-vapid-key"),
}
# Text settings the application parses further get values it accepts.
TEXT_SAMPLES = {
    "DATABASE_ENGINE": "postgresql",
    "GAME_REPLICAS_ADDR": "dns:///game-replicas.example.internal:50052",
    "CORS_ALLOW_ORIGIN_REGEX": r"https://[a-z]+\.example\.com",
    "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer sample,x-tenant=tavolo",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example:4318",
    "OTEL_SDK_DISABLED": "false",
    "OTEL_SEMCONV_STABILITY_OPT_IN": "http/dup",
    "LOG_FORMAT": "text",
    "FORWARDED_ALLOW_IPS": "10.244.0.0/16,fd00:10:244::/56",
    "REDIS_SENTINELS": "sentinel-0.example:26379,sentinel-1.example:26379",
    "WEB_PUSH_SUBJECT": "mailto:operators@tavolo.example",
    "ANALYSIS_WORK": "80000",
}
GATEWAY_ONLY = re.compile(r"^(OIDC_[0-9]+_CLIENT_SECRET|WEB_PUSH_VAPID_PRIVATE_KEY)$")
STATS_ONLY = {"STATS_CURSOR_SECRET"}
GRPC_PORTS = {"LOBBY_ADDR": 50051, "GAME_ADDR": 50052, "DEADLINES_ADDR": 50053, "STATS_ADDR": 50054,
              "BOTS_ADDR": 50055}
GRPC_PORTS_BY_COMPONENT = {name.removesuffix("_ADDR").lower(): port for name, port in GRPC_PORTS.items()}


# The settings of caller authentication (docs/grpc-auth.md's table) are not config keys: the chart
# sets them per component from grpcAuth (test_chart_grpc_auth.py), should the README list them.
GRPC_AUTH = set(table_names(REPO / "docs" / "grpc-auth.md"))
TABLE = [name for name in table_names(TABLE_FILE) if name not in GRPC_AUTH]


def expand(name: str) -> list[str]:
    """OIDC_<n>_X becomes OIDC_0_X and OIDC_1_X (two providers are configured)."""
    return [name.replace("<n>", str(index)) for index in range(len(PROVIDERS))] if "<n>" in name else [name]


VARIABLES = [variable for name in TABLE for variable in expand(name)]


def sample(name: str, schema: dict[str, Any]) -> tuple[Any, str]:
    """A value for config.<name> that its schema accepts, and the text the environment then holds.
    Unquoted numbers and YAML 1.1 booleans check that nothing is lost on the way."""
    kind = schema["properties"]["config"]["properties"][name].get("$ref", "#/definitions/cfgString").rsplit("/", 1)[1]
    kind = re.sub(r"(Min[0-9]+|NonZero)$", "", kind)  # cfgIntMin10 -> cfgInt, cfgPortNonZero -> cfgPort
    if name in GRPC_PORTS:
        value = f"{name.removesuffix('_ADDR').lower()}.example.internal:{GRPC_PORTS[name]}"
        return value, value
    samples: dict[str, tuple[Any, str]] = {
        "cfgInt": (1234567, "1234567"),
        "cfgSeconds": (12.5, "12.5"),
        "cfgHours": (0.0005, "0.0005"),
        "cfgPort": (9090 if name == "APP_PORT" else 6543, "9090" if name == "APP_PORT" else "6543"),
        "cfgBool": ("on", "on"),
        "cfgLogLevel": ("DEBUG", "DEBUG"),
    }
    text = TEXT_SAMPLES.get(name, f"{name.lower()}-value")
    return samples.get(kind, (text, text))


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads((CHART / "values.schema.json").read_text())


@pytest.fixture(scope="module")
def everything_set(render: Callable[..., Rendered], schema: dict[str, Any]) -> tuple[Rendered, dict[str, str]]:
    """The chart rendered with every table variable set, and the value each should have."""
    values: dict[str, Any] = {"config": {}, "gateway": {"port": 9090}, "metrics": {"port": 6543},
                              "oidc": {"providers": []}}
    providers: list[dict[str, Any]] = [{"name": name} for name in PROVIDERS]
    expected: dict[str, str] = {}
    for name in TABLE:
        if name.startswith("OIDC_<n>_"):
            field = OIDC_FIELDS[name.removeprefix("OIDC_<n>_")]
            for index, provider in enumerate(providers):
                provider.setdefault(field, f"{field}-of-{provider['name']}")
                expected[name.replace("<n>", str(index))] = provider[field]
        elif name in SECRETS:
            (section, key), value = SECRETS[name]
            values.setdefault(section, {})[key] = value
            expected[name] = value
        elif name in schema["properties"]["config"]["properties"]:
            values["config"][name], expected[name] = sample(name, schema)
    values["oidc"]["providers"] = providers
    return render(values), expected


def test_readme_has_the_configuration_table() -> None:
    assert TABLE, f"no `| Variable | Default | Meaning |` table in {TABLE_FILE.name}"
    assert [name for name in TABLE if not NAME.match(name)] == []
    assert len(TABLE) == len(set(TABLE))


def test_every_table_variable_has_a_place_in_the_values(schema: dict[str, Any]) -> None:
    config = set(schema["properties"]["config"]["properties"])
    unplaced = [
        name
        for name in TABLE
        if name not in config
        and name not in SECRETS
        and not (name.startswith("OIDC_<n>_") and name.removeprefix("OIDC_<n>_") in OIDC_FIELDS)
    ]

    assert unplaced == []


def test_config_offers_only_table_variables() -> None:
    config = yaml.safe_load((CHART / "values.yaml").read_text())["config"]

    assert sorted(config) == sorted(name for name in TABLE if name not in SECRETS and not name.startswith("OIDC_"))


def test_each_config_key_is_documented_next_to_its_default() -> None:
    lines = (CHART / "values.yaml").read_text().splitlines()
    start = lines.index("config:")
    keys = yaml.safe_load((CHART / "values.yaml").read_text())["config"]
    for key in keys:
        (index,) = [i for i, line in enumerate(lines[start:], start) if line.startswith(f"  {key}:")]
        assert lines[index - 1].lstrip().startswith("#"), f"config.{key} has no comment"


@pytest.mark.parametrize("variable", VARIABLES)
def test_variable_reaches_the_containers_that_read_it(everything_set: tuple[Rendered, dict[str, str]], variable: str) -> None:
    """Every component and the migration get every setting, but for the secrets, which go only
    to who reads them: the OIDC client secrets and the VAPID key to the gateway, the page-token key to the stats
    pods, Postgres to its owners (lobby, game, stats, bots) and the migration, Redis to the
    gateway, game and deadlines (lobby, stats and bots keep nothing in Redis)."""
    rendered, expected = everything_set
    assert variable in expected, f"{variable} cannot be set from the chart's values"
    if GATEWAY_ONLY.match(variable):
        readers = ["Deployment/gateway"]
    elif variable in STATS_ONLY:
        readers = ["Deployment/stats"]
    elif variable in ("DATABASE_URL", "DATABASE_PASSWORD"):
        readers = ["Deployment/lobby", "Deployment/game", "Deployment/stats", "Deployment/bots", "Job/migrate"]
    elif variable == "DATABASE_LISTEN_URL":  # the lobby LISTENs
        readers = ["Deployment/lobby"]
    elif variable == "DATABASE_READ_URL":  # the stats read history
        readers = ["Deployment/stats"]
    elif variable == "REDIS_URL":
        readers = ["Deployment/gateway", "Deployment/game", "Deployment/deadlines"]
    else:
        readers = [*(f"Deployment/{component}" for component in COMPONENTS), "Job/migrate"]
    seen = {}
    for owner, container in rendered.containers():
        if owner["kind"] in ("Deployment", "Job"):
            component = owner["metadata"]["labels"]["app.kubernetes.io/component"]
            seen[f"{owner['kind']}/{component}"] = rendered.env(container).get(variable)

    assert {owner: value for owner, value in seen.items() if value is not None} == dict.fromkeys(readers, expected[variable])


def test_unset_values_leave_the_application_defaults(default_render: Rendered) -> None:
    """Only what the chart must decide is set: the gateway port, the metrics port and the
    services' addresses (their headless Services; the game's is where the gateways find every
    game replica too, so GAME_REPLICAS_ADDR follows GAME_ADDR); and JSON logs, which log
    pipelines expect."""
    config_map = default_render.get("ConfigMap", "rel-tavolo")

    assert config_map["data"] == {
        "APP_PORT": "8080",
        "METRICS_PORT": "9464",
        "LOG_FORMAT": "json",
        "LOBBY_ADDR": "rel-tavolo-lobby-replicas:50051",
        "GAME_ADDR": "rel-tavolo-game-replicas:50052",
        "DEADLINES_ADDR": "rel-tavolo-deadlines-replicas:50053",
        "STATS_ADDR": "rel-tavolo-stats-replicas:50054",
        "BOTS_ADDR": "rel-tavolo-bots-replicas:50055",
    }
    assert default_render.get("Secret", "rel-tavolo").get("data") is None


PRIVATE_RANGES = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"


def test_with_the_ingress_the_gateway_believes_the_forwarded_headers_of_the_pod_network(
        render: Callable[..., Rendered]) -> None:
    """The Ingress terminates TLS: its controller's X-Forwarded-Proto must be believed, or the
    session cookie loses Secure. Its pods connect from the cluster's (private) pod network."""
    rendered = render({"ingress": {"enabled": True}})
    config_map = rendered.get("ConfigMap", "rel-tavolo")["data"]

    assert config_map["FORWARDED_ALLOW_IPS"] == PRIVATE_RANGES
    assert rendered.component_env("gateway")["FORWARDED_ALLOW_IPS"] == PRIVATE_RANGES
    assert Settings.from_env(config_map).forwarded_allow_ips == tuple(PRIVATE_RANGES.split(","))


def test_a_set_forwarded_allow_ips_wins_over_the_ingress_range(render: Callable[..., Rendered]) -> None:
    rendered = render({"ingress": {"enabled": True}, "config": {"FORWARDED_ALLOW_IPS": "10.244.0.0/16"}})

    assert rendered.get("ConfigMap", "rel-tavolo")["data"]["FORWARDED_ALLOW_IPS"] == "10.244.0.0/16"


def test_secrets_are_kept_out_of_the_config_map(everything_set: tuple[Rendered, dict[str, str]]) -> None:
    rendered, _ = everything_set
    config_map = rendered.get("ConfigMap", "rel-tavolo")["data"]
    secret = rendered.get("Secret", "rel-tavolo")["data"]
    secret_names = {
        "REDIS_URL", "DATABASE_URL", "DATABASE_PASSWORD", "OIDC_0_CLIENT_SECRET", "OIDC_1_CLIENT_SECRET",
        "STATS_CURSOR_SECRET", "DATABASE_LISTEN_URL", "DATABASE_READ_URL", "WEB_PUSH_VAPID_PRIVATE_KEY",
    }

    assert secret_names & set(config_map) == set()
    assert set(secret) == secret_names
    for _, container in rendered.containers():
        assert all("secretRef" not in source for source in container.get("envFrom", []))
        for item in container.get("env", []):
            if item["name"] in secret_names:
                assert set(item["valueFrom"]) == {"secretKeyRef"}, item["name"]


def test_existing_secrets_are_referenced_not_copied(production_render: Rendered) -> None:
    env = production_render.component_env("stats")
    gateway = production_render.component_env("gateway")
    game = production_render.component_env("game")

    assert game["REDIS_URL"] == gateway["REDIS_URL"] == SecretKeyRef("tavolo-redis", "url")
    assert env["DATABASE_URL"] == game["DATABASE_URL"] == SecretKeyRef("tavolo-db-app", "uri")
    assert "DATABASE_URL" not in gateway and "REDIS_URL" not in env
    for component in ("lobby", "bots"):  # Postgres alone
        own = production_render.component_env(component)
        assert own["DATABASE_URL"] == SecretKeyRef("tavolo-db-app", "uri")
        assert "REDIS_URL" not in own
    assert "DATABASE_PASSWORD" not in env
    assert gateway["OIDC_0_CLIENT_SECRET"] == SecretKeyRef("tavolo-oidc", "keycloak-client-secret")
    assert gateway["OIDC_1_CLIENT_SECRET"] == SecretKeyRef("tavolo-oidc", "google-client-secret")
    assert "OIDC_0_CLIENT_SECRET" not in env
    assert env["STATS_CURSOR_SECRET"] == SecretKeyRef("tavolo-stats", "cursor-secret")
    assert "STATS_CURSOR_SECRET" not in gateway
    assert production_render.get("Secret", "rel-tavolo").get("data") is None


def test_without_a_vapid_key_the_gateway_has_push_off(default_render: Rendered) -> None:
    assert "WEB_PUSH_VAPID_PRIVATE_KEY" not in default_render.component_env("gateway")


def test_the_vapid_key_can_come_from_an_existing_secret(render: Callable[..., Rendered]) -> None:
    # Not in ci/production-values.yaml: the upgrade tests render those with older charts.
    rendered = render({"gateway": {"webPushExistingSecret": {"name": "tavolo-web-push", "key": "vapid"}},
                       "config": {"WEB_PUSH_SUBJECT": "mailto:operators@tavolo.example"}})
    assert rendered.component_env("gateway")["WEB_PUSH_VAPID_PRIVATE_KEY"] == SecretKeyRef("tavolo-web-push", "vapid")
    for component in ("lobby", "game", "stats"):
        assert "WEB_PUSH_VAPID_PRIVATE_KEY" not in rendered.component_env(component)
    assert "WEB_PUSH_VAPID_PRIVATE_KEY" not in (rendered.get("Secret", "rel-tavolo").get("data") or {})


def test_a_vapid_key_given_twice_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="webPushVapidPrivateKey or webPushExistingSecret"):
        render({"gateway": {"webPushVapidPrivateKey": "key", "webPushExistingSecret": {"name": "s", "key": "k"}}})


def test_without_a_cursor_secret_the_stats_uses_its_development_key(default_render: Rendered) -> None:
    assert "STATS_CURSOR_SECRET" not in default_render.component_env("stats")
    assert "public development key" in default_render.notes


def test_database_password_can_come_from_an_existing_secret(render: Callable[..., Rendered]) -> None:
    rendered = render({
        "config": {"DATABASE_HOST": "postgres.example"},
        "database": {"existingSecret": {"name": "pg", "urlKey": "", "passwordKey": "password"}},
    })
    env = rendered.component_env("stats")

    assert env["DATABASE_PASSWORD"] == SecretKeyRef("pg", "password")
    assert "DATABASE_URL" not in env
    assert env["DATABASE_HOST"] == "postgres.example"
    assert rendered.of_kind("Job"), "the DATABASE_* parts configure a database: the migration runs"


def test_the_listen_and_read_urls_can_come_from_an_existing_secret(render: Callable[..., Rendered]) -> None:
    rendered = render({"database": {"existingSecret": {
        "name": "pg", "urlKey": "pooled", "listenUrlKey": "direct", "readUrlKey": "replica"}}})

    assert rendered.component_env("lobby")["DATABASE_LISTEN_URL"] == SecretKeyRef("pg", "direct")
    assert rendered.component_env("stats")["DATABASE_READ_URL"] == SecretKeyRef("pg", "replica")
    assert "DATABASE_READ_URL" not in rendered.component_env("lobby")
    assert "DATABASE_LISTEN_URL" not in rendered.component_env("game")
    (job,) = [container for owner, container in rendered.containers() if owner["kind"] == "Job"]
    assert {"DATABASE_LISTEN_URL", "DATABASE_READ_URL"} & set(rendered.env(job)) == set()
    assert rendered.get("Secret", "rel-tavolo").get("data") is None


def test_a_listen_url_given_twice_is_refused(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError, match="set listenUrl or existingSecret"):
        render({"database": {"listenUrl": "postgres://tavolo@db/tavolo",
                             "existingSecret": {"name": "pg", "listenUrlKey": "direct"}}})


def test_extra_env_is_added_globally_and_per_component(render: Callable[..., Rendered]) -> None:
    rendered = render({
        "config": {"LOG_LEVEL": "INFO"},
        "extraEnv": [{"name": "LOG_LEVEL", "value": "DEBUG"}, {"name": "EVERYWHERE", "value": "1"}],
        "game": {"extraEnv": [{"name": "OTEL_EXPORTER_OTLP_HEADERS", "valueFrom": {"secretKeyRef": {"name": "otel", "key": "headers"}}}]},
    })

    for component in COMPONENTS:
        env = rendered.component_env(component)
        assert env["EVERYWHERE"] == "1"
        assert env["LOG_LEVEL"] == "DEBUG", "extraEnv wins over the ConfigMap"
        assert ("OTEL_EXPORTER_OTLP_HEADERS" in env) == (component == "game")
    assert rendered.component_env("game")["OTEL_EXPORTER_OTLP_HEADERS"] == SecretKeyRef("otel", "headers")


# Stand-ins for the values of the Secrets that exist before the chart is installed.
EXISTING_SECRETS = {
    "REDIS_URL": "redis://redis.example:6379/0",
    "DATABASE_URL": "postgresql://tavolo:secret@postgres.example/tavolo",
    "DATABASE_PASSWORD": "secret",
    "STATS_CURSOR_SECRET": "existing-cursor-secret",
    "DATABASE_LISTEN_URL": "postgresql://tavolo:secret@postgres-rw.example/tavolo",
    "DATABASE_READ_URL": "postgresql://tavolo:secret@postgres-ro.example/tavolo",
}


@pytest.mark.parametrize("values_name", ["everything set", "default", "production"])
def test_the_application_accepts_the_rendered_settings(
    request: pytest.FixtureRequest, values_name: str
) -> None:
    """services.config.Settings reads each container's environment without a ConfigError."""
    if values_name == "everything set":
        rendered, _ = request.getfixturevalue("everything_set")
    else:
        rendered = request.getfixturevalue(f"{values_name}_render")
    for owner, container in rendered.containers():
        if owner["kind"] == "Pod":
            continue
        env = {
            name: (EXISTING_SECRETS.get(name, "client-secret") if isinstance(value, SecretKeyRef) else value)
            for name, value in rendered.env(container).items()
        }
        settings = Settings.from_env(env)
        component = owner["metadata"]["labels"]["app.kubernetes.io/component"]
        if component in GRPC_PORTS_BY_COMPONENT:
            assert getattr(settings, f"{component}_addr").endswith(f":{GRPC_PORTS_BY_COMPONENT[component]}")
