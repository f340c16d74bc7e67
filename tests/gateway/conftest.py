"""The gateway's end-to-end fixtures: the whole stack as real processes, players logged in over HTTP."""

from __future__ import annotations

import pytest

from testing.players import Player
from testing.stack import Stack


@pytest.fixture(scope="session")
def shared_stack():
    """Every component as its own process, in-memory stores: one per test process, shared by the
    modules that only play on it (a start costs seconds of CPU for each of its processes). Such
    a module never stops or restarts a component, and expects others' games and members beside
    its own; a module that needs settings or faults of its own defines ``stack`` itself."""
    running = Stack().start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def stack(shared_stack):
    return shared_stack


@pytest.fixture
async def players(stack):
    """Four logged-in players: alice, bob, carol and dave."""
    made = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    yield made
    for player in made:
        await player.close()


@pytest.fixture
async def anonymous(stack):
    player = Player(stack, "nobody")
    yield player
    await player.close()
