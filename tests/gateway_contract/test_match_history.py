"""GET /api/me/matches, /api/me/ratings and /api/leaderboard over the real stats service on
Postgres: practice and abandoned matches as the public JSON shows them (CONTRACT.md, Stats)."""

from __future__ import annotations

import httpx
import pytest

from tests.gateway_contract.fakes import COOKIE, FakeLobby, gateway
from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_seats
from tests.stats.servers import postgres_repository, running_stack, serving_lobby

FOUR = ("alice", "bob", "carol", "dave")


@pytest.fixture
async def stats(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    async with serving_lobby() as lobby, running_stack(repository, lobby) as stack:
        yield stack
    await repository.close()


@pytest.fixture
async def client(stats):
    async with gateway(lobby=FakeLobby(), stats=stats.client) as app, httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://gw.test",
            headers=COOKIE) as http:
        yield http


async def _record(stats, members, seats, finished_ms, winner="A", **seating) -> str:
    table = stats.table(*members, **seating)
    await stats.client.record_match(table, SCOPONE, finished_ms - 60_000, finished_ms,
                                    result_of(winner), seats)
    return table


async def test_the_match_items_carry_rated_bot_and_abandoned_exactly(stats, client):
    rated = await _record(stats, FOUR, team_seats("A"), BASE_MS)
    left = await _record(stats, FOUR, team_seats("B"), BASE_MS + 1000, winner="B", took_over={1})
    practice = await _record(
        stats, ("alice", "bot:1", "carol", "bot:3"), team_seats("A"), BASE_MS + 2000,
        names={"bot:1": "Expert", "bot:3": "Expert"}, bots={1: "esperto", 3: "esperto"})

    page = (await client.get("/api/me/matches")).json()
    assert page["next_cursor"] is None
    assert [(item["id"], item["rated"]) for item in page["items"]] == [
        (practice, False), (left, False), (rated, True)]
    practice_item, left_item, rated_item = page["items"]
    assert practice_item == {
        "id": practice, "game_type": SCOPONE,
        "started_at": "2025-12-02T09:59:02.000Z", "finished_at": "2025-12-02T10:00:02.000Z",
        "rated": False, "result": result_of("A"),
        "players": [
            {"seat": 0, "name": "Alice", "team": "A", "won": True, "points": 11, "elo_delta": 0},
            {"seat": 1, "name": "Expert", "team": "B", "won": False, "points": 7, "elo_delta": 0,
             "bot": "esperto"},
            {"seat": 2, "name": "Carol", "team": "A", "won": True, "points": 11, "elo_delta": 0},
            {"seat": 3, "name": "Expert", "team": "B", "won": False, "points": 7, "elo_delta": 0,
             "bot": "esperto"}]}
    # bob left; his team (1484 after the first match) won with a bot in his seat. Losing to
    # A (1516) would have cost B 32 * -0.45407 = -14.53 -> -15: that is his whole delta.
    assert left_item["players"] == [
        {"seat": 0, "name": "Alice", "team": "A", "won": False, "points": 7, "elo_delta": 0},
        {"seat": 1, "name": "Bob", "team": "B", "won": True, "points": 11, "elo_delta": -15,
         "abandoned": True},
        {"seat": 2, "name": "Carol", "team": "A", "won": False, "points": 7, "elo_delta": 0},
        {"seat": 3, "name": "Dave", "team": "B", "won": True, "points": 11, "elo_delta": 0}]
    assert [p["elo_delta"] for p in rated_item["players"]] == [16, -16, 16, -16]
    assert not any("bot" in p or "abandoned" in p for p in rated_item["players"])

    # Only the rated match counts for alice; the leaderboard counts bob's abandonment as a
    # match lost with no points, and has no bot.
    assert (await client.get("/api/me/ratings")).json() == {
        "ratings": [{"game_type": SCOPONE, "rating": 1516, "matches": 1}]}
    board = (await client.get("/api/leaderboard")).json()
    assert [(e["name"], e["rating"], e["wins"], e["matches"], e["points"])
            for e in board["entries"]] == [
        ("Alice", 1516, 1, 1, 11), ("Carol", 1516, 1, 1, 11),
        ("Dave", 1484, 0, 1, 7), ("Bob", 1469, 0, 2, 7)]
