"""The client's helpers for its callers: engine seats in."""

from __future__ import annotations

from stats.client import SeatOutcome, seat_outcomes


def test_seat_outcomes_read_an_engine_result():
    result = {"winner": "A", "seats": [{"seat": 0, "team": "A", "won": True, "points": 11},
                                       {"seat": 1, "team": "B", "won": False, "points": 4}]}
    assert seat_outcomes(result) == [SeatOutcome(0, True, 11, "A"), SeatOutcome(1, False, 4, "B")]
    assert seat_outcomes(result)[1].seat == "seat:1"


def test_a_seat_outcome_keeps_the_seat_it_is_given():
    assert SeatOutcome(2, False, 4, "A", seat="seat:2").seat == "seat:2"
    assert SeatOutcome(2, False, 4, "A") == SeatOutcome(2, False, 4, "A", seat="seat:2")
