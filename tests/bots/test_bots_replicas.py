"""Two bots replicas on real Postgres, every component its own process: a table's bots are
driven by one replica, and when that replica dies the other takes the table over within
seconds (its lease lapses), while the person plays on."""

from __future__ import annotations

import asyncio
import json
import signal

import pytest

from testing.players import Player, receive
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
