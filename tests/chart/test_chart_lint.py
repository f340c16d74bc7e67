"""`helm lint --strict`, with Helm's own library, on the defaults and the production-like values."""

from __future__ import annotations

from typing import Any

import helm_python
import pytest
import yaml

from .support import CHART, EVALUATION_VALUES, GRPC_TLS_VALUES, KUBE_VERSION

WARNING = 2


@pytest.mark.parametrize("values_name", ["default", "production", "grpc-tls", "production+grpc-tls", "evaluation"])
def test_chart_passes_strict_lint(values_name: str, production_values: dict[str, Any],
                                  grpc_tls_values: dict[str, Any]) -> None:
    """As `helm lint --strict` runs it, on the values files alone: Helm's lint mode renders
    without a cluster and reports a template's `fail` only as information, so the tokens and
    passwords an offline render must be given are not needed here."""
    values = {"default": None, "production": production_values, "grpc-tls": yaml.safe_load(GRPC_TLS_VALUES.read_text()),
              "production+grpc-tls": grpc_tls_values,
              "evaluation": yaml.safe_load(EVALUATION_VALUES.read_text())}[values_name]
    report = helm_python.lint(CHART, values, strict=True, kube_version=f"v{KUBE_VERSION}")

    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= WARNING] == []


def test_lint_reports_values_the_schema_rejects() -> None:
    report = helm_python.lint(CHART, {"gateway": {"replicas": "two"}}, strict=True)

    assert any("/gateway/replicas" in error for error in report["errors"])
