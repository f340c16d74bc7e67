"""Property tests: whole scopone matches over random seeds, options and random legal play."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine import ERROR_CODES, GameError
from game.fairness import DECK
from tests.game.scopone_helpers import ENGINE, T0, all_cards_of, oracle_plays, random_match, replay

SEEDS = st.binary(min_size=32, max_size=32)
OPTIONS = st.fixed_dictionaries(
    {"target_score": st.integers(1, 16), "napola": st.booleans(), "asso_pigliatutto": st.booleans()}
)
CHOICES = st.integers(0, 2**32)
MATCHES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CATEGORIES = ("carte", "denara", "settebello", "primiera")


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_forty_cards_are_conserved_every_hand(seed, options, choices):
    def check(state, rng):
        assert sorted(all_cards_of(state)) == sorted(DECK)
        assert state["plays"] == 40 - sum(len(h) for h in state["hands"]) or state["status"] != "playing"

    final, _ = random_match(seed, options, choices, on_step=check)
    check(final, None)


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_the_same_seed_and_choices_give_the_same_match(seed, options, choices):
    first, first_log = random_match(seed, options, choices)
    second, second_log = random_match(seed, options, choices)
    assert first == second and first_log == second_log


@MATCHES
@given(SEEDS, OPTIONS)
def test_a_match_of_timeouts_only_is_fixed_by_the_seed(seed, options):
    first, first_log = random_match(seed, options, 1, p_fire=1.0)
    second, second_log = random_match(seed, options, 2, p_fire=1.0)  # other timings, same moves
    assert [m for m, _ in first_log] == [m for m, _ in second_log]
    assert first["audit"] == second["audit"] and first["winner"] == second["winner"]


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_hand_points_add_up_to_the_match_scores(seed, options, choices):
    final, _ = random_match(seed, options, choices)
    totals = {"A": 0, "B": 0}
    for number, hand in enumerate(final["audit"], start=1):
        assert hand["hand"] == number
        assert hand["teams"]["A"]["cards"] + hand["teams"]["B"]["cards"] == 40
        assert hand["teams"]["A"]["denari"] + hand["teams"]["B"]["denari"] == 10
        for team in "AB":
            row = hand["teams"][team]
            won = sum(1 for c in CATEGORIES if hand["award"][c] == team)
            assert row["points"] == won + row["scope"] + row["napola"]
            totals[team] += row["points"]
        assert hand["scores"] == totals
    assert final["scores"] == totals == ENGINE.result(final).to_json()["scores"]


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_the_match_ends_exactly_when_the_rules_say(seed, options, choices):
    final, _ = random_match(seed, options, choices)
    target = options["target_score"]

    def over(hand):
        a, b = hand["scores"]["A"], hand["scores"]["B"]
        slam = options["napola"] and 10 in (hand["teams"]["A"]["napola"], hand["teams"]["B"]["napola"])
        return slam or (max(a, b) >= target and a != b)

    assert [over(h) for h in final["audit"]] == [False] * (len(final["audit"]) - 1) + [True]
    last = final["audit"][-1]
    slam = [t for t in "AB" if last["teams"][t]["napola"] == 10 and options["napola"]]
    expected = slam[0] if slam else max("AB", key=lambda t: last["scores"][t])
    assert final["winner"] == expected and final["hand_number"] == len(final["audit"])


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_every_legal_move_is_accepted(seed, options, choices):
    asso = options["asso_pigliatutto"]

    def check(state, rng):
        if state["status"] != "playing":
            return
        seat = state["turn"]
        legal = oracle_plays(state["hands"][seat], state["table"], asso)
        assert {(c, tuple(cap)) for c, cap in ENGINE.legal_plays(state)} == legal
        for card, capture in legal:
            move = ENGINE.decide(state, seat, {"action": "play", "card": card, "capture": list(capture)}, T0)
            assert move.payload == {"card": card, "capture": sorted(capture)}
            ENGINE.apply(state, move, T0)

    random_match(seed, options, choices, on_step=check)


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_no_illegal_move_is_accepted(seed, options, choices):
    asso = options["asso_pigliatutto"]

    def check(state, rng):
        for _ in range(8):
            seat = rng.randrange(4)
            pool = state["hands"][state["turn"]] if state["turn"] is not None and rng.random() < 0.7 else DECK
            card = rng.choice(list(pool))
            near = state["table"] + [rng.choice(DECK)] * (rng.random() < 0.2)
            capture = [c for c in near if rng.random() < 0.4] + [c for c in near[:1] if rng.random() < 0.05]
            action = {"action": "play", "card": card} if not capture and rng.random() < 0.5 else \
                {"action": "play", "card": card, "capture": capture}
            try:
                move = ENGINE.decide(state, seat, action, T0)
            except GameError as error:
                assert error.code in ERROR_CODES and error.message
                if state["status"] == "hand_end":
                    assert error.code == "illegal_move"
                elif seat != state["turn"]:
                    assert error.code == "not_your_turn"
                else:
                    assert error.code == "illegal_move"
                    assert (card, tuple(sorted(capture))) not in oracle_plays(state["hands"][seat], state["table"], asso)
                continue
            legal = oracle_plays(state["hands"][seat], state["table"], asso)
            assert state["status"] == "playing" and seat == state["turn"]
            assert (move.payload["card"], tuple(move.payload["capture"])) in legal
            assert capture == [] or sorted(capture) == move.payload["capture"]

    random_match(seed, options, choices, on_step=check)


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_a_state_through_json_behaves_identically(seed, options, choices):
    _, log = random_match(seed, options, choices)
    state = ENGINE.new_state(options, seed, T0)
    for move, now in log:
        thawed = json.loads(json.dumps(state))
        assert thawed == state
        assert ENGINE.deadlines(thawed) == ENGINE.deadlines(state)
        assert [ENGINE.view(thawed, s) for s in range(4)] == [ENGINE.view(state, s) for s in range(4)]
        assert ENGINE.legal_plays(thawed) == ENGINE.legal_plays(state)
        token = ENGINE.deadlines(state)[0].token
        assert ENGINE.fire(thawed, token, now) == ENGINE.fire(state, token, now)
        state, other = ENGINE.apply(state, move, now), ENGINE.apply(thawed, move, now)
        assert other == state
    assert ENGINE.result(json.loads(json.dumps(state))) == ENGINE.result(state)


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_replaying_the_moves_reproduces_the_final_state(seed, options, choices):
    final, log = random_match(seed, options, choices)
    assert replay(log, seed, options) == final


@MATCHES
@given(SEEDS, OPTIONS, CHOICES)
def test_a_verifier_replaying_without_the_times_lands_on_the_same_scores(seed, options, choices):
    final, log = random_match(seed, options, choices)
    timeless = [(move, T0) for move, _ in log]
    again = replay(timeless, seed, options)
    assert ENGINE.result(again) == ENGINE.result(final)
