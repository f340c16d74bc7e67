"""The login's test bench: real development providers over HTTP, a gateway app, a scripted browser.

One uvicorn server (a background thread, for the whole session) serves three development
providers under their issuer paths on one free 127.0.0.1 port:
- ``/tavolo``: the provider ``default`` logs in with;
- ``/second``: another provider, for switching identities;
- ``/evil``: a provider with a key the tests hold, behind a wrapper that can replace the ID token
  of its token responses (forged, expired, for another audience...) and counts JWKS fetches.
The gateway side is a Starlette app with Auth's routes and ``/whoami``, driven in-process through
httpx's ASGI transport; everything it asks of a provider goes over the socket.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn
from joserfc import jws, jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from devtools.dev_idp import create_app as create_idp
from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, MemorySessionStore, RedisSessionStore, SessionStore
from services.config import OidcProvider, Settings
from services.stores import Keys
from testing.processes import free_port

GATEWAY = "http://127.0.0.1:8080"
GATEWAY_HTTPS = "https://127.0.0.1:8080"



class TokenTamperer:
    """ASGI wrapper of a provider: ``rewrite`` (when set) replaces its token responses; it counts
    the JWKS and userinfo requests it sees."""

    def __init__(self, app, base_url: str):
        self.app = app
        self.base_url = base_url
        self.rewrite: Callable[[dict], dict] | None = None
        self.jwks_fetches = 0
        self.userinfo_calls = 0

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if path.endswith("/jwks"):
            self.jwks_fetches += 1
        if path.endswith("/userinfo"):
            self.userinfo_calls += 1
        rewrite = self.rewrite
        if scope["type"] != "http" or not path.endswith("/token") or rewrite is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = await request.body()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app),
                                     base_url=self.base_url) as inner:
            answer = await inner.post(path, content=body,
                                      headers={"content-type": request.headers["content-type"]})
        data = answer.json()
        if answer.status_code == 200:
            data = rewrite(data)
        await JSONResponse(data, status_code=answer.status_code)(scope, receive, send)


class Providers:
    """The running development providers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.evil_key = RSAKey.generate_key(
            2048, parameters={"kid": "evil-1", "use": "sig", "alg": "RS256"}, private=True)
        self.evil = TokenTamperer(
            create_idp(f"{self.base}/evil", signing_key=self.evil_key), self.base)
        self.apps = {
            "/tavolo": create_idp(f"{self.base}/tavolo"),
            "/second": create_idp(f"{self.base}/second"),
            "/evil": self.evil,
        }
        config = uvicorn.Config(self._dispatch, log_config=None, access_log=False,
                                lifespan="off", interface="asgi3")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def issuer(self, path: str) -> str:
        return f"{self.base}/{path}"

    async def _dispatch(self, scope, receive, send):
        for prefix, app in self.apps.items():
            if scope.get("path", "").startswith(prefix + "/"):
                await app(scope, receive, send)
                return
        await PlainTextResponse("Not Found", status_code=404)(scope, receive, send)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the development providers did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@pytest.fixture(scope="session")
def providers():
    running = Providers()
    running.start()
    yield running
    running.stop()


@pytest.fixture(autouse=True)
def _untampered(providers):
    providers.evil.rewrite = None
    yield
    providers.evil.rewrite = None


def oidc_provider(name: str, issuer: str) -> OidcProvider:
    return OidcProvider(
        name=name,
        issuer=issuer,
        client_id="tavolo",
        client_secret=None,
        redirect_uri=f"{GATEWAY}/auth/{name}/callback",
        post_login_redirect="/lobby",
        post_logout_redirect="/bye",
    )


@pytest.fixture
def settings(providers) -> Settings:
    return Settings(oidc_providers=(
        oidc_provider("default", providers.issuer("tavolo")),
        oidc_provider("second", providers.issuer("second")),
        oidc_provider("evil", providers.issuer("evil")),
        oidc_provider("down", f"http://127.0.0.1:{free_port()}/down"),
    ))


@pytest.fixture(params=["memory", "redis"])
def any_store(request, redis_prefix, redis_client) -> SessionStore:
    """A session store of each kind (the behaviour suites run against both)."""
    if request.param == "memory":
        return MemorySessionStore()
    return RedisSessionStore(redis_client, Keys(redis_prefix))


@pytest.fixture
def store() -> SessionStore:
    return MemorySessionStore()


def make_gateway(auth: Auth) -> Starlette:
    async def whoami(request: Request) -> JSONResponse:
        member = await auth.member(request)
        if member is None:
            return JSONResponse({"detail": "Not authenticated"}, status_code=401)
        return JSONResponse({"sub": member.sub, "name": member.name,
                             "provider": member.provider})

    return Starlette(routes=[*auth.routes(), Route("/whoami", whoami)])


@pytest.fixture
async def auth(settings, store):
    auth = Auth(settings, store)
    yield auth
    await auth.aclose()


@contextlib.asynccontextmanager
async def gateway_client(auth: Auth, base_url: str = GATEWAY):
    """An HTTP client of a gateway app with ``auth``'s routes, in-process."""
    app = make_gateway(auth)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url=base_url) as client:
        yield client


@pytest.fixture
async def gateway(auth):
    async with gateway_client(auth) as client:
        yield client


@pytest.fixture
async def idp_http():
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


@pytest.fixture
def browser(gateway, idp_http) -> Browser:
    return Browser(gateway, idp_http)


@pytest.fixture
def other_browser(gateway, idp_http) -> Browser:
    """A second browser (its own cookie) on the same gateway."""
    return Browser(gateway, idp_http)


_HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')
_ACTION = re.compile(r'<form method="post" action="([^"]*)">')


class Browser:
    """Follows the login's redirects like a browser, keeping the gateway's cookie itself."""

    def __init__(self, gateway: httpx.AsyncClient, idp: httpx.AsyncClient):
        self.gateway = gateway
        self.idp = idp
        self.cookie: str | None = None
        self.set_cookies: list[str] = []

    async def get(self, url: str) -> httpx.Response:
        """GET on the gateway (a path, or a full URL of the gateway's origin)."""
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        headers = {"cookie": f"{COOKIE_NAME}={self.cookie}"} if self.cookie else {}
        self.gateway.cookies.clear()  # httpx's own jar would share cookies between browsers
        response = await self.gateway.get(target, headers=headers)
        for header in response.headers.get_list("set-cookie"):
            self.set_cookies.append(header)
            morsel = SimpleCookie(header)[COOKIE_NAME]
            self.cookie = None if morsel["max-age"] == "0" or not morsel.value else morsel.value
        return response

    async def start_login(self, provider: str = "default") -> str:
        """The provider's authorization URL the gateway sends the browser to."""
        response = await self.get(f"/auth/{provider}/login")
        assert response.status_code == 302, response.text
        return response.headers["location"]

    async def sign_in(self, authorize_url: str, username: str) -> str:
        """Fill the provider's form; the callback URL (with code and state) it redirects to."""
        page = await self.idp.get(authorize_url)
        assert page.status_code == 200, page.text
        fields = {html.unescape(k): html.unescape(v) for k, v in _HIDDEN.findall(page.text)}
        action = html.unescape(_ACTION.search(page.text).group(1))
        parts = urlsplit(authorize_url)
        answer = await self.idp.post(f"{parts.scheme}://{parts.netloc}{action}",
                                     data={**fields, "username": username})
        assert answer.status_code == 302, answer.text
        return answer.headers["location"]

    async def login(self, username: str, provider: str = "default") -> httpx.Response:
        callback = await self.sign_in(await self.start_login(provider), username)
        return await self.get(callback)

    async def whoami(self) -> httpx.Response:
        return await self.get("/whoami")


def id_token_claims(id_token: str) -> dict:
    """The claims of a compact JWS, unverified (the tests look inside tokens they were given)."""
    return json.loads(jws.extract_compact(id_token.encode()).payload)


def reissue(key: RSAKey, kid: str | None = None, drop: tuple[str, ...] = (),
            drop_access_token: bool = False, **claims) -> Callable[[dict], dict]:
    """A TokenTamperer rewrite: the same ID token's claims, changed, signed with ``key``."""

    def rewrite(tokens: dict) -> dict:
        original = id_token_claims(tokens["id_token"])
        changed = {k: v for k, v in {**original, **claims}.items() if k not in drop}
        tokens = {**tokens, "id_token": jwt.encode({"alg": "RS256", "kid": kid or key.kid},
                                                   changed, key)}
        if drop_access_token:
            tokens.pop("access_token", None)
        return tokens

    return rewrite
