"""Daily games through the gateway, as a client that knows only the contract: the pace option,
the 20-game limit, the open list and quick match keeping to their pace, and /api/me/games' pace
and deadline."""

from __future__ import annotations

import time
import uuid

import pytest

from services.timeutil import ms_from_iso
from testing.players import Player
from testing.waiting import eventually

DAILY = {"pace": "daily"}
HOUR_MS = 3_600_000


@pytest.fixture
async def people(stack):
    """Four logged-in members of this test alone (open games outlive a test in the stack)."""
    made = [await Player(stack, f"{name}-{uuid.uuid4().hex[:6]}").login()
            for name in ("ada", "ben", "cat", "dan")]
    yield made
    for person in made:
        await person.close()


async def _create(person: Player, **body) -> dict:
    response = await person.http.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def test_a_member_sits_at_most_at_twenty_unfinished_daily_games(people):
    ada, ben = people[:2]
    for _ in range(20):
        assert (await _create(ada, options=DAILY))["options"]["pace"] == "daily"
    too_many = (409, {"detail": "Too many daily games"})
    refused = await ada.http.post("/api/games", json={"options": DAILY})
    assert (refused.status_code, refused.json()) == too_many
    other = await _create(ben, options=DAILY, open=True)
    refused = await ada.http.post("/api/games/join", json={"code": other["join_code"]})
    assert (refused.status_code, refused.json()) == too_many
    refused = await ada.http.post("/api/games/quick", json={"options": DAILY})
    assert (refused.status_code, refused.json()) == too_many
    assert (await _create(ada))["options"]["pace"] == "live"  # live games are not counted
    games = (await ada.http.get("/api/me/games")).json()["games"]
    assert sorted(game["pace"] for game in games) == ["daily"] * 20 + ["live"]


@pytest.mark.parametrize("pace", ["weekly", "", 1, None])
async def test_an_unknown_pace_is_422(people, pace):
    expected = (422, {"detail": 'Invalid options: pace: must be "live" or "daily"'})
    for path in ("/api/games", "/api/games/quick"):
        response = await people[0].http.post(path, json={"options": {"pace": pace}})
        assert (response.status_code, response.json()) == expected, path


async def test_the_open_list_shows_the_pace_and_quick_match_keeps_to_it(people):
    ada, ben, cat = people[:3]
    daily = await _create(ada, options={**DAILY, "target_score": 17}, open=True)
    listed = (await ben.http.get("/api/games/open")).json()["games"]
    item = next(game for game in listed if game["id"] == daily["id"])
    assert (item["pace"], item["options"]["pace"]) == ("daily", "daily")
    played = await cat.http.post("/api/games/quick", json={})  # Play now: live, never this one
    assert played.status_code in (200, 201) and played.json()["id"] != daily["id"]
    assert played.json()["options"]["pace"] == "live"
    asked = await ben.http.post("/api/games/quick", json={"options": {**DAILY, "target_score": 17}})
    assert (asked.status_code, asked.json()["id"]) == (200, daily["id"])


async def test_my_games_carry_the_pace_and_a_started_games_deadline_a_day_ahead(people):
    ada = people[0]
    waiting = await _create(ada, options=DAILY)
    started = await _create(ada, options=DAILY)
    for seat in (1, 2, 3):
        response = await ada.http.post(f"/api/games/{started['id']}/bots",
                                       json={"seat": seat, "level": "principiante"})
        assert response.status_code == 200, response.text
    before_ms = int(time.time() * 1000)

    async def ada_to_play():
        games = {g["id"]: g for g in (await ada.http.get("/api/me/games")).json()["games"]}
        return games if games[started["id"]]["your_turn"] else None

    games = await eventually(ada_to_play, what="the bots never passed the turn to ada")
    assert games[waiting["id"]]["pace"] == "daily" and "deadline" not in games[waiting["id"]]
    item = games[started["id"]]
    view = (await ada.http.get(f"/api/games/{started['id']}")).json()
    assert (item["pace"], item["status"], item["deadline"]) == ("daily", "playing", view["turn_deadline"])
    assert 23 * HOUR_MS < ms_from_iso(item["deadline"]) - before_ms <= 24 * HOUR_MS + 60_000
