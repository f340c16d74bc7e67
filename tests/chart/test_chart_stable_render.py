"""The same values render the same manifests, byte for byte: GitOps tools (Argo CD, Flux's offline
renders) run `helm template` on every sync, and a manifest that changed by itself would restart
pods each time. Nothing random or time-dependent reaches a manifest; the one random thing, a
secret value the chart makes and keeps (_kept.tpl), is made only when Helm sees the cluster,
and an offline render that needs one fails, saying how to give it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import helm_python
import pytest

from .support import (
    CHART,
    COMPONENTS,
    NAMESPACE,
    RELEASE,
    TEST_TOKENS,
    WITH_DATABASE,
    Rendered,
    with_tokens,
)

EXISTING = {"grpcAuth": {"tokens": {"existingSecret": "platform-grpc-tokens",
                                    "sha256": {component: "a" * 63 + str(i) for i, component in enumerate(COMPONENTS)}}}}


@pytest.fixture(scope="module")
def values_sets(production_values: dict[str, Any], grpc_tls_values: dict[str, Any],
                evaluation_values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {"default": {}, "default+database": WITH_DATABASE, "production": production_values,
            "production+grpc-tls": grpc_tls_values, "evaluation": evaluation_values,
            "existing-secret": EXISTING, "tokens-off": {"grpcAuth": {"tokens": {"enabled": False}}}}


@pytest.mark.parametrize("name", ["default", "default+database", "production", "production+grpc-tls",
                                  "evaluation", "existing-secret", "tokens-off"])
def test_two_renders_of_the_same_values_are_byte_identical(
    chart: helm_python.Chart, values_sets: dict[str, dict[str, Any]], name: str
) -> None:
    values = with_tokens(values_sets[name]) if name != "tokens-off" else values_sets[name]

    first = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)
    second = chart.render(values, name=RELEASE, namespace=NAMESPACE, is_install=True)

    assert first == second
    assert any("kind: Deployment" in text for text in first.values())


def _offline_failure(render: Callable[..., Rendered], values: dict[str, Any]) -> str:
    with pytest.raises(helm_python.HelmError) as error:
        render(values, tokens=False)
    return str(error.value)


def test_an_offline_render_of_the_defaults_refers_to_a_secret_the_operator_creates(
        chart: helm_python.Chart, render: Callable[..., Rendered]) -> None:
    """helm template, --dry-run and Argo CD render the defaults with no token in the values:
    the same manifests every time, no Secret, and NOTES naming the one to create."""
    first = chart.render({}, name=RELEASE, namespace=NAMESPACE, is_install=True)
    assert first == chart.render({}, name=RELEASE, namespace=NAMESPACE, is_install=True)
    rendered = render({}, tokens=False)

    assert [obj for obj in rendered.of_kind("Secret") if obj["metadata"]["name"].endswith("-grpc-tokens")] == []
    notes = " ".join(rendered.notes.split())
    assert f"Secret {RELEASE}-tavolo-grpc-tokens, which this chart does not create" in notes
    assert f"create secret generic {RELEASE}-tavolo-grpc-tokens" in notes


def test_some_tokens_without_the_others_fail_naming_those_not_given(render: Callable[..., Rendered]) -> None:
    values = {"grpcAuth": {"tokens": {"values": {"gateway": TEST_TOKENS["gateway"], "stats": TEST_TOKENS["stats"]}}}}
    message = _offline_failure(render, values)

    assert "grpcAuth.tokens: Helm sees no cluster here" in message
    assert "missing: lobby, game, deadlines, bots" in message


@pytest.mark.parametrize("values", [EXISTING, {"grpcAuth": {"tokens": {"enabled": False}}}],
                         ids=["existing-secret", "tokens-off"])
def test_no_token_is_needed_with_an_existing_secret_or_without_tokens(
    render: Callable[..., Rendered], values: dict[str, Any]
) -> None:
    rendered = render(values, tokens=False)

    assert rendered.of_kind("Deployment")
    assert [obj for obj in rendered.of_kind("Secret") if obj["metadata"]["name"].endswith("-grpc-tokens")] == []


# Sprig's functions whose result changes from one render to the next.
UNSTABLE = re.compile(
    r"\b(rand(?:AlphaNum|Alpha|Numeric|Ascii|Bytes|Int)|uuidv4|now|ago|date(?:InZone|Modify)?|unixEpoch|"
    r"genCA(?:WithKey)?|genPrivateKey|genSelfSignedCert(?:WithKey)?|genSignedCert(?:WithKey)?|htpasswd|"
    r"bcrypt|encryptAES|shuffle)\b"
)
ACTION = re.compile(r"\{\{-?(.*?)-?\}\}", re.DOTALL)


def test_nothing_random_or_time_dependent_is_rendered_but_the_kept_secrets() -> None:
    """Only _kept.tpl draws random values, and only when Helm sees the cluster (checked above:
    offline, the chart draws none)."""
    found = {}
    for path in sorted((CHART / "templates").rglob("*")):
        if not path.is_file():
            continue
        calls = [match.group(1) for action in ACTION.findall(path.read_text())
                 if not action.strip().startswith("/*") for match in UNSTABLE.finditer(action)]
        if calls:
            found[str(path.relative_to(CHART))] = calls

    assert found == {"templates/_kept.tpl": ["randAlphaNum"]}


def test_the_notes_say_how_the_tokens_are_kept(default_render: Rendered) -> None:
    notes = " ".join(default_render.notes.split())

    assert f"The tokens stay in Secret {RELEASE}-tavolo-grpc-tokens: Helm reads them back" in notes
