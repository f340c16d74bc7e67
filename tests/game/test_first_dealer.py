"""Who deals first (CONTRACT.md "Turns and deadlines" and the test vectors of "Fairness"): drawn
from the seed's stream ``dealer`` (from K under player entropy) when hand 1 is dealt; the seat after
the dealer leads, and the deal passes to the next seat each hand. A game created before the draw
(its options lack ``first_dealer``) replays by the old rule: seat 0 leads hand 1."""

from __future__ import annotations

import hashlib

import pytest

from game import fairness
from game.engine import OptionsError
from game.scopone import state as table
from game.status import TableStatus
from tests.game.scopone_helpers import ENGINE, SEED, T0, TURN_MS, ack, random_match, replay

NEW = ENGINE.normalize_options({})  # a new game's options, as the game service stores them
BEFORE_THE_DRAW = {k: v for k, v in NEW.items() if k != "first_dealer"}
LONG = ENGINE.normalize_options({"target_score": 121, "napola": False})  # no match ends in one hand
# CONTRACT.md's player-entropy vector: r_0..r_2 revealed, seat 3 withheld.
VALUES = [bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32]
VECTOR_K = bytes.fromhex("2edb59735f8407f01c6aaec14f0b3318ada33b977ee4f42be863ac9951eb2495")


def test_the_contract_vector_seat_1_deals_and_seat_2_leads_hand_1():
    assert next(fairness.stream(SEED, "dealer")) == 1063104329
    state = ENGINE.new_state(NEW, SEED, T0)
    assert (state["hand_number"], state["dealer"], state["turn"]) == (1, 1, 2)
    view = ENGINE.view(state, 2)
    assert (view["dealer"], view["turn"], view["your_turn"]) == (1, 2, True)


def test_the_entropy_vector_seat_0_deals_with_k_and_seat_1_leads():
    assert next(fairness.stream(VECTOR_K, "dealer")) == 1830513860
    state = ENGINE.new_state({**NEW, "player_entropy": True}, SEED, T0)
    assert ENGINE.view(state, 0)["dealer"] is None  # not drawn before the deal
    for seat, value in enumerate(VALUES):
        state = _act(state, seat, {"action": "commit", "hash": hashlib.sha256(value).hexdigest()})
    state = _fire(state, T0 + 10_000)  # seat 3 never commits
    for seat, value in enumerate(VALUES):
        state = _act(state, seat, {"action": "reveal", "value": value.hex()})
    assert state["key"] == VECTOR_K.hex()
    assert (state["status"], state["dealer"], state["turn"]) == (TableStatus.PLAYING, 0, 1)
    assert ENGINE.view(state, 3)["dealer"] == 0


def test_each_following_hand_is_dealt_by_the_next_seat_and_led_by_the_one_after():
    state = _play_out_the_hand(ENGINE.new_state(LONG, SEED, T0))
    assert state["status"] == TableStatus.HAND_END
    assert ENGINE.view(state, 0)["dealer"] == 1  # the hand just scored
    for seat in range(4):
        state = ack(state, seat)
    assert (state["hand_number"], state["dealer"], state["turn"]) == (2, 2, 3)
    assert ENGINE.view(state, 0)["dealer"] == 2


def test_options_before_the_draw_keep_the_old_rule():
    state = ENGINE.new_state({**BEFORE_THE_DRAW, "target_score": 121}, SEED, T0)
    assert "first_dealer" not in state["options"]
    assert (state["dealer"], state["turn"]) == (3, 0)  # seat 0 leads hand 1, as if seat 3 dealt
    state = _play_out_the_hand(state)
    for seat in range(4):
        state = ack(state, seat)
    assert (state["hand_number"], state["dealer"], state["turn"]) == (2, 0, 1)


def test_a_whole_match_of_the_new_rule_replays_from_its_log():
    final, log = random_match(SEED, NEW, 5)
    assert log[0][0].seat == 2  # the contract vector's leader plays the match's first card
    assert replay(log, SEED, NEW) == final
    assert final["status"] == TableStatus.FINISHED


def test_a_new_game_carries_first_dealer_drawn():
    assert NEW["first_dealer"] == "drawn"
    assert ENGINE.normalize_options({"first_dealer": "drawn", "target_score": 5})["first_dealer"] == "drawn"
    schema = ENGINE.options_schema["properties"]["first_dealer"]
    assert (schema["const"], schema["default"], schema["readOnly"]) == ("drawn", "drawn", True)


@pytest.mark.parametrize("value", ["seat0", "fixed", "", None, 0, True])
def test_a_creation_that_sets_first_dealer_otherwise_is_refused(value):
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({"first_dealer": value})
    assert caught.value.message == 'first_dealer: must be "drawn"'


def test_a_cached_state_from_before_the_draw_deals_on_by_the_old_rule():
    state = ENGINE.new_state({**BEFORE_THE_DRAW, "target_score": 121}, SEED, T0)
    del state["dealer"]  # a snapshot written before the state kept its dealer
    assert ENGINE.view(state, 0)["dealer"] == 3
    state = _play_out_the_hand(state)
    for seat in range(4):
        state = ack(state, seat)
    assert (state["dealer"], state["turn"]) == (0, 1)


def _act(state, seat, action, now=T0 + 1000):
    return ENGINE.apply(state, ENGINE.decide(state, seat, action, now), now)


def _fire(state, now):
    (deadline,) = ENGINE.deadlines(state)
    return ENGINE.apply(state, ENGINE.fire(state, deadline.token, now), now)


def _play_out_the_hand(state):
    """The first legal play of every turn until the hand is scored; turns go round from the leader."""
    leader = state["turn"]
    for number in range(table.CARDS_PER_HAND):
        assert state["turn"] == (leader + number) % 4
        card, capture = ENGINE.legal_plays(state)[0]
        state = _act(state, state["turn"], {"action": "play", "card": card, "capture": capture},
                     T0 + (number + 1) * TURN_MS // 10)
    return state
