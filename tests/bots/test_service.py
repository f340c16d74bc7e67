"""bots.service's Bots over a fake game API and the in-memory drive store: DriveTable's checks,
a driven table's bots at play and forgotten when it finishes, leases lost and taken over."""

from __future__ import annotations

import asyncio

import pytest

from bots.service import Bots
from bots.store import MemoryDriveStore
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually
from tests.bots.fake_game import FakeGame, finished, hand_end

TABLE = "5f0c2a8e-3b1d-4c6e-9a7f-1e2d3c4b5a69"


class ClaimsHeard(MemoryDriveStore):
    """The in-memory store, telling the test each claim it served."""

    def __init__(self) -> None:
        super().__init__()
        self.claims = 0

    async def claim(self, owner: str, lease_seconds: float):
        self.claims += 1
        return await super().claim(owner, lease_seconds)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("seats", "reason"), [
    ([(1, "principiante"), (1, "esperto")], Reason.INVALID_ARGUMENT),
    ([(4, "principiante")], Reason.INVALID_ARGUMENT),
    ([(-1, "principiante")], Reason.INVALID_ARGUMENT),
    ([(1, "grandmaster")], Reason.UNKNOWN_BOT_LEVEL),
])
async def test_drive_table_refuses_bad_seats_and_stores_nothing(seats, reason):
    store = MemoryDriveStore()
    bots = Bots(store, FakeGame(), think_ms=0)
    with pytest.raises(ServiceError) as refused:
        await bots.drive_table(TABLE, seats)
    assert refused.value.reason is reason
    assert await store.seats(TABLE) == () and bots.tables == []


async def test_drive_table_refuses_a_table_id_that_is_no_uuid():
    bots = Bots(MemoryDriveStore(), FakeGame(), think_ms=0)
    with pytest.raises(ServiceError) as refused:
        await bots.drive_table(TABLE.upper(), [(1, "principiante")])
    assert (refused.value.reason, refused.value.metadata["field"]) == (Reason.INVALID_ARGUMENT, "table_id")


async def test_a_driven_table_is_played_then_forgotten_when_it_finishes():
    store, game = MemoryDriveStore(), FakeGame()
    bots = Bots(store, game, think_ms=0)
    await bots.drive_table(TABLE, [(3, "esperto"), (1, "principiante")])
    assert bots.tables == [TABLE]
    assert await store.seats(TABLE) == ((1, "principiante"), (3, "esperto"))
    for seat in ("seat:1", "seat:3"):
        (await game.watch_opened(TABLE, seat)).put_nowait(hand_end(2, acknowledged=(0, 2)))
    assert sorted(m.seat for m in await game.moves_made(2)) == ["seat:1", "seat:3"]
    for seat in ("seat:1", "seat:3"):
        (await game.watch_opened(TABLE, seat)).put_nowait(finished(3))
    await eventually(lambda: not bots.tables, interval=0.01, what="the finished table is still driven")
    assert await store.seats(TABLE) == ()


async def test_a_replica_that_lost_its_lease_stops_and_the_other_takes_the_table():
    clock, game = Clock(), FakeGame()
    store = MemoryDriveStore(clock=clock)
    first = Bots(store, game, think_ms=0, lease_seconds=6, replica="first")
    second = Bots(store, game, think_ms=0, lease_seconds=6, replica="second")
    await first.drive_table(TABLE, [(1, "principiante")])
    await game.watch_opened(TABLE, "seat:1")  # the first replica's bot watches
    await second.claim()
    assert (first.tables, second.tables) == ([TABLE], [])  # the lease holds
    clock.now += 7  # the first replica did not renew in time
    await second.claim()
    await first.claim()
    assert (first.tables, second.tables) == ([], [TABLE])
    await game.watch_opened(TABLE, "seat:1", count=2)  # the second replica's bot watches
    await second.drive_table(TABLE, [])  # no bot seat left: a claim stops it
    assert second.tables == []


async def test_changed_seats_restart_the_tables_bots():
    store, game = ClaimsHeard(), FakeGame()
    bots = Bots(store, game, think_ms=0)
    await bots.drive_table(TABLE, [(1, "principiante")])
    await game.watch_opened(TABLE, "seat:1")
    await bots.drive_table(TABLE, [(1, "principiante"), (2, "maestro")])
    await game.watch_opened(TABLE, "seat:2")
    await game.watch_opened(TABLE, "seat:1", count=2)  # every seat's bot started again
    await bots.drive_table(TABLE, [(1, "principiante"), (2, "maestro")])  # the same: kept
    assert len(game.watches[TABLE, "seat:1"]) == 2
    claims = store.claims
    run = asyncio.create_task(bots.run())
    await eventually(lambda: store.claims > claims, interval=0.01, what="the service never claimed")
    assert bots.tables == [TABLE]
    run.cancel()
    await asyncio.gather(run, return_exceptions=True)
    assert bots.tables == []  # a stopped service stops every table's bots
