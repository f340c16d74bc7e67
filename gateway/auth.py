"""OIDC login: CONTRACT.md's /api/auth/providers and /auth/* routes, and who a request's member is.

The authorization code flow with PKCE (S256), ``state`` and ``nonce``, kept server-side in the
session (gateway.sessions): the browser holds nothing but the random session id. The protocol
pieces come from authlib (authorization URL, PKCE challenge, client authentication at the token
endpoint, the ID token claims rules) and joserfc (JWS signatures against the provider's JWKS);
the HTTP goes through one shared ``httpx.AsyncClient``. authlib's client integrations are not
used: the Starlette one keeps the login state in ``request.session`` (a signed cookie) and opens
an HTTP client per call, and its httpx one is deprecated in favour of httpx2.

Decided here (the contract leaves them open):
- A provider that cannot be reached (or whose discovery document is wrong) when a login starts:
  503 ``{"detail": "Login provider unavailable"}``; at the callback any failure is the contract's
  400 ``{"detail": "Login failed"}``. The reason goes to the log at WARNING, never to the user.
- A login in progress expires after the session store's ``pending_ttl_seconds`` (10 minutes).
- The display name is the ID token's ``name``, else ``preferred_username`` (else the same from
  the userinfo endpoint, when the ID token carries neither), else ``sub``, made fit for the
  lobby (:func:`lobby.inputs.shown_name`: no control characters, at most 64 characters).
- A ``sub`` the platform cannot keep as a member id (over 512 characters, control characters)
  fails the login: a member who could log in but never sit at a table nor erase themselves
  would be worse.
- A successful login always starts a new session id (no fixation); logging in with another
  provider replaces the identity the session had.
- Logout signs out of the provider the session used (RP-initiated logout with
  ``post_logout_redirect_uri``, ``client_id`` and ``id_token_hint``); when that provider has no
  ``end_session_endpoint``, or cannot be reached, the browser goes to POST_LOGOUT_REDIRECT.

Never logged: session ids, cookies, codes, tokens, PKCE verifiers, nonces.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode, urljoin

import httpx
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.auth import ClientAuth
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from gateway.sessions import (
    Session,
    SessionStore,
    clear_cookie,
    new_session_id,
    session_id,
    set_cookie,
)
from lobby import inputs
from services.config import OidcProvider, Settings
from services.rpc.errors import ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)

SCOPE = "openid profile"
CLOCK_LEEWAY_SECONDS = 60
HTTP_TIMEOUT_SECONDS = 10.0
# Asymmetric algorithms only: an ID token is checked against the provider's public keys.
_SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
                       "ES256", "ES384", "ES512", "EdDSA")
_NO_STORE = {"Cache-Control": "no-store"}


class LoginFailed(Exception):
    """A login that cannot complete. The message is the reason for the log, never the user's."""


class ProviderUnavailable(LoginFailed):
    """The provider did not answer, or answered something that is not a usable OIDC provider."""


@dataclass(frozen=True)
class Member:
    """The logged-in member of a request."""

    sub: str
    name: str
    provider: str
    session_id: str
    expires_ms: int | None = None  # when the session ends by itself (epoch ms), if known
    # The member's public player id (CONTRACT: "player"; the lobby's EnsureMember): opaque,
    # stable, never the sub. "" only where the gateway runs without a member directory (tests).
    player: str = ""


class MemberDirectory(Protocol):
    """Who gives a member their public player id: the lobby (lobby.client.LobbyClient)."""

    async def ensure_member(self, member_id: str, display_name: str) -> str: ...


class OidcClient:
    """The relying party of one provider: discovery and JWKS (cached), authorization URL, code
    exchange, ID token validation, userinfo and the logout URL."""

    def __init__(self, provider: OidcProvider, http: httpx.AsyncClient):
        self.provider = provider
        self._http = http
        self._metadata: dict[str, Any] | None = None
        self._keys: KeySet | None = None
        self._lock = asyncio.Lock()

    async def metadata(self) -> dict[str, Any]:
        """The discovery document, fetched once (a failure is not cached: the next call retries)."""
        if self._metadata is None:
            async with self._lock:
                if self._metadata is None:
                    self._metadata = await self._discover()
        return self._metadata

    async def _discover(self) -> dict[str, Any]:
        issuer = self.provider.issuer.rstrip("/")
        document = await self._get_json(issuer + "/.well-known/openid-configuration")
        named = document.get("issuer")
        # OIDC Discovery 4.3: the document's issuer is the one we asked for.
        if not isinstance(named, str) or named.rstrip("/") != issuer:
            raise ProviderUnavailable(f"the discovery document names the issuer {named!r}, "
                                      f"not {self.provider.issuer!r}")
        for endpoint in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            if not isinstance(document.get(endpoint), str):
                raise ProviderUnavailable(f"the discovery document has no {endpoint}")
        return document

    async def key_set(self, refresh: bool = False) -> KeySet:
        if self._keys is None or refresh:
            metadata = await self.metadata()
            document = await self._get_json(metadata["jwks_uri"])
            try:
                self._keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
            except (JoseError, ValueError, TypeError, KeyError) as error:
                raise ProviderUnavailable(f"the provider's JWKS is not readable: {error}") from None
        return self._keys

    async def authorization_url(self, state: str, nonce: str, code_verifier: str) -> str:
        metadata = await self.metadata()
        return prepare_grant_uri(
            metadata["authorization_endpoint"],
            client_id=self.provider.client_id,
            response_type="code",
            redirect_uri=self.provider.redirect_uri,
            scope=SCOPE,
            state=state,
            nonce=nonce,
            code_challenge=create_s256_code_challenge(code_verifier),
            code_challenge_method="S256",
        )

    async def exchange_code(self, code: str, code_verifier: str) -> dict[str, Any]:
        """The token response for ``code``; it carries an ``id_token`` (not yet validated)."""
        metadata = await self.metadata()
        auth = ClientAuth(self.provider.client_id, self.provider.client_secret,
                          self._client_auth_method(metadata))
        form = urlencode({
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.provider.redirect_uri,
            "code_verifier": code_verifier,
        })
        url, headers, body = auth.prepare(
            "POST", metadata["token_endpoint"],
            {"Accept": "application/json",
             "Content-Type": "application/x-www-form-urlencoded"},
            form)
        try:
            response = await self._http.post(url, content=body, headers=headers)
        except httpx.HTTPError as error:
            raise ProviderUnavailable(f"the token endpoint did not answer: {error!r}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise LoginFailed(f"the token endpoint answered {response.status_code}, not JSON")
        if response.status_code != 200:
            raise LoginFailed(f"the token endpoint answered {response.status_code} "
                              f"error={str(body.get('error'))[:64]!r}")
        if not isinstance(body.get("id_token"), str):
            raise LoginFailed("the token response carries no id_token")
        return body

    async def validate_id_token(self, id_token: str, nonce: str,
                                access_token: str | None) -> dict[str, Any]:
        """The claims of ``id_token`` once its signature (JWKS), iss, aud, exp, iat, nonce and
        at_hash hold."""
        metadata = await self.metadata()
        offered = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        algorithms = [alg for alg in _SIGNING_ALGORITHMS if alg in offered]
        if not algorithms:
            raise LoginFailed(f"the provider signs ID tokens with none of {_SIGNING_ALGORITHMS}")
        registry = JWSRegistry(algorithms=algorithms, strict_check_header=False)
        try:
            try:
                token = jwt.decode(id_token, await self.key_set(), registry=registry)
            except InvalidKeyIdError:
                # The provider may have rotated its keys since we fetched them: refetch once.
                token = jwt.decode(id_token, await self.key_set(refresh=True), registry=registry)
            claims = CodeIDToken(
                token.claims,
                token.header,
                options={
                    "iss": {"essential": True, "value": metadata["issuer"]},
                    "aud": {"essential": True, "value": self.provider.client_id},
                },
                params={"nonce": nonce, "client_id": self.provider.client_id,
                        "access_token": access_token},
            )
            claims.validate(now=int(time.time()), leeway=CLOCK_LEEWAY_SECONDS)
        except JoseError as error:
            reason = f"{error.error}: {error.description}" if error.description else error.error
            raise LoginFailed(f"the id_token is rejected: {reason}") from None
        except (ValueError, TypeError) as error:
            raise LoginFailed(f"the id_token is malformed: {type(error).__name__}") from None
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise LoginFailed("the id_token has no usable sub")
        try:
            inputs.member_id(claims["sub"], "sub")
        except ServiceError as error:
            raise LoginFailed(f"the id_token's sub cannot be a member id: {error.message}") from None
        return dict(claims)

    async def userinfo(self, access_token: str | None) -> dict[str, Any] | None:
        metadata = await self.metadata()
        endpoint = metadata.get("userinfo_endpoint")
        if not isinstance(endpoint, str) or not access_token:
            return None
        try:
            return await self._get_json(endpoint,
                                        headers={"Authorization": f"Bearer {access_token}"})
        except ProviderUnavailable as error:
            log.warning("userinfo of %s not available: %s", self.provider.name, error)
            return None

    async def logout_url(self, id_token: str | None) -> str | None:
        """RP-initiated logout at the provider, or None when it offers none."""
        endpoint = (await self.metadata()).get("end_session_endpoint")
        if not isinstance(endpoint, str):
            return None
        params = {
            # The provider needs an absolute URL; the callback URL says where the gateway is.
            "post_logout_redirect_uri": urljoin(self.provider.redirect_uri,
                                                self.provider.post_logout_redirect),
            "client_id": self.provider.client_id,
        }
        if id_token:
            params["id_token_hint"] = id_token
        return add_params_to_uri(endpoint, params)

    def _client_auth_method(self, metadata: dict[str, Any]) -> str:
        if not self.provider.client_secret:
            return "none"
        # OIDC Discovery: when the provider does not say, client_secret_basic is the default.
        offered = metadata.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        if "client_secret_basic" not in offered and "client_secret_post" in offered:
            return "client_secret_post"
        return "client_secret_basic"

    async def _get_json(self, url: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = await self._http.get(url, **kwargs)
            response.raise_for_status()
            document = response.json()
        except httpx.HTTPStatusError as error:
            raise ProviderUnavailable(f"GET {url} answered {error.response.status_code}") from None
        except httpx.HTTPError as error:
            raise ProviderUnavailable(f"GET {url}: {error!r}") from None
        except ValueError:
            raise ProviderUnavailable(f"GET {url}: the answer is not JSON") from None
        if not isinstance(document, dict):
            raise ProviderUnavailable(f"GET {url}: the answer is not a JSON object")
        return document


class Auth:
    """The login routes and the session lookup of every other route.

    ``http_client`` is used for every call to the providers; without one, Auth opens its own
    (closed by ``aclose``). ``directory`` gives each member their player id (Member.player):
    asked once per session, at login; a session without one (made before player ids, or at a
    login while the lobby was down) asks on its next request and keeps the answer. Without a
    directory (tests of other parts) Member.player is "".
    """

    def __init__(self, settings: Settings, sessions: SessionStore,
                 http_client: httpx.AsyncClient | None = None,
                 directory: MemberDirectory | None = None):
        self.settings = settings
        self.sessions = sessions
        self.directory = directory
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=HTTP_TIMEOUT_SECONDS)
        self._clients = {provider.name: OidcClient(provider, self._http)
                         for provider in settings.oidc_providers}

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/api/auth/providers", self._providers, methods=["GET"]),
            Route("/auth/login", self._login_first, methods=["GET"]),
            Route("/auth/logout", self._logout, methods=["GET"]),
            Route("/auth/{provider}/login", self._login, methods=["GET"]),
            Route("/auth/{provider}/callback", self._callback, methods=["GET"]),
        ]

    async def member(self, connection: HTTPConnection) -> Member | None:
        """The logged-in member of a request or WebSocket, or None (no cookie, or an unknown,
        expired or forged one)."""
        session = await self._session_of(connection)
        if session is None or session.sub is None:
            return None
        name = session.name or session.sub
        if session.player is None and self.directory is not None:
            # A session older than player ids: asked once (a lobby that does not answer is a
            # 503, as for any call of it), then kept with the session.
            session.player = await self.directory.ensure_member(
                session.sub, inputs.shown_name(name) or "player")
            await self.sessions.save_existing(session)
        return Member(sub=session.sub, name=name, provider=session.provider or "",
                      session_id=session.id, expires_ms=self.sessions.expires_ms(session),
                      player=session.player or "")

    async def end_member_sessions(self, sub: str) -> int:
        """End every session of the member ``sub`` (DELETE /api/me); how many were ended."""
        ended = await self.sessions.delete_member(sub)
        log.info("ended %d session(s) of an erased member", ended)
        return ended

    # -- routes --------------------------------------------------------------------------

    async def _providers(self, request: Request) -> Response:
        return JSONResponse({"providers": [
            {"name": provider.name, "login_url": f"/auth/{provider.name}/login"}
            for provider in self.settings.oidc_providers
        ]})

    async def _login_first(self, request: Request) -> Response:
        if not self.settings.oidc_providers:
            return _not_found()
        first = self.settings.oidc_providers[0].name
        return RedirectResponse(f"/auth/{first}/login", status_code=302, headers=_NO_STORE)

    async def _login(self, request: Request) -> Response:
        client = self._clients.get(request.path_params["provider"])
        if client is None:
            return _not_found()
        name = client.provider.name
        try:
            await client.metadata()
        except LoginFailed as error:
            log.warning("login with %s cannot start: %s", name, error)
            return JSONResponse({"detail": "Login provider unavailable"}, status_code=503,
                                headers=_NO_STORE)
        session = await self._session_of(request)
        fresh = session is None
        if session is None:
            session = Session(id=new_session_id())
        elif not session.logged_in:
            # A session without a member is only logins in progress: its (short) lifetime
            # counts from the latest one.
            session.created_ms = now_ms()
        state, nonce, verifier = (secrets.token_urlsafe(32), secrets.token_urlsafe(32),
                                  secrets.token_urlsafe(48))
        session.pending[name] = {"state": state, "nonce": nonce, "code_verifier": verifier,
                                 "created_ms": now_ms()}
        await self.sessions.save(session)
        url = await client.authorization_url(state, nonce, verifier)
        response = RedirectResponse(url, status_code=302, headers=_NO_STORE)
        if fresh:
            set_cookie(response, request, session.id, max_age=int(self.sessions.ttl_seconds))
        log.debug("login with %s started", name)
        return response

    async def _callback(self, request: Request) -> Response:
        client = self._clients.get(request.path_params["provider"])
        if client is None:
            return _not_found()
        name = client.provider.name
        try:
            session = await self._complete_login(request, client)
        except LoginFailed as error:
            log.warning("login with %s failed: %s", name, error)
            return _login_failed()
        except Exception:
            log.exception("login with %s failed unexpectedly", name)
            return _login_failed()
        response = RedirectResponse(client.provider.post_login_redirect, status_code=302,
                                    headers=_NO_STORE)
        set_cookie(response, request, session.id, max_age=int(self.sessions.ttl_seconds))
        log.info("a member logged in with %s", name)
        return response

    async def _logout(self, request: Request) -> Response:
        providers = self.settings.oidc_providers
        target = providers[0].post_logout_redirect if providers else "/"
        session = await self._session_of(request)
        if session is not None:
            await self.sessions.delete(session.id)
            client = self._clients.get(session.provider or "")
            if session.logged_in and client is not None:
                target = client.provider.post_logout_redirect
                try:
                    target = await client.logout_url(session.id_token) or target
                except LoginFailed as error:
                    log.warning("logout: %s cannot be reached, signed out of tavolo only: %s",
                                client.provider.name, error)
            log.info("a session ended by logout")
        response = RedirectResponse(target, status_code=302, headers=_NO_STORE)
        clear_cookie(response, request)
        return response

    # -- the login itself ----------------------------------------------------------------

    async def _complete_login(self, request: Request, client: OidcClient) -> Session:
        name = client.provider.name
        params = request.query_params
        if "error" in params:
            raise LoginFailed(f"the provider answered error={params['error'][:64]!r}")
        session = await self._session_of(request)
        if session is None:
            raise LoginFailed("no session: the cookie is missing, unknown or expired")
        pending = session.pending.pop(name, None)
        if pending is None:
            raise LoginFailed("no login with this provider is in progress in the session")
        # Whatever happens next, this state, nonce and verifier are spent.
        await self.sessions.save(session)
        state = params.get("state", "")
        if not hmac.compare_digest(state.encode(), str(pending.get("state", "")).encode()):
            raise LoginFailed("the state does not match the login in progress")
        if now_ms() - int(pending.get("created_ms", 0)) > self.sessions.pending_ttl_seconds * 1000:
            raise LoginFailed("the login in progress has expired")
        code = params.get("code")
        if not code:
            raise LoginFailed("the callback carries no code")
        tokens = await client.exchange_code(code, pending["code_verifier"])
        access_token = tokens.get("access_token")
        access_token = access_token if isinstance(access_token, str) else None
        claims = await client.validate_id_token(tokens["id_token"], pending["nonce"], access_token)
        display_name = _display_name(claims)
        if display_name is None:
            info = await client.userinfo(access_token)
            # OIDC Core 5.3.2: userinfo is only about the ID token's subject.
            if info is not None and info.get("sub") == claims["sub"]:
                display_name = _display_name(info)
        member_session = Session(
            id=new_session_id(),
            sub=claims["sub"],
            name=display_name or inputs.shown_name(claims["sub"]) or "player",
            provider=name,
            id_token=tokens["id_token"],
        )
        member_session.player = await self._player_of(member_session)
        await self.sessions.save(member_session)
        await self.sessions.delete(session.id)
        return member_session

    async def _player_of(self, session: Session) -> str | None:
        """The member's player id from the directory, which keeps their name current; None when
        there is no directory, or it does not answer: the login goes on, and the session asks
        again at its first request."""
        if self.directory is None or session.sub is None or session.name is None:
            return None
        try:
            return await self.directory.ensure_member(session.sub, session.name)
        except ServiceError as error:
            log.warning("the player id is not known at login, asked again later: %s", error.message)
            return None

    async def _session_of(self, connection: HTTPConnection) -> Session | None:
        id = session_id(connection)
        return None if id is None else await self.sessions.get(id)


def _display_name(claims: dict[str, Any]) -> str | None:
    for claim in ("name", "preferred_username"):
        value = claims.get(claim)
        name = inputs.shown_name(value) if isinstance(value, str) else ""
        if name:
            return name
    return None


def _not_found() -> Response:
    return JSONResponse({"detail": "Not Found"}, status_code=404)


def _login_failed() -> Response:
    return JSONResponse({"detail": "Login failed"}, status_code=400, headers=_NO_STORE)
