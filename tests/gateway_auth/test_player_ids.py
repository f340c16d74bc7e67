"""Member.player: the public player id a session learns from the member directory at login, or
once later for a session made without it; on every session store."""

from __future__ import annotations

import contextlib

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from gateway.auth import Auth
from gateway.sessions import COOKIE_NAME, Session, new_session_id
from lobby.members import MemoryMemberDirectory
from services.rpc.errors import Reason, ServiceError
from tests.gateway_auth.conftest import GATEWAY, Browser


class Directory:
    """The lobby's member directory in this process (lobby.members), answering as
    LobbyClient.ensure_member does; while ``down``, it answers UNAVAILABLE like a lobby that is
    down."""

    def __init__(self) -> None:
        self.members = MemoryMemberDirectory()
        self.calls = 0
        self.down = False

    async def ensure_member(self, member_id: str, display_name: str) -> str:
        self.calls += 1
        if self.down:
            raise ServiceError(Reason.UNAVAILABLE, "Service unavailable")
        return await self.members.ensure(member_id, display_name)


@contextlib.asynccontextmanager
async def gateway_of(auth: Auth):
    """A gateway app with the login routes and ``/whoami`` answering the member's player id."""

    async def whoami(request: Request) -> JSONResponse:
        try:
            member = await auth.member(request)
        except ServiceError:
            return JSONResponse({"detail": "Service unavailable"}, status_code=503)
        if member is None:
            return JSONResponse({"detail": "Not authenticated"}, status_code=401)
        return JSONResponse({"sub": member.sub, "player": member.player})

    app = Starlette(routes=[*auth.routes(), Route("/whoami", whoami)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=GATEWAY) as client:
        yield client


async def test_a_login_learns_the_player_id_once(settings, any_store, idp_http):
    directory = Directory()
    auth = Auth(settings, any_store, directory=directory)
    try:
        async with gateway_of(auth) as gateway:
            browser = Browser(gateway, idp_http)
            assert (await browser.login("alice")).status_code == 302
            assert directory.calls == 1
            player = (await browser.whoami()).json()["player"]
            assert player and player != "alice"
            assert (await browser.whoami()).json()["player"] == player
            assert directory.calls == 1  # kept with the session, not asked per request
            assert (await any_store.get(browser.cookie)).player == player

            other = Browser(gateway, idp_http)
            await other.login("alice")
            assert (await other.whoami()).json()["player"] == player  # the member's, not the session's
            await other.login("bob")
            assert (await other.whoami()).json()["player"] not in (player, "")
    finally:
        await auth.aclose()


async def test_a_session_made_without_a_player_id_asks_once_and_keeps_it(settings, any_store):
    directory = Directory()
    auth = Auth(settings, any_store, directory=directory)
    old = Session(id=new_session_id(), sub="alice", name="Alice", provider="default")
    await any_store.save(old)
    try:
        async with gateway_of(auth) as gateway:
            cookie = {"cookie": f"{COOKIE_NAME}={old.id}"}
            first = (await gateway.get("/whoami", headers=cookie)).json()["player"]
            assert (await gateway.get("/whoami", headers=cookie)).json()["player"] == first
            assert directory.calls == 1
            stored = await any_store.get(old.id)
            assert stored is not None and stored.player == first
            assert stored.created_ms == old.created_ms  # asking never extends a session
    finally:
        await auth.aclose()


async def test_a_directory_down_at_login_leaves_the_login_working(settings, any_store, idp_http):
    directory = Directory()
    directory.down = True
    auth = Auth(settings, any_store, directory=directory)
    try:
        async with gateway_of(auth) as gateway:
            browser = Browser(gateway, idp_http)
            assert (await browser.login("alice")).status_code == 302
            assert (await any_store.get(browser.cookie)).player is None
            # Never an empty id: while the directory is down, the request fails (503)...
            assert (await browser.whoami()).status_code == 503
            directory.down = False
            # ... and the first one after it is back learns the id and keeps it.
            player = (await browser.whoami()).json()["player"]
            assert player and (await any_store.get(browser.cookie)).player == player
    finally:
        await auth.aclose()


async def test_keeping_the_player_id_never_brings_back_an_ended_session(any_store):
    ended = Session(id=new_session_id(), sub="alice", name="Alice", provider="default")
    await any_store.save(ended)
    await any_store.delete(ended.id)
    ended.player = "q3Zr8YkV0bT1mWc9LxPa2g"
    assert await any_store.save_existing(ended) is False
    assert await any_store.get(ended.id) is None

    erased = Session(id=new_session_id(), sub="erin", name="Erin", provider="default")
    await any_store.save(erased)
    await any_store.delete_member("erin")
    erased.player = "q3Zr8YkV0bT1mWc9LxPa2g"
    assert await any_store.save_existing(erased) is False
    assert await any_store.get(erased.id) is None

    live = Session(id=new_session_id(), sub="bob", name="Bob", provider="default")
    await any_store.save(live)
    live.player = "Hn4bXw7Qe2LsKd0uYt5RjA"
    assert await any_store.save_existing(live) is True
    assert await any_store.get(live.id) == live
    assert await any_store.count() == 1


async def test_a_session_of_another_member_is_not_overwritten(any_store):
    session = Session(id=new_session_id(), sub="alice", name="Alice", provider="default")
    await any_store.save(session)
    stale = Session(id=session.id, sub="bob", name="Bob", provider="default", player="x" * 22)
    assert await any_store.save_existing(stale) is False
    assert await any_store.get(session.id) == session
