"""game.engine.compact_json: orjson's bytes are the standard library's for what engines hold."""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime

import pytest

from bench.engine_bench import random_match
from game.dummy import DummyEngine
from game.engine import compact_json
from game.scopone import ScoponeEngine

T0 = 1_796_205_600_000


def _before(value: object) -> str:
    """compact_json as it was: the standard library alone."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def test_whole_matches_views_states_and_results_are_the_same_bytes_as_before():
    engine = ScoponeEngine()
    rng = random.Random(45)
    checked = 0
    for match in range(5):
        states = random_match(engine, rng.randbytes(32), random.Random(match))
        for revision, state in enumerate(states):
            for seat in (0, 1, 2, 3, None):
                view = {**engine.view(state, seat), "id": str(uuid.UUID(int=match)),
                        "game_type": "scopone_scientifico", "seed_commitment": "9b" * 32,
                        "revision": revision}
                assert compact_json(view) == _before(view)
                checked += 1
            assert compact_json(state) == _before(state)
        result = engine.result(states[-1])
        assert result is not None and result.to_json_text() == _before(result.to_json())
    assert checked > 1000


@pytest.mark.parametrize("value", [
    {"card": "07D", "capture": ["02D", "05C"]}, {}, [], None, True, 0, -(2**63), 2**64 - 1, "",
    {"text": "é€😀 \u2028\u2029 \x00\x1f\x7f \"quoted\" back\\slash /"},
    {"note": "x" * 16_000, "n": 1},
])
def test_engine_data_is_the_same_bytes_as_before(value):
    assert compact_json(value) == _before(value)


@pytest.mark.parametrize("value", [
    {"big": 2**64}, {"small": -(2**63) - 1}, {1: "an integer key"}, {None: 1, True: 2},
])
def test_what_orjson_cannot_write_is_written_by_the_standard_library(value):
    assert compact_json(value) == _before(value)


@pytest.mark.parametrize("value", [object(), {"when": datetime(2026, 12, 7, tzinfo=UTC)}, {1, 2}])
def test_what_is_not_json_is_refused_as_before(value):
    with pytest.raises(TypeError):
        compact_json(value)


def test_the_dummy_engines_moves_are_the_same_bytes_as_before():
    dummy = DummyEngine()
    state = dummy.new_state({"target": 10**6}, b"\x00" * 32, T0)
    move = dummy.decide(state, 0, {"action": "add", "n": 1, "note": "é" * 100}, T0)
    assert compact_json(move.payload) == _before(move.payload)
    assert compact_json(dummy.view(dummy.apply(state, move, T0), 0)) == _before(
        dummy.view(dummy.apply(state, move, T0), 0))
