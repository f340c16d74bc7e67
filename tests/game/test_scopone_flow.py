"""Scopone flow: hand and turn order, deadlines and auto-play, the hand_end phase, counting moves."""

import copy

import pytest

from game import fairness
from game.engine import GameError, Move
from game.fairness import DECK
from game.scopone import ScoponeEngine
from tests.game.scopone_helpers import ACK_MS, ENGINE, SEED, T0, TURN_MS, ack, crafted, play


def at_hand_end(hand_number=1, now=T0 + 5000):
    """Seat 0 lays the last card of the hand; ranks 1-5 went to A, 6-10 to B; the target is far."""
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=1,
                    options={"target_score": 99})
    state["hand_number"] = hand_number
    state["dealer"] = (hand_number + 2) % 4  # options without first_dealer: seat 0 led hand 1
    return play(state, 0, "10B", now=now)


def fire_due(state, now):
    [deadline] = ENGINE.deadlines(state)
    return ENGINE.apply(state, ENGINE.fire(state, deadline.token, now), now)


def test_hand_one_is_led_by_seat_zero():
    state = ENGINE.new_state({}, SEED, T0)
    assert (state["hand_number"], ENGINE.turn_seat(state), ENGINE.status(state)) == (1, 0, "playing")


def test_a_hand_starts_with_ten_cards_each_and_an_empty_table():
    state = ENGINE.new_state({}, SEED, T0)
    assert [len(h) for h in state["hands"]] == [10, 10, 10, 10] and state["table"] == []
    assert sorted(c for h in state["hands"] for c in h) == sorted(DECK)


def test_play_goes_from_seat_to_seat_0_1_2_3_0():
    state = ENGINE.new_state({}, SEED, T0)
    seen = []
    for _ in range(5):
        seen.append(ENGINE.turn_seat(state))
        state = fire_due(state, T0)
    assert seen == [0, 1, 2, 3, 0]


def test_the_fortieth_card_ends_the_hand():
    state = at_hand_end(now=T0 + 5000)
    assert ENGINE.status(state) == "hand_end" and ENGINE.turn_seat(state) is None
    assert state["acknowledged"] == [] and state["hand_end_deadline_ms"] == T0 + 5000 + ACK_MS


def test_the_next_hand_is_dealt_when_all_four_acknowledged():
    state = at_hand_end()
    for seat in (2, 0, 3):
        state = ack(state, seat)
        assert ENGINE.status(state) == "hand_end"
    assert state["acknowledged"] == [0, 2, 3]
    state = ack(state, 1, now=T0 + 9000)
    assert ENGINE.status(state) == "playing" and state["hand_number"] == 2
    assert state["hands"] == fairness.deal(SEED, 2) and state["table"] == []
    assert state["captured"] == [[], [], [], []] and state["scope"] == [0, 0, 0, 0]
    assert state["last_play"] is None and state["turn_deadline_ms"] == T0 + 9000 + TURN_MS


def test_only_the_fourth_acknowledgement_draws_from_the_seed():
    state = at_hand_end()
    flags = []
    for seat in range(4):
        move = ENGINE.decide(state, seat, {"action": "ack"}, T0)
        flags.append((move.type, move.seat, move.payload, move.auto, move.random))
        state = ENGINE.apply(state, move, T0)
    assert flags == [("ack", 0, {}, False, False), ("ack", 1, {}, False, False),
                     ("ack", 2, {}, False, False), ("ack", 3, {}, False, True)]


def test_each_following_hand_is_led_by_the_next_seat():
    for hand, leader in [(1, 1), (2, 2), (3, 3), (4, 0), (5, 1)]:
        state = at_hand_end(hand_number=hand)
        for seat in range(4):
            state = ack(state, seat)
        assert (state["hand_number"], ENGINE.turn_seat(state)) == (hand + 1, leader)


def test_the_hand_end_deadline_deals_the_next_hand_with_a_continue():
    state = at_hand_end()
    state = ack(state, 0)
    [deadline] = ENGINE.deadlines(state)
    assert deadline.kind == "hand_end" and deadline.due_ms == state["hand_end_deadline_ms"]
    move = ENGINE.fire(state, deadline.token, T0 + 60_000)
    assert move == Move("continue", None, {}, auto=True, random=True)
    state = ENGINE.apply(state, move, T0 + 60_000)
    assert ENGINE.status(state) == "playing" and state["hand_number"] == 2 and ENGINE.turn_seat(state) == 1


def test_the_hand_end_token_goes_stale_after_an_acknowledgement():
    state = at_hand_end()
    [before] = ENGINE.deadlines(state)
    state = ack(state, 0)
    assert ENGINE.fire(state, before.token, T0) is None


def test_the_turn_deadline_is_the_turn_timeout_after_the_turn_began():
    state = ENGINE.new_state({}, SEED, T0)
    assert ENGINE.deadlines(state)[0].due_ms == T0 + TURN_MS
    state = fire_due(state, T0 + 31_000)
    [deadline] = ENGINE.deadlines(state)
    assert (deadline.kind, deadline.due_ms) == ("turn", T0 + 31_000 + TURN_MS)


def test_the_turn_token_goes_stale_after_any_move():
    state = ENGINE.new_state({}, SEED, T0)
    [before] = ENGINE.deadlines(state)
    state = fire_due(state, T0)
    assert ENGINE.fire(state, before.token, T0) is None
    assert ENGINE.deadlines(state)[0].token != before.token


def test_fire_of_an_unknown_token_is_none():
    assert ENGINE.fire(ENGINE.new_state({}, SEED, T0), "nonsense", T0) is None


def test_a_timed_out_turn_gets_the_contract_random_legal_play():
    state = ENGINE.new_state({}, SEED, T0)
    for _ in range(6):
        state = fire_due(state, T0)
    plays = ENGINE.legal_plays(state)
    m = state["moves"] + 1
    card, capture = plays[fairness.choose(SEED, f"auto:{m}", len(plays))]
    move = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, T0)
    assert move == Move("auto_play", ENGINE.turn_seat(state), {"card": card, "capture": capture},
                        auto=True, random=True)


def test_an_auto_play_is_shown_with_auto_true():
    state = fire_due(ENGINE.new_state({}, SEED, T0), T0)
    assert state["last_play"]["auto"] is True and state["last_play"]["seat"] == 0


def test_a_player_play_is_shown_with_auto_false():
    state = ENGINE.new_state({}, SEED, T0)
    card, capture = ENGINE.legal_plays(state)[0]
    state = play(state, 0, card, capture)
    assert state["last_play"] == {"seat": 0, "card": card, "capture": capture, "scopa": False, "auto": False}


def test_every_move_is_counted_plays_acks_auto_plays_and_continues():
    state = at_hand_end()
    counted = state["moves"]
    state = ack(state, 0)
    state = fire_due(state, T0)  # continue
    state = fire_due(state, T0)  # auto-play
    card, capture = ENGINE.legal_plays(state)[0]
    state = play(state, ENGINE.turn_seat(state), card, capture)
    assert state["moves"] == counted + 4


def test_moves_are_numbered_from_one():
    state = ENGINE.new_state({}, SEED, T0)
    assert state["moves"] == 0
    assert fire_due(state, T0)["moves"] == 1


def test_the_table_keeps_the_timeouts_it_was_created_with():
    state = ScoponeEngine(turn_timeout_ms=5000, hand_ack_timeout_ms=6000).new_state({}, SEED, T0)
    later = ScoponeEngine(turn_timeout_ms=99_000, hand_ack_timeout_ms=99_000)
    state = later.apply(state, later.fire(state, later.deadlines(state)[0].token, T0), T0 + 10)
    assert later.deadlines(state)[0].due_ms == T0 + 10 + 5000


def test_a_finished_match_has_no_deadlines_and_fires_nothing():
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                    options={"target_score": 1})
    state = play(state, 0, "10B")
    assert ENGINE.status(state) == "finished" and ENGINE.deadlines(state) == []
    assert ENGINE.fire(state, "turn:1:0", T0) is None


def test_result_of_a_finished_match():
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                    options={"target_score": 1}, scores={"A": 3, "B": 0})
    state = play(state, 0, "10B")
    result = ENGINE.result(state).to_json()
    winner = result["winner"]
    assert set(result) == {"scores", "winner", "target_score", "hands", "audit", "seats"}
    assert result["scores"] == state["scores"] and result["target_score"] == 1 and result["hands"] == 1
    assert result["audit"] == state["audit"] and len(result["audit"]) == 1
    assert result["seats"] == [
        {"seat": s, "team": "AB"[s % 2], "won": "AB"[s % 2] == winner, "points": state["scores"]["AB"[s % 2]]}
        for s in range(4)
    ]


def test_result_is_none_until_the_match_is_finished():
    assert ENGINE.result(ENGINE.new_state({}, SEED, T0)) is None
    assert ENGINE.result(at_hand_end()) is None


def test_apply_never_mutates_its_input():
    state = ENGINE.new_state({}, SEED, T0)
    for _ in range(45):
        before = copy.deepcopy(state)
        if ENGINE.status(state) == "finished":
            break
        new = fire_due(state, T0)
        assert state == before and new is not state
        state = new


def test_decide_and_fire_never_mutate_the_state():
    state = at_hand_end()
    before = copy.deepcopy(state)
    ENGINE.decide(state, 1, {"action": "ack"}, T0)
    ENGINE.fire(state, ENGINE.deadlines(state)[0].token, T0)
    with pytest.raises(GameError):
        ENGINE.decide(state, 1, {"action": "play", "card": "01D"}, T0)
    assert state == before


def test_apply_refuses_an_auto_play_that_is_not_the_seeds_choice():
    state = ENGINE.new_state({}, SEED, T0)
    chosen = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, T0)
    picked = (chosen.payload["card"], chosen.payload["capture"])
    other = next(p for p in ENGINE.legal_plays(state) if p != picked)
    forged = Move("auto_play", 0, {"card": other[0], "capture": other[1]}, auto=True, random=True)
    with pytest.raises(GameError) as caught:
        ENGINE.apply(state, forged, T0)
    assert caught.value.code == "illegal_move" and "does not match the seed" in caught.value.message


def test_apply_refuses_a_logged_play_out_of_turn():
    state = ENGINE.new_state({}, SEED, T0)
    with pytest.raises(GameError) as caught:
        ENGINE.apply(state, Move("play", 1, {"card": state["hands"][1][0], "capture": []}), T0)
    assert caught.value.code == "not_your_turn"


def test_apply_refuses_a_logged_illegal_play():
    state = crafted([["07D", "01C"]], table=["07C"])
    with pytest.raises(GameError) as caught:
        ENGINE.apply(state, Move("play", 0, {"card": "07D", "capture": []}), T0)
    assert caught.value.message == "A capture is required: 07D takes 07C"


def test_apply_refuses_an_unknown_move_type():
    with pytest.raises(GameError) as caught:
        ENGINE.apply(ENGINE.new_state({}, SEED, T0), Move("roll", 0, {}), T0)
    assert (caught.value.code, caught.value.message) == ("unknown_action", "Unknown move type 'roll'")


def test_apply_refuses_a_continue_while_the_hand_is_played():
    with pytest.raises(GameError) as caught:
        ENGINE.apply(ENGINE.new_state({}, SEED, T0), Move("continue", None, {}, auto=True, random=True), T0)
    assert caught.value.code == "illegal_move"
