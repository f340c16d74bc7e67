"""Finding a table through the gateway, as a client that knows only the contract: open games,
their event stream, quick match, opening and closing a game, and every bad input."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from testing.players import Player


@pytest.fixture
async def people(stack):
    """Four logged-in members of this test alone (open games outlive a test in the stack)."""
    made = [await Player(stack, f"{name}-{uuid.uuid4().hex[:6]}").login()
            for name in ("ada", "ben", "cat", "dan")]
    yield made
    for person in made:
        await person.close()


def _options(target: int) -> dict:
    """A test's own options, so that its quick matches meet only its own games."""
    return {"target_score": target}


async def _open_ids(person: Player, query: str = "") -> list[str]:
    response = await person.http.get(f"/api/games/open{query}")
    assert response.status_code == 200
    return [game["id"] for game in response.json()["games"]]


async def test_an_open_game_is_listed_for_anyone_with_its_rules_players_and_rating(people):
    ada, ben = people[:2]
    private = (await ada.http.post("/api/games", json={})).json()
    created = await ada.http.post("/api/games", json={"options": _options(7), "open": True})
    assert created.status_code == 201 and created.json()["open"] is True
    assert private["open"] is False
    listed = (await ben.http.get("/api/games/open")).json()["games"]
    item = next(game for game in listed if game["id"] == created.json()["id"])
    assert item == {
        "id": created.json()["id"], "game_type": "scopone_scientifico",
        "join_code": created.json()["join_code"], "status": "lobby",
        "players": [{"seat": 0, "name": ada.username, "team": "A", "is_you": False,
                     "player": await ada.player_id()}],
        "seats_open": 3, "your_turn": False, "updated_at": created.json()["created_at"], "pace": "live",
        "options": {"target_score": 7, "napola": True, "asso_pigliatutto": False, "player_entropy": False,
                    "first_dealer": "drawn", "pace": "live"},
        "rating": 1500,
    }
    assert private["id"] not in {game["id"] for game in listed}
    assert created.json()["id"] in await _open_ids(ben, "?game_type=scopone_scientifico")
    joined = await ben.http.post("/api/games/join", json={"code": item["join_code"]})
    assert joined.status_code == 200 and [p["is_you"] for p in joined.json()["players"]] == [False, True]


async def test_an_unknown_game_type_filter_is_400(people):
    for path in ("/api/games/open?game_type=chess", "/api/games/open/events?game_type=chess"):
        response = await people[0].http.get(path)
        assert (response.status_code, response.json()) == (400, {"detail": "Unknown game type: chess"})


async def test_play_now_opens_a_game_then_seats_the_next_people_until_it_starts(people):
    options = _options(9)
    first = await people[0].http.post("/api/games/quick", json={"options": options})
    assert first.status_code == 201
    lobby = first.json()
    assert (lobby["status"], lobby["open"], lobby["seats_open"]) == ("lobby", True, 3)
    again = await people[0].http.post("/api/games/quick", json={"options": options})
    assert (again.status_code, again.json()["id"], again.json()["seats_open"]) == (200, lobby["id"], 3)
    for person in people[1:3]:
        seated = await person.http.post("/api/games/quick", json={"options": options})
        assert (seated.status_code, seated.json()["id"]) == (200, lobby["id"])
    last = await people[3].http.post("/api/games/quick", json={"game_type": "scopone_scientifico",
                                                               "options": options})
    assert last.status_code == 200
    view = last.json()
    assert (view["id"], view["status"], view["you"]) == (lobby["id"], "playing", 3)
    assert lobby["id"] not in await _open_ids(people[0])


async def test_a_member_has_at_most_five_open_games_waiting(people):
    ada = people[0]
    for _ in range(5):
        assert (await ada.http.post("/api/games", json={"open": True})).status_code == 201
    refused = await ada.http.post("/api/games", json={"open": True})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Too many open games"})
    refused = await ada.http.post("/api/games/quick", json={"options": _options(13)})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Too many open games"})
    private = (await ada.http.post("/api/games", json={})).json()
    refused = await ada.http.post(f"/api/games/{private['id']}/open", json={"open": True})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Too many open games"})


async def test_the_creator_opens_and_closes_a_waiting_game(people):
    ada, ben = people[:2]
    game = (await ada.http.post("/api/games", json={})).json()
    await ben.http.post("/api/games/join", json={"code": game["join_code"]})
    opened = await ada.http.post(f"/api/games/{game['id']}/open", json={"open": True})
    assert (opened.status_code, opened.json()["open"]) == (200, True)
    assert game["id"] in await _open_ids(ben)
    refused = await ben.http.post(f"/api/games/{game['id']}/open", json={"open": False})
    assert (refused.status_code, refused.json()) == (
        403, {"detail": "Only the creator can open or close the game"})
    closed = await ada.http.post(f"/api/games/{game['id']}/open", json={"open": False})
    assert (closed.status_code, closed.json()["open"]) == (200, False)
    assert game["id"] not in await _open_ids(ben)


@pytest.mark.parametrize(("body", "status", "detail"), [
    (b'{"open": "yes"}', 400, "open must be a boolean"),
    (b'{"open": true, "why": 1}', 400, "Unknown field: why"),
    (b'{}', 400, "open is required"),
    (b'{not json', 400, "Invalid JSON"),
])
async def test_opening_refuses_bad_bodies(people, body, status, detail):
    game = (await people[0].http.post("/api/games", json={})).json()
    response = await people[0].http.post(f"/api/games/{game['id']}/open", content=body,
                                         headers={"content-type": "application/json"})
    assert (response.status_code, response.json()) == (status, {"detail": detail})


async def test_opening_a_game_one_is_not_seated_at_or_that_is_gone(people):
    game = (await people[0].http.post("/api/games", json={})).json()
    response = await people[1].http.post(f"/api/games/{game['id']}/open", json={"open": True})
    assert (response.status_code, response.json()) == (403, {"detail": "Not seated at this game"})
    response = await people[1].http.post(f"/api/games/{uuid.uuid4()}/open", json={"open": True})
    assert (response.status_code, response.json()) == (404, {"detail": "Game not found"})
    response = await people[1].http.get(f"/api/games/{game['id']}/open")
    assert response.status_code == 405


@pytest.mark.parametrize(("body", "status", "detail"), [
    (b'{"game_type": "chess"}', 400, "Unknown game type: chess"),
    (b'{"game_type": 7}', 400, "game_type must be a string"),
    (b'{"options": 5}', 422, "Invalid options: options must be an object"),
    (b'{"options": {"target_score": 0}}', 422, None),
    (b'{"level": "x"}', 400, "Unknown field: level"),
    (b'[]', 400, "Request body must be a JSON object"),
])
async def test_quick_match_refuses_bad_bodies(people, body, status, detail):
    response = await people[0].http.post("/api/games/quick", content=body,
                                         headers={"content-type": "application/json"})
    assert response.status_code == status
    if detail is None:
        assert response.json()["detail"].startswith("Invalid options: ")
    else:
        assert response.json() == {"detail": detail}


async def test_the_event_stream_sends_the_list_at_once_and_when_it_changes(people):
    ada, ben = people[:2]

    async def events(stream):
        """The data of each open_games event of the stream."""
        name = None
        async for line in stream.aiter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: ") and name == "open_games":
                yield json.loads(line.removeprefix("data: "))

    async with ben.http.stream("GET", "/api/games/open/events?game_type=scopone_scientifico",
                               timeout=30) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        received = events(stream)
        first = await asyncio.wait_for(anext(received), 20)
        assert isinstance(first["games"], list)
        created = (await ada.http.post("/api/games", json={"open": True, "options": _options(17)})).json()

        async def listed_with(predicate):
            while True:
                body = await anext(received)
                game = next((g for g in body["games"] if g["id"] == created["id"]), None)
                if predicate(game):
                    return game

        game = await asyncio.wait_for(listed_with(lambda g: g is not None), 20)
        assert game["players"][0]["name"] == ada.username and game["players"][0]["is_you"] is False
        await ada.http.post(f"/api/games/{created['id']}/open", json={"open": False})
        await asyncio.wait_for(listed_with(lambda g: g is None), 20)
