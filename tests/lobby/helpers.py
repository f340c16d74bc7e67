"""Small helpers of the lobby's service tests."""

from __future__ import annotations

import pytest

from lobby.client import LobbyClient
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError

DEFAULT_OPTIONS = {"target_score": 11, "napola": True, "asso_pigliatutto": False, "player_entropy": False,
                   "first_dealer": "drawn", "pace": "live"}


async def full_game(client: LobbyClient, members=("alice", "bob", "carol", "dave")) -> Game:
    """A game created by the first member and joined by the others (started when four)."""
    game = await client.create_game(members[0], members[0].title(), "scopone_scientifico")
    for member in members[1:]:
        game = (await client.join_game(member, member.title(), game.join_code)).game
    return game


async def fails(call, reason: Reason, message: str | None = None) -> ServiceError:
    """Await ``call``; assert it raised ServiceError with ``reason`` (and ``message``)."""
    with pytest.raises(ServiceError) as caught:
        await call
    assert caught.value.reason is reason, caught.value
    if message is not None:
        assert caught.value.message == message
    return caught.value
