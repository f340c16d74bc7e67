"""A gateway process's member feed (gateway.member_feed) on its own: an online change costs one
lease read for the player, whatever the number of sockets following them; the players last seen
online are read again, so a gateway that died without a word shows as offline once its leases
lapse."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from gateway import member_feed
from gateway.contract.common import Body
from gateway.member_feed import MemberFeed
from gateway.online import MemoryOnline, RedisOnline
from services.stores import Keys
from testing.waiting import eventually
from tests.gateway.live_fakes import FakeLobby
from tests.gateway.test_member_socket import FakePlayers, Followed

BOB, CAROL = "player-bob-0123456789", "player-carol-0123456789"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass(eq=False)
class Socket:
    sub: str
    player: str = ""
    told: set[str] = field(default_factory=set)
    sent: list[dict] = field(default_factory=list)

    def send(self, message: Body) -> None:
        self.sent.append(message.body())


class CountingOnline(MemoryOnline):
    def __init__(self) -> None:
        super().__init__()
        self.reads: list[set[str]] = []
        self.after_read = None  # called once, after the next read

    async def players(self, players):
        asked = set(players)
        self.reads.append(asked)
        online = await super().players(asked)
        if self.after_read is not None:
            after, self.after_read = self.after_read, None
            await after()
        return online


async def _async(value):
    return value


async def test_an_online_change_is_one_read_for_every_socket_that_follows_the_player():
    players, online = FakePlayers(), CountingOnline()
    feed = MemberFeed(FakeLobby(), players, online)
    members = [f"m{n}" for n in range(5)]
    for member in members:
        players.following[member] = [Followed(BOB)]
    sockets = [Socket(member) for member in members for _ in range(3)]
    for socket in sockets:
        feed.add(socket)
    await eventually(lambda: _async(online.reads), timeout=5, what="the follow lists not read")
    online.reads.clear()
    with online.holding(BOB):
        feed.online_changed(BOB)
        await eventually(lambda: _async(all(s.sent for s in sockets)), timeout=5, what="not told")
    assert online.reads == [{BOB}]
    assert all(s.sent == [{"type": "online", "player": BOB, "online": True}] for s in sockets)
    feed.online_changed("player-nobody-follows-0123")  # no read at all
    feed.online_changed(BOB)
    await eventually(lambda: _async(len(online.reads) == 2), timeout=5, what="not read")
    assert online.reads[1] == {BOB}
    await feed.aclose()


async def test_a_player_whose_gateway_died_goes_offline_once_the_leases_lapse(redis_client, redis_prefix,
                                                                             monkeypatch):
    monkeypatch.setattr(member_feed, "RECHECK_SECONDS", 0.05)
    clock, keys = Clock(), Keys(redis_prefix)
    dead = RedisOnline(redis_client, keys, process="dead", clock=clock, ttl_seconds=60)
    here = RedisOnline(redis_client, keys, process="here", clock=clock, ttl_seconds=60)
    players = FakePlayers()
    players.following["alice"] = [Followed(BOB)]
    feed = MemberFeed(FakeLobby(), players, here)
    alice = Socket("alice")
    with dead.holding(BOB):  # the dead process never drops it: it just stops renewing
        await eventually(lambda: here.players([BOB]), timeout=5, what="bob is not online")
        feed.add(alice)
        await eventually(lambda: _async(alice.sent), timeout=5, what="not told bob is online")
        clock.now += 61  # the lease lapsed; nobody says so
        await eventually(lambda: _async(len(alice.sent) == 2), timeout=5, what="never told bob is offline")
        assert alice.sent[1] == {"type": "online", "player": BOB, "online": False}
    await feed.aclose()
    await dead.aclose()


@pytest.mark.parametrize("shows", [True, False])
async def test_a_hidden_player_is_never_told_online(shows):
    players, online = FakePlayers(), MemoryOnline()
    players.following["alice"] = [Followed(BOB, show_online=shows), Followed(CAROL)]
    feed = MemberFeed(FakeLobby(), players, online)
    alice = Socket("alice")
    feed.add(alice)
    with online.holding(BOB), online.holding(CAROL):
        feed.online_changed(BOB)
        feed.online_changed(CAROL)
        await eventually(lambda: _async(any(m["player"] == CAROL for m in alice.sent)), timeout=5)
    told = {m["player"] for m in alice.sent}
    assert told == ({BOB, CAROL} if shows else {CAROL})
    await feed.aclose()


async def test_after_missed_events_the_followed_are_read_again_once_the_leases_are_back(monkeypatch):
    monkeypatch.setattr(member_feed, "READ_AGAIN_SECONDS", 0.05)
    players, online = FakePlayers(), CountingOnline()
    players.following["alice"] = [Followed(BOB)]
    feed = MemberFeed(FakeLobby(), players, online)
    alice = Socket("alice")
    feed.add(alice)
    with online.holding(BOB):
        feed.online_changed(BOB)
        await eventually(lambda: _async(len(alice.sent) == 1), timeout=5, what="not told bob is online")
        leases, held = online._leases, online.held()
        for player, holder in held:  # Redis lost its keys
            await leases.mark(player, holder, False)

        async def renewed() -> None:  # right after the read that follows the loss, the renewal
            for player, holder in held:  # writes them again, announcing nothing
                await leases.mark(player, holder, True)
        online.after_read = renewed
        feed.missed()
        await eventually(lambda: _async(len(alice.sent) == 3), timeout=5, what="not told bob is back")
    assert [m["online"] for m in alice.sent] == [True, False, True]
    await feed.aclose()
