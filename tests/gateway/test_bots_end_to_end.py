"""Bots through the gateway, every component its own process on real Redis and Postgres.

One person plays a whole match against three bots; a person who leaves, or whose turns keep
timing out with no socket open, gets a bot in their seat and can take it back; the one person
of a practice match takes back their last play. Everything through CONTRACT.md's rows.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bots.catalogue import bot_name
from lobby.client import LobbyClient
from testing.players import Player, play_until_over, receive, seat_four, take_turn
from testing.prometheus import scrape
from testing.stack import real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module")
def stack():
    """Turns that time out after 0.3 s and a bot takeover after two of them."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.3", "HAND_ACK_TIMEOUT_SECONDS": "0.3",
                     "ABANDON_AFTER_TIMEOUTS": "2"}, label="bots") as running:
        yield running


@pytest.fixture(scope="module")
def thinking_stack():
    """Bots that think for 5 s: time for the practice take-back of a play."""
    with real_stack({"BOT_THINK_MS": "5000"}, label="bots-think") as running:
        yield running


async def _alone_against_bots(player: Player, level: str, options: dict) -> dict:
    lobby = (await player.http.post("/api/games", json={"options": options})).json()
    for seat in (1, 2):
        response = await player.http.post(f"/api/games/{lobby['id']}/bots",
                                          json={"seat": seat, "level": level})
        assert response.status_code == 200 and response.json()["status"] == "lobby"
    last = await player.http.post(f"/api/games/{lobby['id']}/bots", json={"seat": 3, "level": level})
    assert last.status_code == 200, last.text
    return last.json()


async def test_one_person_plays_a_whole_match_against_three_bots(stack):
    alice = await Player(stack, "alice").login()
    try:
        types = (await alice.http.get("/api/game-types")).json()
        assert types[0]["bot_levels"] == [{"id": "principiante", "name": "Beginner"},
                                          {"id": "esperto", "name": "Expert"},
                                          {"id": "maestro", "name": "Master"}]
        game = await _alone_against_bots(alice, "esperto", {"target_score": 1, "napola": False})
        assert game["status"] == "playing"
        assert [(p["name"], p.get("bot"), p["connected"]) for p in game["players"]] == [
            ("alice", None, False), *((bot_name(game["id"], seat), "esperto", True) for seat in (1, 2, 3))]
        assert len({p["name"] for p in game["players"]}) == 4  # each bot a name of its own
        socket = await alice.socket(game["id"])
        first = await receive(socket, "state")
        assert first["game"]["players"][0]["connected"] is True
        over = await play_until_over(socket, False)
        assert over["winner"] in ("A", "B")
        log = (await alice.http.get(f"/api/games/{game['id']}/log")).json()
        plays = [m for m in log["moves"] if m["type"] == "play"]
        assert {m["seat"] for m in plays} == {"seat:0", "seat:1", "seat:2", "seat:3"}
        assert all(not m["auto"] for m in plays)  # bots play, they are not timed out
        # The bots watched on the live link (WatchTable of their seat, on their Relay stream),
        # never with WatchViews.
        game_metrics = await scrape(stack, "game")
        assert game_metrics.value("rpc_server_call_duration_seconds_count",
                                  rpc_method="tavolo.game.v1.GameService/GetLog") > 0  # counted
        assert not game_metrics.has("rpc_server_call_duration_seconds_count",
                                    rpc_method="tavolo.game.v1.GameService/WatchViews")
        await socket.close()
        # A practice match is recorded unrated, and the lobby learns that its table finished.
        lobby = LobbyClient(stack.address("lobby"), credentials=stack.credentials)
        try:
            async def unlisted():
                return game["id"] not in {g.id for g in await lobby.list_watchable_games("", 200)}
            await eventually(unlisted, what="the lobby never learnt that the practice match finished")
        finally:
            await lobby.close()
    finally:
        await alice.close()


@pytest.fixture
async def waiting_pair(stack):
    """alice's new game in the lobby, with bob seated at it: (alice, bob, the lobby)."""
    alice, bob = await Player(stack, "alice").login(), await Player(stack, "bob").login()
    try:
        lobby = (await alice.http.post("/api/games", json={})).json()
        await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})
        yield alice, bob, lobby
    finally:
        await alice.close()
        await bob.close()


async def test_bot_rows_refuse_bad_input_with_the_contracts_errors(stack, waiting_pair):
    alice, bob, lobby = waiting_pair
    bots = f"/api/games/{lobby['id']}/bots"
    cases = [
        (bob, {"seat": 2, "level": "esperto"}, 403, "Only the creator can seat a bot"),
        (alice, {"seat": 1, "level": "esperto"}, 409, "Seat taken"),
        (alice, {"seat": 7, "level": "esperto"}, 409, "Seat taken"),
        (alice, {"seat": 2, "level": "campione"}, 422, "Unknown bot level: campione"),
        (alice, {"seat": "2", "level": "esperto"}, 400, "seat must be an integer"),
        (alice, {"seat": 2}, 400, "seat and level are required"),
        (alice, {"seat": 2, "level": "esperto", "extra": 1}, 400, "Unknown field: extra"),
    ]
    for who, body, status, detail in cases:
        response = await who.http.post(bots, json=body)
        assert (response.status_code, response.json()) == (status, {"detail": detail}), body
    bad_json = await alice.http.post(bots, content=b"{", headers={"content-type": "application/json"})
    assert (bad_json.status_code, bad_json.json()) == (400, {"detail": "Invalid JSON"})
    missing = await alice.http.delete(f"{bots}/3")
    assert (missing.status_code, missing.json()) == (404, {"detail": "No bot at that seat"})
    assert (await alice.http.post(f"/api/games/{lobby['id']}/return")).json() == {
        "detail": "Seat not taken over"}
    outsider = await Player(stack, "erin").login()
    try:
        response = await outsider.http.post(f"/api/games/{lobby['id']}/leave")
        assert (response.status_code, response.json()) == (403, {"detail": "Not seated at this game"})
    finally:
        await outsider.close()
    seat = f"/api/games/{lobby['id']}/seat"
    for body, status, detail in (({"seat": 0}, 409, "Seat taken"), ({"seat": 9}, 409, "Seat taken"),
                                 ({}, 400, "seat is required"),
                                 ({"seat": True}, 400, "seat must be an integer")):
        response = await bob.http.post(seat, json=body)
        assert (response.status_code, response.json()) == (status, {"detail": detail}), body
    moved = await bob.http.post(seat, json={"seat": 3})
    assert [p["seat"] for p in moved.json()["players"]] == [0, 3]
    # bob leaves the lobby: his seat is free again, alice is still the creator.
    assert (await bob.http.post(f"/api/games/{lobby['id']}/leave")).json() == {"left": True}
    seated = (await alice.http.get(f"/api/games/{lobby['id']}")).json()
    assert [p["seat"] for p in seated["players"]] == [0] and seated["seats_open"] == 3
    for seat in (1, 2, 3):
        await alice.http.post(bots, json={"seat": seat, "level": "principiante"})
    started = await alice.http.post(bots, json={"seat": 1, "level": "esperto"})
    assert (started.status_code, started.json()) == (409, {"detail": "Game already started"})
    removed = await alice.http.delete(f"{bots}/1")
    assert (removed.status_code, removed.json()) == (409, {"detail": "Game already started"})


# Beyond int32, uint32, int64 and any fixed width: none fits the lobby's seat field.
HUGE_SEATS = (2**31, -(2**31) - 1, 2**32, 2**63, -(2**64), 10**30)


async def test_a_seat_beyond_any_integer_field_is_seat_taken_never_a_500(waiting_pair):
    alice, bob, lobby = waiting_pair
    bots, seat = f"/api/games/{lobby['id']}/bots", f"/api/games/{lobby['id']}/seat"
    for huge in HUGE_SEATS:
        cases = [(alice, bots, {"seat": huge, "level": "esperto"}, 409, "Seat taken"),
                 (bob, seat, {"seat": huge}, 409, "Seat taken"),
                 # the lobby's other checks still come first
                 (bob, bots, {"seat": huge, "level": "esperto"}, 403,
                  "Only the creator can seat a bot")]
        for who, path, body, status, detail in cases:
            response = await who.http.post(path, json=body)
            assert (response.status_code, response.json()) == (status, {"detail": detail}), body
    unknown = "/api/games/00000000-0000-4000-8000-000000000000/seat"
    response = await bob.http.post(unknown, json={"seat": 2**31})
    assert (response.status_code, response.json()) == (404, {"detail": "Game not found"})
    for path_seat in ("\u00b2", "9" * 5000, "0003"):  # int() fails on the first two
        response = await alice.http.delete(f"{bots}/{path_seat}")
        assert (response.status_code, response.json()) == (404, {"detail": "No bot at that seat"})
    seated = (await alice.http.get(f"/api/games/{lobby['id']}")).json()
    assert [p["seat"] for p in seated["players"]] == [0, 1]


async def test_a_leaver_is_replaced_by_a_bot_and_takes_the_seat_back(stack):
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        lobby = await seat_four(players, {"target_score": 21, "napola": False})  # outlasts the test
        alice_socket = await players[0].socket(lobby["id"])
        await receive(alice_socket, "state")
        left = await players[1].http.post(f"/api/games/{lobby['id']}/leave")
        assert (left.status_code, left.json()) == (200, {"left": True})

        async def shows_bob_replaced() -> dict:
            while True:
                game = (await receive(alice_socket, "state"))["game"]
                bob = game["players"][1]
                if bob.get("took_over"):
                    return bob

        bob = await asyncio.wait_for(shows_bob_replaced(), 30)
        assert (bob["name"], bob["bot"], bob["connected"]) == ("bob", "esperto", True)
        back = await players[1].http.post(f"/api/games/{lobby['id']}/return")
        assert back.status_code == 200, back.text
        view = back.json()
        assert "took_over" not in view["players"][1] and "bot" not in view["players"][1]
        assert view["you"] == 1
        await alice_socket.close()
    finally:
        for player in players:
            await player.close()


async def test_an_offline_player_whose_turns_time_out_is_taken_over_and_the_match_ends(stack):
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        lobby = await seat_four(players, {"target_score": 1, "napola": False})
        # bob never opens his socket: the others see him offline, then a bot in his seat.
        sockets = [await players[i].socket(lobby["id"]) for i in (0, 2, 3)]
        first = (await receive(sockets[0], "state"))["game"]
        assert first["players"][1]["connected"] is False
        seen: list[dict] = []

        async def play_and_watch(socket) -> dict:
            while True:
                message = await receive(socket, timeout=30)
                if message["type"] == "game_over":
                    return message
                if message["type"] != "state":
                    continue
                game = message["game"]
                seen.append(game["players"][1])
                await take_turn(socket, game)

        overs = await asyncio.gather(*(play_and_watch(s) for s in sockets))
        assert overs[0]["type"] == "game_over"
        taken = [p for p in seen if p.get("took_over")]
        assert taken and taken[-1]["bot"] == "esperto" and taken[-1]["name"] == "bob"
        log = (await players[0].http.get(f"/api/games/{lobby['id']}/log")).json()
        bob_moves = [m for m in log["moves"] if m["seat"] == "seat:1" and m["type"] in ("play", "auto_play")]
        assert [m["auto"] for m in bob_moves[:2]] == [True, True]  # two timeouts, then the bot
        assert any(not m["auto"] for m in bob_moves[2:])
        for socket in sockets:
            await socket.close()
    finally:
        for player in players:
            await player.close()


async def test_the_one_person_of_a_practice_match_takes_back_a_play(thinking_stack):
    alice = await Player(thinking_stack, "alice").login()
    try:
        game = await _alone_against_bots(alice, "principiante", {})
        socket = await alice.socket(game["id"])
        state = (await receive(socket, "state"))["game"]
        while not state.get("your_turn"):  # the bots before alice play first (the dealer is drawn)
            state = (await receive(socket, "state"))["game"]
        assert state["hand_number"] == 1
        option = state["legal"][0]
        await socket.send(json.dumps({"action": "play", "card": option["card"],
                                      "capture": option["captures"][0]}))
        played = (await receive(socket, "state"))["game"]
        assert option["card"] not in played["hand"] and played["turn"] == 1
        await socket.send(json.dumps({"action": "takeback"}))
        back = (await receive(socket, "state"))["game"]
        assert back["hand"] == state["hand"] and back["your_turn"] and back["revision"] > played["revision"]
        await socket.send(json.dumps({"action": "takeback"}))  # nothing of mine to take back now
        assert (await receive(socket, "error"))["code"] == "illegal_move"
        await socket.close()
    finally:
        await alice.close()


async def test_a_take_back_is_refused_where_other_people_play(stack):
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        lobby = await seat_four(players, {})
        socket = await players[0].socket(lobby["id"])
        await receive(socket, "state")
        await socket.send(json.dumps({"action": "takeback"}))
        error = await receive(socket, "error")
        assert error["code"] == "illegal_move"
        await socket.close()
    finally:
        for player in players:
            await player.close()


CONTRACT_TYPES = {"lobby", "state", "game_over", "error"}


async def test_a_socket_without_features_meets_only_the_contracts_four_types(stack):
    """A client written to CONTRACT.md alone, over a whole match with a leave, a return, a
    take-over and a rematch, never meets a message type it did not ask for; a socket that asks
    for ``presence`` and ``rematch`` gets them."""
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    alice, bob, carol, dave = players
    try:
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1,
                                                                      "napola": False}})).json()
        game_id, code = lobby["id"], lobby["join_code"]
        plain = {"alice": await alice.socket(game_id)}
        for player in (bob, carol):
            assert (await player.http.post("/api/games/join", json={"code": code})).status_code == 200
            plain[player.username] = await player.socket(game_id)
        featured = await carol.socket(game_id, features="presence,rematch,unknown")
        # dave joins and never opens a socket: his turns time out and a bot takes his seat over.
        assert (await dave.http.post("/api/games/join", json={"code": code})).status_code == 200
        seen: dict[str, list[dict]] = {name: [] for name in (*plain, "featured")}

        async def play(name: str, socket, until_turn: bool = False) -> None:
            """Record and play until game over (or, with until_turn, until it is our turn)."""
            while True:
                message = await receive(socket, timeout=30)
                seen[name].append(message)
                if message["type"] == "game_over":
                    return
                if message["type"] != "state":
                    continue
                if until_turn and message["game"].get("your_turn"):
                    return
                await take_turn(socket, message["game"])

        async def bob_leaves_and_returns() -> None:
            await play("bob", plain["bob"], until_turn=True)
            left = await bob.http.post(f"/api/games/{game_id}/leave")
            assert (left.status_code, left.json()) == (200, {"left": True})
            await plain["bob"].close()  # his page went to the start page: seat 1 goes offline
            back = await bob.http.post(f"/api/games/{game_id}/return")
            assert back.status_code == 200, back.text
            plain["bob"] = await bob.socket(game_id)
            await play("bob", plain["bob"])

        await plain["alice"].send("not json")  # an error is one of the four
        await asyncio.gather(play("alice", plain["alice"]), bob_leaves_and_returns(),
                             play("carol", plain["carol"]), play("featured", featured))
        rematch = await alice.http.post(f"/api/games/{game_id}/rematch")
        assert rematch.status_code == 201, rematch.text
        seen["featured"].append(await receive(featured, "rematch"))
        # What the notice queued for the plain sockets, if anything, comes before this answer.
        for name, socket in plain.items():
            await socket.send(json.dumps({"action": "state"}))
            while (message := await receive(socket))["type"] != "state" or \
                    message["game"]["status"] != "finished":
                seen[name].append(message)
            seen[name].append(message)

        for name in plain:
            types = {message["type"] for message in seen[name]}
            assert types <= CONTRACT_TYPES, (name, types - CONTRACT_TYPES)
        assert {"lobby", "state", "game_over", "error"} <= {m["type"] for m in seen["alice"]}
        featured_types = {message["type"] for message in seen["featured"]}
        assert {"presence", "rematch"} <= featured_types
        states = [m["game"] for m in seen["featured"] if m["type"] == "state"]
        assert any(p.get("took_over") for s in states for p in s["players"] if p["seat"] == 3)
        for socket in (*plain.values(), featured):
            await socket.close()
    finally:
        for player in players:
            await player.close()
