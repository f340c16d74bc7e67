"""The engine contract itself: Move, Deadline, GameError, OptionsError, the registry and both schemas."""

import dataclasses
import json

import jsonschema
import pytest

from game.dummy import DummyEngine
from game.engine import (
    ERROR_CODES,
    Deadline,
    GameError,
    MatchResult,
    Move,
    OptionsError,
    SeatResult,
    seat_results,
)
from game.registry import Registry, UnknownGameType, default_registry
from game.scopone import ScoponeEngine


def test_move_round_trips_through_json():
    move = Move("auto_play", 2, {"card": "07D", "capture": ["03S", "04C"]}, auto=True, random=True)
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


def test_move_to_json_has_every_field():
    assert Move("continue", None, {}).to_json() == {
        "type": "continue", "seat": None, "payload": {}, "auto": False, "random": False
    }


def test_move_from_json_defaults_auto_and_random_to_false():
    assert Move.from_json({"type": "ack", "seat": 1, "payload": {}}) == Move("ack", 1, {})


@pytest.mark.parametrize(
    "bad",
    [[], {"seat": 0}, {"type": 1, "seat": 0}, {"type": "ack", "seat": "0"}, {"type": "ack", "seat": True},
     {"type": "ack", "seat": 0, "payload": []}, {"type": "ack", "seat": 0, "auto": "yes"}],
)
def test_move_from_json_rejects_malformed_entries(bad):
    with pytest.raises(ValueError):
        Move.from_json(bad)


def test_move_and_deadline_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Move("ack", 0, {}).seat = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        Deadline("turn", 1, "t").token = "u"


def test_a_match_result_publishes_its_summary_then_every_seat_with_its_details():
    result = MatchResult(seat_results({"A": 11, "B": 4}, "A", 2), {"winner": "A", "scores": {"A": 11, "B": 4}})
    assert result.seats == (SeatResult(0, "A", True, 11), SeatResult(1, "B", False, 4))
    assert result.to_json() == {"winner": "A", "scores": {"A": 11, "B": 4}, "seats": [
        {"seat": 0, "team": "A", "won": True, "points": 11}, {"seat": 1, "team": "B", "won": False, "points": 4}]}
    detailed = MatchResult([SeatResult(0, "A", True, 1, {"bonus": "è"})], {})
    assert detailed.to_json_text() == '{"seats":[{"seat":0,"team":"A","won":true,"points":1,"bonus":"è"}]}'


@pytest.mark.parametrize("seats, summary", [
    ((), {}),                                                              # no seat at all
    ((SeatResult(1, "B", False, 0),), {}),                                 # not from seat 0
    ((SeatResult(0, "A", True, 1), SeatResult(0, "A", True, 1)), {}),      # a seat twice
    ((SeatResult(0, "A", True, 1),), {"seats": []}),                       # the summary hides the seats
    ((SeatResult(0, "A", True, 1, {"won": False}),), {}),                  # details hide a seat field
])
def test_a_match_result_is_built_whole_or_not_at_all(seats, summary):
    with pytest.raises(ValueError):
        MatchResult(seats, summary)


def test_game_error_carries_code_and_message():
    error = GameError("not_your_turn", "Not your turn")
    assert (error.code, error.message, str(error)) == ("not_your_turn", "Not your turn", "Not your turn")


def test_engine_error_codes_are_the_contract_set():
    assert {"illegal_move", "not_your_turn", "bad_request", "unknown_action", "game_finished"} == ERROR_CODES


def test_options_error_is_a_value_error_with_a_message():
    error = OptionsError("target_score: must be an integer >= 1")
    assert isinstance(error, ValueError) and error.message == str(error)


def test_default_registry_offers_scopone_and_the_dummy_only_when_asked():
    assert [e.id for e in default_registry().list()] == ["scopone_scientifico"]
    assert [e.id for e in default_registry(dummy=True).list()] == ["scopone_scientifico", "dummy"]


def test_registry_unknown_game_type_is_a_key_error_with_the_contract_text():
    with pytest.raises(KeyError) as caught:
        default_registry().get("chess")
    assert isinstance(caught.value, UnknownGameType)
    assert caught.value.game_id == "chess"
    assert str(caught.value) == "Unknown game type: chess"


def test_registry_refuses_two_engines_with_one_id():
    registry = Registry()
    registry.register(DummyEngine())
    with pytest.raises(ValueError):
        registry.register(DummyEngine())


def test_registry_contains_by_id():
    registry = default_registry(dummy=True)
    assert "dummy" in registry and "chess" not in registry and ["x"] not in registry


def test_default_registry_passes_the_timeouts_to_the_engines():
    registry = default_registry(turn_timeout_ms=5000, hand_ack_timeout_ms=7000, dummy=True)
    scopone, dummy = registry.get("scopone_scientifico"), registry.get("dummy")
    assert (scopone.paces.live.turn_ms, scopone.paces.live.hand_ack_ms, dummy.turn_timeout_ms) == (5000, 7000, 5000)


def test_scopone_identity():
    engine = ScoponeEngine()
    assert (engine.id, engine.name, engine.seats, engine.supports_take_back) == (
        "scopone_scientifico", "Scopone scientifico", 4, True
    )
    assert engine.version and engine.description


def test_dummy_identity():
    engine = DummyEngine()
    assert (engine.id, engine.seats, engine.supports_take_back) == ("dummy", 4, True)
    assert engine.version and engine.description and engine.name


@pytest.mark.parametrize("engine", [ScoponeEngine(), DummyEngine()], ids=["scopone", "dummy"])
def test_options_schema_is_draft_2020_12_closed_with_defaults(engine):
    schema = engine.options_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["additionalProperties"] is False
    assert all("default" in spec for spec in schema["properties"].values())
    json.dumps(schema)


def test_catalogue_entry_is_the_contract_game_type_item():
    entry = ScoponeEngine().catalogue_entry()
    assert entry["id"] == "scopone_scientifico" and entry["players"] == 4
    assert set(entry) == {"id", "name", "description", "players", "options_schema"}
