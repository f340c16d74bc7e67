"""Spectators end to end (CONTRACT.md, Spectators), on real Redis and Postgres, every component its
own process and two gateways: who may watch and every refusal, the public view by REST and by
the watch socket, the number of watchers across gateways as it changes, and whole matches where
no message a spectator or a player received holds a card of a hand before it was played.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
import websockets

from game.engine import Move
from game.scopone.engine import ScoponeEngine
from lobby.client import LobbyClient
from testing.players import Player, receive, seat_four
from testing.stack import real_stack
from testing.waiting import eventually

UNKNOWN = "00000000-0000-4000-8000-000000000000"
FORBIDDEN = {"detail": "This game does not allow spectators"}
_CARD = re.compile(r"\b(?:0[1-9]|10)[DCSB]\b")


@pytest.fixture(scope="module")
def stack():
    """Real servers and two gateways: a watcher counts wherever it watches from."""
    with real_stack(label="spectators", gateways=2) as running:
        yield running


@pytest.fixture
async def people(stack):
    """Four players and two members who watch."""
    made = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave", "eve", "frank")]
    yield made
    for person in made:
        await person.close()


async def _refusal(person: Player, game_id: str) -> int:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await person.watch(game_id)
    return refused.value.response.status_code


async def test_watching_a_game_that_forbids_it_is_refused(people, stack):
    alice, _, _, _, eve, _ = people
    created = await alice.http.post("/api/games", json={"spectators": False})
    assert created.status_code == 201
    game_id = created.json()["id"]
    for who in (eve, alice):  # a seated player neither: nobody watches it
        response = await who.http.get(f"/api/games/{game_id}/watch")
        assert (response.status_code, response.json()) == (403, FORBIDDEN)
        assert await _refusal(who, game_id) == 403
    # The player's own socket and view are as ever.
    assert (await alice.http.get(f"/api/games/{game_id}")).status_code == 200


async def test_every_refusal_of_the_watch(people, stack):
    alice, *_ = people
    anonymous = Player(stack, "nobody")
    try:
        game_id = (await alice.http.post("/api/games", json={})).json()["id"]
        response = await anonymous.http.get(f"/api/games/{game_id}/watch")
        assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
        assert await _refusal(anonymous, game_id) == 401
    finally:
        await anonymous.close()
    for unknown in (UNKNOWN, "nothing-here", "%20"):
        response = await alice.http.get(f"/api/games/{unknown}/watch")
        assert (response.status_code, response.json()) == (404, {"detail": "Game not found"})
        assert await _refusal(alice, unknown) == 404
    plain = await alice.http.get(f"/ws/games/{game_id}/watch")  # not an upgrade
    assert plain.status_code == 426


@pytest.mark.parametrize("body, detail", [
    ({"spectators": "no"}, "spectators must be a boolean"),
    ({"spectators": None}, "spectators must be a boolean"),
])
async def test_a_bad_spectators_option_is_a_clear_400(people, body, detail):
    response = await people[0].http.post("/api/games", json=body)
    assert (response.status_code, response.json()) == (400, {"detail": detail})


async def test_the_lobby_watched_has_no_join_code(people):
    alice, bob, _, _, eve, _ = people
    lobby = (await alice.http.post("/api/games", json={})).json()
    watched = await eve.http.get(f"/api/games/{lobby['id']}/watch")
    assert watched.status_code == 200
    body = watched.json()
    assert "join_code" not in body and body["status"] == "lobby" and body["id"] == lobby["id"]
    assert [p["is_you"] for p in body["players"]] == [False]
    socket = await eve.watch(lobby["id"])
    try:
        first = await receive(socket)
        assert first["type"] == "lobby" and "join_code" not in first["game"]
        await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})
        filled = await receive(socket, "lobby")
        assert [p["name"] for p in filled["game"]["players"]] == ["alice", "bob"]
        assert "join_code" not in filled["game"]
    finally:
        await socket.close()


async def test_a_spectators_move_is_an_unknown_action(people):
    players, eve = people[:4], people[4]
    lobby = await seat_four(players, {"target_score": 11})
    socket = await eve.watch(lobby["id"])
    try:
        state = await receive(socket, "state")
        assert state["game"]["status"] == "playing"
        for message in ({"action": "play", "card": "07D", "id": "m-1"}, {"action": "ack"},
                        {"action": "state"}, {"action": "takeback"}):
            await socket.send(json.dumps(message))
            error = await receive(socket, "error")
            assert error["code"] == "unknown_action" and error.get("id") == message.get("id")
        await socket.send("not json")
        assert (await receive(socket, "error"))["code"] == "bad_request"
        # Nothing was played: the revision is where it was.
        view = (await eve.http.get(f"/api/games/{lobby['id']}/watch")).json()
        assert view["revision"] == state["game"]["revision"]
    finally:
        await socket.close()


async def test_the_number_of_watchers_changes_live_across_gateways(people, stack):
    players, (eve, frank) = people[:4], people[4:]
    lobby = await seat_four(players, {"target_score": 11})
    game_id = lobby["id"]
    player_socket = await players[0].socket(game_id, features="spectators")
    plain_socket = await players[1].socket(game_id)  # asked for nothing: never a `spectators`
    watching = []
    try:
        assert (await receive(player_socket, "state"))["game"]["spectators"] == 0
        watching.append(await eve.watch(game_id, features="spectators"))
        assert await receive(player_socket, "spectators") == {"type": "spectators", "count": 1}
        # The same member twice, and another member on the other gateway.
        watching.append(await eve.watch(game_id, gateway_url=stack.gateway_urls[1]))
        watching.append(await frank.watch(game_id, gateway_url=stack.gateway_urls[1],
                                          features="spectators"))
        assert await receive(player_socket, "spectators") == {"type": "spectators", "count": 2}
        assert await receive(watching[2], "spectators") == {"type": "spectators", "count": 2}

        async def counted(expected: int):
            mine = (await players[0].http.get(f"/api/games/{game_id}")).json()["spectators"]
            public = (await frank.http.get(f"/api/games/{game_id}/watch")).json()["spectators"]
            return mine == public == expected
        await eventually(lambda: counted(2), what="the views never counted two watchers")
        await watching.pop(2).close()
        assert await receive(player_socket, "spectators") == {"type": "spectators", "count": 1}
        await eventually(lambda: counted(1), what="the views never counted one watcher")
        # A state after the change carries the new count, for players and spectators.
        await player_socket.send(json.dumps({"action": "state"}))
        assert (await receive(player_socket, "state"))["game"]["spectators"] == 1
        # The players' socket that asked for nothing got only the contract's types.
        await plain_socket.send(json.dumps({"action": "state"}))
        while True:
            message = await receive(plain_socket)
            assert message["type"] in ("state", "lobby", "game_over", "error")
            if message["type"] == "state" and message["game"]["spectators"] == 1:
                break
    finally:
        for socket in (player_socket, plain_socket, *watching):
            await socket.close()


def _states_by_revision(log: dict) -> dict[int, list[set[str]]]:
    """Every seat's hand after each move of a finished game's log (its seed revealed)."""
    engine = ScoponeEngine()
    state = engine.new_state(log["options"], bytes.fromhex(log["seed"]), 0)
    hands = {0: [set(hand) for hand in state["hands"]]}
    for move in log["moves"]:
        seat = int(move["seat"].rpartition(":")[2]) if move["seat"] else None
        state = engine.apply(state, Move(move["type"], seat, move["payload"], auto=move["auto"]),
                             move["number"])
        hands[move["number"]] = [set(hand) for hand in state["hands"]]
    return hands


def _check_no_unplayed_card(messages: list[dict], hands: dict[int, list[set[str]]],
                            seat: int | None) -> int:
    """Every card a message shows was played already, or (for a player) is in its own hand:
    none of another seat's hand at the message's revision. The number of states checked."""
    checked, revision = 0, 0
    for message in messages:
        game = message.get("game") if isinstance(message.get("game"), dict) else {}
        revision = game.get("revision", revision) if message["type"] == "state" else revision
        held = hands[revision]
        others = set().union(*(cards for index, cards in enumerate(held) if index != seat))
        shown = set(_CARD.findall(json.dumps(message)))
        assert not shown & others, (seat, revision, message)
        if message["type"] == "state":
            checked += 1
            if seat is None:
                assert not {"you", "hand", "legal", "your_turn", "join_code"} & set(game)
                assert not any(player["is_you"] for player in game["players"])
    return checked


async def _play_and_record(socket, record: list[dict]) -> None:
    """A seat's loop, keeping every message: plays the first legal card, acknowledges hand ends."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        record.append(message)
        if message["type"] == "game_over":
            return
        if message["type"] != "state":
            continue
        game = message["game"]
        if game.get("your_turn"):
            option = game["legal"][0]
            await socket.send(json.dumps({"action": "play", "card": option["card"],
                                          "capture": option["captures"][0],
                                          "revision": game["revision"]}))
        elif game["status"] == "hand_end" and game["you"] not in game["acknowledged"]:
            await socket.send(json.dumps({"action": "ack", "revision": game["revision"]}))


async def _watch_and_record(socket, record: list[dict]) -> None:
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 30))
        record.append(message)
        if message["type"] == "game_over":
            return


async def test_a_whole_match_watched_never_shows_a_card_before_it_is_played(people, stack):
    players, (eve, frank) = people[:4], people[4:]
    # To 3 without napola: a hand or two, hand ends acknowledged over the sockets.
    lobby = await seat_four(players, {"target_score": 3, "napola": False})
    game_id = lobby["id"]
    spectator = await eve.watch(game_id, features="presence,spectators,chat")
    other = await frank.watch(game_id, gateway_url=stack.gateway_urls[1])
    sockets = [await p.socket(game_id, features="presence,spectators") for p in players]
    seen: list[list[dict]] = [[] for _ in range(6)]
    try:
        await asyncio.gather(
            *(_play_and_record(s, record) for s, record in zip(sockets, seen[:4], strict=True)),
            _watch_and_record(spectator, seen[4]), _watch_and_record(other, seen[5]))
    finally:
        for socket in (*sockets, spectator, other):
            await socket.close()
    over = seen[0][-1]
    assert over["type"] == "game_over" and all(record[-1] == over for record in seen)  # the same for all
    log = (await eve.http.get(f"/api/games/{game_id}/log")).json()
    assert log["status"] == "finished"
    hands = _states_by_revision(log)
    for seat in range(4):
        assert _check_no_unplayed_card(seen[seat], hands, seat) > 0
    for record in seen[4:]:
        # The spectators saw every revision from their first state to the last, in order.
        revisions = [m["game"]["revision"] for m in record if m["type"] == "state"]
        assert revisions == list(range(revisions[0], log["revision"] + 1))
        assert _check_no_unplayed_card(record, hands, None) == len(revisions)
    statuses = {m["game"]["status"] for m in seen[4] if m["type"] == "state"}
    assert {"playing", "finished"} <= statuses
    # Once finished it is no longer live, and the watch still shows it.
    final = (await eve.http.get(f"/api/games/{game_id}/watch")).json()
    assert final["status"] == "finished" and final["revision"] == log["revision"]
    live = (await eve.http.get("/api/games/live", params={"limit": 50})).json()
    assert game_id not in {game["id"] for game in live["games"]}
    # The lobby learns it too (stats marks the game once it recorded the match), so finished
    # games no longer crowd the live ones out of its list; the game itself is kept.
    lobby_client = LobbyClient(stack.address("lobby"), credentials=stack.credentials)
    try:
        async def unlisted():
            return game_id not in {game.id for game in await lobby_client.list_watchable_games("", 200)}
        await eventually(unlisted, what="the lobby never learnt that the match finished")
        assert (await lobby_client.get_game(game_id)).started
    finally:
        await lobby_client.close()


async def test_the_live_games_are_started_unfinished_and_watchable(people):
    players, eve = people[:4], people[4]
    live_id = (await seat_four(players, {"target_score": 11}))["id"]
    forbidden = (await players[0].http.post("/api/games", json={"spectators": False})).json()
    for player in players[1:]:
        await player.http.post("/api/games/join", json={"code": forbidden["join_code"]})
    waiting = (await players[0].http.post("/api/games", json={})).json()
    socket = await eve.watch(live_id)
    try:
        await receive(socket, "state")

        async def listed():
            body = (await eve.http.get("/api/games/live", params={"game_type": "scopone_scientifico"})).json()
            item = next((game for game in body["games"] if game["id"] == live_id), None)
            return (body, item) if item is not None and item["spectators"] == 1 else None
        body, item = await eventually(listed, what="the watched game was never listed with its watcher")
    finally:
        await socket.close()
    ids = {game["id"] for game in body["games"]}
    assert forbidden["id"] not in ids and waiting["id"] not in ids
    assert item["status"] == "playing" and item["hand_number"] == 1 and item["scores"] == {"A": 0, "B": 0}
    assert item["rating"] == 1500 and item["updated_at"].endswith("Z") and item["game_type"] == "scopone_scientifico"
    assert [(p["seat"], p["name"], p["team"]) for p in item["players"]] == [
        (0, "alice", "A"), (1, "bob", "B"), (2, "carol", "A"), (3, "dave", "B")]
    assert all("bot" not in p for p in item["players"])
    player_ids = [(await player.http.get("/api/me")).json()["player"] for player in players]
    assert [p["player"] for p in item["players"]] == player_ids  # each person's public player id
    ratings = [game["rating"] for game in body["games"]]
    assert ratings == sorted(ratings, reverse=True)
    one = (await eve.http.get("/api/games/live", params={"limit": "1"})).json()
    assert len(one["games"]) == 1


@pytest.mark.parametrize("query, detail", [
    ("limit=0", "limit must be an integer from 1 to 50"),
    ("limit=51", "limit must be an integer from 1 to 50"),
    ("limit=x", "limit must be an integer from 1 to 50"),
    ("limit=", "limit must be an integer from 1 to 50"),
    ("limit=2&limit=3", "limit must be an integer from 1 to 50"),
    ("limit=%C2%B2", "limit must be an integer from 1 to 50"),
    ("game_type=chess", "Unknown game type: chess"),
])
async def test_a_bad_live_query_is_a_clear_400(people, query, detail):
    response = await people[4].http.get(f"/api/games/live?{query}")
    assert (response.status_code, response.json()) == (400, {"detail": detail})


async def test_the_live_games_need_a_login(stack):
    anonymous = Player(stack, "nobody")
    try:
        response = await anonymous.http.get("/api/games/live")
        assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
    finally:
        await anonymous.close()
