"""A daily game's deadline, due in a day, is kept as durably as a live one's due in 30 seconds.

Every component runs as its own process on real Redis and Postgres. The backstop entry of each
table (its deadline plus BACKSTOP_GRACE_MS, in the deadline service's queue) is read straight
from Redis: it survives restarts of the game and deadlines services, and after a flush the game
replica puts it back as it was. The live table's deadline then fires; the daily one's stays a
day ahead, untouched, its entry the same.
"""

from __future__ import annotations

import uuid

import pytest

from deadlines.entry import Entry
from game.deadline_keeper import BACKSTOP_GRACE_MS
from services.stores import Keys, redis_client
from services.timeutil import ms_from_iso
from testing.players import Player, seat_four
from testing.servers import REDIS_URL, delete_keys
from testing.stack import real_stack
from testing.waiting import eventually

HOUR_MS = 3_600_000


@pytest.fixture(scope="module")
def stack():
    """Real servers; a live turn lasts 30 s, a daily one DAILY_TURN_HOURS' default, a day."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "30"}, label="dailydl") as running:
        yield running


async def _backstop(stack, table_id: str) -> dict[str, int]:
    """The table's entries in the deadline queue: token -> due (ms)."""
    client = redis_client(REDIS_URL)
    try:
        pending = Keys(stack.env["REDIS_KEY_PREFIX"]).group("deadlines", "pending")
        entries = [(Entry.from_member(member), due)
                   for member, due in await client.zrange(pending, 0, -1, withscores=True)]
    finally:
        await client.aclose()
    return {entry.token: int(due) for entry, due in entries if entry.table_id == table_id}


async def _view(player: Player, game_id: str) -> dict:
    response = await player.http.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def _login(stack, names) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


async def test_a_deadline_a_day_ahead_survives_restarts_and_a_flush_like_one_due_in_30_seconds(stack):
    names = [f"{name}-{uuid.uuid4().hex[:6]}" for name in "abcdefgh"]
    players = await _login(stack, names)
    try:
        live = (await seat_four(players[:4], {}))["id"]
        daily = (await seat_four(players[4:], {"pace": "daily"}))["id"]
        first = {game: await _view(players[0 if game == live else 4], game) for game in (live, daily)}
        left = ms_from_iso(first[daily]["turn_deadline"]) - ms_from_iso(first[live]["turn_deadline"])
        assert 24 * HOUR_MS - 60_000 < left <= 24 * HOUR_MS

        async def held_as_viewed():
            """Each table's queue entry is its view's deadline (the live one may have fired
            and moved on meanwhile: then its new one), plus the grace."""
            for game, player in ((live, players[0]), (daily, players[4])):
                response = await player.http.get(f"/api/games/{game}")
                if response.status_code == 503:  # the service restarted a moment ago: ask again
                    return False
                assert response.status_code == 200, response.text
                view = response.json()
                wanted = [ms_from_iso(view["turn_deadline"]) + BACKSTOP_GRACE_MS]
                if list((await _backstop(stack, game)).values()) != wanted:
                    return False
            return True

        daily_entry = await _backstop(stack, daily)
        assert len(daily_entry) == 1, daily_entry
        await eventually(held_as_viewed, timeout=20, what="the backstop does not hold the deadlines")

        for service in ("deadlines", "game"):
            stack.restart(service)
            await eventually(held_as_viewed, timeout=30, what=f"lost after a restart of {service}")
        assert await _backstop(stack, daily) == daily_entry

        await delete_keys(stack.env["REDIS_KEY_PREFIX"])  # a Redis lost: the queue, sessions
        for player in players:
            await player.close()
        players = await _login(stack, names)
        await eventually(held_as_viewed, timeout=30, what="the queue was not rebuilt after the flush")
        assert await _backstop(stack, daily) == daily_entry

        async def live_fired():
            return (await _view(players[0], live))["revision"] > first[live]["revision"]

        await eventually(live_fired, timeout=90, what="the live deadline never fired")
        now = await _view(players[4], daily)
        assert (now["revision"], now["turn"], now["turn_deadline"]) == (
            first[daily]["revision"], first[daily]["turn"], first[daily]["turn_deadline"])
        assert await _backstop(stack, daily) == daily_entry
    finally:
        for player in players:
            await player.close()
