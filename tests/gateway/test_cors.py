"""CORS from the CORS_* settings, on Starlette's CORSMiddleware; the same origins for WebSockets."""

from __future__ import annotations

import httpx
import pytest

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.origins import OriginPolicy
from gateway.sessions import MemorySessionStore
from services.config import Settings


def _client(environ: dict[str, str]) -> httpx.AsyncClient:
    settings = Settings.from_env(environ)
    app = create_app(settings, Backends(lobby=None, game=None, stats=None, live=None),
                     Auth(settings, MemorySessionStore()))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw.test")


def _preflight(origin: str, method: str = "GET", headers: str | None = None) -> dict[str, str]:
    asked = {"origin": origin, "access-control-request-method": method}
    if headers:
        asked["access-control-request-headers"] = headers
    return asked


async def test_cors_is_off_by_default():
    async with _client({}) as client:
        response = await client.get("/api/health", headers={"origin": "https://app.example"})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


async def test_an_allowed_origin_gets_the_cors_headers():
    async with _client({"CORS_ALLOW_ORIGINS": "https://app.example",
                        "CORS_EXPOSE_HEADERS": "X-Request-Id"}) as client:
        response = await client.get("/api/health", headers={"origin": "https://app.example"})
    assert response.headers["access-control-allow-origin"] == "https://app.example"
    assert response.headers["access-control-expose-headers"] == "X-Request-Id"


async def test_a_preflight_gets_methods_and_max_age():
    async with _client({"CORS_ALLOW_ORIGINS": "https://app.example",
                        "CORS_ALLOW_METHODS": "GET,POST", "CORS_MAX_AGE": "120"}) as client:
        response = await client.options("/api/games", headers=_preflight("https://app.example",
                                                                         "POST"))
    assert response.status_code == 200
    assert set(response.headers["access-control-allow-methods"].split(", ")) >= {"GET", "POST"}
    assert response.headers["access-control-max-age"] == "120"


@pytest.mark.parametrize(("environ", "asked"), [
    ({"CORS_ALLOW_ORIGINS": "https://app.example"}, _preflight("https://evil.example")),
    ({"CORS_ALLOW_ORIGINS": "https://app.example"}, _preflight("https://app.example", "DELETE")),
    ({"CORS_ALLOW_ORIGINS": "https://app.example"},
     _preflight("https://app.example", "GET", "x-custom")),
    ({"CORS_ALLOW_ORIGIN_REGEX": r"https://[a-z]+\.example"},
     _preflight("https://app.example.evil.test")),
])
async def test_a_disallowed_preflight_is_400_disallowed_cors(environ, asked):
    async with _client(environ) as client:
        response = await client.options("/api/games", headers=asked)
    assert response.status_code == 400
    assert response.text.startswith("Disallowed CORS")


async def test_the_origin_regex_must_match_the_whole_origin():
    async with _client({"CORS_ALLOW_ORIGIN_REGEX": r"https://[a-z]+\.example"}) as client:
        good = await client.get("/api/health", headers={"origin": "https://app.example"})
        bad = await client.get("/api/health", headers={"origin": "https://app.example.evil.test"})
    assert good.headers["access-control-allow-origin"] == "https://app.example"
    assert "access-control-allow-origin" not in bad.headers


async def test_headers_star_mirrors_the_requested_ones():
    async with _client({"CORS_ALLOW_ORIGINS": "https://app.example",
                        "CORS_ALLOW_HEADERS": "*"}) as client:
        response = await client.options("/api/games", headers=_preflight(
            "https://app.example", "GET", "x-one, x-two"))
    assert response.status_code == 200
    assert response.headers["access-control-allow-headers"] == "x-one, x-two"


async def test_credentials_echo_the_origin_and_allow_cookies():
    async with _client({"CORS_ALLOW_ORIGINS": "https://app.example",
                        "CORS_ALLOW_CREDENTIALS": "true"}) as client:
        response = await client.get("/api/health", headers={"origin": "https://app.example"})
    assert response.headers["access-control-allow-origin"] == "https://app.example"
    assert response.headers["access-control-allow-credentials"] == "true"


def test_sockets_accept_own_and_allowed_origins_only():
    class _Connection:
        def __init__(self, origin):
            self.headers = {"host": "gw.test", **({"origin": origin} if origin else {})}
            self.url = httpx.URL("ws://gw.test/ws/games/x")

    policy = OriginPolicy(Settings.from_env({"CORS_ALLOW_ORIGINS": "https://app.example"}).cors)
    assert policy.allows_socket(_Connection(None))
    assert policy.allows_socket(_Connection("http://gw.test"))
    assert policy.allows_socket(_Connection("https://app.example"))
    assert not policy.allows_socket(_Connection("https://evil.example"))
    assert not policy.allows_socket(_Connection("http://gw.test.evil.example"))


def test_any_origin_for_cors_admits_no_socket_origin():
    """`*` lets pages read the API without cookies; a socket carries the player's cookie."""
    class _Connection:
        def __init__(self, origin):
            self.headers = {"host": "gw.test", "origin": origin}
            self.url = httpx.URL("ws://gw.test/ws/games/x")

    policy = OriginPolicy(Settings.from_env({"CORS_ALLOW_ORIGINS": "*, https://app.example"}).cors)
    assert not policy.allows_socket(_Connection("https://evil.example"))
    assert policy.allows_socket(_Connection("https://app.example"))
    assert policy.allows_socket(_Connection("http://gw.test"))
