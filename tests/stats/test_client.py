"""The client's helpers for its callers: engine seats in, CONTRACT.md items out."""

from __future__ import annotations

from stats.client import Leaderboard, SeatOutcome, contract_leaderboard, contract_match_item, seat_outcomes
from stats.model import LeaderboardRow, Match, Player


def test_seat_outcomes_read_an_engine_result():
    result = {"winner": "A", "seats": [{"seat": 0, "team": "A", "won": True, "points": 11},
                                       {"seat": 1, "team": "B", "won": False, "points": 4}]}
    assert seat_outcomes(result) == [SeatOutcome(0, True, 11, "A"), SeatOutcome(1, False, 4, "B")]
    assert seat_outcomes(result)[1].seat == "seat:1"


def test_a_match_renders_as_the_contract_item():
    match = Match("6f1c0000-0000-4000-8000-000000000000", "scopone_scientifico",
                  1_764_669_600_000, 1_764_669_630_123, {"winner": "A"},
                  (Player(0, "alice", "alice", "A", True, 11, 16),
                   Player(1, "bob", "bob", None, False, 7, -16)))
    assert contract_match_item(match) == {
        "id": "6f1c0000-0000-4000-8000-000000000000", "game_type": "scopone_scientifico",
        "started_at": "2025-12-02T10:00:00.000Z", "finished_at": "2025-12-02T10:00:30.123Z",
        "result": {"winner": "A"},
        "players": [
            {"seat": 0, "name": "alice", "team": "A", "won": True, "points": 11, "elo_delta": 16},
            {"seat": 1, "name": "bob", "team": None, "won": False, "points": 7, "elo_delta": -16}],
    }


def test_a_leaderboard_renders_as_the_contract_body():
    board = Leaderboard("scopone_scientifico", [LeaderboardRow("alice", "alice", 1516, 1, 1, 11)])
    assert contract_leaderboard(board) == {"game_type": "scopone_scientifico", "entries": [
        {"rank": 1, "name": "alice", "rating": 1516, "wins": 1, "matches": 1, "points": 11}]}
