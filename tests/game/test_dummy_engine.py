"""The dummy engine: a tiny turn game the platform is tested with."""

import copy
import json

import pytest

from game import fairness
from game.dummy import DummyEngine
from game.engine import GameError, Move, OptionsError

ENGINE = DummyEngine(turn_timeout_ms=10_000)
SEED = bytes(range(32))
T0 = 1_796_205_600_000


def fresh(target=20):
    return ENGINE.new_state({"target": target}, SEED, T0)


def act(state, seat, action, now=T0 + 1):
    return ENGINE.apply(state, ENGINE.decide(state, seat, action, now), now)


def refused(state, seat, action):
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as caught:
        ENGINE.decide(state, seat, action, T0)
    assert state == before
    return caught.value.code, caught.value.message


def test_options_default_target_is_20():
    assert ENGINE.normalize_options(None) == {"target": 20}


@pytest.mark.parametrize("target", [0, 1_000_001])
def test_options_target_must_be_an_integer_from_1_to_a_million(target):
    with pytest.raises(OptionsError) as caught:
        ENGINE.normalize_options({"target": target})
    assert caught.value.message == "target: must be an integer from 1 to 1000000"


def test_seats_play_in_turn_0_1_2_3_0():
    state, seen = fresh(), []
    for _ in range(5):
        seen.append(ENGINE.turn_seat(state))
        state = act(state, ENGINE.turn_seat(state), {"action": "add", "n": 1})
    assert seen == [0, 1, 2, 3, 0]


def test_add_adds_n_to_the_seat():
    state = act(fresh(), 0, {"action": "add", "n": 3})
    assert state["totals"] == [3, 0, 0, 0] and ENGINE.view(state, 0)["scores"] == {"A": 3, "B": 0}


def test_add_carries_a_note_of_any_length():
    note = "x" * 16_000
    move = ENGINE.decide(fresh(), 0, {"action": "add", "n": 2, "note": note}, T0)
    assert move.payload == {"n": 2, "note": note}
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


@pytest.mark.parametrize("n", [0, 4, -1])
def test_add_out_of_range_is_illegal(n):
    assert refused(fresh(), 0, {"action": "add", "n": n}) == ("illegal_move", f"You may add 1, 2 or 3, not {n}")


@pytest.mark.parametrize("n", [None, "2", True, 1.5])
def test_add_of_a_non_integer_is_a_bad_request(n):
    assert refused(fresh(), 0, {"action": "add", "n": n}) == ("bad_request", "'n' must be an integer from 1 to 3")


def test_a_note_that_is_not_a_string_is_a_bad_request():
    assert refused(fresh(), 0, {"action": "add", "n": 1, "note": 5}) == ("bad_request", "'note' must be a string")


def test_roll_draws_uniform_3_plus_1_from_label_roll_m():
    state = act(fresh(), 0, {"action": "add", "n": 1})
    move = ENGINE.decide(state, 1, {"action": "roll"}, T0)
    assert move.random is True and move.auto is False
    assert move.payload == {"value": fairness.choose(SEED, "roll:2", 3) + 1}


def test_a_turn_deadline_rolls_for_the_seat():
    state = fresh()
    [deadline] = ENGINE.deadlines(state)
    assert (deadline.kind, deadline.due_ms) == ("turn", T0 + 10_000)
    move = ENGINE.fire(state, deadline.token, T0 + 10_000)
    assert (move.type, move.seat, move.auto, move.random) == ("roll", 0, True, True)
    state = ENGINE.apply(state, move, T0 + 10_000)
    assert state["last_play"]["auto"] is True and ENGINE.deadlines(state)[0].due_ms == T0 + 20_000


def test_a_stale_token_fires_nothing():
    state = fresh()
    [deadline] = ENGINE.deadlines(state)
    state = act(state, 0, {"action": "add", "n": 1})
    assert ENGINE.fire(state, deadline.token, T0) is None


def test_a_forged_roll_is_refused_on_replay():
    value = fairness.choose(SEED, "roll:1", 3) + 1
    with pytest.raises(GameError):
        ENGINE.apply(fresh(), Move("roll", 0, {"value": value % 3 + 1}, random=True), T0)


def test_the_team_first_reaching_the_target_wins():
    state = fresh(target=5)
    for seat, n in [(0, 3), (1, 3), (2, 1), (3, 1)]:
        state = act(state, seat, {"action": "add", "n": n})
    assert ENGINE.status(state) == "playing"
    state = act(state, 0, {"action": "add", "n": 1})
    assert (ENGINE.status(state), state["winner"], ENGINE.turn_seat(state), ENGINE.deadlines(state)) == (
        "finished", "A", None, []
    )


def finished():
    return act(fresh(target=1), 0, {"action": "add", "n": 1})


def test_moves_after_the_end_are_refused():
    assert refused(finished(), 1, {"action": "roll"}) == ("game_finished", "The game is finished")


def test_not_your_turn():
    assert refused(fresh(), 2, {"action": "roll"}) == ("not_your_turn", "Not your turn")


def test_unknown_action():
    assert refused(fresh(), 0, {"action": "play"}) == ("unknown_action", "Unknown action 'play': expected 'add' or 'roll'")


def test_missing_action_is_a_bad_request():
    assert refused(fresh(), 0, {"n": 1}) == ("bad_request", "Missing 'action'")


def test_the_view_while_playing():
    view = ENGINE.view(act(fresh(), 0, {"action": "add", "n": 2}), 1)
    assert view["status"] == "playing" and view["turn"] == 1 and view["you"] == 1 and view["your_turn"] is True
    assert view["totals"] == [2, 0, 0, 0] and view["scores"] == {"A": 2, "B": 0}
    assert view["turn_deadline"] == "2026-12-02T10:00:10.001Z"
    assert view["last_play"] == {"seat": 0, "type": "add", "n": 2, "auto": False}
    assert "winner" not in view and "seed" not in view


def test_the_view_when_finished_has_winner_and_seed():
    view = ENGINE.view(finished(), 2)
    assert view["winner"] == "A" and view["seed"] == SEED.hex() and "turn_deadline" not in view


def test_result_has_the_scopone_shape():
    result = ENGINE.result(finished())
    assert result.to_json() == {
        "scores": {"A": 1, "B": 0}, "winner": "A", "target_score": 1, "hands": 1, "audit": [],
        "seats": [{"seat": 0, "team": "A", "won": True, "points": 1}, {"seat": 1, "team": "B", "won": False, "points": 0},
                  {"seat": 2, "team": "A", "won": True, "points": 1}, {"seat": 3, "team": "B", "won": False, "points": 0}],
    }
    assert ENGINE.result(fresh()) is None


def test_replay_of_the_log_reproduces_the_state_through_json():
    state, log, now = fresh(), [], T0
    while ENGINE.status(state) == "playing":
        now += 7
        if len(log) % 3 == 0:
            move = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, now)
        else:
            move = ENGINE.decide(state, ENGINE.turn_seat(state), {"action": "add", "n": 1 + len(log) % 3}, now)
        state = ENGINE.apply(json.loads(json.dumps(state)), move, now)
        log.append((json.dumps(move.to_json()), now))
    again = fresh()
    for text, at in log:
        again = ENGINE.apply(again, Move.from_json(json.loads(text)), at)
    assert again == state and json.loads(json.dumps(state)) == state
