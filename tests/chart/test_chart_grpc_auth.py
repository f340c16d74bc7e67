"""Who may call the gRPC services (docs/grpc-auth.md), as the chart wires it: a bearer token per
component from a Secret (each pod mounts only its own), the callers file every gRPC service
reads (only hashes in it), and opt-in mutual TLS with cert-manager or named Secrets, the probes
then moving to a plaintext health port."""

from __future__ import annotations

import copy
import hashlib
import posixpath
from collections.abc import Callable
from typing import Any

import helm_python
import jsonschema
import pytest
import yaml

from services.config import Settings
from services.rpc.callers import BUILT_IN_METHODS, READ_ONLY_METHODS, Callers

from .support import (
    CHART,
    COMPONENTS,
    GIVEN_TOKENS,
    GRPC_COMPONENTS,
    KUBE_VERSION,
    NAMESPACE,
    RELEASE,
    REPO,
    TEST_TOKENS,
    Rendered,
    table_names,
    validate,
)

TOKENS = TEST_TOKENS
GIVEN = GIVEN_TOKENS
ISSUER = {"name": "internal-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}
EXTRA = [
    {"name": "reporting", "tokenSha256": hashlib.sha256(b"reporting-token").hexdigest().upper(),
     "methods": ["tavolo.stats.v1.StatsService/GetLeaderboard", "tavolo.lobby.v1.LobbyService/*"]},
    {"name": "auditor", "certificate": "auditor.security.svc"},
]
TLS = {"grpcAuth": {"tokens": {"values": TOKENS}, "callers": EXTRA,
                    "tls": {"enabled": True, "certManager": {"issuerRef": ISSUER}}}}
SECRET_NAMES = {component: f"{component}-certificate" for component in COMPONENTS}
EXISTING = {"grpcAuth": {"tokens": {"existingSecret": "platform-grpc-tokens"}}}
# Who calls each service (services.rpc.callers.BUILT_IN_METHODS; talk and players are the lobby's).
CALLERS_OF = {"lobby": {"gateway", "stats"}, "game": {"gateway", "lobby", "deadlines", "bots"},
              "deadlines": {"game"}, "stats": {"gateway", "game"}, "bots": {"lobby"}}
CALLERS_CONFIG_MAP = f"{RELEASE}-tavolo-grpc-callers"
PORTS = {"lobby": 50051, "game": 50052, "deadlines": 50053, "stats": 50054, "bots": 50055}
TOKENS_SECRET = f"{RELEASE}-tavolo-grpc-tokens"


# -- reading a rendering -------------------------------------------------------------------------


def _pod(rendered: Rendered, component: str) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = rendered.component("Deployment", component)["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    return spec, container


def _files(rendered: Rendered, component: str) -> dict[str, tuple[str, str, str]]:
    """Where each file the container can read under its mounts comes from:
    path -> (kind, ConfigMap or Secret name, key)."""
    spec, container = _pod(rendered, component)
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    files: dict[str, tuple[str, str, str]] = {}
    for mount in container["volumeMounts"]:
        volume = volumes[mount["name"]]
        for source in volume.get("projected", {}).get("sources", []):
            ((kind, ref),) = source.items()
            assert "items" in ref, f"{component}: {kind}/{ref['name']} mounted whole"
            for item in ref["items"]:
                path = posixpath.join(mount["mountPath"], item["path"])
                files[path] = ("ConfigMap" if kind == "configMap" else "Secret", ref["name"], item["key"])
    return files


def _grpc_env(rendered: Rendered, component: str) -> dict[str, Any]:
    return {name: value for name, value in rendered.component_env(component).items() if name.startswith("GRPC_")}


def _file_of(rendered: Rendered, component: str, variable: str) -> tuple[str, str, str]:
    path = rendered.component_env(component)[variable]
    files = _files(rendered, component)
    assert path in files, f"{component}: {variable}={path} is not a mounted file"
    return files[path]


def _callers(rendered: Rendered) -> list[dict[str, Any]]:
    text = rendered.get("ConfigMap", CALLERS_CONFIG_MAP)["data"]["callers.yaml"]
    callers = yaml.safe_load(text)["callers"]
    assert isinstance(callers, list)
    return callers


def _by_name(rendered: Rendered) -> dict[str, dict[str, Any]]:
    return {caller["name"]: caller for caller in _callers(rendered)}


def _token(rendered: Rendered, component: str) -> str:
    _, name, key = _file_of(rendered, component, "GRPC_TOKEN_FILE")
    value = rendered.secret_value(name, key)
    assert isinstance(value, str)
    return value


def _probes(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {probe: container[probe]["grpc"] for probe in ("startupProbe", "readinessProbe", "livenessProbe")}


# -- tokens, on by default -------------------------------------------------------------------------


def test_every_documented_setting_is_wired_but_the_server_name(tls_render: Rendered) -> None:
    """The chart sets every variable of docs/grpc-auth.md's table but GRPC_TLS_SERVER_NAME: the
    callers expect each service's own certificate name (<SERVICE>_TLS_SERVER_NAME), so no name
    shared by all is needed (extraEnv can still set it)."""
    documented = set(table_names(REPO / "docs" / "grpc-auth.md"))
    wired = {name for component in COMPONENTS for name in tls_render.component_env(component)
             if name.startswith("GRPC_") or name.endswith("_TLS_SERVER_NAME")}

    assert documented - wired == {"GRPC_TLS_SERVER_NAME"}
    assert wired <= documented


@pytest.mark.parametrize("component", COMPONENTS)
def test_each_component_mounts_its_own_token_only(default_render: Rendered, component: str) -> None:
    kind, name, key = _file_of(default_render, component, "GRPC_TOKEN_FILE")

    assert (kind, name, key) == ("Secret", TOKENS_SECRET, component)
    secrets = {(name, key) for kind, name, key in _files(default_render, component).values() if kind == "Secret"}
    assert secrets == {(TOKENS_SECRET, component)}, "no other component's key"


@pytest.mark.parametrize("component", GRPC_COMPONENTS)
def test_each_service_reads_the_callers_file(default_render: Rendered, component: str) -> None:
    assert _file_of(default_render, component, "GRPC_CALLERS_FILE") == ("ConfigMap", CALLERS_CONFIG_MAP, "callers.yaml")
    assert set(_grpc_env(default_render, component)) == {"GRPC_CALLERS_FILE", "GRPC_TOKEN_FILE"}


def test_the_gateway_serves_no_grpc_so_reads_no_callers_file(default_render: Rendered) -> None:
    assert set(_grpc_env(default_render, "gateway")) == {"GRPC_TOKEN_FILE"}
    assert all(kind == "Secret" for kind, _, _ in _files(default_render, "gateway").values())


def test_the_callers_file_lists_the_built_in_callers_by_their_tokens_hash(default_render: Rendered) -> None:
    callers = _callers(default_render)

    assert [caller["name"] for caller in callers] == list(COMPONENTS)
    for caller in callers:
        assert set(caller) == {"name", "token_sha256"}
        token = _token(default_render, caller["name"])
        assert caller["token_sha256"] == hashlib.sha256(token.encode()).hexdigest()


def test_given_tokens_are_stored_and_hashed(render: Callable[..., Rendered]) -> None:
    rendered = render(GIVEN)

    secret = rendered.get("Secret", TOKENS_SECRET)
    assert secret["type"] == "Opaque"
    for component, token in TOKENS.items():
        assert rendered.secret_value(TOKENS_SECRET, component) == token
        assert _token(rendered, component) == token
        assert _by_name(rendered)[component]["token_sha256"] == hashlib.sha256(token.encode()).hexdigest()


def test_the_callers_file_holds_no_token(render: Callable[..., Rendered]) -> None:
    rendered = render(GIVEN)
    text = rendered.get("ConfigMap", CALLERS_CONFIG_MAP)["data"]["callers.yaml"]

    assert not any(token in text for token in TOKENS.values())
    for owner, container in rendered.containers():
        assert not any(token in yaml.safe_dump(container) for token in TOKENS.values()), owner["kind"]


def _checksums(rendered: Rendered) -> dict[str, str]:
    return {component: rendered.component("Deployment", component)["spec"]["template"]["metadata"]
            ["annotations"]["checksum/grpc-auth"] for component in COMPONENTS}


@pytest.mark.parametrize("component", COMPONENTS)
def test_pods_roll_when_their_token_or_their_callers_change(render: Callable[..., Rendered], component: str) -> None:
    """The processes read their token and the callers file at start. The gateway serves no gRPC:
    only its own token rolls it."""
    other = copy.deepcopy(GIVEN)
    other["grpcAuth"]["tokens"]["values"][component] = f"another-{component}-token-0123456789"
    before, after = _checksums(render(GIVEN)), _checksums(render(other))

    rolled = {name for name in COMPONENTS if before[name] != after[name]}
    assert rolled == ({component} | set(GRPC_COMPONENTS))


def test_an_outside_caller_rolls_the_services_only(render: Callable[..., Rendered]) -> None:
    before = _checksums(render(GIVEN))
    after = _checksums(render({"grpcAuth": {**GIVEN["grpcAuth"], "callers": EXTRA}}))

    assert {name for name in COMPONENTS if before[name] != after[name]} == set(GRPC_COMPONENTS)


def test_token_files_are_readable_by_the_pods_group_only(default_render: Rendered, render: Callable[..., Rendered]) -> None:
    spec, _ = _pod(default_render, "game")
    (volume,) = [volume for volume in spec["volumes"] if volume["name"] == "grpc-auth"]
    assert volume["projected"]["defaultMode"] == 0o440
    assert spec["securityContext"]["fsGroup"] == 10001

    # Without an fsGroup the files would be root's: Kubernetes' default mode (0644) then.
    rendered = render({"podSecurityContext": {"fsGroup": None}})
    spec, _ = _pod(rendered, "game")
    assert "fsGroup" not in spec["securityContext"]
    (volume,) = [volume for volume in spec["volumes"] if volume["name"] == "grpc-auth"]
    assert "defaultMode" not in volume["projected"]


def test_the_migration_and_the_helm_test_get_no_credentials(render: Callable[..., Rendered]) -> None:
    rendered = render({"database": {"url": "postgres://tavolo:secret@postgres.example:5432/tavolo"}})

    for owner, spec in rendered.pod_specs():
        if owner["kind"] == "Deployment":
            continue
        assert "grpc-auth" not in {volume["name"] for volume in spec["volumes"]}, owner["kind"]
        for container in spec["containers"]:
            assert not [name for name in rendered.env(container) if name.startswith("GRPC_")], owner["kind"]


# -- an existing Secret ------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [EXISTING, {}], ids=["existingSecret", "offline defaults"])
def test_tokens_of_a_secret_the_chart_does_not_make_are_hashed_by_the_services(
        render: Callable[..., Rendered], values: dict[str, Any]) -> None:
    """With an existingSecret, or rendered offline with no token (helm template, Argo CD), the
    values hold no token and no hash: each service mounts its own callers' keys (and their
    optional second keys, for a rotation) and the callers file names those files."""
    rendered = render(values, tokens=False)
    secret = "platform-grpc-tokens" if values else TOKENS_SECRET

    assert [obj for obj in rendered.of_kind("Secret") if obj["metadata"]["name"] == secret] == []
    for component in COMPONENTS:
        assert _file_of(rendered, component, "GRPC_TOKEN_FILE") == ("Secret", secret, component)
        assert "token_sha256" not in _by_name(rendered)[component]
    for service, callers in CALLERS_OF.items():
        mounted = {key for kind, name, key in _files(rendered, service).values() if kind == "Secret"}
        assert mounted == {service} | callers | {f"{caller}.second" for caller in callers}
        spec, _ = _pod(rendered, service)
        (volume,) = [volume for volume in spec["volumes"] if volume["name"] == "grpc-auth"]
        optional = [source["secret"] for source in volume["projected"]["sources"]
                    if source.get("secret", {}).get("optional")]
        assert {item["key"] for (source,) in [optional] for item in source["items"]} == {
            f"{caller}.second" for caller in callers}
        for caller in callers:
            paths = _by_name(rendered)[caller]["token_files"]
            assert [_files(rendered, service)[path][2] for path in paths] == [caller, f"{caller}.second"]
    assert secret in rendered.notes and "create secret generic" in rendered.notes
    for obj in rendered.objects:
        validate(obj)


def test_some_tokens_but_not_all_fail_an_offline_render(render: Callable[..., Rendered]) -> None:
    with pytest.raises(helm_python.HelmError) as error:
        render({"grpcAuth": {"tokens": {"values": {"game": TOKENS["game"]}}}}, tokens=False)

    assert "Give all the tokens in grpcAuth.tokens.values or none" in str(error.value)


def test_a_rotating_outside_caller_has_two_hashes(render: Callable[..., Rendered]) -> None:
    old, new = (hashlib.sha256(token).hexdigest() for token in (b"old", b"new"))
    rendered = render({"grpcAuth": {"callers": [{"name": "reporting", "tokenSha256": [old, new.upper()]}]}})

    assert _by_name(rendered)["reporting"]["token_sha256"] == [old, new]
    callers = Callers.parse(yaml.safe_load(rendered.get("ConfigMap", CALLERS_CONFIG_MAP)["data"]["callers.yaml"]))
    assert callers.by_token("old") is callers.by_token("new") is not None


# -- callers from outside the release ------------------------------------------------------------------


def test_extra_callers_join_the_callers_file(render: Callable[..., Rendered]) -> None:
    callers = _by_name(render({"grpcAuth": {"callers": EXTRA}}))

    assert list(callers)[len(COMPONENTS):] == ["reporting", "auditor"]
    assert callers["reporting"] == {
        "name": "reporting",
        "token_sha256": EXTRA[0]["tokenSha256"].lower(),
        "methods": EXTRA[0]["methods"],
    }
    # Without methods: history and ratings only (the services' rule, not the chart's).
    assert callers["auditor"] == {"name": "auditor", "certificate": "auditor.security.svc"}


def test_the_callers_file_quotes_what_yaml_would_misread(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpcAuth": {"callers": [{"name": "true", "certificate": "a: b", "methods": ["*"]}]}})

    assert _by_name(rendered)["true"] == {"name": "true", "certificate": "a: b", "methods": ["*"]}


# -- mutual TLS ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_render(render: Callable[..., Rendered]) -> Rendered:
    return render(TLS)


def test_tls_objects_are_valid(tls_render: Rendered) -> None:
    for obj in tls_render.objects:
        validate(obj)


def test_the_certificate_schema_rejects_a_malformed_certificate(tls_render: Rendered) -> None:
    certificate = copy.deepcopy(tls_render.component("Certificate", "game"))
    certificate["spec"]["usages"] = ["server auth", "client authentication"]

    with pytest.raises(jsonschema.ValidationError, match="client authentication"):
        validate(certificate)


@pytest.mark.parametrize("component", COMPONENTS)
def test_cert_manager_issues_each_component_a_certificate_for_both_ends(tls_render: Rendered, component: str) -> None:
    certificate = tls_render.component("Certificate", component)["spec"]
    service = f"{RELEASE}-tavolo-{component}"

    assert certificate["issuerRef"] == ISSUER
    assert certificate["commonName"] == component
    assert {"server auth", "client auth"} <= set(certificate["usages"])
    assert certificate["dnsNames"] == [service, f"{service}.{NAMESPACE}", f"{service}.{NAMESPACE}.svc"]
    assert certificate["privateKey"]["rotationPolicy"] == "Always"
    if component != "gateway":
        # its callers dial its headless Service, which no certificate need hold, and expect the
        # name it holds (the game's certificates are checked so at each replica's address too)
        env = tls_render.component_env("gateway" if component != "deadlines" else "game")
        assert env[f"{component.upper()}_ADDR"] == f"{service}-replicas:{PORTS[component]}"
        assert env[f"{component.upper()}_TLS_SERVER_NAME"] == f"{service}.{NAMESPACE}.svc"
        assert env[f"{component.upper()}_TLS_SERVER_NAME"] in certificate["dnsNames"]
    # the name the callers file knows it by is too
    assert _by_name(tls_render)[component]["certificate"] in certificate["dnsNames"]
    for variable, key in (("GRPC_TLS_CERT_FILE", "tls.crt"), ("GRPC_TLS_KEY_FILE", "tls.key"), ("GRPC_TLS_CA_FILE", "ca.crt")):
        assert _file_of(tls_render, component, variable) == ("Secret", certificate["secretName"], key)


def test_with_tls_the_built_in_callers_carry_a_token_and_a_certificate(tls_render: Rendered) -> None:
    callers = _by_name(tls_render)

    for component in COMPONENTS:
        assert callers[component] == {
            "name": component,
            "token_sha256": hashlib.sha256(TOKENS[component].encode()).hexdigest(),
            "certificate": f"{RELEASE}-tavolo-{component}.{NAMESPACE}.svc",
        }
    assert {"reporting", "auditor"} <= set(callers)


@pytest.mark.parametrize("component", GRPC_COMPONENTS)
def test_with_tls_the_probes_use_the_plaintext_health_port(tls_render: Rendered, component: str) -> None:
    _, container = _pod(tls_render, component)
    ports = {port["name"]: port["containerPort"] for port in container["ports"]}

    assert ports["health"] == 50050
    assert _grpc_env(tls_render, component)["GRPC_HEALTH_PORT"] == "50050"
    assert _probes(container) == {
        "startupProbe": {"port": 50050, "service": "liveness"},
        "readinessProbe": {"port": 50050},
        "livenessProbe": {"port": 50050, "service": "liveness"},
    }
    # Only the kubelet and `helm test` ask it: the Service does not offer it, and the NetworkPolicy
    # opens it to the helm test's Pod alone.
    assert [port["name"] for port in tls_render.component("Service", component)["spec"]["ports"]] == ["grpc"]
    opened = [rule for rule in tls_render.component("NetworkPolicy", component)["spec"]["ingress"]
              if 50050 in {port["port"] for port in rule["ports"]}]
    assert [peer["podSelector"]["matchLabels"]["app.kubernetes.io/component"]
            for rule in opened for peer in rule["from"]] == ["test"]


@pytest.mark.parametrize("component", GRPC_COMPONENTS)
def test_without_tls_the_probes_use_the_serving_port(default_render: Rendered, component: str) -> None:
    _, container = _pod(default_render, component)

    assert {port["name"] for port in container["ports"]} == {"grpc", "metrics"}
    assert {probe["port"] for probe in _probes(container).values()} == {container["ports"][0]["containerPort"]}
    assert "GRPC_HEALTH_PORT" not in _grpc_env(default_render, component)


def test_the_gateway_calls_over_tls_without_a_health_port(tls_render: Rendered) -> None:
    _, container = _pod(tls_render, "gateway")

    assert set(_grpc_env(tls_render, "gateway")) == {"GRPC_TOKEN_FILE", "GRPC_TLS_CERT_FILE", "GRPC_TLS_KEY_FILE",
                                                     "GRPC_TLS_CA_FILE"}
    assert [port["name"] for port in container["ports"]] == ["http", "metrics"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/api/health", "port": "http"}


def test_named_tls_secrets_need_no_cert_manager(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpcAuth": {"tls": {"enabled": True, "secretNames": SECRET_NAMES}}})

    assert rendered.of_kind("Certificate") == []
    for component in COMPONENTS:
        assert _file_of(rendered, component, "GRPC_TLS_CERT_FILE") == ("Secret", SECRET_NAMES[component], "tls.crt")
    assert "must exist" in rendered.notes


def test_a_service_at_an_operators_address_is_checked_against_that_address(render: Callable[..., Rendered]) -> None:
    """config.STATS_ADDR dials a name its certificates must carry: no name is expected in its
    place. The others keep theirs; without TLS none is set."""
    tls = {"enabled": True, "secretNames": SECRET_NAMES}
    rendered = render({"grpcAuth": {"tls": tls}, "config": {"STATS_ADDR": "stats.example:50054"}})

    for component in COMPONENTS:
        env = rendered.component_env(component)
        assert "STATS_TLS_SERVER_NAME" not in env
        assert env["LOBBY_TLS_SERVER_NAME"] == f"{RELEASE}-tavolo-lobby.{NAMESPACE}.svc"
    assert not [name for name in render().component_env("gateway") if name.endswith("_TLS_SERVER_NAME")]


def test_tls_alone_names_the_callers_by_certificate(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpcAuth": {"tokens": {"enabled": False},
                                    "tls": {"enabled": True, "certManager": {"issuerRef": ISSUER}}}})

    assert [obj["metadata"]["name"] for obj in rendered.of_kind("Secret") if "grpc" in obj["metadata"]["name"]] == []
    for caller in _callers(rendered):
        assert set(caller) == {"name", "certificate"}
    for component in COMPONENTS:
        assert "GRPC_TOKEN_FILE" not in _grpc_env(rendered, component)


def test_a_custom_health_port_follows(render: Callable[..., Rendered]) -> None:
    values = copy.deepcopy(TLS)
    values["grpcAuth"]["tls"]["healthPort"] = 8086
    _, container = _pod(render(values), "deadlines")

    assert {probe["port"] for probe in _probes(container).values()} == {8086}


# -- everything off ------------------------------------------------------------------------------------


def test_with_tokens_and_tls_off_the_services_accept_anyone_and_the_notes_say_so(render: Callable[..., Rendered]) -> None:
    rendered = render({"grpcAuth": {"tokens": {"enabled": False}}})

    names = {obj["metadata"]["name"] for obj in rendered.objects}
    assert CALLERS_CONFIG_MAP not in names and TOKENS_SECRET not in names
    for component in COMPONENTS:
        spec, _ = _pod(rendered, component)
        assert _grpc_env(rendered, component) == {}
        assert "grpc-auth" not in {volume["name"] for volume in spec["volumes"]}
        annotations = rendered.component("Deployment", component)["spec"]["template"]["metadata"]["annotations"]
        assert "checksum/grpc-auth" not in annotations
    assert "grpcAuth.tokens and grpcAuth.tls are off" in rendered.notes


def test_the_defaults_warn_about_nothing_here(default_render: Rendered) -> None:
    assert "are off" not in default_render.notes
    assert TOKENS_SECRET in default_render.notes


# -- what the services make of it ----------------------------------------------------------------------


@pytest.mark.parametrize("values_name", ["default", "tls", "production+grpc-tls"])
def test_the_services_accept_the_rendered_callers_file_and_settings(
    request: pytest.FixtureRequest, values_name: str
) -> None:
    """services.rpc.callers reads the callers file without a ConfigError (names, hashes, method
    names), and services.config each component's GRPC_* settings."""
    rendered = request.getfixturevalue({"default": "default_render", "tls": "tls_render",
                                        "production+grpc-tls": "grpc_tls_render"}[values_name])
    callers = Callers.parse(yaml.safe_load(rendered.get("ConfigMap", CALLERS_CONFIG_MAP)["data"]["callers.yaml"]))

    for entry in _callers(rendered):
        if "certificate" in entry:
            caller = callers.by_certificate([entry["certificate"]])
            assert caller is not None and caller.name == entry["name"]
    for component in COMPONENTS:
        env = {name: value for name, value in rendered.component_env(component).items()
               if isinstance(value, str)}
        security = Settings.from_env(env).grpc_security
        assert (security.health_port is not None) == (values_name != "default" and component != "gateway")
        assert security.serves_tls == (values_name != "default")
        # each service's callers expect its certificate's name, which the callers file knows
        expected = {} if values_name == "default" else {
            service: _by_name(rendered)[service]["certificate"] for service in GRPC_COMPONENTS}
        assert dict(security.tls_service_names) == expected


def test_built_in_callers_get_their_components_allow_list(render: Callable[..., Rendered]) -> None:
    rendered = render({**GIVEN, "grpcAuth": {**GIVEN["grpcAuth"], "callers": EXTRA}})
    callers = Callers.parse(yaml.safe_load(rendered.get("ConfigMap", CALLERS_CONFIG_MAP)["data"]["callers.yaml"]))

    for component, token in TOKENS.items():
        caller = callers.by_token(token)
        assert caller is not None and caller.name == component
        assert caller.methods == {f"/{method}" for method in BUILT_IN_METHODS[component]}
    auditor = callers.by_certificate(["auditor.security.svc"])
    assert auditor is not None and auditor.methods == {f"/{method}" for method in READ_ONLY_METHODS}


# -- refusals ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "where"),
    [
        ({"grpcAuth": {"callers": [{"tokenSha256": "a" * 64}]}}, "/grpcAuth/callers/0"),
        ({"grpcAuth": {"callers": [{"name": "has space", "certificate": "c"}]}}, "/grpcAuth/callers/0/name"),
        ({"grpcAuth": {"callers": [{"name": "nothing"}]}}, "/grpcAuth/callers/0"),
        ({"grpcAuth": {"callers": [{"name": "short", "tokenSha256": "abc"}]}}, "/grpcAuth/callers/0/tokenSha256"),
        ({"grpcAuth": {"callers": [{"name": "m", "certificate": "c", "methods": ["GetLeaderboard"]}]}},
         "/grpcAuth/callers/0/methods/0"),
        ({"grpcAuth": {"callers": [{"name": "m", "certificate": "c", "token": "plain"}]}}, "additional properties 'token'"),
        ({"grpcAuth": {"tokens": {"values": {"game": "short"}}}}, "/grpcAuth/tokens/values/game"),
        ({"grpcAuth": {"tokens": {"values": {"game": "has a space in it, not a token"}}}}, "/grpcAuth/tokens/values/game"),
        ({"grpcAuth": {"tokens": {"values": {"web": "0123456789abcdef0123"}}}}, "additional properties 'web'"),
        ({"grpcAuth": {"tokens": {"sha256": {"game": "not hex"}}}}, "/grpcAuth/tokens/sha256/game"),
        ({"grpcAuth": {"tokens": {"enabled": "yes"}}}, "/grpcAuth/tokens/enabled"),
        ({"grpcAuth": {"tls": {"healthPort": 0}}}, "/grpcAuth/tls/healthPort"),
        ({"grpcAuth": {"tls": {"certManager": {"privateKey": {"algorithm": "RSA", "size": 256}}}}},
         "/grpcAuth/tls/certManager/privateKey/size"),
        ({"grpcAuth": {"tls": {"certManager": {"duration": "90 days"}}}}, "/grpcAuth/tls/certManager/duration"),
        ({"grpcAuth": {"mtls": True}}, "additional properties 'mtls'"),
        ({"grpcAuth": {"callers": [{"name": "n" * 65, "certificate": "c"}]}}, "/grpcAuth/callers/0/name"),
    ],
)
def test_schema_rejects(render: Callable[..., Rendered], values: dict[str, Any], where: str) -> None:
    with pytest.raises(helm_python.HelmValuesError) as error:
        render(values)

    assert where in str(error.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"grpcAuth": {"tokens": {"existingSecret": "s", "values": {"game": "0123456789abcdef"}}}},
         "grpcAuth.tokens: set existingSecret or values (game), not both"),
        ({"grpcAuth": {"callers": [{"name": "stats", "tokenSha256": "a" * 64}]}},
         'grpcAuth.callers[0]: "stats" is a built-in caller\'s name'),
        ({"grpcAuth": {"callers": [{"name": "r", "certificate": "a"}, {"name": "r", "certificate": "b"}]}},
         'grpcAuth.callers: the name "r" is used twice'),
        ({"grpcAuth": {"callers": [{"name": "a", "tokenSha256": "A" * 64}, {"name": "b", "tokenSha256": "a" * 64}]}},
         "grpcAuth.callers: a and b have the same token (tokenSha256)"),
        ({"grpcAuth": {"tls": {"enabled": True, "secretNames": SECRET_NAMES},
                       "callers": [{"name": "impostor", "certificate": f"{RELEASE}-tavolo-game.{NAMESPACE}.svc"}]}},
         "grpcAuth.callers: game and impostor have the same certificate"),
        ({"grpcAuth": {"tokens": {"enabled": False}, "callers": EXTRA}},
         "grpcAuth.callers: with grpcAuth.tokens and grpcAuth.tls both off"),
        ({"grpcAuth": {"tls": {"enabled": True}}}, "grpcAuth.tls.secretNames.gateway: name the TLS Secret"),
        ({"grpcAuth": {"tls": {"enabled": True, "secretNames": SECRET_NAMES, "healthPort": 50052}}},
         "grpcAuth.tls.healthPort (50052) must differ from game.port"),
        ({"grpcAuth": {"tls": {"enabled": True, "secretNames": SECRET_NAMES, "healthPort": 9464}}},
         "grpcAuth.tls.healthPort (9464) must differ from metrics.port"),
    ],
)
def test_templates_refuse(render: Callable[..., Rendered], values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm_python.HelmError) as error:
        render(values)

    assert message in str(error.value)


def test_lint_passes_with_tls_and_existing_tokens() -> None:
    values = copy.deepcopy(TLS)
    values["grpcAuth"]["tokens"] = EXISTING["grpcAuth"]["tokens"]
    report = helm_python.lint(CHART, values, strict=True, kube_version=f"v{KUBE_VERSION}")

    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []
