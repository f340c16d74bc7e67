"""A game socket's session is checked on open and on the events that say it ended
(gateway.events), never per message nor per update; it closes at its expiry without a read: a
logout or an erasure closes the idle sockets at once, on every gateway process."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import weakref

import pytest
import websockets

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.events import (
    MemberEnded,
    Missed,
    RedisEventBus,
    RematchOffered,
    SeatingChanged,
    SessionEnded,
    session_digest,
)
from gateway.sessions import COOKIE_NAME, MemorySessionStore, RedisSessionStore, Session, new_session_id
from gateway.ws import _Connection
from services.config import Settings
from services.stores import Keys
from testing.processes import served
from testing.waiting import eventually
from tests.gateway.live_fakes import FakeGame, FakeLobby, table_views


class CountingSessions(MemorySessionStore):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reads = 0

    async def get(self, id: str) -> Session | None:
        self.reads += 1
        return await super().get(id)


class CountingRedisSessions(RedisSessionStore):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.reads = 0

    async def get(self, id: str) -> Session | None:
        self.reads += 1
        return await super().get(id)


async def _login(sessions, sub: str) -> Session:
    session = Session(id=new_session_id(), sub=sub, name=sub, provider="default")
    await sessions.save(session)
    return session


@contextlib.asynccontextmanager
async def _gateway(sessions):
    settings = Settings()
    auth = Auth(settings, sessions)
    game, lobby = FakeGame(), FakeLobby()
    app = create_app(settings, Backends(lobby=lobby, game=game, stats=None, live=game), auth)
    try:
        async with served(app) as address:
            yield address, game
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()


async def _open(address: str, session: Session):
    return await websockets.connect(f"ws://{address}/ws/games/t1", open_timeout=5,
                                    additional_headers={"cookie": f"{COOKIE_NAME}={session.id}"})


async def _state(socket) -> dict:
    """The next state (a ``presence`` message on the way is skipped: the game did not change)."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 5))
        if message["type"] != "presence":
            break
    assert message["type"] == "state", message
    return message["game"]


async def _closed(socket) -> tuple[int, str]:
    """The close code and reason of ``socket``, which must close without another message."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(socket.recv(), 5)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def test_a_logout_closes_that_sessions_idle_socket_at_once_and_no_other():
    sessions = MemorySessionStore()
    laptop, phone = await _login(sessions, "alice"), await _login(sessions, "alice")
    async with _gateway(sessions) as (address, game):
        on_laptop, on_phone = await _open(address, laptop), await _open(address, phone)
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
        game.push("t1", table_views(1))
        for socket in (on_laptop, on_phone):
            await _state(socket)
        await sessions.delete(laptop.id)  # /auth/logout on the laptop
        assert await _closed(on_laptop) == (1008, "Session ended")
        game.push("t1", table_views(2))
        assert (await _state(on_phone))["revision"] == 2
        await on_phone.close()


async def test_an_erasure_closes_every_idle_socket_of_the_member_at_once():
    sessions = MemorySessionStore()
    alice, bob = await _login(sessions, "alice"), await _login(sessions, "bob")
    async with _gateway(sessions) as (address, game):
        sockets = [await _open(address, bob), await _open(address, bob), await _open(address, alice)]
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
        game.push("t1", table_views(1))
        for socket in sockets:
            await _state(socket)
        await sessions.delete_member("bob")  # DELETE /api/me ends every session of bob's
        for socket in sockets[:2]:
            assert await _closed(socket) == (1008, "Session ended")
        game.push("t1", table_views(2))
        assert (await _state(sockets[2]))["revision"] == 2
        await sockets[2].close()


@contextlib.asynccontextmanager
async def _bobs_socket(sessions):
    """Bob logged in, his socket open on t1 and its table followed; (socket, session, game)."""
    bob = await _login(sessions, "bob")
    async with _gateway(sessions) as (address, game):
        socket = await _open(address, bob)
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
        yield socket, bob, game


async def test_a_member_event_closes_only_sockets_whose_session_ended():
    """A late MemberEnded (the member logged in again since) re-checks, it does not close."""
    sessions = MemorySessionStore()
    async with _bobs_socket(sessions) as (socket, _, game):
        await sessions.events.publish(MemberEnded("bob"))
        game.push("t1", table_views(1))
        assert (await _state(socket))["revision"] == 1
        await socket.close()


async def test_a_listener_that_missed_events_checks_every_socket_again():
    sessions = MemorySessionStore()
    async with _bobs_socket(sessions) as (socket, bob, _):
        sessions._drop(bob.id)  # gone while this process was deaf: no event
        await sessions.events.publish(Missed())
        assert await _closed(socket) == (1008, "Session ended")


async def test_an_idle_socket_closes_when_its_session_expires_without_reading_it():
    """Lifetimes are absolute: at its expiry the session is over, store or no store."""
    sessions = CountingSessions(ttl_seconds=1.0)
    async with _bobs_socket(sessions) as (socket, _, _):
        reads = sessions.reads
        assert await _closed(socket) == (1008, "Session ended")
        assert sessions.reads == reads


async def test_updates_read_no_session_and_no_seating():
    sessions = CountingSessions()
    alice = await _login(sessions, "alice")
    async with _gateway(sessions) as (address, game):
        sockets = [await _open(address, alice) for _ in range(3)]
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
        reads, seatings = sessions.reads, game.opened["t1"]
        for revision in range(1, 21):
            game.push("t1", table_views(revision))
        for socket in sockets:
            assert [(await _state(socket))["revision"] for _ in range(20)] == list(range(1, 21))
        assert sessions.reads == reads and game.opened["t1"] == seatings == 1
        for socket in sockets:
            await socket.close()


@pytest.fixture(params=["memory", "redis"])
def counting_sessions(request):
    if request.param == "memory":
        return CountingSessions()
    return CountingRedisSessions(request.getfixturevalue("redis_client"),
                                 Keys(request.getfixturevalue("redis_prefix")))


async def test_the_players_messages_read_no_session(counting_sessions):
    """The session was read when the socket opened; a message costs no store call (issue 45)."""
    sessions = counting_sessions
    bob = await _login(sessions, "bob")
    async with _gateway(sessions) as (address, game):
        socket = await _open(address, bob)
        await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
        game.push("t1", table_views(1))
        await _state(socket)
        reads = sessions.reads
        for _ in range(5):
            await socket.send('{"action": "state"}')
            await _state(socket)
        await socket.send("not json")
        assert json.loads(await asyncio.wait_for(socket.recv(), 5))["code"] == "bad_request"
        assert sessions.reads == reads
        await sessions.delete(bob.id)  # and the logout still closes it, through the event
        assert await _closed(socket) == (1008, "Session ended")
    if isinstance(sessions, RedisSessionStore):
        await sessions.events.aclose()


async def test_the_gateway_negotiates_no_compression():
    sessions = MemorySessionStore()
    alice = await _login(sessions, "alice")
    async with _gateway(sessions) as (address, _):
        socket = await _open(address, alice)  # the client offers permessage-deflate
        assert "Sec-WebSocket-Extensions" not in socket.response.headers
        await socket.close()


async def test_a_closed_socket_is_freed_as_it_closes_not_by_the_cycle_collector():
    """Nothing of a closed socket waits for the cyclic collector, which the gateway runs seldom
    (services/rpc/server.py): a cycle there (connection -> outbox -> its close callback ->
    connection) kept each closed socket's objects, and grew the gateway's memory with every
    match played (`make soak`)."""
    sessions = MemorySessionStore()
    alice = await _login(sessions, "alice")
    async with _gateway(sessions) as (address, game):
        gc.disable()
        try:
            # (by type, not isinstance: a dead weakref.proxy among the objects raises on it)
            earlier = {id(o) for o in gc.get_objects() if type(o) is _Connection}
            socket = await _open(address, alice)
            await eventually(lambda: game.open["t1"] == 1, interval=0.01, what="no table stream")
            game.push("t1", table_views(1))
            await _state(socket)
            connection = next(o for o in gc.get_objects() if type(o) is _Connection and id(o) not in earlier)
            kept = {name: weakref.ref(part) for name, part in
                    (("connection", connection), ("outbox", connection.outbox),
                     ("subscriber", connection.subscriber), ("websocket", connection.websocket))}
            del connection
            await socket.close()
            await eventually(lambda: all(ref() is None for ref in kept.values()),
                        interval=0.01, what="a closed socket's objects outlive it with the collector off: a cycle",
                        timeout=5)
        finally:
            gc.enable()


# -- over Redis: every gateway process hears every other's -------------------------------------


async def test_every_process_hears_the_logouts_and_erasures_published_on_redis(redis_client,
                                                                              redis_prefix):
    keys = Keys(redis_prefix)
    heard: list[list] = [[], []]
    buses = [RedisEventBus(redis_client, keys) for _ in heard]
    try:
        for bus, events in zip(buses, heard, strict=True):
            await bus.listen(events.append)
        store = RedisSessionStore(redis_client, keys, events=buses[0])
        session = await _login(store, "olga")
        await store.delete(session.id)
        await store.delete_member("olga")
        await buses[1].publish(SeatingChanged(("t1", "t2")))
        await buses[1].publish(RematchOffered("t1", "t9", "Q4WZ7N", "olga"))
        expected = [SessionEnded(session_digest(session.id)), MemberEnded("olga"),
                    SeatingChanged(("t1", "t2")), RematchOffered("t1", "t9", "Q4WZ7N", "olga")]
        await eventually(lambda: all(len(events) == 4 for events in heard), interval=0.01, what="events not heard")
        assert heard == [expected, expected]
        assert session.id not in json.dumps([str(e) for e in heard[0]])  # never the cookie itself

        await redis_client.client_kill_filter(_type="pubsub")  # the listeners' connections
        await eventually(lambda: all(Missed() in events for events in heard),
                    interval=0.01, what="a listener back from a lost connection did not say it missed events",
                    timeout=10)
    finally:
        for bus in buses:
            await bus.aclose()
