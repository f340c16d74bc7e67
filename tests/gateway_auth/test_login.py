"""The login flow end to end: a scripted browser, the gateway's Auth, real development providers."""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc.jwk import RSAKey
from starlette.requests import Request

from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, Session
from services.observability.logs import APP_LOGGERS
from tests.gateway_auth.conftest import (
    GATEWAY,
    GATEWAY_HTTPS,
    Browser,
    gateway_client,
    id_token_claims,
    reissue,
)

LOGIN_FAILED = {"detail": "Login failed"}


def cookie_parts(header: str) -> tuple[str, dict[str, str]]:
    """``tavolo_session=<v>; HttpOnly; Path=/`` -> ("<v>", {"httponly": "", "path": "/"})."""
    first, *attributes = [part.strip() for part in header.split(";")]
    name, _, value = first.partition("=")
    assert name == COOKIE_NAME
    parsed = {}
    for attribute in attributes:
        key, _, val = attribute.partition("=")
        parsed[key.lower()] = val
    return value, parsed


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def with_query(url: str, **changes: str) -> str:
    parts = urlsplit(url)
    params = {**query(url), **changes}
    return parts._replace(query=urlencode(params)).geturl()


def request_with_cookie(value: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "query_string": b"",
                    "headers": [(b"cookie", f"{COOKIE_NAME}={value}".encode())]})


# -- the routes ------------------------------------------------------------------------


async def test_providers_are_listed_in_configuration_order(gateway):
    response = await gateway.get("/api/auth/providers")
    assert response.status_code == 200
    assert response.json() == {"providers": [
        {"name": "default", "login_url": "/auth/default/login"},
        {"name": "second", "login_url": "/auth/second/login"},
        {"name": "evil", "login_url": "/auth/evil/login"},
        {"name": "down", "login_url": "/auth/down/login"},
    ]}


async def test_auth_login_redirects_to_the_first_provider(gateway):
    response = await gateway.get("/auth/login")
    assert response.status_code == 302
    assert response.headers["location"] == "/auth/default/login"


@pytest.mark.parametrize("path", ["/auth/nobody/login", "/auth/nobody/callback?code=x&state=y"])
async def test_an_unknown_provider_is_not_found(gateway, path):
    response = await gateway.get(path)
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


async def test_login_redirects_to_the_authorization_endpoint_with_pkce_state_and_nonce(
        browser, store, providers):
    location = await browser.start_login("default")
    assert location.startswith(providers.issuer("tavolo") + "/authorize?")
    params = query(location)
    session = await store.get(browser.cookie)
    pending = session.pending["default"]
    assert params["response_type"] == "code"
    assert params["client_id"] == "tavolo"
    assert params["redirect_uri"] == f"{GATEWAY}/auth/default/callback"
    assert "openid" in params["scope"].split()
    assert params["state"] == pending["state"]
    assert params["nonce"] == pending["nonce"]
    assert params["code_challenge_method"] == "S256"
    assert params["code_challenge"] == create_s256_code_challenge(pending["code_verifier"])
    # The browser holds nothing but the session id.
    assert pending["code_verifier"] not in location
    assert len(browser.cookie) == 43
    assert session.sub is None


async def test_a_provider_that_cannot_be_reached_is_503(gateway, caplog):
    with caplog.at_level(logging.WARNING, logger="gateway.auth"):
        response = await gateway.get("/auth/down/login")
    assert response.status_code == 503
    assert response.json() == {"detail": "Login provider unavailable"}
    assert any("down" in record.getMessage() for record in caplog.records)


# -- a full login ----------------------------------------------------------------------


async def test_full_login_sets_the_contract_cookie_and_the_member(settings, any_store, idp_http):
    auth = Auth(settings, any_store)
    try:
        async with gateway_client(auth) as gateway:
            browser = Browser(gateway, idp_http)
            response = await browser.login("alice")
            assert response.status_code == 302
            assert response.headers["location"] == "/lobby"
            value, attributes = cookie_parts(response.headers["set-cookie"])
            assert len(value) == 43
            assert "httponly" in attributes
            assert attributes["samesite"] == "Lax"
            assert attributes["path"] == "/"
            assert attributes["max-age"] == str(int(any_store.ttl_seconds))
            assert "secure" not in attributes
            who = await browser.whoami()
            assert who.status_code == 200
            assert who.json() == {"sub": "alice", "name": "alice", "provider": "default"}
            assert await any_store.count() == 1
    finally:
        await auth.aclose()


async def test_login_over_https_sets_a_secure_cookie(auth, idp_http):
    async with gateway_client(auth, GATEWAY_HTTPS) as gateway:
        browser = Browser(gateway, idp_http)
        response = await browser.login("alice")
    assert response.status_code == 302
    assert browser.set_cookies, "no cookie was set"
    for header in browser.set_cookies:  # the login's anonymous session and the member's
        _, attributes = cookie_parts(header)
        assert "secure" in attributes
        assert "httponly" in attributes and attributes["samesite"] == "Lax"


async def test_member_returns_the_logged_in_member_of_a_request(browser, auth):
    await browser.login("alice")
    member = await auth.member(request_with_cookie(browser.cookie))
    assert member is not None
    assert (member.sub, member.name, member.provider) == ("alice", "alice", "default")
    assert member.session_id == browser.cookie


async def test_login_rotates_the_session_id(browser, store):
    await browser.start_login("default")
    before = browser.cookie
    callback = await browser.sign_in(await browser.start_login("default"), "alice")
    during = browser.cookie
    await browser.get(callback)
    assert browser.cookie not in (before, during)
    assert await store.get(during) is None
    assert (await store.get(browser.cookie)).sub == "alice"


async def test_a_login_with_another_provider_replaces_the_identity(browser, store):
    await browser.login("alice")
    alice_session = browser.cookie
    response = await browser.login("bob", provider="second")
    assert response.status_code == 302
    who = await browser.whoami()
    assert who.json() == {"sub": "bob", "name": "bob", "provider": "second"}
    assert await store.get(alice_session) is None
    assert await store.count() == 1


async def test_a_failed_login_keeps_the_identity_the_session_had(browser):
    await browser.login("alice")
    callback = await browser.sign_in(await browser.start_login("second"), "bob")
    response = await browser.get(with_query(callback, state="tampered"))
    assert response.status_code == 400
    assert (await browser.whoami()).json()["sub"] == "alice"


# -- failed logins ---------------------------------------------------------------------


async def test_a_tampered_state_fails(browser, caplog):
    callback = await browser.sign_in(await browser.start_login(), "alice")
    with caplog.at_level(logging.WARNING, logger="gateway.auth"):
        response = await browser.get(with_query(callback, state="not-the-state"))
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    assert "state" not in response.text
    assert any(r.levelno == logging.WARNING and "state" in r.getMessage() for r in caplog.records)
    assert (await browser.whoami()).status_code == 401


async def test_the_state_is_spent_by_a_failed_callback(browser):
    callback = await browser.sign_in(await browser.start_login(), "alice")
    await browser.get(with_query(callback, state="not-the-state"))
    response = await browser.get(callback)  # now with the right state: too late
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


async def test_a_replayed_callback_fails(browser):
    callback = await browser.sign_in(await browser.start_login(), "alice")
    assert (await browser.get(callback)).status_code == 302
    response = await browser.get(callback)
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


async def test_a_replayed_code_fails_at_the_provider(browser, caplog):
    first = await browser.sign_in(await browser.start_login(), "alice")
    assert (await browser.get(first)).status_code == 302
    # A new login in progress, answered with the code of the first (already exchanged).
    second_state = query(await browser.start_login())["state"]
    with caplog.at_level(logging.WARNING, logger="gateway.auth"):
        response = await browser.get(with_query(first, state=second_state))
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    assert any("invalid_grant" in r.getMessage() for r in caplog.records)


async def test_a_callback_without_code_fails(browser):
    callback = await browser.sign_in(await browser.start_login(), "alice")
    params = query(callback)
    response = await browser.get(f"/auth/default/callback?state={params['state']}")
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


async def test_a_provider_error_fails(browser):
    state = query(await browser.start_login())["state"]
    response = await browser.get(f"/auth/default/callback?error=access_denied&state={state}")
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


async def test_a_callback_without_a_login_in_progress_fails(browser, other_browser):
    callback = await browser.sign_in(await browser.start_login(), "alice")
    response = await other_browser.get(callback)  # no cookie: not the browser that started
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    await other_browser.start_login("second")     # a login, but with another provider
    response = await other_browser.get(callback)
    assert response.status_code == 400


async def test_an_expired_login_in_progress_fails(browser, store):
    location = await browser.start_login()
    session = await store.get(browser.cookie)
    session.pending["default"]["created_ms"] -= int(store.pending_ttl_seconds * 1000) + 1000
    session.created_ms = int(time.time() * 1000)  # the session itself is still alive
    await store.save(session)
    response = await browser.get(await browser.sign_in(location, "alice"))
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


async def test_an_id_token_minted_for_another_login_fails(browser, other_browser, caplog):
    """The nonce: a code whose ID token carries another login's nonce is refused."""
    mine = await browser.start_login()
    theirs = await other_browser.start_login()
    tampered = with_query(mine, nonce=query(theirs)["nonce"])
    with caplog.at_level(logging.WARNING, logger="gateway.auth"):
        response = await browser.get(await browser.sign_in(tampered, "mallory"))
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    assert any("nonce" in r.getMessage() for r in caplog.records)
    assert (await browser.whoami()).status_code == 401


async def test_a_reissued_but_unchanged_id_token_passes(browser, providers):
    """The control for the tampering tests below: re-signing alone breaks nothing."""
    providers.evil.rewrite = reissue(providers.evil_key)
    response = await browser.login("alice", provider="evil")
    assert response.status_code == 302
    assert (await browser.whoami()).json() == {"sub": "alice", "name": "alice",
                                               "provider": "evil"}


def _attacker_key(kid: str) -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": kid}, private=True)


def _unsigned(tokens: dict) -> dict:
    claims = id_token_claims(tokens["id_token"])

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return {**tokens, "id_token": f"{part({'alg': 'none'})}.{part(claims)}."}


@pytest.mark.parametrize(("case", "reason"), [
    ("expired", "expired"),
    ("forged signature", "bad_signature"),
    ("another audience", "'aud'"),
    ("another issuer", "'iss'"),
    ("issued in the future", "future"),
    ("no sub", "'sub'"),
    ("unsigned", "'none'"),
    ("not a JWT", "decode_error"),
    ("a sub no member id can be", "longer than 512"),
    ("a sub with control characters", "control characters"),
])
async def test_a_bad_id_token_fails(browser, providers, caplog, case, reason):
    now = int(time.time())
    key = providers.evil_key
    providers.evil.rewrite = {
        "expired": reissue(key, exp=now - 3600, iat=now - 3900),
        "forged signature": reissue(_attacker_key("evil-1")),
        "another audience": reissue(key, aud="someone-else"),
        "another issuer": reissue(key, iss=providers.issuer("tavolo")),
        "issued in the future": reissue(key, iat=now + 3600, exp=now + 7200),
        "no sub": reissue(key, drop=("sub",)),
        "unsigned": _unsigned,
        "not a JWT": lambda tokens: {**tokens, "id_token": "not-a-jwt"},
        "a sub no member id can be": reissue(key, sub="s" * 513),
        "a sub with control characters": reissue(key, sub="ali\nce"),
    }[case]
    with caplog.at_level(logging.WARNING, logger="gateway.auth"):
        response = await browser.login("alice", provider="evil")
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    assert any(reason in r.getMessage() for r in caplog.records if r.name == "gateway.auth")
    assert (await browser.whoami()).status_code == 401


async def test_an_unknown_key_id_refetches_the_jwks_once_then_fails(browser, providers):
    providers.evil.rewrite = reissue(_attacker_key("rotated-2"))
    before = providers.evil.jwks_fetches
    response = await browser.login("alice", provider="evil")
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED
    assert providers.evil.jwks_fetches - before == 2  # the first fetch and one refetch


async def test_the_jwks_is_cached_between_logins(browser, other_browser, providers):
    before = providers.evil.jwks_fetches
    assert (await browser.login("alice", provider="evil")).status_code == 302
    assert (await other_browser.login("bob", provider="evil")).status_code == 302
    assert providers.evil.jwks_fetches - before == 1


async def test_a_token_response_without_id_token_fails(browser, providers):
    providers.evil.rewrite = lambda tokens: {k: v for k, v in tokens.items() if k != "id_token"}
    response = await browser.login("alice", provider="evil")
    assert response.status_code == 400
    assert response.json() == LOGIN_FAILED


# -- display names ---------------------------------------------------------------------


@pytest.mark.parametrize(("change", "expected"), [
    ({"name": "Alice Liddell", "preferred_username": "ali"}, "Alice Liddell"),
    ({"drop": ("name",), "preferred_username": "ali"}, "ali"),
    ({"name": "  ", "preferred_username": "ali"}, "ali"),
    ({"name": "x" * 300}, "x" * 64),  # the lobby's limit, so that the member can sit down
    ({"name": "Ali\tce\n Liddell"}, "Ali ce Liddell"),
    ({"name": "abc\u202edef\x00"}, "abcdef"),  # no bidi override, no control character
    ({"name": "\u202e\x07", "preferred_username": "ali"}, "ali"),  # nothing left: the next claim
])
async def test_the_display_name_comes_from_the_id_token(browser, providers, change, expected):
    providers.evil.rewrite = reissue(providers.evil_key, **change)
    before = providers.evil.userinfo_calls
    await browser.login("alice", provider="evil")
    assert (await browser.whoami()).json()["name"] == expected
    assert providers.evil.userinfo_calls == before


async def test_the_display_name_falls_back_to_userinfo(browser, providers):
    providers.evil.rewrite = reissue(providers.evil_key, drop=("name", "preferred_username"))
    before = providers.evil.userinfo_calls
    await browser.login("alice", provider="evil")
    assert (await browser.whoami()).json()["name"] == "alice"
    assert providers.evil.userinfo_calls == before + 1


async def test_the_display_name_falls_back_to_sub(browser, providers):
    providers.evil.rewrite = reissue(providers.evil_key, drop=("name", "preferred_username"),
                                     drop_access_token=True)
    before = providers.evil.userinfo_calls
    await browser.login("alice", provider="evil")
    assert (await browser.whoami()).json()["name"] == "alice"
    assert providers.evil.userinfo_calls == before  # no access token: no userinfo


# -- cookies that are not a session ----------------------------------------------------


@pytest.mark.parametrize("cookie", ["forged", "random", "pending only"])
async def test_a_cookie_of_no_member_is_not_logged_in(browser, other_browser, auth, cookie):
    await other_browser.login("alice")  # someone is logged in; the forger is not them
    if cookie == "forged":
        browser.cookie = other_browser.cookie[:-1] + ("A" if other_browser.cookie[-1] != "A"
                                                      else "B")
    elif cookie == "random":
        browser.cookie = secrets.token_urlsafe(32)
    else:
        await browser.start_login()
    assert (await browser.whoami()).status_code == 401
    assert await auth.member(request_with_cookie(browser.cookie)) is None


@pytest.mark.parametrize("value", ["", "short", "x" * 43 + "y", "a b", "../../etc", "é" * 43])
async def test_a_malformed_cookie_is_not_logged_in(auth, value):
    assert await auth.member(request_with_cookie(value)) is None


# -- logout and ending sessions --------------------------------------------------------


async def test_logout_signs_out_at_the_provider_and_ends_the_session(
        browser, store, providers, idp_http):
    await browser.login("alice")
    session_id = browser.cookie
    id_token = (await store.get(session_id)).id_token
    response = await browser.get("/auth/logout")
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(providers.issuer("tavolo") + "/logout?")
    params = query(location)
    assert params["post_logout_redirect_uri"] == f"{GATEWAY}/bye"
    assert params["client_id"] == "tavolo"
    assert params["id_token_hint"] == id_token
    _, attributes = cookie_parts(response.headers["set-cookie"])
    assert attributes["max-age"] == "0"
    assert await store.get(session_id) is None
    assert await store.count() == 0
    browser.cookie = session_id  # even a browser that kept the old cookie
    assert (await browser.whoami()).status_code == 401
    # The provider sends the browser back where the gateway asked.
    at_provider = await idp_http.get(location)
    assert at_provider.status_code == 302
    assert at_provider.headers["location"].startswith(f"{GATEWAY}/bye")


async def test_logout_without_a_session_goes_to_post_logout_redirect(gateway):
    response = await gateway.get("/auth/logout")
    assert response.status_code == 302
    assert response.headers["location"] == "/bye"


async def test_logout_from_a_provider_that_cannot_be_reached_still_ends_the_session(
        browser, store):
    session = Session(id=secrets.token_urlsafe(32), sub="carol", name="carol", provider="down")
    await store.save(session)
    browser.cookie = session.id
    response = await browser.get("/auth/logout")
    assert response.status_code == 302
    assert response.headers["location"] == "/bye"
    assert await store.get(session.id) is None


async def test_end_member_sessions_ends_every_session_of_the_member(
        browser, other_browser, auth, idp_http):
    await browser.login("alice")
    await other_browser.login("alice")
    async with gateway_client(auth) as gateway:
        bob = Browser(gateway, idp_http)
        await bob.login("bob")
        assert await auth.end_member_sessions("alice") == 2
        assert (await bob.whoami()).status_code == 200
    assert (await browser.whoami()).status_code == 401
    assert (await other_browser.whoami()).status_code == 401


# -- secrets stay out of the logs ------------------------------------------------------


async def test_no_session_id_code_or_token_is_logged(browser, store, caplog):
    caplog.set_level(logging.DEBUG)
    secrets_seen: set[str] = set()
    # A failed login, then a good one, then logout.
    bad = await browser.sign_in(await browser.start_login(), "alice")
    secrets_seen.update([browser.cookie, query(bad)["code"]])
    await browser.get(with_query(bad, state="tampered"))
    location = await browser.start_login()
    pending = (await store.get(browser.cookie)).pending["default"]
    secrets_seen.update([browser.cookie, pending["code_verifier"]])
    callback = await browser.sign_in(location, "alice")
    secrets_seen.add(query(callback)["code"])
    assert (await browser.get(callback)).status_code == 302
    secrets_seen.update([browser.cookie, (await store.get(browser.cookie)).id_token])
    await browser.get("/auth/logout")
    assert all(secrets_seen) and len(secrets_seen) >= 6  # two codes, ids, verifier, token

    # What a deployment would log (services.observability.logs): tavolo's own loggers at any level, the
    # libraries' at WARNING and above. (Below that, httpx traces the test browser's own requests
    # with the callback's code, and authlib's provider side prints the tokens it issues.)
    logged = [record.getMessage() for record in caplog.records
              if record.name.split(".")[0] in APP_LOGGERS or record.levelno >= logging.WARNING]
    assert any("logged in" in line for line in logged)
    for secret in secrets_seen:
        assert not any(secret in line for line in logged)

