"""POST /api/games/{id}/rematch end to end, on real Redis and Postgres: the first player of a
finished game who asks creates the new game (201, seated at 0) and the others, told on the
finished game's socket, are seated at the same game; the fourth starts it. Bad requests get the
contract's error shapes."""

from __future__ import annotations

import pytest

from testing.players import Player, receive, seat_four
from testing.stack import real_stack
from testing.waiting import eventually

OPTIONS = {"target_score": 1, "napola": False, "asso_pigliatutto": True}


@pytest.fixture(scope="module")
def stack():
    """Turns and hand ends time out after 50 ms: a match nobody plays finishes in seconds."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.05", "HAND_ACK_TIMEOUT_SECONDS": "0.05"}) as running:
        yield running


@pytest.fixture
async def people(stack):
    made = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave", "erin")]
    yield made
    for player in made:
        await player.close()


async def _finished(player: Player, game_id: str) -> dict:
    async def over():
        view = (await player.http.get(f"/api/games/{game_id}")).json()
        return view if view["status"] == "finished" else None

    return await eventually(over, timeout=120)


async def test_the_players_of_a_finished_game_meet_again_in_one_new_game(people):
    alice, bob, carol, dave, _ = people
    finished = await seat_four(people[:4], OPTIONS)
    await _finished(alice, finished["id"])
    socket = await bob.socket(finished["id"], features="rematch")  # bob sits at the game-over screen
    try:
        await receive(socket, "game_over")
        response = await alice.http.post(f"/api/games/{finished['id']}/rematch")
        assert response.status_code == 201, response.text
        lobby = response.json()
        assert lobby["status"] == "lobby" and lobby["id"] != finished["id"]
        assert lobby["options"] == finished["options"] == {
            **OPTIONS, "player_entropy": False, "first_dealer": "drawn", "pace": "live"}
        assert lobby["players"] == [{"seat": 0, "name": "alice", "team": "A", "is_you": True,
                                     "player": await alice.player_id()}]
        assert lobby["seats_open"] == 3

        notice = await receive(socket, "rematch")
        assert notice == {"type": "rematch", "game_id": lobby["id"],
                          "join_code": lobby["join_code"], "by": "alice"}
    finally:
        await socket.close()

    again = await alice.http.post(f"/api/games/{finished['id']}/rematch", json={})
    assert again.status_code == 200 and again.json()["id"] == lobby["id"]
    for player, seats_open in ((carol, 2), (bob, 1)):
        joined = await player.http.post(f"/api/games/{finished['id']}/rematch")
        assert joined.status_code == 200, joined.text
        assert joined.json()["id"] == lobby["id"] and joined.json()["seats_open"] == seats_open
    last = await dave.http.post(f"/api/games/{finished['id']}/rematch")
    assert last.status_code == 200, last.text
    view = last.json()
    assert view["id"] == lobby["id"] and view["status"] in ("playing", "hand_end", "finished")
    # carol asked before bob, yet everyone sits where they sat: partners stay partners.
    assert [p["name"] for p in view["players"]] == ["alice", "bob", "carol", "dave"]
    assert view["you"] == 3


async def test_a_rematch_needs_a_finished_game_the_caller_sat_at(people, stack):
    alice, *_, erin = people
    finished = await seat_four(people[:4], OPTIONS)
    await _finished(alice, finished["id"])
    path = f"/api/games/{finished['id']}/rematch"

    async def refused(player: Player, url: str, status: int, detail: str, **kwargs) -> None:
        response = await player.http.post(url, **kwargs)
        assert (response.status_code, response.json()) == (status, {"detail": detail}), response.text

    await refused(erin, path, 403, "Not seated at this game")
    await refused(alice, "/api/games/6f1c0000-0000-4000-8000-000000000000/rematch", 404,
                  "Game not found")
    await refused(alice, "/api/games/not-a-game/rematch", 404, "Game not found")
    await refused(alice, path, 400, "Invalid JSON", content=b"{nope",
                  headers={"Content-Type": "application/json"})
    await refused(alice, path, 400, "Unknown field: colour", json={"colour": "red"})
    await refused(alice, path, 400, "Request body must be a JSON object", json=[1])
    await refused(alice, path, 415, "Content-Type must be application/json", content=b"x=1",
                  headers={"Content-Type": "application/x-www-form-urlencoded"})
    waiting = (await erin.http.post("/api/games", json={})).json()
    await refused(erin, f"/api/games/{waiting['id']}/rematch", 409, "The game is not finished")
    anonymous = Player(stack, "nobody")
    try:
        await refused(anonymous, path, 401, "Not authenticated")
    finally:
        await anonymous.close()
    get = await alice.http.get(path)
    assert get.status_code == 405 and get.json() == {"detail": "Method Not Allowed"}
    # None of the refusals made a game: the first real ask creates it.
    assert (await alice.http.post(path)).status_code == 201
