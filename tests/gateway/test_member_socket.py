"""The member socket /ws/me in the gateway's own process (gateway.member_socket, gateway.member_feed):
refused before the handshake without a session, answers every message with an error, tells the
followed players coming online and going offline (not those who hide it), the invitations of its
member, also from another gateway process; closes on logout and when the gateway stops. And the
talk of a blocked player never reaches the blocker's table sockets. Over the in-memory bus (one
process) and over Redis (two processes sharing sessions, events and leases)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, replace

import pytest
import websockets

from gateway.app import Backends, create_app
from gateway.auth import Auth
from gateway.events import BlocksChanged, Invited, RedisEventBus, RelationsChanged, Said
from gateway.online import MemoryOnline, RedisOnline
from gateway.sessions import COOKIE_NAME, MemorySessionStore, RedisSessionStore, Session, new_session_id
from services.config import Settings
from services.stores import Keys
from testing.processes import served
from testing.waiting import eventually
from tests.gateway.live_fakes import FakeGame, FakeLobby, lobby_game, table_views

PLAYERS = {name: f"player-{name}-0123456789" for name in ("alice", "bob", "carol", "dave")}


@dataclass
class Followed:  # as PlayersService.ListFollowing answers (players_pb2.FollowedPlayer)
    player: str
    show_online: bool = True


@dataclass
class Named:  # as PlayersService.ListBlocked answers (lobby_pb2.PlayerName)
    player: str
    display_name: str = ""


class FakePlayers:
    """PlayersService's follow and block lists, as the test sets them (by member id)."""

    def __init__(self) -> None:
        self.following: dict[str, list[Followed]] = {}
        self.blocked: dict[str, list[str]] = {}
        self.reads = 0

    async def list_following(self, member_id: str) -> list[Followed]:
        self.reads += 1
        return list(self.following.get(member_id, []))

    async def list_blocked(self, member_id: str) -> list[Named]:
        return [Named(player) for player in self.blocked.get(member_id, [])]


@dataclass
class Gateway:
    address: str
    app: object
    sessions: object

    async def publish(self, event) -> None:
        await self.sessions.events.publish(event)


@contextlib.asynccontextmanager
async def _gateway(sessions, players: FakePlayers, lobby: FakeLobby, online=None):
    settings = Settings()
    auth = Auth(settings, sessions)
    game = FakeGame()
    app = create_app(settings, Backends(lobby=lobby, game=game, stats=None, live=game, players=players),
                     auth, online=online or MemoryOnline())
    app.state.fake_game = game
    try:
        async with served(app) as address:
            yield Gateway(address, app, sessions)
    finally:
        await app.state.game_types.aclose()
        await auth.aclose()


async def _login(sessions, name: str) -> Session:
    session = Session(id=new_session_id(), sub=name, name=name, provider="default", player=PLAYERS[name])
    await sessions.save(session)
    return session


async def _open(gateway: Gateway, session: Session | None, path: str = "/ws/me"):
    headers = {"cookie": f"{COOKIE_NAME}={session.id}"} if session is not None else {}
    return await websockets.connect(f"ws://{gateway.address}{path}", open_timeout=5,
                                    additional_headers=headers)


async def _next(socket, timeout: float = 5.0) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout))


async def _nothing_before_the_answer(socket) -> None:
    """Send a message and read up to its error: nothing else may come first (whatever was queued
    for the socket before is written before the answer)."""
    await socket.send(json.dumps({"action": "probe", "id": "probe-1"}))
    message = await _next(socket)
    assert message["type"] == "error" and message.get("id") == "probe-1", message


async def _closed(socket) -> tuple[int, str]:
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await asyncio.wait_for(socket.recv(), 5)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


@pytest.fixture(params=["memory", "redis"])
async def two(request, redis_client, redis_prefix):
    """Two gateway processes on one bus: the same process twice in memory (the in-memory bus
    serves one), two processes sharing sessions, events and leases over Redis."""
    players, lobby = FakePlayers(), FakeLobby()
    if request.param == "memory":
        sessions = MemorySessionStore()
        async with _gateway(sessions, players, lobby) as one:
            yield one, one, players, lobby
        return
    keys = Keys(redis_prefix)
    stores = [RedisSessionStore(redis_client, keys, events=RedisEventBus(redis_client, keys)) for _ in range(2)]
    async with _gateway(stores[0], players, lobby, RedisOnline(redis_client, keys)) as one, \
            _gateway(stores[1], players, lobby, RedisOnline(redis_client, keys)) as other:
        yield one, other, players, lobby
    for store in stores:
        await store.events.aclose()


async def test_without_a_session_the_member_socket_is_refused_before_the_handshake():
    async with _gateway(MemorySessionStore(), FakePlayers(), FakeLobby()) as gateway:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await _open(gateway, None)
        assert refused.value.response.status_code == 401
        assert json.loads(refused.value.response.body) == {"detail": "Not authenticated"}


async def test_a_foreign_origin_is_refused_before_the_handshake_as_on_the_game_sockets():
    sessions = MemorySessionStore()
    async with _gateway(sessions, FakePlayers(), FakeLobby()) as gateway:
        session = await _login(sessions, "alice")
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(f"ws://{gateway.address}/ws/me", open_timeout=5, additional_headers={
                "cookie": f"{COOKIE_NAME}={session.id}", "origin": "https://evil.example"})
        assert refused.value.response.status_code == 403
        assert json.loads(refused.value.response.body) == {"detail": "Origin not allowed"}


async def test_every_message_on_the_member_socket_is_refused_and_it_stays_open():
    sessions = MemorySessionStore()
    async with _gateway(sessions, FakePlayers(), FakeLobby()) as gateway:
        socket = await _open(gateway, await _login(sessions, "alice"))
        await socket.send(json.dumps({"action": "play", "card": "07D", "id": "m-1"}))
        assert await _next(socket) == {"type": "error", "code": "unknown_action", "id": "m-1",
                                       "message": "Unknown action: play; the member socket takes no actions"}
        await socket.send("{not json")
        assert await _next(socket) == {"type": "error", "code": "bad_request", "message": "Message is not JSON"}
        await socket.send("[1]")
        assert (await _next(socket))["code"] == "bad_request"
        await socket.send(json.dumps({"hello": 1}))
        assert await _next(socket) == {"type": "error", "code": "unknown_action",
                                       "message": "The member socket takes no actions"}
        for n in range(60):  # past the burst (40): rate_limited, the socket stays open
            await socket.send(json.dumps({"action": "hi", "id": f"b-{n}"}))
        answers = [await _next(socket) for _ in range(60)]
        assert [a["id"] for a in answers] == [f"b-{n}" for n in range(60)]
        assert {a["code"] for a in answers} == {"unknown_action", "rate_limited"}
        await socket.send("x" * 5000)  # over 4096 bytes: closed as the game sockets are
        assert (await _closed(socket))[0] == 1009


async def test_a_followed_player_comes_online_and_goes_offline_hidden_ones_never(two):
    one, other, players, _ = two
    players.following["alice"] = [Followed(PLAYERS["bob"]), Followed(PLAYERS["dave"], show_online=False)]
    players.following["carol"] = [Followed(PLAYERS["dave"])]
    alice = await _open(one, await _login(one.sessions, "alice"))
    carol = await _open(one, await _login(one.sessions, "carol"))
    await _nothing_before_the_answer(alice)  # nobody followed is online yet

    bob_game = await _open(other, await _login(other.sessions, "bob"), "/ws/games/t1")  # any socket counts
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": True}
    bob_tab = await _open(other, await _login(other.sessions, "bob"))  # a second socket: no news
    dave = await _open(other, await _login(other.sessions, "dave"))
    assert await _next(carol) == {"type": "online", "player": PLAYERS["dave"], "online": True}
    await _nothing_before_the_answer(alice)  # dave hides it from alice (carol was told in the same batch)

    await bob_game.close()
    await _nothing_before_the_answer(bob_tab)
    await bob_tab.close()
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": False}
    await dave.close()
    assert await _next(carol) == {"type": "online", "player": PLAYERS["dave"], "online": False}
    await _nothing_before_the_answer(alice)

    # A socket opened later is told at once who is online now.
    bob = await _open(other, await _login(other.sessions, "bob"))
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": True}
    late = await _open(one, await _login(one.sessions, "alice"))
    assert await _next(late) == {"type": "online", "player": PLAYERS["bob"], "online": True}
    for socket in (alice, carol, bob, late):
        await socket.close()


async def test_a_member_who_follows_many_online_players_is_told_of_each_on_connect():
    sessions, players = MemorySessionStore(), FakePlayers()
    many = [f"player-{n:03d}-0123456789abcdef" for n in range(300)]  # more than a game socket's queue
    players.following["alice"] = [Followed(player) for player in many]
    async with _gateway(sessions, players, FakeLobby()) as gateway:
        with contextlib.ExitStack() as held:
            for player in many:
                held.enter_context(gateway.app.state.online.holding(player))
            alice = await _open(gateway, await _login(sessions, "alice"))
            told = [await _next(alice) for _ in many]
            assert told == [{"type": "online", "player": player, "online": True} for player in sorted(many)]
            await _nothing_before_the_answer(alice)
            await alice.close()


async def test_following_hiding_and_unfollowing_are_told_as_the_states_they_imply(two):
    one, other, players, _ = two
    alice = await _open(one, await _login(one.sessions, "alice"))
    bob = await _open(other, await _login(other.sessions, "bob"))
    await eventually(lambda: _online(one, "bob"), timeout=5, what="bob is not online")
    await _nothing_before_the_answer(alice)

    players.following["alice"] = [Followed(PLAYERS["bob"])]  # POST /api/me/following
    await other.publish(RelationsChanged((PLAYERS["alice"],), seen=False))
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": True}

    players.following["alice"] = [Followed(PLAYERS["bob"], show_online=False)]  # bob hides it
    await other.publish(RelationsChanged((PLAYERS["bob"],), seen=True))
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": False}

    players.following["alice"] = [Followed(PLAYERS["bob"])]  # shows it again
    await one.publish(RelationsChanged((PLAYERS["bob"],), seen=True))
    assert await _next(alice) == {"type": "online", "player": PLAYERS["bob"], "online": True}

    players.following["alice"] = []  # unfollowed: no news of bob's any more
    await one.publish(RelationsChanged((PLAYERS["alice"],), seen=False))
    await eventually(lambda: PLAYERS["bob"] not in one.app.state.members._followers, interval=0.01, what="still following")
    await bob.close()
    await _nothing_before_the_answer(alice)
    await alice.close()


async def test_a_follow_rereads_only_the_followers_list_not_those_of_who_follows_them(two):
    one, other, players, _ = two
    players.following["carol"] = [Followed(PLAYERS["alice"])]
    alice = await _open(one, await _login(one.sessions, "alice"))
    carol = await _open(one, await _login(one.sessions, "carol"))
    assert await _next(carol) == {"type": "online", "player": PLAYERS["alice"], "online": True}
    before = players.reads
    await other.publish(RelationsChanged((PLAYERS["alice"],), seen=False))  # alice follows someone
    await eventually(lambda: players.reads == before + 1, interval=0.01, what="alice's list is not read again")
    await other.publish(RelationsChanged((PLAYERS["alice"],), seen=True))  # alice hides being online
    await eventually(lambda: players.reads == before + 3, interval=0.01, what="alice's and carol's lists are not read again")
    assert players.reads == before + 3
    for socket in (alice, carol):
        await socket.close()


async def test_an_invitation_reaches_the_invitees_member_sockets_on_every_gateway(two):
    one, other, _, lobby = two
    lobby.games["w1"] = replace(lobby_game("w1", started=False), seats=lobby_game("w1").seats[1:3])
    alice_here = await _open(one, await _login(one.sessions, "alice"))
    alice_there = await _open(other, await _login(other.sessions, "alice"))
    await one.publish(Invited("alice", "w1", PLAYERS["bob"], "bob"))  # POST /api/games/w1/invite at one
    for socket in (alice_here, alice_there):
        invited = await _next(socket)
        assert invited["type"] == "invited" and invited["by"] == {"player": PLAYERS["bob"], "name": "bob"}
        game = invited["game"]
        assert (game["id"], game["status"], game["join_code"], game["seats_open"], game["your_turn"]) == (
            "w1", "lobby", "K7QX2M", 2, False)
        assert [(p["name"], p["is_you"]) for p in game["players"]] == [("bob", False), ("carol", False)]
    await one.publish(Invited("alice", "t1", PLAYERS["bob"], "bob"))  # started meanwhile: lapsed
    await one.publish(Invited("alice", "gone", PLAYERS["bob"], "bob"))  # no such game
    for socket in (alice_here, alice_there):
        await _nothing_before_the_answer(socket)
        await socket.close()


async def test_logout_and_the_gateway_stopping_close_the_member_socket(two):
    one, other, _, _ = two
    laptop, phone = await _login(one.sessions, "alice"), await _login(one.sessions, "alice")
    on_laptop, on_phone = await _open(other, laptop), await _open(one, phone)
    await one.sessions.delete(laptop.id)  # /auth/logout on the laptop
    assert await _closed(on_laptop) == (1008, "Session ended")
    await _nothing_before_the_answer(on_phone)
    one.app.state.sockets.restart_all()  # the gateway drains
    assert await _closed(on_phone) == (1012, "Service Restart")


async def test_a_blocked_players_talk_never_reaches_the_blocker_others_still_get_it(two):
    one, other, players, _ = two
    players.blocked["bob"] = [PLAYERS["alice"]]
    bob = await _open(one, await _login(one.sessions, "bob"), "/ws/games/t1?features=chat")
    carol = await _open(other, await _login(other.sessions, "carol"), "/ws/games/t1?features=chat")
    for gateway in {id(one): one, id(other): other}.values():
        await eventually(lambda g=gateway: g.app.state.fake_game.open["t1"] == 1, interval=0.01, what="no table stream")
        gateway.app.state.fake_game.push("t1", table_views(1))
    for socket in (bob, carol):
        assert (await _next(socket))["type"] in ("state", "presence")

    async def said(by: str, phrase: str) -> None:
        text = json.dumps({"type": "said", "id": phrase, "phrase": phrase,
                           "from": {"seat": 0, "name": by, "player": PLAYERS[by]}})
        await one.publish(Said("t1", text, False, PLAYERS[by]))

    await said("alice", "hello")
    await said("dave", "good_luck")
    assert (await _said(carol))["phrase"] == "hello"
    assert (await _said(carol))["phrase"] == "good_luck"
    assert (await _said(bob))["phrase"] == "good_luck"  # alice's never came

    await other.publish(BlocksChanged("bob", ()))  # DELETE /api/me/blocked/{alice}
    await said("alice", "thanks")
    assert (await _said(bob))["phrase"] == "thanks"
    await other.publish(BlocksChanged("bob", (PLAYERS["alice"],)))
    await said("alice", "sorry")
    await said("dave", "bye")
    assert (await _said(bob))["phrase"] == "bye"
    for socket in (bob, carol):
        await socket.close()


async def _said(socket) -> dict:
    while (message := await _next(socket))["type"] != "said":
        pass
    return message


async def _online(gateway: Gateway, name: str) -> bool:
    return PLAYERS[name] in await gateway.app.state.online.players([PLAYERS[name]])
