"""Elo exactly as CONTRACT.md: 1500 start, team mean, K = 32, one delta per team, half-to-even, zero sum."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stats.elo import (
    K_FACTOR,
    START_RATING,
    Participant,
    expected_score,
    loss_delta,
    match_deltas,
    round_half_even,
)


def teams(won_a: bool, won_b: bool | None = None) -> list[Participant]:
    won_b = (not won_a) if won_b is None else won_b
    return [Participant("a1", "A", won_a), Participant("b1", "B", won_b),
            Participant("a2", "A", won_a), Participant("b2", "B", won_b)]


def test_the_contract_constants():
    assert (START_RATING, K_FACTOR) == (1500, 32)


def test_equal_teams_move_sixteen_points():
    ratings = dict.fromkeys(["a1", "a2", "b1", "b2"], 1500)
    assert match_deltas(teams(won_a=True), ratings) == {"a1": 16, "a2": 16, "b1": -16, "b2": -16}


def test_team_rating_is_the_mean_of_its_members():
    # A = (1600 + 1500) / 2 = 1550, B = (1500 + 1400) / 2 = 1450: E(A) = 1 / (1 + 10^-0.25)
    # = 0.6400650; a win gives 32 * 0.3599350 = 11.518 -> 12, a loss 32 * -0.6400650 = -20.48 -> -20.
    ratings = {"a1": 1600, "a2": 1500, "b1": 1500, "b2": 1400}
    assert match_deltas(teams(won_a=True), ratings) == {"a1": 12, "a2": 12, "b1": -12, "b2": -12}
    assert match_deltas(teams(won_a=False), ratings) == {"a1": -20, "a2": -20, "b1": 20, "b2": 20}


def test_an_upset_pays_more():
    # 1700 vs 1300: E(weak) = 1 / (1 + 10^1) = 1/11; the weak team's win: 32 * 10/11 = 29.09 -> 29.
    ratings = {"a1": 1700, "a2": 1700, "b1": 1300, "b2": 1300}
    assert match_deltas(teams(won_a=False), ratings)["b1"] == 29
    assert match_deltas(teams(won_a=True), ratings)["a1"] == 3  # 32 / 11 = 2.909 -> 3


def test_a_draw_between_equals_changes_nothing_and_favours_the_weaker():
    even = dict.fromkeys(["a1", "a2", "b1", "b2"], 1500)
    assert set(match_deltas(teams(won_a=False, won_b=False), even).values()) == {0}
    uneven = {"a1": 1600, "a2": 1600, "b1": 1500, "b2": 1500}
    # 32 * (0.5 - 0.6400650) = -4.48 -> -4
    assert match_deltas(teams(won_a=True, won_b=True), uneven) == {"a1": -4, "a2": -4, "b1": 4, "b2": 4}


@pytest.mark.parametrize(("value", "rounded"), [
    (0.5, 0), (1.5, 2), (2.5, 2), (3.5, 4), (-0.5, 0), (-1.5, -2), (-2.5, -2), (2.5000001, 3),
])
def test_round_half_even(value, rounded):
    assert round_half_even(value) == rounded


@pytest.mark.parametrize(("k", "winner_delta"), [(1, 0), (3, 2), (5, 2), (7, 4), (9, 4)])
def test_rounding_ties_go_to_the_even_delta_for_both_teams(k, winner_delta):
    # Equal teams: the raw delta is k / 2, an exact tie for odd k.
    ratings = dict.fromkeys(["a1", "a2", "b1", "b2"], 1500)
    for won_a in (True, False):
        deltas = match_deltas(teams(won_a=won_a), ratings, k=k)
        winner, loser = ("a1", "b1") if won_a else ("b1", "a1")
        assert (deltas[winner], deltas[loser]) == (winner_delta, -winner_delta)


def test_the_nearest_thing_to_a_tie_k32_can_produce_rounds_by_its_value():
    # Team means are multiples of 0.5, so K = 32 never yields an exact half; the closest is a
    # 124.5 gap: 32 * (1 - 1 / (1 + 10^(124.5 / 400))) = 21.5000136 -> 22, and 10.4999864 -> 10.
    ratings = {"a1": 1500, "a2": 1500, "b1": 1624, "b2": 1625}
    assert match_deltas(teams(won_a=True), ratings)["a1"] == 22
    assert match_deltas(teams(won_a=False), ratings)["b1"] == 10


def test_expected_scores_of_two_sides_sum_to_one():
    assert expected_score(1550, 1450) + expected_score(1450, 1550) == pytest.approx(1)


def test_without_teams_each_seat_is_a_side_scored_pairwise():
    # Three equal seats, seat 0 wins: each pair at K / 2 = 16: +8 +8 for the winner, -8 each else.
    players = [Participant("x", ("seat", 0), True), Participant("y", ("seat", 1), False),
               Participant("z", ("seat", 2), False)]
    ratings = dict.fromkeys("xyz", 1500)
    assert match_deltas(players, ratings) == {"x": 16, "y": -8, "z": -8}


def test_a_single_side_is_not_rated():
    players = [Participant("x", "A", True), Participant("y", "A", True)]
    assert match_deltas(players, {"x": 1500, "y": 1600}) == {"x": 0, "y": 0}


ratings_st = st.integers(min_value=100, max_value=3000)


@given(st.lists(ratings_st, min_size=4, max_size=4), st.booleans(), st.booleans())
def test_two_teams_share_a_delta_and_sum_to_zero(values, won_a, won_b):
    ratings = dict(zip(["a1", "b1", "a2", "b2"], values, strict=True))
    deltas = match_deltas(teams(won_a, won_b), ratings)
    assert deltas["a1"] == deltas["a2"] and deltas["b1"] == deltas["b2"]
    assert deltas["a1"] + deltas["b1"] == 0
    assert abs(deltas["a1"]) <= K_FACTOR


@given(st.lists(st.tuples(ratings_st, st.booleans()), min_size=2, max_size=8))
def test_any_number_of_sides_sums_to_zero(seats):
    players = [Participant(f"m{i}", ("seat", i), won) for i, (_, won) in enumerate(seats)]
    ratings = {f"m{i}": rating for i, (rating, _) in enumerate(seats)}
    assert sum(match_deltas(players, ratings).values()) == 0


@pytest.mark.parametrize("won_a", [True, False])
def test_a_loss_delta_is_what_the_side_gets_for_a_loss_whatever_happened(won_a):
    # As above: A (1550) losing to B (1450) costs -20, B losing to A costs -12.
    ratings = {"a1": 1600, "a2": 1500, "b1": 1500, "b2": 1400}
    assert loss_delta(teams(won_a), ratings, "A") == -20
    assert loss_delta(teams(won_a), ratings, "B") == -12


def test_a_loss_delta_with_nobody_to_lose_to_is_zero():
    assert loss_delta([Participant("a1", "A", True)], {"a1": 1500}, "A") == 0
