"""Fixtures for the chart's tests: the chart rendered offline with helm-python-sdk (Helm's own Go
library), with its defaults and with the production-like values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import helm_python
import pytest
import yaml

from .support import (
    CHART,
    EVALUATION_PASSWORDS,
    EVALUATION_VALUES,
    GRPC_TLS_VALUES,
    NAMESPACE,
    PRODUCTION_VALUES,
    RELEASE,
    WITH_DATABASE,
    Rendered,
    merged,
    with_tokens,
)


@pytest.fixture(scope="session")
def chart() -> Iterator[helm_python.Chart]:
    loaded = helm_python.Chart.load(CHART)
    yield loaded
    loaded.close()


@pytest.fixture(scope="session")
def render(chart: helm_python.Chart) -> Callable[..., Rendered]:
    """render(values, name=...) renders the chart as `helm install` would without a cluster
    (`helm template`), schema checked; with the test tokens (support.GIVEN_TOKENS) under the
    values unless ``tokens=False``."""

    def _render(values: dict[str, Any] | None = None, *, name: str = RELEASE, tokens: bool = True) -> Rendered:
        values = with_tokens(values or {}) if tokens else values or {}
        return Rendered(chart.render(values, name=name, namespace=NAMESPACE, is_install=True))

    return _render


@pytest.fixture(scope="session")
def production_values() -> dict[str, Any]:
    return yaml.safe_load(PRODUCTION_VALUES.read_text())


@pytest.fixture(scope="session")
def grpc_tls_values(production_values: dict[str, Any]) -> dict[str, Any]:
    """The production-like values with ci/grpc-tls-values.yaml on top (mutual TLS)."""
    return merged(production_values, yaml.safe_load(GRPC_TLS_VALUES.read_text()))


@pytest.fixture(scope="session")
def evaluation_values() -> dict[str, Any]:
    """values-evaluation.yaml, with the stores' passwords an offline render must be given."""
    return merged(yaml.safe_load(EVALUATION_VALUES.read_text()), EVALUATION_PASSWORDS)


@pytest.fixture(scope="session")
def evaluation_render(render: Callable[..., Rendered], evaluation_values: dict[str, Any]) -> Rendered:
    return render(evaluation_values, name="tavolo")


@pytest.fixture(scope="session")
def default_render(render: Callable[..., Rendered]) -> Rendered:
    return render()


@pytest.fixture(scope="session")
def production_render(render: Callable[..., Rendered], production_values: dict[str, Any]) -> Rendered:
    return render(production_values)


@pytest.fixture(scope="session")
def grpc_tls_render(render: Callable[..., Rendered], grpc_tls_values: dict[str, Any]) -> Rendered:
    return render(grpc_tls_values)


@pytest.fixture(scope="session",
                params=["default", "default+database", "production", "grpc-tls", "production+grpc-tls", "evaluation"])
def any_render(
    request: pytest.FixtureRequest,
    render: Callable[..., Rendered],
    production_values: dict[str, Any],
    grpc_tls_values: dict[str, Any],
    evaluation_values: dict[str, Any],
) -> Rendered:
    """The chart rendered with its defaults, with a database (the migration too), with each
    values file of ci/ alone (as chart-testing installs them), with the production-like values
    plus mutual TLS between the components, and with the evaluation values
    (values-evaluation.yaml)."""
    values = {"default": {}, "default+database": WITH_DATABASE, "production": production_values,
              "grpc-tls": yaml.safe_load(GRPC_TLS_VALUES.read_text()),
              "production+grpc-tls": grpc_tls_values, "evaluation": evaluation_values}
    return render(values[request.param])
