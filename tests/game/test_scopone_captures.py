"""Scopone capture rules, one behaviour per test."""

import pytest

from game.engine import GameError
from game.scopone import rules
from tests.game.scopone_helpers import ENGINE, crafted, play


def illegal(state, seat, card, capture=None):
    with pytest.raises(GameError) as caught:
        play(state, seat, card, capture)
    assert caught.value.code == "illegal_move"
    return caught.value.message


def test_a_card_with_nothing_to_take_is_laid_on_the_table():
    state = play(crafted([["07D", "01C"]], table=["09S"]), 0, "07D")
    assert state["table"] == ["07D", "09S"] and state["captured"][0] == []


def test_an_equal_rank_card_is_taken():
    state = play(crafted([["07D", "01C"]], table=["07C", "02S"]), 0, "07D", ["07C"])
    assert state["table"] == ["02S"] and sorted(state["captured"][0]) == ["07C", "07D"]


def test_equal_rank_capture_is_mandatory():
    message = illegal(crafted([["07D", "01C"]], table=["07C", "02S"]), 0, "07D")
    assert message == "A capture is required: 07D takes 07C"


def test_with_an_equal_rank_card_on_the_table_no_sum_may_be_taken():
    message = illegal(crafted([["07D", "01C"]], table=["07C", "03S", "04B"]), 0, "07D", ["03S", "04B"])
    assert message == "07D cannot take 03S+04B: a card of rank 7 is on the table, so it must take exactly one of 07C"


def test_with_several_equal_rank_cards_the_player_picks_one():
    table = ["07C", "07S", "05B"]
    assert play(crafted([["07D", "01C"]], table=table), 0, "07D", ["07C"])["table"] == ["05B", "07S"]
    assert play(crafted([["07D", "01C"]], table=table), 0, "07D", ["07S"])["table"] == ["05B", "07C"]


def test_with_several_equal_rank_cards_only_one_may_be_taken():
    message = illegal(crafted([["07D", "01C"]], table=["07C", "07S"]), 0, "07D", ["07C", "07S"])
    assert message.startswith("07D cannot take 07C+07S:")


def test_the_required_message_names_every_equal_rank_choice():
    message = illegal(crafted([["07D", "01C"]], table=["07C", "07S"]), 0, "07D")
    assert message == "A capture is required: 07D takes 07C or 07S"


def test_a_combination_summing_to_the_rank_is_taken():
    state = play(crafted([["07D", "01C"]], table=["03S", "04B", "09C"]), 0, "07D", ["03S", "04B"])
    assert state["table"] == ["09C"] and sorted(state["captured"][0]) == ["03S", "04B", "07D"]


def test_a_combination_capture_is_mandatory_when_one_exists():
    message = illegal(crafted([["07D", "01C"]], table=["03S", "04B", "09C"]), 0, "07D")
    assert message == "A capture is required: 07D takes 03S+04B"


def test_with_several_combinations_the_player_picks_one():
    table = ["01S", "02B", "04C", "05C", "06B"]
    assert play(crafted([["07D", "01C"]], table=table), 0, "07D", ["02B", "05C"])["table"] == ["01S", "04C", "06B"]
    assert play(crafted([["07D", "01C"]], table=table), 0, "07D", ["01S", "06B"])["table"] == ["02B", "04C", "05C"]
    message = illegal(crafted([["07D", "01C"]], table=table), 0, "07D")
    assert message == "A capture is required: 07D takes 01S+02B+04C, 01S+06B or 02B+05C"


def test_a_combination_of_three_or_more_cards_may_be_taken():
    state = play(crafted([["10D", "01C"]], table=["02S", "03B", "05C"]), 0, "10D", ["02S", "03B", "05C"])
    assert state["table"] == [] and len(state["captured"][0]) == 4


def test_a_combination_with_the_wrong_sum_is_refused():
    message = illegal(crafted([["07D", "01C"]], table=["03S", "05C", "04B"]), 0, "07D", ["03S", "05C"])
    assert message == "07D cannot take 03S+05C: their ranks add up to 8, not 7"


def test_a_single_card_of_another_rank_is_refused():
    message = illegal(crafted([["07D", "01C"]], table=["03S"]), 0, "07D", ["03S"])
    assert message == "07D cannot take 03S: 03S has rank 3, not 7"


def test_a_capture_listing_a_card_twice_is_refused():
    message = illegal(crafted([["07D", "01C"]], table=["07C"]), 0, "07D", ["07C", "07C"])
    assert message == "07C is listed twice in the capture"


def test_a_capture_of_a_card_not_on_the_table_is_refused():
    message = illegal(crafted([["07D", "01C"]], table=["03S", "04B"]), 0, "07D", ["03S", "04C"])
    assert message == "04C is not on the table"


def test_a_capture_on_an_empty_table_is_refused():
    assert illegal(crafted([["07D", "01C"]]), 0, "07D", ["07C"]) == "07C is not on the table"


def test_a_card_not_in_the_hand_is_refused():
    assert illegal(crafted([["07D", "01C"]], table=["07C"]), 0, "07S", ["07C"]) == "You do not hold 07S"


def test_an_empty_capture_list_means_no_capture():
    state = crafted([["07D", "01C"]], table=["09S"])
    assert play(state, 0, "07D", [])["table"] == play(state, 0, "07D")["table"] == ["07D", "09S"]


def test_a_null_capture_means_no_capture():
    move = ENGINE.decide(crafted([["07D", "01C"]]), 0, {"action": "play", "card": "07D", "capture": None}, 0)
    assert move.payload == {"card": "07D", "capture": []}


def test_the_move_payload_lists_the_capture_sorted():
    state = crafted([["07D", "01C"]], table=["03S", "04B"])
    move = ENGINE.decide(state, 0, {"action": "play", "card": "07D", "capture": ["04B", "03S"]}, 0)
    assert (move.type, move.seat, move.payload, move.auto, move.random) == (
        "play", 0, {"card": "07D", "capture": ["03S", "04B"]}, False, False
    )


def test_a_capture_that_clears_the_table_is_a_scopa():
    state = play(crafted([["07D", "01C"], ["02C"]], table=["07C"]), 0, "07D", ["07C"])
    assert state["scope"] == [1, 0, 0, 0] and state["last_play"]["scopa"] is True


def test_a_combination_that_clears_the_table_is_a_scopa():
    state = play(crafted([["07D", "01C"], ["02C"]], table=["03S", "04B"]), 0, "07D", ["03S", "04B"])
    assert state["scope"][0] == 1


def test_a_capture_that_leaves_cards_is_not_a_scopa():
    state = play(crafted([["07D", "01C"], ["02C"]], table=["07C", "02S"]), 0, "07D", ["07C"])
    assert state["scope"] == [0, 0, 0, 0] and state["last_play"]["scopa"] is False


def test_clearing_the_table_on_the_last_play_of_a_hand_is_not_a_scopa():
    state = play(crafted([["07D"]], table=["07C"]), 0, "07D", ["07C"])
    assert state["audit"][-1]["teams"]["A"]["scope"] == 0 and state["last_play"]["scopa"] is False


def test_the_leftover_table_goes_to_the_last_capturer():
    # Seat 1 captured last; seat 0 then lays the final card: the table (with it) goes to seat 1.
    state = crafted([["09D"]], table=["05S"], captured=[[], ["02C", "02S"], [], []], last_capturer=1)
    state = play(state, 0, "09D")
    assert sorted(state["captured"][1]) == ["02C", "02S", "05S", "09D"] and state["table"] == []


def test_the_final_capture_takes_the_leftovers_too():
    state = play(crafted([["05D"]], table=["05S", "08C"]), 0, "05D", ["05S"])
    assert sorted(state["captured"][0]) == ["05D", "05S", "08C"]


def test_captured_cards_go_to_the_capturing_seat():
    state = play(crafted([["01C"], ["07D", "02C"]], table=["07C"], turn=1), 1, "07D", ["07C"])
    assert sorted(state["captured"][1]) == ["07C", "07D"] and state["last_capturer"] == 1


def test_the_table_stays_sorted():
    state = crafted([["01C"], ["09S"], ["04B"], ["02D", "03D"]], table=[])
    for seat, card in [(0, "01C"), (1, "09S"), (2, "04B")]:
        state = play(state, seat, card)
    assert state["table"] == ["01C", "04B", "09S"]


def test_legal_plays_are_sorted_by_card_then_capture():
    plays = rules.legal_plays(["07D", "02S", "09C"], ["02B", "03S", "04C", "05B"], asso=False)
    assert plays == [
        ("02S", ["02B"]),
        ("07D", ["02B", "05B"]),
        ("07D", ["03S", "04C"]),
        ("09C", ["02B", "03S", "04C"]),
        ("09C", ["04C", "05B"]),
    ]


def test_a_card_with_no_capture_has_one_legal_play_laying_it_down():
    assert rules.legal_plays(["09D"], ["02B", "03S"], asso=False) == [("09D", [])]
