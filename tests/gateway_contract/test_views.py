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
    assert match_item(match).body() == {
        "id": "6f1c0000-0000-4000-8000-000000000000", "game_type": "scopone_scientifico",
        "started_at": "2025-12-02T10:00:00.000Z", "finished_at": "2025-12-02T10:00:30.123Z",
        "rated": True, "result": {"winner": "A"},
        "players": [
            {"seat": 0, "name": "alice", "team": "A", "won": True, "points": 11, "elo_delta": 16},
            {"seat": 1, "name": "bob", "team": None, "won": False, "points": 7, "elo_delta": -16}],
    }


def test_a_bot_seat_and_an_abandoner_are_marked_only_on_their_items():
    match = Match("6f1c0000-0000-4000-8000-000000000000", "scopone_scientifico",
                  1_764_669_600_000, 1_764_669_630_123, {"winner": "B"},
                  (Player(0, "alice", "alice", "A", False, 7, -15, abandoned=True),
                   Player(1, "", "Expert", "B", True, 11, 0, bot_level="esperto"),
                   Player(2, "carol", "carol", "A", False, 7, 0),
                   Player(3, "", "Master", "B", True, 11, 0, bot_level="maestro")),
                  rated=False)
    item = match_item(match).body()
    assert item["rated"] is False
    assert item["players"] == [
        {"seat": 0, "name": "alice", "team": "A", "won": False, "points": 7, "elo_delta": -15,
         "abandoned": True},
        {"seat": 1, "name": "Expert", "team": "B", "won": True, "points": 11, "elo_delta": 0,
         "bot": "esperto"},
        {"seat": 2, "name": "carol", "team": "A", "won": False, "points": 7, "elo_delta": 0},
        {"seat": 3, "name": "Master", "team": "B", "won": True, "points": 11, "elo_delta": 0,
         "bot": "maestro"}]


def test_a_leaderboard_renders_as_the_contract_body():
    board = Leaderboard("scopone_scientifico", [LeaderboardRow("alice", "alice", 1516, 1, 1, 11)])
    assert leaderboard_body(board).body() == {"game_type": "scopone_scientifico", "entries": [
        {"rank": 1, "name": "alice", "rating": 1516, "wins": 1, "matches": 1, "points": 11}]}
