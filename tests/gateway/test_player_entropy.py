"""Player entropy through the gateway, as a client that knows only the contract: the seeding
phase, commits and reveals over the socket, the bots' own, a seat that withholds, refusals, and
a finished log that tools/verify_deal.py replays with the deal key K, compacted by log
retention too."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from game.postgres_log_store import PostgresLogStore
from game.retention import DAY_MS, LogRetention
from services.timeutil import now_ms
from testing.players import Player, play_until_over, receive
from testing.stack import real_stack
from testing.waiting import eventually

VERIFIER = Path(__file__).resolve().parents[2] / "tools" / "verify_deal.py"
OPTIONS = {"target_score": 1, "napola": False, "player_entropy": True}


@pytest.fixture(scope="module")
def stack():
    """Each seeding phase waits 2 s at most; turns and hand ends 0.3 s; logs are kept whole a
    day (LOG_RETENTION_DAYS)."""
    with real_stack({"ENTROPY_TIMEOUT_SECONDS": "2", "TURN_TIMEOUT_SECONDS": "0.3",
                     "HAND_ACK_TIMEOUT_SECONDS": "0.3", "LOG_RETENTION_DAYS": "1"},
                    label="entropy") as running:
        yield running


async def _against_bots(player: Player) -> dict:
    lobby = (await player.http.post("/api/games", json={"options": OPTIONS})).json()
    assert lobby["options"]["player_entropy"] is True
    for seat in (1, 2, 3):
        last = await player.http.post(f"/api/games/{lobby['id']}/bots", json={"seat": seat, "level": "principiante"})
    assert last.status_code == 200, last.text
    return last.json()


async def _until(socket, predicate) -> dict:
    while True:
        message = await receive(socket, timeout=15)
        if message["type"] == "state" and predicate(message["game"]):
            return message["game"]


async def _recorded(player: Player, game_id: str) -> dict:
    """The player's history item of the match, once stats recorded it."""
    async def match() -> dict | None:
        items = (await player.http.get("/api/me/matches")).json()["items"]
        return next((m for m in items if m["id"] == game_id), None)

    return await eventually(match, timeout=30, interval=0.1, what=f"match {game_id} was not recorded")


def _verify(log: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", str(VERIFIER), "-"], input=json.dumps(log),
                          capture_output=True, text=True, timeout=60)


async def test_a_match_with_player_entropy_seeds_deals_with_k_and_verifies(stack):
    alice = await Player(stack, "alice").login()
    try:
        game = await _against_bots(alice)
        assert game["status"] == "seeding"
        assert game["entropy"]["phase"] == "commit" and game["hand"] == []
        seeding_log = await alice.http.get(f"/api/games/{game['id']}/log")  # a 500 once: no seeding status
        assert seeding_log.status_code == 200, seeding_log.text
        assert seeding_log.json()["status"] == "seeding" and "seed" not in seeding_log.json()
        socket = await alice.socket(game["id"])
        value = bytes(range(100, 132))
        refused = {"action": "reveal", "value": value.hex()}
        await socket.send(json.dumps(refused))
        error = await receive(socket, "error")
        assert (error["code"], error["message"]) == (
            "illegal_move", "Reveal once every seat committed or the commit time ran out")
        await socket.send(json.dumps({"action": "commit", "hash": "not hex"}))
        assert (await receive(socket, "error"))["code"] == "bad_request"
        await socket.send(json.dumps({"action": "commit", "hash": hashlib.sha256(value).hexdigest()}))
        # The bots commit too: the phase turns to reveal once all four did, before any deadline.
        seeding = await _until(socket, lambda g: g.get("entropy", {}).get("phase") == "reveal")
        assert seeding["entropy"]["committed"] == [0, 1, 2, 3]
        await socket.send(json.dumps({"action": "reveal", "value": bytes(32).hex()}))
        error = await receive(socket, "error")
        assert error["message"] == "That value does not match your commitment"
        await socket.send(json.dumps({"action": "reveal", "value": value.hex()}))
        playing = await _until(socket, lambda g: g["status"] == "playing")
        assert len(playing["hand"]) == 10
        over = await play_until_over(socket, False)
        assert over["type"] == "game_over"
        log = (await alice.http.get(f"/api/games/{game['id']}/log")).json()
        types = [move["type"] for move in log["moves"]]
        assert types[:8].count("commit") == 4 and types[:8].count("reveal") == 4
        checked = _verify(log)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.startswith("verified")
        tampered = json.loads(json.dumps(log))
        tampered["options"] = {**log["options"]}
        for move in tampered["moves"]:
            if move["type"] == "reveal" and move["seat"] == "seat:0":
                move["payload"]["value"] = bytes(32).hex()
        assert _verify(tampered).returncode == 1
    finally:
        await alice.close()


async def test_a_seat_that_withholds_contributes_zeros_at_the_deadline(stack):
    alice = await Player(stack, "alice").login()
    try:
        game = await _against_bots(alice)
        socket = await alice.socket(game["id"])
        value = bytes(range(32))
        await socket.send(json.dumps({"action": "commit", "hash": hashlib.sha256(value).hexdigest()}))
        await _until(socket, lambda g: g.get("entropy", {}).get("phase") == "reveal")
        # alice keeps her value: the reveal phase goes on without her at its deadline.
        playing = await _until(socket, lambda g: g["status"] == "playing")
        assert playing["hand_number"] == 1
        await play_until_over(socket, False)
        log = (await alice.http.get(f"/api/games/{game['id']}/log")).json()
        reveals = [m["seat"] for m in log["moves"] if m["type"] == "reveal"]
        assert "seat:0" not in reveals and len(reveals) == 3
        assert any(m["type"] == "entropy_deadline" and m["seat"] is None for m in log["moves"])
        assert _verify(log).returncode == 0
        # History marks the seat that withheld its value (once stats recorded the match).
        match = await _recorded(alice, game["id"])
        assert match["result"]["withheld"] == [0]
    finally:
        await alice.close()


async def test_a_compacted_match_log_reads_byte_for_byte_and_still_verifies(stack):
    alice = await Player(stack, "alice").login()
    store = await PostgresLogStore.open(stack.env["DATABASE_URL"], max_size=2)
    try:
        game = await _against_bots(alice)
        socket = await alice.socket(game["id"])
        value = bytes(range(7, 39))
        await socket.send(json.dumps({"action": "commit", "hash": hashlib.sha256(value).hexdigest()}))
        await _until(socket, lambda g: g.get("entropy", {}).get("phase") == "reveal")
        await socket.send(json.dumps({"action": "reveal", "value": value.hex()}))
        assert (await play_until_over(socket, False))["type"] == "game_over"
        before = await alice.http.get(f"/api/games/{game['id']}/log")
        assert before.status_code == 200 and _verify(before.json()).returncode == 0
        # Finished moments ago, the match is kept whole a day; two days on, it is compacted.
        assert await LogRetention(store, 1).run_once() == 0
        later = LogRetention(store, 1, clock=lambda: now_ms() + 2 * DAY_MS)

        assert await later.run_once() >= 1  # the module's other matches too

        assert await store._pool.fetchval("SELECT count(*) FROM game_move WHERE table_id = $1",
                                          game["id"]) == 0
        after = await alice.http.get(f"/api/games/{game['id']}/log")
        assert after.status_code == 200 and after.content == before.content
        checked = _verify(after.json())
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        await store.close()
        await alice.close()
