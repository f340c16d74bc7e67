"""The development OpenID provider over HTTP: discovery, the code flow with PKCE, its refusals."""

from __future__ import annotations

import html
import inspect
import re
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc import discovery, rpinitiated
from joserfc import jwt
from joserfc.jwk import KeySet

from devtools import dev_idp
from services.config import DEV_ISSUER

REDIRECT = "http://127.0.0.1:8080/auth/default/callback"
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')


@pytest.fixture
def issuer(providers) -> str:
    return providers.issuer("tavolo")


def authorize_params(**changes) -> dict[str, str]:
    verifier = changes.pop("verifier", "v" * 50)
    params = {
        "response_type": "code",
        "client_id": "tavolo",
        "redirect_uri": REDIRECT,
        "scope": "openid profile",
        "state": secrets.token_urlsafe(16),
        "nonce": secrets.token_urlsafe(16),
        "code_challenge": create_s256_code_challenge(verifier),
        "code_challenge_method": "S256",
    }
    params.update(changes)
    return {k: v for k, v in params.items() if v is not None}


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def sign_in(http, issuer, params, username="alice"):
    """GET the form, POST it back with ``username``; the provider's answer."""
    page = await http.get(f"{issuer}/authorize", params=params)
    assert page.status_code == 200, page.text
    fields = [(html.unescape(k), html.unescape(v)) for k, v in _HIDDEN.findall(page.text)]
    return await http.post(f"{issuer}/authorize", data={**dict(fields), "username": username})


async def code_for(http, issuer, **changes) -> tuple[str, dict[str, str]]:
    params = authorize_params(**changes)
    answer = await sign_in(http, issuer, params)
    assert answer.status_code == 302, answer.text
    returned = query_of(answer.headers["location"])
    assert returned["state"] == params["state"]
    return returned["code"], params


async def exchange(http, issuer, code, verifier="v" * 50, **changes):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "client_id": "tavolo", "code_verifier": verifier, **changes}
    return await http.post(f"{issuer}/token", data={k: v for k, v in form.items() if v is not None})


async def test_discovery_describes_the_provider(idp_http, issuer):
    response = await idp_http.get(f"{issuer}/.well-known/openid-configuration")
    assert response.status_code == 200
    document = response.json()
    discovery.OpenIDProviderMetadata(document).validate(
        metadata_classes=[rpinitiated.OpenIDProviderMetadata])
    assert document["issuer"] == issuer
    for endpoint in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint",
                     "jwks_uri", "end_session_endpoint"):
        assert document[endpoint].startswith(issuer + "/")
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["id_token_signing_alg_values_supported"] == ["RS256"]


async def test_the_jwks_holds_the_public_key_only(idp_http, issuer):
    keys = (await idp_http.get(f"{issuer}/jwks")).json()["keys"]
    assert len(keys) == 1
    assert keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and keys[0]["kid"]
    assert not {"d", "p", "q", "dp", "dq", "qi"} & keys[0].keys()


async def test_the_code_flow_issues_a_signed_id_token(idp_http, issuer):
    code, params = await code_for(idp_http, issuer)
    response = await exchange(idp_http, issuer, code)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["token_type"] == "Bearer" and tokens["access_token"]
    keys = KeySet.import_key_set((await idp_http.get(f"{issuer}/jwks")).json())
    claims = jwt.decode(tokens["id_token"], keys, algorithms=["RS256"]).claims
    assert claims["iss"] == issuer
    assert claims["sub"] == "alice"
    assert claims["aud"] == "tavolo"
    assert claims["nonce"] == params["nonce"]
    assert claims["name"] == claims["preferred_username"] == "alice"
    assert claims["iat"] < claims["exp"] <= claims["iat"] + dev_idp.ID_TOKEN_LIFETIME_SECONDS
    userinfo = await idp_http.get(f"{issuer}/userinfo",
                                  headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert userinfo.status_code == 200
    assert userinfo.json() == {"sub": "alice", "name": "alice", "preferred_username": "alice"}


async def test_a_code_is_single_use(idp_http, issuer):
    code, _ = await code_for(idp_http, issuer)
    assert (await exchange(idp_http, issuer, code)).status_code == 200
    again = await exchange(idp_http, issuer, code)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"


async def test_a_code_presented_with_a_wrong_verifier_is_spent(idp_http, issuer):
    code, _ = await code_for(idp_http, issuer)
    wrong = await exchange(idp_http, issuer, code, verifier="w" * 50)
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    assert (await exchange(idp_http, issuer, code)).status_code == 400


async def test_a_code_expires(idp_http, issuer, monkeypatch):
    monkeypatch.setattr(dev_idp, "CODE_LIFETIME_SECONDS", -1)
    code, _ = await code_for(idp_http, issuer)
    assert (await exchange(idp_http, issuer, code)).json()["error"] == "invalid_grant"


@pytest.mark.parametrize("changes", [{"code_verifier": None}, {"redirect_uri": REDIRECT + "x"},
                                     {"client_id": "someone"}, {"grant_type": "password"}])
async def test_a_token_request_that_does_not_match_is_refused(idp_http, issuer, changes):
    code, _ = await code_for(idp_http, issuer)
    response = await exchange(idp_http, issuer, code, **changes)
    assert response.status_code in (400, 401)
    assert "access_token" not in response.json()


@pytest.mark.parametrize(("changes", "error"), [
    ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"nonce": None}, "invalid_request"),
    ({"response_type": "token"}, "unsupported_response_type"),
])
async def test_an_authorization_request_without_pkce_s256_or_nonce_is_refused(
        idp_http, issuer, changes, error):
    params = authorize_params(**changes)
    response = await idp_http.get(f"{issuer}/authorize", params=params)
    assert response.status_code == 302  # back to the (valid) redirect_uri with the error
    returned = query_of(response.headers["location"])
    assert response.headers["location"].startswith(REDIRECT)
    assert returned["error"] == error
    assert returned["state"] == params["state"]


@pytest.mark.parametrize("redirect_uri", [
    "https://evil.example/cb", "http://evil.example/cb", "http://localhost.evil.example/cb",
    "http://localhost@evil.example/cb", "https://localhost/cb", "javascript:alert(1)",
])
async def test_a_redirect_uri_off_this_machine_is_refused_without_redirecting(
        idp_http, issuer, redirect_uri):
    response = await idp_http.get(f"{issuer}/authorize",
                                  params=authorize_params(redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "location" not in response.headers


async def test_an_unknown_client_is_refused(idp_http, issuer):
    response = await idp_http.get(f"{issuer}/authorize",
                                  params=authorize_params(client_id="stranger"))
    assert response.status_code == 400
    assert "location" not in response.headers


@pytest.mark.parametrize("username", ["", "   ", "-alice", "a" * 33, "al ice", "<script>"])
async def test_a_bad_user_name_shows_the_form_again(idp_http, issuer, username):
    answer = await sign_in(idp_http, issuer, authorize_params(), username)
    assert answer.status_code == 400
    assert "<form" in answer.text and "<script>" not in answer.text


async def test_a_user_name_is_whoever_you_type(idp_http, issuer):
    answer = await sign_in(idp_http, issuer, authorize_params(), "bob.smith_2")
    code = query_of(answer.headers["location"])["code"]
    tokens = (await exchange(idp_http, issuer, code)).json()
    userinfo = await idp_http.get(f"{issuer}/userinfo",
                                  headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert userinfo.json()["sub"] == "bob.smith_2"


@pytest.mark.parametrize("authorization", [None, "Bearer not-a-token", "Basic eDp5"])
async def test_userinfo_needs_an_access_token(idp_http, issuer, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    response = await idp_http.get(f"{issuer}/userinfo", headers=headers)
    assert response.status_code in (400, 401, 403)
    assert "sub" not in response.text


async def test_logout_returns_to_a_local_post_logout_redirect_uri(idp_http, issuer):
    response = await idp_http.get(f"{issuer}/logout", params={
        "client_id": "tavolo", "post_logout_redirect_uri": "http://localhost:8080/bye",
        "state": "xyz"})
    assert response.status_code == 302
    assert response.headers["location"] == "http://localhost:8080/bye?state=xyz"


async def test_logout_accepts_an_id_token_hint_even_from_another_key(idp_http, issuer, providers):
    """After a restart (a new key) an old hint must not strand the developer."""
    code, _ = await code_for(idp_http, providers.issuer("second"))
    foreign = (await exchange(idp_http, providers.issuer("second"), code)).json()["id_token"]
    response = await idp_http.get(f"{issuer}/logout", params={
        "id_token_hint": foreign, "client_id": "tavolo",
        "post_logout_redirect_uri": "http://127.0.0.1:8080/bye"})
    assert response.status_code == 302
    assert response.headers["location"] == "http://127.0.0.1:8080/bye"


async def test_logout_never_sends_anyone_off_this_machine(idp_http, issuer):
    response = await idp_http.get(f"{issuer}/logout", params={
        "client_id": "tavolo", "post_logout_redirect_uri": "https://evil.example/"})
    assert response.status_code == 200
    assert "location" not in response.headers
    assert "signed out" in response.text


def test_the_default_issuer_is_the_development_one():
    app = dev_idp.create_app()
    paths = {route.path for route in app.routes}
    assert urlsplit(DEV_ISSUER).path + "/.well-known/openid-configuration" in paths


@pytest.mark.parametrize(("uri", "local"), [
    ("http://localhost:8080/cb", True), ("http://127.0.0.1/cb", True),
    ("http://localhost:8080/cb#frag", False), ("https://localhost/cb", False),
    ("http://127.0.0.2/cb", False), ("http://[::1]/cb", False), ("not a uri", False),
])
def test_is_local_http(uri, local):
    assert dev_idp.is_local_http(uri) is local


async def test_a_provider_under_another_host_name_still_serves_the_flow():
    """--issuer may name a host other than localhost (a container's name): authlib's https rule
    must not stop the plain-http development provider there."""
    app = dev_idp.create_app("http://idp.internal:8180/tavolo")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://idp.internal:8180") as http:
        code, _ = await code_for(http, "http://idp.internal:8180/tavolo")
        tokens = (await exchange(http, "http://idp.internal:8180/tavolo", code)).json()
    assert "id_token" in tokens


def test_serve_takes_the_port_and_issuer_of_the_cli():
    parameters = inspect.signature(dev_idp.serve).parameters
    assert parameters["port"].default == 8180
    assert parameters["issuer"].default is None
