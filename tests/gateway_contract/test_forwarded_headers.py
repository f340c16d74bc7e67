"""FORWARDED_ALLOW_IPS: the gateway believes X-Forwarded-* only from the proxies it names.

What the headers change is visible at the socket's Origin check: behind a TLS-terminating
proxy the gateway's own origin is https://<host>, and only a trusted proxy can say so.
"""

from __future__ import annotations

import json

import pytest
import websockets

from services.config import Settings
from testing.processes import served
from tests.gateway_contract.fakes import GAME_ID, FakeGame, FakeLobby, gateway


async def _upgrade_status(address: str, headers: dict[str, str]) -> tuple[int, dict]:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(f"ws://{address}/ws/games/{GAME_ID}", additional_headers=headers,
                                 open_timeout=5)
    response = refused.value.response
    return response.status_code, json.loads(response.body)


def _behind_tls(address: str) -> dict[str, str]:
    """What a TLS-terminating proxy sends on for a page of https://<address>."""
    return {"Origin": f"https://{address}", "X-Forwarded-Proto": "https"}


@pytest.mark.parametrize("allowed", ["127.0.0.1", "10.0.0.0/8,127.0.0.0/8", "*"])
async def test_a_trusted_proxy_makes_the_https_origin_the_gateways_own(allowed):
    settings = Settings.from_env({"FORWARDED_ALLOW_IPS": allowed})
    async with gateway(FakeLobby(), FakeGame(), settings=settings) as app, served(app, settings) as address:
        status, body = await _upgrade_status(address, _behind_tls(address))
    assert (status, body) == (401, {"detail": "Not authenticated"})  # past the Origin check


@pytest.mark.parametrize("allowed", ["10.0.0.0/8", "192.0.2.7"])
async def test_anyone_else_cannot_claim_https(allowed):
    settings = Settings.from_env({"FORWARDED_ALLOW_IPS": allowed})
    async with gateway(FakeLobby(), FakeGame(), settings=settings) as app, served(app, settings) as address:
        status, body = await _upgrade_status(address, _behind_tls(address))
    assert (status, body) == (403, {"detail": "Origin not allowed"})
