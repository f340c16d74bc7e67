"""A gateway pod stops gracefully: a preStop pause while Kubernetes stops routing to it, then
SIGTERM (the gateway closes its sockets with 1012 and exits), within a grace period long enough
for both, on every Kubernetes version the chart supports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kubernetes_validate
import pytest

from gateway.draining import EXIT_SECONDS

from .support import GRPC_COMPONENTS, Rendered

SUPPORTED = ("1.29.0", "1.30.0", "1.31.0", "1.32.0", "1.33.0")


def _pod(rendered: Rendered, component: str) -> dict[str, Any]:
    spec: dict[str, Any] = rendered.component("Deployment", component)["spec"]["template"]["spec"]
    return spec


def test_the_gateway_pauses_before_it_stops_and_has_time_to_drain(default_render: Rendered) -> None:
    pod = _pod(default_render, "gateway")
    (container,) = pod["containers"]
    assert container["lifecycle"] == {"preStop": {"exec": {"command": ["sleep", "5"]}}}
    assert pod["terminationGracePeriodSeconds"] >= 5 + EXIT_SECONDS


@pytest.mark.parametrize("component", GRPC_COMPONENTS)
def test_the_grpc_services_have_no_pause(default_render: Rendered, component: str) -> None:
    (container,) = _pod(default_render, component)["containers"]
    assert "lifecycle" not in container


@pytest.mark.parametrize(("values", "sleep", "grace"), [
    ({"gateway": {"preStopSeconds": 15}}, "15", 15 + EXIT_SECONDS),
    ({"gateway": {"preStopSeconds": 15}, "config": {"SHUTDOWN_DRAIN_SECONDS": "10"}}, "15",
     15 + 10 + EXIT_SECONDS),
    ({"gateway": {"preStopSeconds": 2, "terminationGracePeriodSeconds": 90}}, "2", 90),
    ({"gateway": {"preStopSeconds": 0}, "config": {"SHUTDOWN_DRAIN_SECONDS": 8}}, None, 30),
])
def test_the_grace_period_covers_the_pauses_and_the_drain(
        render: Callable[..., Rendered], values: dict[str, Any], sleep: str | None, grace: int) -> None:
    """Whatever terminationGracePeriodSeconds says, it is at least the preStop pause, the
    gateway's own pause and its bound for closing (gateway.draining.EXIT_SECONDS)."""
    pod = _pod(render(values), "gateway")
    (container,) = pod["containers"]
    if sleep is None:
        assert "lifecycle" not in container
    else:
        assert container["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", sleep]
    assert pod["terminationGracePeriodSeconds"] == grace


@pytest.mark.parametrize("bad", [-1, 3601, "5", 2.5])
def test_a_bad_pause_is_refused(render: Callable[..., Rendered], bad: Any) -> None:
    with pytest.raises(Exception, match="preStopSeconds"):
        render({"gateway": {"preStopSeconds": bad}})


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_gateway_is_valid_on_every_supported_kubernetes(default_render: Rendered, version: str) -> None:
    kubernetes_validate.validate(default_render.component("Deployment", "gateway"), version, strict=True)

