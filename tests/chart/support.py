"""What the chart's tests share: where things are, and a rendering of the chart parsed into
objects, with the environment each container would see."""

from __future__ import annotations

import base64
import dataclasses
import pathlib
from collections.abc import Iterator
from typing import Any

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
CHART = REPO / "charts" / "tavolo"
PRODUCTION_VALUES = CHART / "ci" / "production-values.yaml"
GRPC_TLS_VALUES = CHART / "ci" / "grpc-tls-values.yaml"
EVALUATION_VALUES = CHART / "values-evaluation.yaml"
KUBE_VERSION = "1.31.0"
# The Kubernetes versions every rendering is validated against (strict: no unknown field).
KUBE_VERSIONS = ("1.29.0", "1.30.0", "1.31.0", "1.32.0", "1.33.0")
RELEASE = "rel"
NAMESPACE = "games"
COMPONENTS = ("gateway", "lobby", "game", "deadlines", "stats", "bots")
GRPC_COMPONENTS = ("lobby", "game", "deadlines", "stats", "bots")

# A database, so that the migration Job renders too.
WITH_DATABASE = {"database": {"url": "postgres://tavolo:secret@postgres.example:5432/tavolo"}}

# The tests render offline, as `helm template` does, where the chart makes no random token (its
# renders must not change from one to the next): they give the components' tokens, as a GitOps
# deployment would.
TEST_TOKENS = {component: f"{component}-token-{'x' * 20}" for component in COMPONENTS}
GIVEN_TOKENS = {"grpcAuth": {"tokens": {"values": TEST_TOKENS}}}


def merged(*layers: dict[str, Any]) -> dict[str, Any]:
    """Values files layered as `helm -f a -f b` does: maps merge key by key, anything else
    (lists too) is replaced by the later layer."""
    result: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if isinstance(value, dict) and isinstance(result.get(key), dict):
                result[key] = merged(result[key], value)
            else:
                result[key] = value
    return result


# What an offline render of the evaluation values must be given besides the tokens: the stores'
# passwords, which an install makes and keeps.
EVALUATION_PASSWORDS = {"evaluation": {"redis": {"password": "redis0evaluation0password"},
                                       "postgres": {"password": "postgres0evaluation0password"}}}


def with_tokens(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the test tokens under them, unless they name an existing Secret of tokens."""
    if values.get("grpcAuth", {}).get("tokens", {}).get("existingSecret"):
        return values
    return merged(GIVEN_TOKENS, values)


def table_names(path: pathlib.Path) -> list[str]:
    """The first cells of the table headed `| Variable | ... |`, split at " / "."""
    if not path.exists():
        return []
    names: list[str] = []
    in_table = False
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line.startswith("|"):
            in_table = False
            continue
        first = line.strip("|").split("|")[0].strip()
        if not in_table:
            in_table = first.strip("`* ").lower() == "variable"
            continue
        if set(first) <= set("-: "):
            continue
        names.extend(name.strip().strip("`") for name in first.split(" / "))
    return names


@dataclasses.dataclass(frozen=True)
class SecretKeyRef:
    """An environment variable read from a key of a Secret outside the chart."""

    name: str
    key: str


class Rendered:
    """The objects of one rendering of the chart."""

    def __init__(self, manifests: dict[str, str]) -> None:
        self.notes = ""
        self.objects: list[dict[str, Any]] = []
        for path, text in manifests.items():
            if path.endswith("NOTES.txt"):
                self.notes = text
                continue
            self.objects.extend(doc for doc in yaml.safe_load_all(text) if doc)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [obj for obj in self.objects if obj["kind"] == kind]

    def get(self, kind: str, name: str) -> dict[str, Any]:
        found = [obj for obj in self.of_kind(kind) if obj["metadata"]["name"] == name]
        assert len(found) == 1, f"{kind}/{name}: {len(found)} objects"
        return found[0]

    def component(self, kind: str, component: str) -> dict[str, Any]:
        found = [
            obj
            for obj in self.of_kind(kind)
            if obj["metadata"]["labels"].get("app.kubernetes.io/component") == component
        ]
        if len(found) > 1:  # a headless Service beside the component's own: the one named so
            found = [obj for obj in found if obj["metadata"]["name"].endswith(f"-{component}")]
        assert len(found) == 1, f"{kind} of {component}: {len(found)} objects"
        return found[0]

    def pod_specs(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(owner, pod spec) of every Deployment, StatefulSet, Job and Pod."""
        for obj in self.objects:
            if obj["kind"] in ("Deployment", "StatefulSet", "Job"):
                yield obj, obj["spec"]["template"]["spec"]
            elif obj["kind"] == "Pod":
                yield obj, obj["spec"]

    def containers(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(owner, container) of every container, init containers included."""
        for owner, spec in self.pod_specs():
            for container in spec.get("initContainers", []) + spec["containers"]:
                yield owner, container

    def secret_value(self, name: str, key: str) -> str | SecretKeyRef:
        """The value of a key of a Secret: decoded when the chart renders that Secret, else a
        reference to a Secret that must exist beforehand."""
        secrets = [obj for obj in self.of_kind("Secret") if obj["metadata"]["name"] == name]
        if not secrets:
            return SecretKeyRef(name, key)
        (secret,) = secrets
        data = secret.get("data") or {}
        assert key in data, f"Secret/{name} has no key {key}"
        return base64.b64decode(data[key]).decode()

    def env(self, container: dict[str, Any]) -> dict[str, str | SecretKeyRef]:
        """The environment the container starts with: envFrom first, then env (which wins)."""
        env: dict[str, str | SecretKeyRef] = {}
        for source in container.get("envFrom", []):
            if "configMapRef" in source:
                env.update(self.get("ConfigMap", source["configMapRef"]["name"]).get("data") or {})
            if "secretRef" in source:
                data = self.get("Secret", source["secretRef"]["name"]).get("data") or {}
                env.update({key: base64.b64decode(value).decode() for key, value in data.items()})
        for item in container.get("env", []):
            if "value" in item:
                env[item["name"]] = item["value"]
            else:
                ref = item["valueFrom"]["secretKeyRef"]
                env[item["name"]] = self.secret_value(ref["name"], ref["key"])
        return env

    def component_env(self, component: str) -> dict[str, str | SecretKeyRef]:
        """The environment of the component's own container (a sidecar's is not its)."""
        deployment = self.component("Deployment", component)
        (container,) = [container for container in deployment["spec"]["template"]["spec"]["containers"]
                        if container["name"] == component]
        return self.env(container)


# The prometheus-operator's monitors are custom resources, which kubernetes-validate has no
# schema for: these are the fields the chart uses, as the operator's API reference
# (monitoring.coreos.com/v1) defines them, closed to any other key.
_DURATION = {"type": "string", "pattern": r"^(0|(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"}
_LABELS = {"type": "object", "additionalProperties": {"type": "string"}}
_ENDPOINT = {
    "type": "object", "additionalProperties": False, "required": ["port"],
    "properties": {"port": {"type": "string", "minLength": 1}, "path": {"type": "string"},
                   "interval": _DURATION, "scrapeTimeout": _DURATION},
}


def _monitor_schema(endpoints: str) -> dict[str, Any]:
    return {
        "type": "object", "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"const": "monitoring.coreos.com/v1"},
            "kind": {"type": "string"},
            "metadata": {"type": "object", "required": ["name", "namespace"],
                         "properties": {"labels": _LABELS, "name": {"type": "string"},
                                        "namespace": {"type": "string"}}},
            "spec": {
                "type": "object", "additionalProperties": False, "required": ["selector", endpoints],
                "properties": {
                    "selector": {"type": "object", "additionalProperties": False,
                                 "properties": {"matchLabels": _LABELS}},
                    "namespaceSelector": {"type": "object", "additionalProperties": False,
                                          "properties": {"any": {"type": "boolean"},
                                                         "matchNames": {"type": "array",
                                                                        "items": {"type": "string"}}}},
                    endpoints: {"type": "array", "minItems": 1, "items": _ENDPOINT},
                },
            },
        },
    }


_PROM_DURATION = {"type": "string", "pattern": r"^(0|([0-9]+(ms|s|m|h|d|w|y))+)$"}
_PROMETHEUS_RULE = {
    "type": "object", "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": {"type": "object", "required": ["name", "namespace"],
                     "properties": {"labels": _LABELS, "name": {"type": "string"},
                                    "namespace": {"type": "string"}}},
        "spec": {
            "type": "object", "additionalProperties": False, "required": ["groups"],
            "properties": {"groups": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "required": ["name", "rules"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "interval": _PROM_DURATION,
                    "rules": {"type": "array", "items": {
                        "type": "object", "additionalProperties": False, "required": ["expr"],
                        "properties": {"alert": {"type": "string", "minLength": 1},
                                       "record": {"type": "string", "minLength": 1},
                                       "expr": {"type": "string", "minLength": 1},
                                       "for": _PROM_DURATION,
                                       "labels": _LABELS, "annotations": _LABELS}}},
                }}}},
        },
    },
}

MONITOR_SCHEMAS = {"PodMonitor": _monitor_schema("podMetricsEndpoints"),
                   "PrometheusRule": _PROMETHEUS_RULE}

# cert-manager's Certificate (cert-manager.io/v1), likewise a custom resource: the fields the
# chart uses, as cert-manager's API reference defines them, closed to any other key.
_GO_DURATION = {"type": "string", "pattern": r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$"}
_KEY_USAGES = ["signing", "digital signature", "content commitment", "key encipherment",
               "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only",
               "decipher only", "any", "server auth", "client auth", "code signing",
               "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user",
               "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"]
CERTIFICATE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "cert-manager.io/v1"},
        "kind": {"const": "Certificate"},
        "metadata": {"type": "object", "required": ["name", "namespace"],
                     "properties": {"labels": _LABELS, "name": {"type": "string"},
                                    "namespace": {"type": "string"}}},
        "spec": {
            "type": "object", "additionalProperties": False, "required": ["secretName", "issuerRef"],
            "anyOf": [{"required": ["commonName"]}, {"required": ["dnsNames"]}],
            "properties": {
                "secretName": {"type": "string", "minLength": 1},
                "secretTemplate": {"type": "object", "additionalProperties": False,
                                   "properties": {"labels": _LABELS, "annotations": _LABELS}},
                "commonName": {"type": "string", "minLength": 1, "maxLength": 64},
                "dnsNames": {"type": "array", "minItems": 1,
                             "items": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"}},
                "usages": {"type": "array", "items": {"enum": _KEY_USAGES}},
                "duration": _GO_DURATION,
                "renewBefore": _GO_DURATION,
                "privateKey": {"type": "object", "additionalProperties": False,
                               "properties": {"algorithm": {"enum": ["RSA", "ECDSA", "Ed25519"]},
                                              "size": {"type": "integer"},
                                              "encoding": {"enum": ["PKCS1", "PKCS8"]},
                                              "rotationPolicy": {"enum": ["Never", "Always"]}}},
                "issuerRef": {"type": "object", "additionalProperties": False, "required": ["name"],
                              "properties": {"name": {"type": "string", "minLength": 1},
                                             "kind": {"type": "string"}, "group": {"type": "string"}}},
            },
        },
    },
}


# The Gateway API's HTTPRoute (gateway.networking.k8s.io/v1), likewise: the fields the chart
# uses, as the Gateway API's reference defines them, closed to any other key.
_PATH_MATCH = {"type": "object", "additionalProperties": False, "required": ["path"],
               "properties": {"path": {"type": "object", "additionalProperties": False,
                                       "properties": {"type": {"enum": ["Exact", "PathPrefix",
                                                                        "RegularExpression"]},
                                                      "value": {"type": "string", "pattern": "^/",
                                                                "maxLength": 1024}}}}}
HTTP_ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "gateway.networking.k8s.io/v1"},
        "kind": {"const": "HTTPRoute"},
        "metadata": {"type": "object", "required": ["name", "namespace"],
                     "properties": {"labels": _LABELS, "annotations": _LABELS,
                                    "name": {"type": "string"}, "namespace": {"type": "string"}}},
        "spec": {
            "type": "object", "additionalProperties": False, "required": ["parentRefs", "rules"],
            "properties": {
                "parentRefs": {"type": "array", "minItems": 1, "maxItems": 32, "items": {
                    "type": "object", "additionalProperties": False, "required": ["name"],
                    "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 253},
                                   "namespace": {"type": "string"}, "sectionName": {"type": "string"},
                                   "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                                   "group": {"type": "string"}, "kind": {"type": "string"}}}},
                "hostnames": {"type": "array", "maxItems": 16, "items": {
                    "type": "string", "pattern": r"^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"}},
                "rules": {"type": "array", "minItems": 1, "maxItems": 16, "items": {
                    "type": "object", "additionalProperties": False,
                    "properties": {
                        "matches": {"type": "array", "maxItems": 64, "items": _PATH_MATCH},
                        "backendRefs": {"type": "array", "items": {
                            "type": "object", "additionalProperties": False, "required": ["name", "port"],
                            "properties": {"name": {"type": "string", "minLength": 1},
                                           "port": {"type": "integer", "minimum": 1, "maximum": 65535}}}},
                    }}},
            },
        },
    },
}


def validate(obj: dict[str, Any], kube_version: str = KUBE_VERSION) -> None:
    """Validate ``obj`` against Kubernetes' schemas (of ``kube_version``), or the custom
    resources' (MONITOR_SCHEMAS, CERTIFICATE_SCHEMA, HTTP_ROUTE_SCHEMA)."""
    import jsonschema
    import kubernetes_validate

    if obj["apiVersion"].startswith("monitoring.coreos.com/"):
        jsonschema.validate(obj, MONITOR_SCHEMAS[obj["kind"]])
    elif obj["apiVersion"].startswith("cert-manager.io/"):
        jsonschema.validate(obj, CERTIFICATE_SCHEMA)
    elif obj["apiVersion"].startswith("gateway.networking.k8s.io/"):
        jsonschema.validate(obj, HTTP_ROUTE_SCHEMA)
    else:
        kubernetes_validate.validate(obj, kube_version, strict=True)
