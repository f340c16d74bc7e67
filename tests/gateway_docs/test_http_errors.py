"""Every service reason has its HTTP answer: none can fall through to a bare 500."""

from __future__ import annotations

import json

import pytest

from gateway.http_errors import service_error_response
from services.errors import Reason, ServiceError


@pytest.mark.parametrize("reason", list(Reason))
def test_every_reason_becomes_a_contract_error_body(reason):
    response = service_error_response(ServiceError(reason, "some message"))
    assert 400 <= response.status_code < 600 and response.status_code != 500
    assert set(json.loads(response.body)) == {"detail"}
