"""The backup-and-restore drill of docs/operations.md, on the real stack: pg_dump a database that
holds a finished match and a match under way, restore it into a fresh database, start the whole
stack on it with an empty Redis (Redis is never backed up: it holds nothing that cannot be
rebuilt), finish the match that was under way, and replay every log with tools/verify_deal.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from testing.players import Player, on_turn, play_against_bots, play_until_over, receive, seat_four
from testing.servers import REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix
from testing.stack import Stack
from testing.waiting import eventually

VERIFIER = Path(__file__).resolve().parents[2] / "tools" / "verify_deal.py"
PEOPLE = ("ann", "ben", "cat", "dan")
# Nobody's turn runs out while the drill dumps and restores: the match under way waits for its
# players, as it would for people during a short restore.
SLOW_TURNS = {"TURN_TIMEOUT_SECONDS": "600", "HAND_ACK_TIMEOUT_SECONDS": "600"}


def _stack_on(database: str, prefix: str, stacks: list[Stack]) -> Stack:
    """The whole stack on ``database`` (migrated first, as the chart's Job does), kept in
    ``stacks`` before it starts, so that a failed start is stopped too."""
    stack = Stack({"DATABASE_URL": dsn_for(database), "REDIS_URL": REDIS_URL, "REDIS_KEY_PREFIX": prefix,
                   **SLOW_TURNS})
    subprocess.run([sys.executable, "-m", "launcher.cli", "migrate"], env=stack.env, check=True,
                   capture_output=True)
    stacks.append(stack)
    return stack.start(timeout=90)  # two stacks one after the other on a busy machine


async def _login(stack: Stack, names) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


async def _close(players: list[Player]) -> None:
    for player in players:
        await player.close()


def _verify(log: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", str(VERIFIER), "-"], input=json.dumps(log),
                          capture_output=True, text=True, timeout=60)


async def _recorded(player: Player, game_id: str) -> dict:
    async def recorded():
        items = (await player.http.get("/api/me/matches")).json()["items"]
        return next((item for item in items if item["id"] == game_id), None)

    return await eventually(recorded, timeout=60)


async def _before_the_backup(stack: Stack) -> tuple[str, str, int]:
    """A match against bots played to its end, and a match of four people two cards in: the
    ids of both and the revision the second one stands at."""
    solo = await Player(stack, "eve").login()
    try:
        finished, _ = await play_against_bots(solo)
        await _recorded(solo, finished["id"])
    finally:
        await solo.close()
    players = await _login(stack, PEOPLE)
    try:
        lobby = await seat_four(players, {"target_score": 1})
        for _ in range(2):
            async with await (await on_turn(players, lobby["id"])).socket(lobby["id"]) as socket:
                game = (await receive(socket, "state"))["game"]
                card = game["legal"][0]
                await socket.send(json.dumps({"action": "play", "card": card["card"],
                                              "capture": card["captures"][0], "revision": game["revision"]}))
                assert (await receive(socket, "state"))["game"]["revision"] == game["revision"] + 1
        revision = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()["revision"]
    finally:
        await _close(players)
    return finished["id"], lobby["id"], revision


def _dump(database: str, into: Path) -> None:
    subprocess.run(["pg_dump", "--format=custom", "--no-owner", "--file", str(into), "--dbname",
                    dsn_for(database)], check=True, capture_output=True, timeout=120)


def _restore(dump: Path, database: str) -> None:
    subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", dsn_for(database), str(dump)],
                   check=True, capture_output=True, timeout=120)


async def test_a_restored_database_finishes_the_running_match_and_every_log_verifies(tmp_path):
    original, restored = await create_database("backup"), await create_database("restored")
    prefixes = [new_prefix("backup"), new_prefix("restored")]
    stacks: list[Stack] = []
    try:
        first = _stack_on(original, prefixes[0], stacks)
        finished_id, running_id, revision = await _before_the_backup(first)
        dump = tmp_path / "tavolo.dump"
        _dump(original, dump)  # online: the stack keeps serving while pg_dump reads a snapshot
        first.stop()

        _restore(dump, restored)
        second = _stack_on(restored, prefixes[1], stacks)  # a new Redis namespace: empty
        migrated = subprocess.run([sys.executable, "-m", "launcher.cli", "migrate", "--status"],
                                  env=second.env, capture_output=True, text=True, timeout=60)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr  # nothing pending or edited

        players = await _login(second, PEOPLE)  # sessions were in Redis: everyone logs in again
        try:
            view = (await players[0].http.get(f"/api/games/{running_id}")).json()
            assert view["status"] == "playing" and view["revision"] == revision
            assert [p["name"] for p in view["players"]] == list(PEOPLE)
            mine = (await players[1].http.get("/api/me/games")).json()["games"]
            assert [game["id"] for game in mine] == [running_id]
            sockets = [await player.socket(running_id) for player in players]
            overs = await asyncio.gather(*(play_until_over(socket, False) for socket in sockets))
            for socket in sockets:
                await socket.close()
            assert {over["winner"] for over in overs} <= {"A", "B"}
            await _recorded(players[0], running_id)
            logs = [(await players[0].http.get(f"/api/games/{game_id}/log")).json()
                    for game_id in (finished_id, running_id)]
        finally:
            await _close(players)
        eve = await Player(second, "eve").login()
        try:
            history = await _recorded(eve, finished_id)  # the match history came back with the dump
            assert history["id"] == finished_id
        finally:
            await eve.close()

        for log in logs:
            assert log["status"] == "finished"
            checked = _verify(log)
            assert checked.returncode == 0, checked.stdout + checked.stderr
            assert checked.stdout.startswith("verified")
        assert len(logs[1]["moves"]) > revision  # the moves made before the dump, then the rest
    finally:
        for stack in stacks:
            stack.stop()
        for prefix in prefixes:
            await delete_keys(prefix)
        for database in (original, restored):
            await drop_database(database)
