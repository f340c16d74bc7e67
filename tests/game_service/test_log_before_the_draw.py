"""A log written before the first dealer was drawn still replays (CONTRACT.md "Turns and deadlines").

tests/fixtures/log_before_the_draw.json is a finished match to 5 played through the game service at
commit d70e6b1, when seat 0 led hand 1 (its options lack ``first_dealer``), with the contract's seed;
that service scored it A 6, B 4 in two hands. The log store here holds it as that service wrote it.
"""

from __future__ import annotations

import json
from pathlib import Path

from game import fairness
from game.cache import MemoryTableCache
from game.engine import compact_json
from game.log_store import LoggedMove, Position, TableRecord
from game.memory_log_store import MemoryLogStore
from game.registry import default_registry
from game.scopone import ScoponeEngine
from game.server import build_tables

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "log_before_the_draw.json"
T0 = 1_796_205_600_000


async def test_the_service_replays_a_log_from_before_the_draw_to_its_scores():
    log = json.loads(FIXTURE.read_text())
    assert "first_dealer" not in log["options"]
    store = MemoryLogStore()
    seed = bytes.fromhex(log["seed"])
    record = TableRecord(
        table_id=log["id"], game_type=log["game_type"], engine_version=ScoponeEngine.version, seed=seed,
        seed_commitment=fairness.commitment(seed), seats=tuple(log["seats"]),
        options_json=compact_json(log["options"]), status="playing", created_ms=T0)
    await store.create(record)
    for index, move in enumerate(log["moves"]):
        seat = None if move["seat"] is None else int(move["seat"].removeprefix("seat:"))
        finished = index == len(log["moves"]) - 1
        await store.append(record.table_id, Position(index, index, record.seed_commitment), LoggedMove(
            move["number"], move["type"], seat, compact_json(move["payload"]), move["auto"], move["auto"],
            T0 + move["number"] * 1000), "finished" if finished else "playing",
            T0 + move["number"] * 1000 if finished else None)
    tables = build_tables(default_registry(), store, MemoryTableCache())
    try:
        view = json.loads((await tables.get_view(record.table_id, "seat:0")).view_json)
    finally:
        await tables.close(timeout=0.5)
    assert (view["status"], view["hand_number"], view["scores"], view["winner"]) == (
        "finished", 2, {"A": 6, "B": 4}, "A")
    # The old rule: seat 0 led hand 1 (as if seat 3 dealt), seat 1 led hand 2, dealt by seat 0.
    assert view["dealer"] == 0
    assert view["options"] == log["options"]
