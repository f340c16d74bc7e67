"""Every scopone error code, with its message; an error never changes the state."""

import copy

import pytest

from game.engine import GameError
from game.fairness import DECK
from tests.game.scopone_helpers import ENGINE, SEED, T0, ack, crafted, play


def refused(state, seat, action):
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as caught:
        ENGINE.decide(state, seat, action, T0)
    assert state == before
    return caught.value.code, caught.value.message


def fresh():
    return ENGINE.new_state({}, SEED, T0)


def hand_end():
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                    options={"target_score": 99})
    return play(state, 0, "10B")


def finished():
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                    options={"target_score": 1})
    return play(state, 0, "10B")


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("play", "An action must be a JSON object"),
        ({}, "Missing 'action'"),
        ({"action": None}, "Missing 'action'"),
        ({"action": 3}, "'action' must be a string"),
        ({"action": "play"}, "A play needs a 'card', such as \"07D\""),
        ({"action": "play", "card": 7}, "Not a card: 7 (cards are written like \"07D\")"),
        ({"action": "play", "card": "7D"}, "Not a card: '7D' (cards are written like \"07D\")"),
        ({"action": "play", "card": "07D", "capture": "03S"}, "'capture' must be a list of cards, such as [\"03S\", \"04C\"]"),
        ({"action": "play", "card": "07D", "capture": [3]}, "Not a card in 'capture': 3 (cards are written like \"07D\")"),
        ({"action": "play", "card": "07D", "capture": ["11S"]}, "Not a card in 'capture': '11S' (cards are written like \"07D\")"),
    ],
)
def test_bad_request(action, message):
    assert refused(fresh(), 0, action) == ("bad_request", message)


def test_bad_request_for_a_seat_that_does_not_exist():
    assert refused(fresh(), 4, {"action": "ack"}) == ("bad_request", "Unknown seat 4")


def test_unknown_action():
    assert refused(fresh(), 0, {"action": "pass"}) == ("unknown_action", "Unknown action 'pass': expected 'play' or 'ack'")


def test_not_your_turn():
    state = fresh()
    assert refused(state, 1, {"action": "play", "card": state["hands"][1][0]}) == ("not_your_turn", "Not your turn")


def test_illegal_move_for_a_card_not_held():
    state = fresh()
    card = state["hands"][1][0]
    assert refused(state, 0, {"action": "play", "card": card}) == ("illegal_move", f"You do not hold {card}")


def test_illegal_move_for_a_missing_capture():
    state = crafted([["07D", "01C"]], table=["03S", "04B"])
    assert refused(state, 0, {"action": "play", "card": "07D"}) == ("illegal_move", "A capture is required: 07D takes 03S+04B")


def test_illegal_move_for_a_capture_that_is_not_legal():
    state = crafted([["07D", "01C"]], table=["03S", "05C"])
    assert refused(state, 0, {"action": "play", "card": "07D", "capture": ["03S", "05C"]}) == (
        "illegal_move", "07D cannot take 03S+05C: their ranks add up to 8, not 7"
    )


def test_illegal_move_for_a_capture_given_when_none_exists():
    state = crafted([["07D", "01C"]], table=["09S"])
    assert refused(state, 0, {"action": "play", "card": "07D", "capture": ["09S"]}) == (
        "illegal_move", "07D cannot take 09S: 09S has rank 9, not 7"
    )


def test_illegal_move_for_a_play_in_the_hand_end_phase():
    assert refused(hand_end(), 1, {"action": "play", "card": "01D"}) == (
        "illegal_move", "The hand is over: acknowledge it to continue"
    )


def test_illegal_move_for_an_ack_while_the_hand_is_played():
    assert refused(fresh(), 0, {"action": "ack"}) == (
        "illegal_move", "There is no hand to acknowledge: the hand is still being played"
    )


def test_a_second_ack_by_the_same_seat_is_refused_clearly():
    state = ack(hand_end(), 2)
    assert refused(state, 2, {"action": "ack"}) == ("illegal_move", "You already acknowledged hand 1")


def test_game_finished_for_a_play():
    assert refused(finished(), 1, {"action": "play", "card": "01D"}) == ("game_finished", "The game is finished")


def test_game_finished_for_an_ack():
    assert refused(finished(), 1, {"action": "ack"}) == ("game_finished", "The game is finished")


def test_game_finished_for_a_logged_move():
    from game.engine import Move

    with pytest.raises(GameError) as caught:
        ENGINE.apply(finished(), Move("ack", 0, {}), T0)
    assert caught.value.code == "game_finished"


def test_extra_fields_of_an_action_are_ignored():
    state = crafted([["07D", "01C"]])
    move = ENGINE.decide(state, 0, {"action": "play", "card": "07D", "revision": 3, "x": 1}, T0)
    assert move.payload == {"card": "07D", "capture": []}
