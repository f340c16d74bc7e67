"""The development OpenID provider (``tavolo dev-idp``): type a user name, and you are that user.

FOR DEVELOPMENT ONLY. There are no passwords, anyone is whoever they type, the keys and codes live
in memory (a restart signs every token out), and the only client is the public client ``tavolo``
whose redirect and post-logout URIs must be plain http on ``localhost`` or ``127.0.0.1``: the
provider cannot hand a code or a token to any other site.

Built from authlib's server pieces, with a thin Starlette adapter (authlib integrates its servers
with Flask and Django only): ``AuthorizationServer`` with ``AuthorizationCodeGrant``,
``CodeChallenge`` (PKCE, S256 only and required) and ``OpenIDCode`` (the ID token, signed RS256 by
a key generated at start, via joserfc); ``EndSessionEndpoint`` (RP-initiated logout);
``ResourceProtector`` with ``BearerTokenValidator`` for userinfo.

Endpoints, under the issuer (``http://localhost:8180/tavolo`` unless ``--issuer`` says otherwise):
``/.well-known/openid-configuration``,
``/jwks``, ``/authorize`` (GET: the sign-in form; POST: the form's answer), ``/token``,
``/userinfo``, ``/logout``.
"""

from __future__ import annotations

import html
import logging
import re
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlsplit

import uvicorn
from authlib.common.security import generate_token
from authlib.oauth2 import AuthorizationServer, OAuth2Request, ResourceProtector
from authlib.oauth2.rfc6749 import ClientMixin, OAuth2Error, TokenMixin
from authlib.oauth2.rfc6749.errors import InvalidRequestError
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant
from authlib.oauth2.rfc6749.requests import OAuth2Payload
from authlib.oauth2.rfc6749.util import list_to_scope, scope_to_list
from authlib.oauth2.rfc6750 import BearerTokenGenerator, BearerTokenValidator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import AuthorizationCodeMixin, OpenIDCode, UserInfo
from authlib.oidc.rpinitiated import EndSessionEndpoint
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from services.config import DEV_CLIENT_ID, DEV_ISSUER

log = logging.getLogger(__name__)

CODE_LIFETIME_SECONDS = 60
ID_TOKEN_LIFETIME_SECONDS = 300
ACCESS_TOKEN_LIFETIME_SECONDS = 3600
SCOPES = ("openid", "profile")
MAX_FORM_BYTES = 64 * 1024
USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")


def is_local_http(uri: str) -> bool:
    """True for a plain-http URI on localhost / 127.0.0.1: where this provider may send people."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return False
    return (parts.scheme == "http" and parts.hostname in ("localhost", "127.0.0.1")
            and not parts.fragment)


@dataclass(frozen=True)
class _User:
    username: str

    def get_user_id(self) -> str:
        return self.username


class _Client(ClientMixin):
    """The one client: ``tavolo``, public (no secret), code flow only."""

    client_id = DEV_CLIENT_ID

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> None:
        return None  # the request must name its redirect_uri

    def get_allowed_scope(self, scope: str | None) -> str:
        return list_to_scope([s for s in scope_to_list(scope) or [] if s in SCOPES])

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return is_local_http(redirect_uri)

    def check_client_secret(self, client_secret: str) -> bool:
        return False

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class _AuthorizationCode(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    username: str
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int
    expires_at: float

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time


@dataclass
class _AccessToken(TokenMixin):
    access_token: str
    client: _Client
    username: str
    scope: str
    expires_at: float

    def check_client(self, client: ClientMixin) -> bool:
        return client.get_client_id() == self.client.client_id

    def get_scope(self) -> str:
        return self.scope

    def get_expires_in(self) -> int:
        return ACCESS_TOKEN_LIFETIME_SECONDS

    def is_expired(self) -> bool:
        return self.expires_at <= time.time()

    def is_revoked(self) -> bool:
        return False

    def get_user(self) -> _User:
        return _User(self.username)

    def get_client(self) -> _Client:
        return self.client


class _Payload(OAuth2Payload):
    def __init__(self, items: list[tuple[str, str]]):
        self._datalist: defaultdict[str, list] = defaultdict(list)
        for key, value in items:
            self._datalist[key].append(value)
        self._data = {key: values[0] for key, values in self._datalist.items()}

    @property
    def data(self) -> dict[str, str]:
        return self._data

    @property
    def datalist(self) -> defaultdict[str, list]:
        return self._datalist


class _Request(OAuth2Request):
    """An authlib request from what Starlette parsed (the form is read before authlib runs)."""

    def __init__(self, request: Request, form_items: list[tuple[str, str]]):
        # authlib refuses plain http off loopback (InsecureTransportError, checked on this URI and
        # nowhere else). This provider is plain http by design, reachable under whatever issuer
        # it is given, and guards itself where it matters: it only ever sends people to local
        # http URIs (is_local_http).
        super().__init__(request.method, "https://dev-idp.invalid/", headers=request.headers)
        self.uri = str(request.url)
        query_items = list(request.query_params.multi_items())
        self._args = dict(query_items)
        self._form = dict(form_items)
        self.payload = _Payload(query_items + form_items)

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


async def _form_items(request: Request) -> list[tuple[str, str]]:
    """The fields of a urlencoded POST body (parsed here: Starlette's form parsing needs
    python-multipart, which tavolo does not otherwise use)."""
    if request.method != "POST":
        return []
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise InvalidRequestError("the body must be application/x-www-form-urlencoded")
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise InvalidRequestError("the body is too large")
    try:
        return parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise InvalidRequestError("the body is not UTF-8") from None


async def _oauth2_request(request: Request) -> _Request:
    return _Request(request, await _form_items(request))


class _Server(AuthorizationServer):
    def __init__(self, issuer: str, key: RSAKey):
        super().__init__(scopes_supported=list(SCOPES))
        self.issuer = issuer
        self.key = key
        self.client = _Client()
        self.codes: dict[str, _AuthorizationCode] = {}
        self.tokens: dict[str, _AccessToken] = {}
        self.used_nonces: dict[str, float] = {}
        self.register_token_generator("default", BearerTokenGenerator(
            access_token_generator=lambda **_: generate_token(42),
            expires_generator=lambda client, grant_type: ACCESS_TOKEN_LIFETIME_SECONDS,
        ))
        self.register_grant(_CodeGrant, [_S256Challenge(required=True), _OpenIDCode(self)])
        self.register_endpoint(_EndSession)
        self.protector = ResourceProtector()
        self.protector.register_token_validator(_BearerValidator(self))

    def public_jwks(self) -> dict[str, Any]:
        return {"keys": [self.key.as_dict(private=False)]}

    def forget_expired(self) -> None:
        now = time.time()
        for store in (self.codes, self.tokens):
            for key in [key for key, item in store.items() if item.expires_at <= now]:
                del store[key]
        for nonce in [n for n, expires in self.used_nonces.items() if expires <= now]:
            del self.used_nonces[nonce]

    # -- authlib's framework hooks ---------------------------------------------------------

    def query_client(self, client_id: str) -> _Client | None:
        return self.client if client_id == self.client.client_id else None

    def save_token(self, token: dict[str, Any], request: OAuth2Request) -> None:
        self.tokens[token["access_token"]] = _AccessToken(
            access_token=token["access_token"],
            client=self.client,
            username=request.user.username,
            scope=token.get("scope", ""),
            expires_at=time.time() + ACCESS_TOKEN_LIFETIME_SECONDS,
        )

    def create_oauth2_request(self, request: Any) -> OAuth2Request:
        return request  # the handlers hand over a ready _Request

    def create_json_request(self, request: Any) -> Any:
        raise NotImplementedError("no JSON endpoints")

    def handle_response(self, status: int, body: Any, headers: Any) -> Response:
        headers = dict(headers or [])
        if isinstance(body, dict):
            return JSONResponse(body, status_code=status, headers=headers)
        return Response(body or "", status_code=status, headers=headers)

    def send_signal(self, name: str, *args: Any, **kwargs: Any) -> None:
        pass


class _CodeGrant(AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS: ClassVar[list[str]] = ["none"]
    server: _Server

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        self.server.forget_expired()
        data = request.payload.data
        nonce = data.get("nonce")
        if nonce:
            self.server.used_nonces[nonce] = time.time() + ID_TOKEN_LIFETIME_SECONDS * 2
        self.server.codes[code] = _AuthorizationCode(
            code=code,
            client_id=request.client.get_client_id(),
            redirect_uri=request.payload.redirect_uri,
            scope=request.scope,
            username=request.user.username,
            nonce=nonce,
            code_challenge=data.get("code_challenge"),
            code_challenge_method=data.get("code_challenge_method"),
            auth_time=int(time.time()),
            expires_at=time.time() + CODE_LIFETIME_SECONDS,
        )

    def query_authorization_code(self, code: str, client: ClientMixin) -> _AuthorizationCode | None:
        # Single use: a code is spent the first time anyone presents it, right or wrong.
        item = self.server.codes.pop(code, None)
        if item is None or item.expires_at <= time.time():
            return None
        if item.client_id != client.get_client_id():
            return None
        return item

    def delete_authorization_code(self, authorization_code: _AuthorizationCode) -> None:
        self.server.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code: _AuthorizationCode) -> _User:
        return _User(authorization_code.username)


class _S256Challenge(CodeChallenge):
    """PKCE is required, and only with S256 (never ``plain``)."""

    SUPPORTED_CODE_CHALLENGE_METHOD: ClassVar[list[str]] = ["S256"]

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: 'code_challenge' is missing")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("'code_challenge_method' must be S256")
        super().validate_code_challenge(grant, redirect_uri)


class _OpenIDCode(OpenIDCode):
    def __init__(self, server: _Server):
        super().__init__(require_nonce=True)
        self.server = server

    def exists_nonce(self, nonce: str, request: OAuth2Request) -> bool:
        return nonce in self.server.used_nonces

    def resolve_client_private_key(self, client: ClientMixin) -> RSAKey:
        return self.server.key

    def get_client_algorithm(self, client: ClientMixin) -> str:
        return "RS256"

    def get_encode_header(self, client: ClientMixin) -> dict[str, str]:
        return {"alg": "RS256", "kid": self.server.key.kid or ""}

    def get_client_claims(self, client: ClientMixin) -> dict[str, Any]:
        return {
            "iss": self.server.issuer,
            "aud": client.get_client_id(),
            "exp": int(time.time()) + ID_TOKEN_LIFETIME_SECONDS,
        }

    def generate_user_info(self, user: _User, scope: str) -> UserInfo:
        return _user_info(user.username)


class _EndSession(EndSessionEndpoint):
    server: _Server

    def get_server_jwks(self) -> dict[str, Any]:
        return self.server.public_jwks()

    def get_algorithms(self) -> list[str]:
        return ["RS256"]

    def _is_valid_post_logout_redirect_uri(self, client: Any, uri: str) -> bool:
        # No registered list: any local http URI (the ports of a developer's machine vary).
        return is_local_http(uri)

    def is_post_logout_redirect_uri_legitimate(self, request: Any, uri: str, client: Any,
                                               logout_hint: str | None) -> bool:
        return True  # development: a local URI is legitimate even without id_token_hint

    def end_session(self, end_session_request: Any) -> None:
        pass  # this provider keeps no sign-in session of its own: each login asks for a name


class _BearerValidator(BearerTokenValidator):
    def __init__(self, server: _Server):
        super().__init__()
        self.server = server

    def authenticate_token(self, token_string: str) -> _AccessToken | None:
        return self.server.tokens.get(token_string)


def _user_info(username: str) -> UserInfo:
    return UserInfo(sub=username, name=username, preferred_username=username)


def _discovery_document(issuer: str) -> dict[str, Any]:
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "userinfo_endpoint": f"{issuer}/userinfo",
        "jwks_uri": f"{issuer}/jwks",
        "end_session_endpoint": f"{issuer}/logout",
        "scopes_supported": list(SCOPES),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "at_hash",
                             "name", "preferred_username"],
    }


_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>tavolo development sign-in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}}
input,button{{font-size:1.1rem;padding:.4rem}} .error{{color:#b00020}}</style></head>
<body>
<h1>tavolo</h1>
<p>Development sign-in: type any user name (for example <code>alice</code> or <code>bob</code>)
and you are that user. There is no password.</p>
{error}
<form method="post" action="{action}">
{hidden}
<label>User name <input name="username" value="{username}" required autofocus
 pattern="[A-Za-z0-9][A-Za-z0-9._\\-]{{0,31}}" maxlength="32" autocomplete="username"></label>
<button type="submit">Sign in</button>
</form>
</body></html>
"""


def _sign_in_page(action: str, fields: list[tuple[str, str]], username: str = "",
                  error: str = "") -> str:
    hidden = "\n".join(
        f'<input type="hidden" name="{html.escape(key)}" value="{html.escape(value)}">'
        for key, value in fields
    )
    return _PAGE.format(
        action=html.escape(action),
        hidden=hidden,
        username=html.escape(username),
        error=f'<p class="error">{html.escape(error)}</p>' if error else "",
    )


def _signed_out_page() -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>Signed out</title></head><body><p>You are signed out of the tavolo "
            "development provider.</p></body></html>")


def create_app(issuer: str = DEV_ISSUER, *, signing_key: RSAKey | None = None) -> Starlette:
    """The provider as a Starlette app; its routes live under the issuer's path.

    ``signing_key`` (an RSA private key) replaces the key generated here, so a test can mint
    ID tokens this provider would have signed.
    """
    issuer = issuer.rstrip("/")
    key = signing_key or RSAKey.generate_key(
        2048, parameters={"kid": generate_token(16), "use": "sig", "alg": "RS256"}, private=True)
    server = _Server(issuer, key)
    document = _discovery_document(issuer)
    base = urlsplit(issuer).path.rstrip("/")

    async def configuration(request: Request) -> Response:
        return JSONResponse(document)

    async def jwks(request: Request) -> Response:
        return JSONResponse(server.public_jwks())

    async def authorize(request: Request) -> Response:
        # GET carries the client's request in the query; the form POSTs it back in hidden fields
        # beside the user name, and authlib validates it again.
        try:
            items = await _form_items(request)
            username = next((value for key, value in items if key == "username"), "").strip()
            oauth_request = _Request(request, [(k, v) for k, v in items if k != "username"])
            grant = server.get_consent_grant(oauth_request)
        except OAuth2Error as error:
            return server.handle_error_response(None, error)
        fields = [(key, value) for key, values in oauth_request.payload.datalist.items()
                  for value in values]
        if request.method == "GET":
            return HTMLResponse(_sign_in_page(f"{base}/authorize", fields))
        if not USERNAME.fullmatch(username):
            return HTMLResponse(
                _sign_in_page(f"{base}/authorize", fields, username,
                              "A user name is 1 to 32 letters, digits, '.', '_' or '-', "
                              "starting with a letter or digit."),
                status_code=400)
        log.info("dev-idp: %s signed in", username)
        return server.create_authorization_response(oauth_request, grant_user=_User(username),
                                                    grant=grant)

    async def token(request: Request) -> Response:
        try:
            oauth_request = await _oauth2_request(request)
        except OAuth2Error as error:
            return server.handle_error_response(None, error)
        return server.create_token_response(oauth_request)

    async def userinfo(request: Request) -> Response:
        try:
            oauth_request = await _oauth2_request(request)
            access = server.protector.validate_request(["openid"], oauth_request)
        except OAuth2Error as error:
            return server.handle_error_response(None, error)
        return JSONResponse(dict(_user_info(access.username)),
                            headers={"Cache-Control": "no-store"})

    async def logout(request: Request) -> Response:
        try:
            oauth_request = await _oauth2_request(request)
            try:
                validated = server.validate_endpoint_request("end_session", oauth_request)
            except InvalidRequestError:
                # An id_token_hint from before a restart (another key): development leniency,
                # go on without it rather than strand the developer on an error page.
                items = [(k, v) for k, v in oauth_request.payload.data.items()
                         if k != "id_token_hint"]
                oauth_request.payload = _Payload(items)
                validated = server.validate_endpoint_request("end_session", oauth_request)
            response = server.create_endpoint_response("end_session", validated)
        except OAuth2Error as error:
            return server.handle_error_response(None, error)
        return response or HTMLResponse(_signed_out_page())

    return Starlette(routes=[
        Route(f"{base}/.well-known/openid-configuration", configuration),
        Route(f"{base}/jwks", jwks),
        Route(f"{base}/authorize", authorize, methods=["GET", "POST"]),
        Route(f"{base}/token", token, methods=["POST"]),
        Route(f"{base}/userinfo", userinfo, methods=["GET", "POST"]),
        Route(f"{base}/logout", logout, methods=["GET", "POST"]),
    ])


def serve(port: int = 8180, issuer: str | None = None, host: str | None = None) -> None:
    """``tavolo dev-idp``: the provider on ``port``, announcing ``issuer`` (default
    http://localhost:<port>/tavolo). It listens on 127.0.0.1 when the issuer is local, else on
    every interface (``host`` overrides)."""
    issuer = issuer or f"http://localhost:{port}/tavolo"
    if host is None:
        host = "127.0.0.1" if urlsplit(issuer).hostname in ("localhost", "127.0.0.1") else "0.0.0.0"
    log.warning("development OIDC provider at %s: anyone can sign in as anyone; never expose it",
                issuer)
    uvicorn.run(create_app(issuer), host=host, port=port, log_config=None)
