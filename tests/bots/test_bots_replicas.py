"""Bots across replicas, every component its own process on real Redis and Postgres.

Two bots replicas: a table's bots are driven by one replica, and when that replica dies the
other takes the table over within seconds (its lease lapses), while the person plays on. Two
game replicas: the bots watch and play at their table's owner over the live link, and when
that owner is killed, and again when it comes back, they go on at the table's owner then.
"""

from __future__ import annotations

import asyncio
import json
import signal

import pytest

from game.owners import owner_of
from testing.players import Player, receive, take_turn
from testing.prometheus import scrape
from testing.stack import real_stack

DECISIONS = "tavolo_bot_decision_duration_seconds_count"


@pytest.fixture(scope="module")
def stack():
    with real_stack({"BOT_THINK_MS": "100"}, label="bots-replicas", bots_replicas=2) as running:
        yield running


async def _decisions(stack, name: str) -> float:
    metrics = await scrape(stack, name)
    return sum(metrics.value(DECISIONS, tavolo_bot_level=level)
               for level in ("principiante", "esperto", "maestro")
               if metrics.has(DECISIONS, tavolo_bot_level=level))


async def test_a_dead_bots_replicas_tables_go_on_at_the_other(stack):
    alice = await Player(stack, "alice").login()
    try:
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 21}})).json()
        for seat in (1, 2, 3):
            answer = await alice.http.post(f"/api/games/{lobby['id']}/bots",
                                           json={"seat": seat, "level": "principiante"})
            assert answer.status_code == 200, answer.text
        socket = await alice.socket(lobby["id"])
        bot_plays_after_kill: list[dict] = []
        killed_at: int | None = None
        survivor = ""

        async def play() -> None:
            nonlocal killed_at, survivor
            while len(bot_plays_after_kill) < 3:
                message = await receive(socket, timeout=60)
                if message["type"] != "state":
                    continue
                game = message["game"]
                last = game["last_play"]
                if killed_at is None and last is not None and last["seat"] != 0:
                    # The replica the lobby's DriveTable reached drives the table alone.
                    decisions = {name: await _decisions(stack, name) for name in stack.bots}
                    [driver] = [name for name, count in decisions.items() if count > 0]
                    [survivor] = [name for name in stack.bots if name != driver]
                    stack.kill(driver, signal.SIGKILL)
                    killed_at = game["revision"]
                elif killed_at is not None and last is not None and last["seat"] != 0 \
                        and game["revision"] > killed_at:
                    bot_plays_after_kill.append(last)
                if game.get("your_turn"):
                    option = game["legal"][0]
                    await socket.send(json.dumps({"action": "play", "card": option["card"],
                                                  "capture": option["captures"][0],
                                                  "revision": game["revision"]}))
                elif game["status"] == "hand_end" and 0 not in game["acknowledged"]:
                    await socket.send(json.dumps({"action": "ack"}))

        # Bounded: a lease (6 s) and a claim (every 2 s) after the kill, with room for a loaded
        # machine; a turn nobody played would only time out after 30 s, as an auto-play.
        await asyncio.wait_for(play(), 60)
        assert all(not p["auto"] for p in bot_plays_after_kill)  # bots, not timeouts
        assert await _decisions(stack, survivor) > 0
        await socket.close()
    finally:
        await alice.close()


@pytest.fixture
def two_game_replicas():
    """Two game replicas, one bots service; turns time out only after 30 s, so a bot's turn
    played before then was played by the bot."""
    with real_stack({"BOT_THINK_MS": "0"}, label="bots-owner", game_replicas=2) as running:
        yield running


def _owner(stack, table_id: str) -> tuple[str, str]:
    """The table's owner among the game replicas, and the other one."""
    addresses = [stack.address(name) for name in stack.games]
    owner = stack.games[addresses.index(owner_of(table_id, addresses))]
    return owner, next(name for name in stack.games if name != owner)


async def test_the_bots_play_on_when_their_tables_owner_is_killed_and_comes_back(two_game_replicas):
    stack = two_game_replicas
    alice = await Player(stack, "alice").login()
    try:
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        for seat in (1, 2, 3):
            answer = await alice.http.post(f"/api/games/{lobby['id']}/bots",
                                           json={"seat": seat, "level": "principiante"})
            assert answer.status_code == 200, answer.text
        owner, _ = _owner(stack, lobby["id"])
        socket = await alice.socket(lobby["id"])
        # The bots' plays seen on alice's socket, by phase: before the kill, while the owner
        # is dead, once it serves again.
        phases: dict[str, list[dict]] = {"before": [], "killed": [], "back": []}
        phase, last_revision = "before", -1

        async def play() -> dict:
            nonlocal phase, last_revision
            while True:
                message = await receive(socket, timeout=60)
                if message["type"] == "game_over":
                    return message
                if message["type"] != "state":
                    continue
                game = message["game"]
                last = game["last_play"]
                if game["revision"] > last_revision and last is not None and last["seat"] != 0:
                    phases[phase].append(last)
                last_revision = max(last_revision, game["revision"])
                if phase == "before" and phases["before"]:
                    stack.kill(owner)  # SIGKILL: the bots' watches and moves there break
                    phase = "killed"
                elif phase == "killed" and len(phases["killed"]) >= 3:
                    # Serving again, it is the table's owner again, for every new call; the
                    # watches stay at the other replica, fed over Redis.
                    await asyncio.to_thread(stack.start_again, owner)
                    phase = "back"
                await take_turn(socket, game)

        # Bounded well below the bots' turn timeouts piling up: a stalled bot would show as
        # auto-plays after 30 s, and a hand is 30 bot plays.
        over = await asyncio.wait_for(play(), 120)
        assert over["winner"] in ("A", "B")
        assert phase == "back" and len(phases["back"]) >= 3, phases
        for plays in phases.values():
            assert all(not play["auto"] for play in plays), phases  # bots, not timeouts
        await socket.close()
    finally:
        await alice.close()
