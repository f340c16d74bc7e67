"""Scopone options: defaults, and errors that name the option."""

import pytest

from game.engine import OptionsError
from game.scopone import ScoponeEngine

ENGINE = ScoponeEngine()
DEFAULTS = {"target_score": 11, "napola": True, "asso_pigliatutto": False, "player_entropy": False,
            "first_dealer": "drawn", "pace": "live"}


def test_defaults_when_options_are_missing():
    assert ENGINE.normalize_options(None) == DEFAULTS
    assert ENGINE.normalize_options({}) == DEFAULTS


def test_given_options_are_kept_and_the_rest_defaulted():
    assert ENGINE.normalize_options({"target_score": 21, "asso_pigliatutto": True}) == {
        "target_score": 21, "napola": True, "asso_pigliatutto": True, "player_entropy": False,
        "first_dealer": "drawn", "pace": "live"}


@pytest.mark.parametrize("value", [1, 121])
def test_target_score_bounds_are_accepted(value):
    assert ENGINE.normalize_options({"target_score": value})["target_score"] == value


def test_integral_float_target_is_stored_as_an_int():
    value = ENGINE.normalize_options({"target_score": 11.0})["target_score"]
    assert value == 11 and type(value) is int


@pytest.mark.parametrize("value", [0, -3, 122, 10**12, "11", 1.5, True, None, [11]])
def test_target_score_must_be_an_integer_from_1_to_121(value):
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({"target_score": value})
    assert caught.value.message == "target_score: must be an integer from 1 to 121"


@pytest.mark.parametrize("name", ["napola", "asso_pigliatutto"])
def test_flags_must_be_booleans(name):
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({name: "yes"})
    assert caught.value.message == f"{name}: must be true or false"


def test_unknown_option_is_named():
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({"target_score": 11, "foo": 1})
    assert caught.value.message == "unknown option 'foo'"


def test_options_must_be_an_object():
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options([1])
    assert caught.value.message == "options: must be an object"


def test_new_state_normalizes_the_options():
    state = ENGINE.new_state({"target_score": 5}, b"s" * 32, 0)
    assert state["options"] == {"target_score": 5, "napola": True, "asso_pigliatutto": False,
                                "player_entropy": False}


def test_new_state_refuses_bad_options():
    with pytest.raises(OptionsError):
        ENGINE.new_state({"napola": 1}, b"s" * 32, 0)


def test_new_state_refuses_a_seed_that_is_not_bytes():
    with pytest.raises(ValueError):
        ENGINE.new_state({}, "00" * 32, 0)


@pytest.mark.parametrize("pace", ["live", "daily"])
def test_pace_is_kept(pace):
    assert ENGINE.normalize_options({"pace": pace})["pace"] == pace


@pytest.mark.parametrize("value", ["weekly", "Daily", "", 1, None, True])
def test_an_unknown_pace_is_named_with_its_values(value):
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({"pace": value})
    assert caught.value.message == 'pace: must be "live" or "daily"'
