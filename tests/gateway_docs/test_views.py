"""The contract's JSON shapes the gateway builds from the services' records (gateway.views)."""

from __future__ import annotations

from gateway.views import leaderboard_body, match_item
from stats.client import Leaderboard
from stats.model import LeaderboardRow, Match, Player


def test_a_match_renders_as_the_contract_item():
    match = Match("6f1c0000-0000-4000-8000-000000000000", "scopone_scientifico",
                  1_764_669_600_000, 1_764_669_630_123, {"winner": "A"},
                  (Player(0, "alice", "alice", "A", True, 11, 16),
                   Player(1, "bob", "bob", None, False, 7, -16)))
    assert match_item(match) == {
        "id": "6f1c0000-0000-4000-8000-000000000000", "game_type": "scopone_scientifico",
        "started_at": "2025-12-02T10:00:00.000Z", "finished_at": "2025-12-02T10:00:30.123Z",
        "result": {"winner": "A"},
        "players": [
            {"seat": 0, "name": "alice", "team": "A", "won": True, "points": 11, "elo_delta": 16},
            {"seat": 1, "name": "bob", "team": None, "won": False, "points": 7, "elo_delta": -16}],
    }


def test_a_leaderboard_renders_as_the_contract_body():
    board = Leaderboard("scopone_scientifico", [LeaderboardRow("alice", "alice", 1516, 1, 1, 11)])
    assert leaderboard_body(board) == {"game_type": "scopone_scientifico", "entries": [
        {"rank": 1, "name": "alice", "rating": 1516, "wins": 1, "matches": 1, "points": 11}]}
