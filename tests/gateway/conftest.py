"""The gateway's end-to-end fixtures: the whole stack as real processes, players logged in over HTTP."""

from __future__ import annotations

import pytest

from testing.players import Player
from testing.stack import Stack


@pytest.fixture(scope="module")
def stack():
    """Every component as its own process, in-memory stores (one stack per test module)."""
    running = Stack().start()
    yield running
    running.stop()


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
