"""Every service reason has its HTTP answer: none can fall through to a bare 500."""

from __future__ import annotations

import json

import grpc
import pytest

from gateway.http_errors import service_error_response
from services.rpc.errors import Reason, ServiceError


def _error(reason: Reason, message: str) -> ServiceError:
    """The error as a service sends it: an INVALID_ARGUMENT names its field."""
    return ServiceError(reason, message, field="" if reason.code == grpc.StatusCode.INVALID_ARGUMENT else None)


@pytest.mark.parametrize("reason", list(Reason))
def test_every_reason_becomes_a_contract_error_body(reason):
    response = service_error_response(_error(reason, "some message"))
    assert 400 <= response.status_code < 600 and response.status_code != 500
    assert set(json.loads(response.body)) == {"detail"}


_PLATFORM_FAULTS = [reason for reason in Reason
                    if service_error_response(_error(reason, "x")).status_code >= 500]


@pytest.mark.parametrize("reason", _PLATFORM_FAULTS)
def test_a_failure_on_the_platforms_side_never_shows_its_message(reason):
    """The message of an UNAVAILABLE names internal addresses; people get a fixed text."""
    leaky = "UNAVAILABLE: failed to connect to all addresses; last error: ipv4:10.42.7.3:50052"
    response = service_error_response(_error(reason, leaky))
    assert "10.42.7.3" not in response.body.decode()


def test_a_service_that_did_not_answer_is_the_contracts_503():
    response = service_error_response(ServiceError(Reason.UNAVAILABLE, "DEADLINE_EXCEEDED: Deadline Exceeded"))
    assert (response.status_code, json.loads(response.body)) == (
        503, {"detail": "Service unavailable, try again"})
