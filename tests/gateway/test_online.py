"""Who is online, shared by the gateway processes (gateway.online): a player is online while a socket
of theirs is open in any process, the same in memory and in Redis; a process announces only its
first and last socket of a player, after the lease is written; the leases of a process that died
lapse."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gateway import online as online_module
from gateway.events import Event, OnlineChanged
from gateway.online import MemoryOnline, Online, RedisOnline, online_players
from services.rpc.errors import Reason, ServiceError
from services.stores import Keys
from testing.waiting import eventually


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _heard(online: Online) -> list[Event]:
    """What ``online`` publishes, as a list that fills."""
    heard: list[Event] = []

    async def publish(event: Event) -> None:
        heard.append(event)
    online.publish = publish
    return heard


@pytest.fixture(params=["memory", "redis"])
async def online(request, redis_client, redis_prefix) -> Online:
    if request.param == "memory":
        return MemoryOnline()
    return RedisOnline(redis_client, Keys(redis_prefix), process="one")


async def test_a_player_is_online_while_a_socket_of_theirs_is_open(online):
    heard = _heard(online)
    app = SimpleNamespace(state=SimpleNamespace(online=online))
    with online.holding("p-alice"):
        with online.holding("p-alice"):  # a second tab: no news
            await eventually(lambda: _async(len(heard) == 1), timeout=5, what="no announcement")
            assert await online_players(app, ["p-alice", "p-bob"]) == {"p-alice"}
        assert await online_players(app, ["p-alice"]) == {"p-alice"}
        assert heard == [OnlineChanged("p-alice")]
    await eventually(lambda: _async(len(heard) == 2), timeout=5, what="no announcement of the last close")
    assert heard == [OnlineChanged("p-alice")] * 2
    assert await online_players(app, ["p-alice", "p-bob"]) == set()
    assert await online_players(app, []) == set()


async def test_two_processes_see_each_others_sockets(redis_client, redis_prefix):
    one = RedisOnline(redis_client, Keys(redis_prefix), process="one")
    two = RedisOnline(redis_client, Keys(redis_prefix), process="two")
    heard = _heard(one)
    with one.holding("p-alice"):
        await eventually(lambda: _async(heard == [OnlineChanged("p-alice")]), timeout=5, what="not announced")
        assert await two.players(["p-alice", "p-bob"]) == {"p-alice"}
        with two.holding("p-bob"):
            await eventually(lambda: _both(one), timeout=5, what="not held")
    await eventually(lambda: _async(len(heard) == 2), timeout=5, what="not announced")
    assert await two.players(["p-alice", "p-bob"]) == set()


async def test_the_leases_of_a_process_that_stopped_renewing_lapse(redis_client, redis_prefix):
    clock = Clock()
    dead = RedisOnline(redis_client, Keys(redis_prefix), process="dead", clock=clock, ttl_seconds=60)
    alive = RedisOnline(redis_client, Keys(redis_prefix), process="alive", clock=clock, ttl_seconds=60)
    _heard(dead), _heard(alive)
    with dead.holding("p-alice"), alive.holding("p-bob"):
        await eventually(lambda: _both(alive), timeout=5, what="not held")
        clock.now += 40
        await alive.renew()
        clock.now += 30  # dead's lease is 70 s old, alive's 30 s
        assert await alive.players(["p-alice", "p-bob"]) == {"p-bob"}


async def test_without_the_shared_store_the_process_answers_for_its_own_sockets(redis_client, redis_prefix):
    online = RedisOnline(redis_client, Keys(redis_prefix), process="one")
    _heard(online)

    async def down(table_ids):
        raise ServiceError(Reason.UNAVAILABLE, "redis down")
    online._leases.holders = down  # type: ignore[method-assign]
    app = SimpleNamespace(state=SimpleNamespace(online=online))
    with online.holding("p-alice"):
        assert await online_players(app, ["p-alice", "p-bob"]) == {"p-alice"}


async def test_the_bus_down_the_process_tells_its_own_sockets():
    online = MemoryOnline()
    told: list[Event] = []

    async def publish(event: Event) -> None:
        raise ServiceError(Reason.UNAVAILABLE, "bus down")
    online.publish, online.local = publish, told.append
    with online.holding("p-alice"):
        await eventually(lambda: _async(told == [OnlineChanged("p-alice")]), timeout=5, what="not told")


async def _both(online: Online) -> bool:
    return await online.players(["p-alice", "p-bob"]) == {"p-alice", "p-bob"}


async def _async(value):
    return value


async def test_many_players_are_read_in_batches_each_one_round_trip(online, monkeypatch):
    monkeypatch.setattr(online_module, "READ_BATCH", 3)
    _heard(online)
    reads: list[int] = []
    holders = online._leases.holders

    async def counted(table_ids):
        reads.append(len(table_ids))
        return await holders(table_ids)
    monkeypatch.setattr(online._leases, "holders", counted)
    players = [f"p-{n}" for n in range(8)]
    with online.holding("p-1"), online.holding("p-7"):
        await eventually(lambda: _async(len(online._marking) == 0), timeout=5, what="not written")
        assert await online.players([*players, "p-1"]) == {"p-1", "p-7"}
    assert reads == [3, 3, 2]


async def test_a_socket_that_closes_during_a_renewal_is_not_left_online(redis_client, redis_prefix):
    online = RedisOnline(redis_client, Keys(redis_prefix), process="one")
    _heard(online)
    renew = online._leases.renew
    closing = online.holding("p-alice")
    closing.__enter__()

    async def slow_renewal(leases):
        leases = list(leases)
        closing.__exit__(None, None, None)  # the socket closes while the renewal is on its way
        await eventually(lambda: _async(not online._marking), timeout=5, what="the drop not written")
        await renew(leases)  # ... and the renewal lands after the drop
    online._leases.renew = slow_renewal  # type: ignore[method-assign]
    await online.renew()
    assert await online.players(["p-alice"]) == set()
