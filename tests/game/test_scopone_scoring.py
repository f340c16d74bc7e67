"""Scopone points: carte, denara, settebello, primiera, scope, napola, and the end of a match."""

from game.fairness import DECK
from game.scopone import scoring
from tests.game.scopone_helpers import crafted, play

DENARI = [c for c in DECK if c.endswith("D")]


def split(a_cards):
    """Team A takes ``a_cards``, team B the rest of the deck."""
    a = sorted(a_cards)
    return {"A": a, "B": sorted(set(DECK) - set(a))}


def score(a_cards, scope=(0, 0), napola=True):
    return scoring.score_hand(split(a_cards), {"A": scope[0], "B": scope[1]}, napola)


# A's cards for the examples: 21 cards, 6 denari with the settebello, the sevens of coppe and spade.
A21 = ["01D", "02D", "04D", "05D", "06D", "07D", "07C", "07S", "06B", "01C", "02C",
       "03C", "04C", "05C", "08S", "09S", "10S", "08B", "09B", "10B", "04S"]


def test_carte_goes_to_the_team_with_more_cards():
    teams, award = score(A21)
    assert (teams["A"]["cards"], teams["B"]["cards"], award["carte"]) == (21, 19, "A")


def test_carte_tied_at_twenty_is_awarded_to_nobody():
    assert score(DECK[:20])[1]["carte"] is None


def test_denara_goes_to_the_team_with_more_denari():
    teams, award = score(A21)
    assert (teams["A"]["denari"], teams["B"]["denari"], award["denara"]) == (6, 4, "A")


def test_denara_tied_at_five_is_awarded_to_nobody():
    assert score([*DENARI[:5], "01C"])[1]["denara"] is None


def test_settebello_goes_to_the_team_holding_07D():
    teams, award = score(["07D"])
    assert (teams["A"]["settebello"], teams["B"]["settebello"], award["settebello"]) == (True, False, "A")


def test_primiera_values_seven_21_six_18_ace_16_five_15_four_14_three_13_two_12_figures_10():
    assert scoring.primiera(["07D", "06C", "01S", "05B"]) == 21 + 18 + 16 + 15
    assert scoring.primiera(["04D", "03C", "02S", "10B"]) == 14 + 13 + 12 + 10
    assert scoring.primiera(["08D", "09C", "10S", "08B"]) == 40


def test_primiera_counts_the_best_card_of_each_suit():
    assert scoring.primiera(["02D", "07D", "06D", "01C", "05S", "10B", "08B"]) == 21 + 16 + 15 + 10


def test_primiera_goes_to_the_higher_sum():
    teams, award = score(["07D", "07C", "07S", "07B"])
    assert (teams["A"]["primiera"], teams["B"]["primiera"], award["primiera"]) == (84, 72, "A")


def test_a_team_lacking_a_suit_has_primiera_zero_and_cannot_win_it():
    # A holds every 7 and 6 of three suits, but no bastoni.
    teams, award = score(["07D", "07C", "07S", "06D", "06C", "06S"])
    assert teams["A"]["primiera"] == 0 and award["primiera"] == "B"


def test_primiera_is_awarded_to_nobody_when_both_lack_a_suit():
    bastoni = [c for c in DECK if c.endswith("B")]
    teams, award = score([c for c in DECK if c.endswith("D")] + bastoni)  # B has only coppe and spade
    assert teams["B"]["primiera"] == 0 and teams["A"]["primiera"] == 0 and award["primiera"] is None


def test_primiera_tie_is_awarded_to_nobody():
    a = ["07D", "07C", "06S", "06B"]
    b = ["07S", "07B", "06D", "06C"]
    teams, award = scoring.score_hand({"A": a, "B": b}, {"A": 0, "B": 0}, True)
    assert teams["A"]["primiera"] == teams["B"]["primiera"] == 78 and award["primiera"] is None


def test_each_scopa_is_one_point():
    base, _ = score(A21)
    teams, _ = score(A21, scope=(3, 1))
    assert (teams["A"]["scope"], teams["B"]["scope"]) == (3, 1)
    assert teams["A"]["points"] == base["A"]["points"] + 3 and teams["B"]["points"] == base["B"]["points"] + 1


def test_napola_scores_the_length_of_the_denari_run_from_the_ace():
    assert scoring.napola(["01D", "02D", "03D"]) == 3
    assert scoring.napola(["01D", "02D", "03D", "04D", "05D", "07D"]) == 5


def test_napola_needs_at_least_three_cards():
    assert scoring.napola(["01D", "02D", "04D", "05D"]) == 0


def test_napola_needs_the_ace():
    assert scoring.napola(["02D", "03D", "04D", "05D"]) == 0


def test_napola_is_awarded_and_added_to_the_points():
    teams, award = score(["01D", "02D", "03D", "04D"])
    assert teams["A"]["napola"] == 4 and award["napola"] == "A"
    assert teams["A"]["points"] == 4  # denara (4 v 6), carte, settebello and primiera all go to B
    assert teams["B"]["points"] == 4


def test_napola_off_scores_nothing():
    teams, award = score(["01D", "02D", "03D", "04D"], napola=False)
    assert teams["A"]["napola"] == 0 and award["napola"] is None


def test_hand_points_are_the_sum_of_the_categories():
    teams, award = score(A21, scope=(2, 1))
    for team in "AB":
        won = sum(1 for k in ("carte", "denara", "settebello", "primiera") if award[k] == team)
        assert teams[team]["points"] == won + teams[team]["scope"] + teams[team]["napola"]


def test_all_ten_denari_win_the_match_at_once():
    teams, _ = score(DENARI)
    assert teams["A"]["napola"] == 10
    assert scoring.match_winner({"A": 12, "B": 30}, 31, teams) == "A"


def test_all_ten_denari_win_nothing_extra_with_napola_off():
    teams, _ = score(DENARI, napola=False)
    assert scoring.match_winner({"A": 4, "B": 30}, 31, teams) is None


NO_NAPOLA = {"A": {"napola": 0}, "B": {"napola": 0}}


def test_the_match_ends_when_a_team_reaches_the_target_with_a_lead():
    assert scoring.match_winner({"A": 11, "B": 10}, 11, NO_NAPOLA) == "A"
    assert scoring.match_winner({"A": 9, "B": 14}, 11, NO_NAPOLA) == "B"


def test_both_over_the_target_the_higher_score_wins():
    assert scoring.match_winner({"A": 12, "B": 15}, 11, NO_NAPOLA) == "B"


def test_a_tie_at_or_above_the_target_plays_another_hand():
    assert scoring.match_winner({"A": 11, "B": 11}, 11, NO_NAPOLA) is None
    assert scoring.match_winner({"A": 13, "B": 13}, 11, NO_NAPOLA) is None


def test_below_the_target_the_match_goes_on():
    assert scoring.match_winner({"A": 10, "B": 3}, 11, NO_NAPOLA) is None


def end_hand_state(a_captured, scores=None, target=11, napola=True):
    """A state one lay away from the end of hand 1: seat 0 lays 10B, A holds ``a_captured`` and captured last."""
    rest = sorted(set(DECK) - set(a_captured) - {"10B"})
    options = {"target_score": target, "napola": napola}
    return crafted([["10B"]], table=[], captured=[a_captured, rest, [], []], last_capturer=0,
                   options=options, scores=scores)


def test_the_engine_records_last_hand_in_the_contract_shape():
    state = play(end_hand_state(A21, target=21), 0, "10B")
    last = state["audit"][-1]
    assert set(last) == {"hand", "teams", "award", "scores"} and last["hand"] == 1
    assert set(last["teams"]["A"]) == {"cards", "denari", "settebello", "primiera", "scope", "napola", "points"}
    assert set(last["award"]) == {"carte", "denara", "settebello", "primiera", "napola"}
    assert last["teams"]["A"]["cards"] == 22  # the laid 10B went to A, the last capturer
    assert last["scores"] == state["scores"] == {"A": last["teams"]["A"]["points"], "B": last["teams"]["B"]["points"]}


def test_the_engine_adds_hand_points_to_the_match_scores():
    state = play(end_hand_state(A21, scores={"A": 3, "B": 4}, target=21), 0, "10B")
    teams = state["audit"][-1]["teams"]
    assert state["scores"] == {"A": 3 + teams["A"]["points"], "B": 4 + teams["B"]["points"]}


def test_the_engine_ends_the_match_at_the_target():
    state = play(end_hand_state(A21, scores={"A": 8, "B": 0}, target=11), 0, "10B")
    assert state["status"] == "finished" and state["winner"] == "A"


def test_the_engine_plays_another_hand_on_a_tie_above_the_target():
    # A scores 4 this hand (carte, denara, settebello, primiera with its 7s), B none.
    state = end_hand_state(A21, scores={"A": 10, "B": 14}, target=11)
    state = play(state, 0, "10B")
    assert state["audit"][-1]["teams"]["A"]["points"] == 4 and state["scores"] == {"A": 14, "B": 14}
    assert state["status"] == "hand_end"


def test_the_engine_ends_the_match_on_all_ten_denari():
    state = play(end_hand_state(DENARI, scores={"A": 0, "B": 20}, target=21), 0, "10B")
    assert state["status"] == "finished" and state["winner"] == "A"
    assert state["scores"]["A"] < state["scores"]["B"]
