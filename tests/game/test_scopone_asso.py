"""Asso pigliatutto (off by default): an ace facing no ace sweeps the table, or takes itself."""

import pytest

from game.engine import GameError
from game.scopone import rules
from tests.game.scopone_helpers import ENGINE, crafted, play

ASSO = {"asso_pigliatutto": True}


def test_asso_pigliatutto_is_off_by_default():
    state = play(crafted([["01D", "02C"]], table=["03S", "05C"]), 0, "01D")
    assert state["table"] == ["01D", "03S", "05C"]


def test_an_ace_sweeps_the_table_when_no_ace_is_on_it():
    state = play(crafted([["01D", "02C"]], table=["03S", "05C", "10B"], options=ASSO), 0, "01D")
    assert state["table"] == [] and sorted(state["captured"][0]) == ["01D", "03S", "05C", "10B"]


def test_the_sweep_may_list_the_whole_table():
    state = crafted([["01D", "02C"]], table=["03S", "05C"], options=ASSO)
    move = ENGINE.decide(state, 0, {"action": "play", "card": "01D", "capture": ["05C", "03S"]}, 0)
    assert move.payload == {"card": "01D", "capture": ["03S", "05C"]}


def test_an_omitted_sweep_capture_is_recorded_as_the_whole_table():
    state = crafted([["01D", "02C"]], table=["03S", "05C"], options=ASSO)
    move = ENGINE.decide(state, 0, {"action": "play", "card": "01D"}, 0)
    assert move.payload == {"card": "01D", "capture": ["03S", "05C"]}


def test_the_sweep_cannot_take_part_of_the_table():
    state = crafted([["01D", "02C"]], table=["03S", "05C"], options=ASSO)
    with pytest.raises(GameError) as caught:
        play(state, 0, "01D", ["03S"])
    assert caught.value.code == "illegal_move"
    assert caught.value.message == (
        "01D cannot take 03S: with asso pigliatutto the ace takes the whole table (03S+05C)"
    )


def test_an_ace_on_an_empty_table_takes_itself():
    state = play(crafted([["01D", "02C"]], options=ASSO), 0, "01D")
    assert state["table"] == [] and state["captured"][0] == ["01D"] and state["last_capturer"] == 0


def test_the_sweep_is_never_a_scopa():
    state = play(crafted([["01D", "02C"], ["03C"]], table=["03S", "05C"], options=ASSO), 0, "01D")
    assert state["scope"] == [0, 0, 0, 0] and state["last_play"]["scopa"] is False


def test_an_ace_taking_itself_is_never_a_scopa():
    state = play(crafted([["01D", "02C"], ["03C"]], options=ASSO), 0, "01D")
    assert state["scope"] == [0, 0, 0, 0]


def test_the_sweep_counts_as_the_last_capture():
    # Seat 0 sweeps, then three cards are laid: the leftovers go to seat 0.
    state = crafted([["01D"], ["04C"], ["06S"], ["09B"]], table=["03S"], options=ASSO, last_capturer=3)
    for seat, card in [(0, "01D"), (1, "04C"), (2, "06S"), (3, "09B")]:
        state = play(state, seat, card)
    assert sorted(state["captured"][0]) == ["01D", "03S", "04C", "06S", "09B"]


def test_with_an_ace_on_the_table_the_ace_takes_a_single_ace():
    state = play(crafted([["01D", "02C"]], table=["01S", "05C"], options=ASSO), 0, "01D", ["01S"])
    assert state["table"] == ["05C"] and sorted(state["captured"][0]) == ["01D", "01S"]


def test_with_an_ace_on_the_table_the_capture_of_an_ace_is_required():
    with pytest.raises(GameError) as caught:
        play(crafted([["01D", "02C"]], table=["01S", "05C"], options=ASSO), 0, "01D")
    assert caught.value.message == "A capture is required: 01D takes 01S"


def test_taking_the_last_ace_of_the_table_normally_is_a_scopa():
    state = play(crafted([["01D", "02C"], ["03C"]], table=["01S"], options=ASSO), 0, "01D", ["01S"])
    assert state["scope"][0] == 1


def test_a_sweep_is_the_only_legal_play_of_the_ace():
    assert rules.legal_plays(["01D"], ["05C", "03S"], asso=True) == [("01D", ["03S", "05C"])]
    assert rules.legal_plays(["01D"], [], asso=True) == [("01D", [])]


def test_the_auto_play_of_a_sweep_lists_the_whole_table():
    state = crafted([["01D"], ["02C"]], table=["05C", "03S"], options=ASSO)
    move = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, 0)
    assert move.payload == {"card": "01D", "capture": ["03S", "05C"]}
