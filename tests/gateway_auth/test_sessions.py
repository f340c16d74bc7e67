"""Session stores (one behaviour suite, memory and Redis) and the session cookie."""

from __future__ import annotations

import asyncio
import json
import secrets

import pytest
from starlette.requests import Request
from starlette.responses import Response

from gateway.sessions import (
    COOKIE_NAME,
    MemorySessionStore,
    RedisSessionStore,
    Session,
    clear_cookie,
    new_session_id,
    session_id,
    set_cookie,
)
from services.rpc.errors import Reason, ServiceError
from services.stores import Keys, redis_client
from services.timeutil import now_ms


def member_session(sub: str = "alice", **fields) -> Session:
    return Session(id=new_session_id(), sub=sub, name=sub, provider="default", **fields)


def pending_session() -> Session:
    return Session(id=new_session_id(), pending={"default": {
        "state": "s", "nonce": "n", "code_verifier": "v", "created_ms": now_ms()}})


async def test_a_saved_session_reads_back_whole(any_store):
    session = member_session(id_token="header.payload.signature",
                             pending={"second": {"state": "s", "nonce": "n",
                                                 "code_verifier": "v", "created_ms": 1}})
    await any_store.save(session)
    assert await any_store.get(session.id) == session


async def test_an_unknown_id_is_no_session(any_store):
    assert await any_store.get(new_session_id()) is None


async def test_a_session_is_stored_by_value(any_store):
    session = pending_session()
    await any_store.save(session)
    session.pending.clear()
    session.sub = "mallory"
    assert (await any_store.get(session.id)).pending.keys() == {"default"}
    assert (await any_store.get(session.id)).sub is None


async def test_delete_ends_a_session(any_store):
    kept, ended = member_session(), member_session()
    for session in (kept, ended):
        await any_store.save(session)
    await any_store.delete(ended.id)
    await any_store.delete(new_session_id())  # unknown: nothing to do
    assert await any_store.get(ended.id) is None
    assert await any_store.get(kept.id) == kept
    assert await any_store.count() == 1


async def test_delete_member_ends_every_session_of_that_member_only(any_store):
    alices = [member_session("alice") for _ in range(3)]
    bob = member_session("bob")
    anonymous = pending_session()
    for session in (*alices, bob, anonymous):
        await any_store.save(session)
    assert await any_store.delete_member("alice") == 3
    for session in alices:
        assert await any_store.get(session.id) is None
    assert await any_store.get(bob.id) == bob
    assert await any_store.get(anonymous.id) == anonymous
    assert await any_store.delete_member("alice") == 0
    assert await any_store.delete_member("nobody") == 0


async def test_delete_member_follows_a_session_whose_identity_changed(any_store):
    session = member_session("alice")
    await any_store.save(session)
    session.sub = session.name = "bob"
    await any_store.save(session)
    assert await any_store.delete_member("alice") == 0
    assert await any_store.get(session.id) == session
    assert await any_store.delete_member("bob") == 1


async def test_count_counts_logged_in_sessions(any_store):
    assert await any_store.count() == 0
    sessions = [member_session("alice"), member_session("alice"), member_session("bob")]
    for session in sessions:
        await any_store.save(session)
    await any_store.save(pending_session())
    assert await any_store.count() == 3
    await any_store.delete(sessions[2].id)
    assert await any_store.count() == 2
    await any_store.delete_member("alice")
    assert await any_store.count() == 0


async def test_a_session_past_its_lifetime_is_gone(any_store):
    """Lifetimes count from created_ms: saving an old session again never revives it."""
    old = member_session(created_ms=now_ms() - int(any_store.ttl_seconds * 1000) - 1)
    await any_store.save(old)
    assert await any_store.get(old.id) is None
    assert await any_store.count() == 0
    stale_login = pending_session()
    stale_login.created_ms -= int(any_store.pending_ttl_seconds * 1000) + 1
    await any_store.save(stale_login)
    assert await any_store.get(stale_login.id) is None


async def test_a_login_in_progress_lives_shorter_than_a_member(any_store):
    assert any_store.pending_ttl_seconds < any_store.ttl_seconds
    session = pending_session()
    session.created_ms -= int(any_store.pending_ttl_seconds * 1000) - 60_000
    await any_store.save(session)
    assert await any_store.get(session.id) is not None  # a minute left
    session.sub = "alice"                                # logged in: the long lifetime
    await any_store.save(session)
    assert await any_store.get(session.id) is not None


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_sessions_expire(kind, redis_client, redis_prefix):
    if kind == "memory":
        store = MemorySessionStore(ttl_seconds=0.2, pending_ttl_seconds=0.2)
    else:
        store = RedisSessionStore(redis_client, Keys(redis_prefix), ttl_seconds=0.2,
                                  pending_ttl_seconds=0.2)
    member, login = member_session(), pending_session()
    await store.save(member)
    await store.save(login)
    assert await store.count() == 1
    await asyncio.sleep(0.3)  # the time is the test: past both TTLs (0.2 s)
    assert await store.get(member.id) is None
    assert await store.get(login.id) is None
    assert await store.count() == 0


async def test_redis_keeps_sessions_as_json_under_the_prefix(redis_client, redis_prefix):
    store = RedisSessionStore(redis_client, Keys(redis_prefix), ttl_seconds=3600)
    session = member_session()
    await store.save(session)
    raw = await redis_client.get(f"{redis_prefix}:session:{session.id}")
    assert json.loads(raw)["sub"] == "alice"
    assert 0 < await redis_client.pttl(f"{redis_prefix}:session:{session.id}") <= 3600 * 1000
    assert await redis_client.smembers(f"{redis_prefix}:sessions:member:alice") == {session.id}
    assert await redis_client.zscore(f"{redis_prefix}:sessions:live", session.id) is not None


@pytest.mark.parametrize("raw", ["not json", "[]", '{"id": 1}',
                                 '{"id": "x", "created_ms": "soon"}'])
async def test_redis_ignores_a_record_that_is_not_a_session(redis_client, redis_prefix, raw):
    store = RedisSessionStore(redis_client, Keys(redis_prefix))
    id = new_session_id()
    await redis_client.set(f"{redis_prefix}:session:{id}", raw)
    assert await store.get(id) is None


async def test_a_redis_that_does_not_answer_is_unavailable():
    """The kit's UNAVAILABLE, so the gateway answers 503 and knows nothing of Redis."""
    client = redis_client("redis://127.0.0.1:1/0")
    store = RedisSessionStore(client, Keys("test-down:tavolo"))
    try:
        for call in (store.get(new_session_id()), store.save(member_session()),
                     store.delete(new_session_id()), store.delete_member("alice"), store.count()):
            with pytest.raises(ServiceError) as caught:
                await call
            assert caught.value.reason is Reason.UNAVAILABLE
            assert caught.value.message.startswith("The session store is unavailable")
    finally:
        await client.aclose()


@pytest.mark.parametrize("text", ["", "null", "{}", '{"id": "a", "created_ms": 1, "sub": 5}'])
def test_session_from_json_refuses_what_is_not_a_session(text):
    assert Session.from_json(text) is None


def test_session_ids_are_random_and_long():
    ids = {new_session_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(len(id) == 43 for id in ids)  # 32 random bytes


# -- the cookie ------------------------------------------------------------------------


def _request(scheme: str = "http", cookie: str | None = None) -> Request:
    headers = [(b"cookie", cookie.encode())] if cookie is not None else []
    return Request({"type": "http", "method": "GET", "scheme": scheme, "path": "/",
                    "query_string": b"", "server": ("tavolo.test", 443), "headers": headers})


def test_session_id_reads_our_cookie():
    id = new_session_id()
    assert session_id(_request(cookie=f"other=1; {COOKIE_NAME}={id}")) == id
    assert session_id(_request()) is None
    assert session_id(_request(cookie=f"{COOKIE_NAME}=short")) is None
    assert session_id(_request(cookie=f"{COOKIE_NAME}={id}!")) is None


@pytest.mark.parametrize(("scheme", "secure"), [("http", False), ("https", True)])
def test_set_cookie_has_the_contract_flags(scheme, secure):
    response = Response()
    id = secrets.token_urlsafe(32)
    set_cookie(response, _request(scheme), id, max_age=3600)
    header = response.headers["set-cookie"]
    parts = [part.strip() for part in header.split(";")]
    assert parts[0] == f"{COOKIE_NAME}={id}"
    assert "HttpOnly" in parts
    assert "SameSite=Lax" in parts
    assert "Path=/" in parts
    assert "Max-Age=3600" in parts
    assert ("Secure" in parts) is secure


def test_clear_cookie_expires_it():
    response = Response()
    clear_cookie(response, _request("https"))
    parts = [part.strip() for part in response.headers["set-cookie"].split(";")]
    assert parts[0] in (f'{COOKIE_NAME}=""', f"{COOKIE_NAME}=")
    assert "Max-Age=0" in parts
    assert "Path=/" in parts and "Secure" in parts
