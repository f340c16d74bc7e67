"""The game WebSocket: refusals before the handshake, messages, errors, limits, many sockets per seat."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
import websockets

from game.scopone.rules import legal_plays
from testing.players import Player, receive, take_turn


async def _started_game(players) -> dict:
    alice = players[0]
    lobby = (await alice.http.post("/api/games")).json()
    for player in players[1:]:
        await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
    return lobby


async def _leader(players, lobby) -> int:
    """The seat that leads hand 1: the one after the dealer drawn from the seed."""
    view = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()
    return (view["dealer"] + 1) % 4


async def _refusal(player, game_id, origin=None) -> int:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await player.socket(game_id, origin=origin)
    return refused.value.response.status_code


async def test_refusals_happen_before_the_handshake(players, anonymous):
    lobby = await _started_game(players[:3])  # three seated: dave is not
    assert await _refusal(anonymous, lobby["id"]) == 401
    assert await _refusal(players[0], "00000000-0000-4000-8000-000000000000") == 404
    assert await _refusal(players[3], lobby["id"]) == 403
    assert await _refusal(players[0], lobby["id"], origin="https://evil.example") == 403


@pytest.mark.parametrize("game_id", ["%20", "%09", "%00"])
async def test_an_id_of_blanks_or_control_characters_is_refused_404_not_503(players, game_id):
    assert await _refusal(players[0], game_id) == 404


async def test_the_gateways_own_origin_is_accepted(players):
    lobby = await _started_game(players)
    socket = await players[0].socket(lobby["id"], origin=players[0].stack.gateway_url)
    async with socket:
        assert (await receive(socket, "state"))["game"]["id"] == lobby["id"]


async def test_state_on_connect_with_names_and_your_turn(players):
    lobby = await _started_game(players)
    leader = await _leader(players, lobby)
    async with await players[leader].socket(lobby["id"]) as socket:
        game = (await receive(socket, "state"))["game"]
    assert game["status"] == "playing" and game["you"] == leader and game["your_turn"] is True
    assert [p["name"] for p in game["players"]] == ["alice", "bob", "carol", "dave"]
    assert game["last_play"] is None and game["turn_deadline"].endswith("Z")


@pytest.mark.parametrize(("message", "code"), [
    ("not json", "bad_request"),
    ("[1]", "bad_request"),
    ('{"card": "07D"}', "bad_request"),
    ('{"action": "dance"}', "unknown_action"),
    ('{"action": "play", "card": "07D", "revision": "x"}', "bad_request"),
    ('{"action": "play", "card": "07D", "revision": -1}', "bad_request"),
    ('{"action": "play", "card": "07D", "revision": 9223372036854775808}', "bad_request"),
    ("[" * 2000 + "]" * 2000, "bad_request"),             # deeper than the decoder recurses
    ('{"action": "play", "card": "\\ud800"}', "bad_request"),  # a lone surrogate
    ('{"action": "ack"}', "illegal_move"),
])
async def test_bad_messages_get_an_error_and_the_socket_stays_open(players, message, code):
    lobby = await _started_game(players)
    async with await players[0].socket(lobby["id"]) as socket:
        before = (await receive(socket, "state"))["game"]
        await socket.send(message)
        error = await receive(socket)
        assert error["type"] == "error" and error["code"] == code and error["message"]
        if code == "unknown_action":
            assert error["message"] == ("Unknown action 'dance': expected 'play' or 'ack', "
                                        "or 'state' for the current view")
        await socket.send('{"action": "state"}')
        after = (await receive(socket, "state"))["game"]
    assert after["revision"] == before["revision"]


async def test_playing_out_of_turn_is_not_your_turn(players):
    lobby = await _started_game(players)
    waiting = players[(await _leader(players, lobby) + 1) % 4]
    async with await waiting.socket(lobby["id"]) as socket:
        game = (await receive(socket, "state"))["game"]
        await socket.send(json.dumps({"action": "play", "card": game["hand"][0]}))
        assert (await receive(socket))["code"] == "not_your_turn"


async def test_a_card_not_held_is_an_illegal_move(players):
    lobby = await _started_game(players)
    async with await players[await _leader(players, lobby)].socket(lobby["id"]) as socket:
        game = (await receive(socket, "state"))["game"]
        other = next(c for c in ("01D", "02D", "03D", "04D", "05D", "06D", "07D", "08D", "09D", "10D",
                                 "01C", "02C", "03C", "04C", "05C", "06C", "07C", "08C", "09C", "10C")
                     if c not in game["hand"])
        await socket.send(json.dumps({"action": "play", "card": other}))
        assert (await receive(socket))["code"] == "illegal_move"


async def test_a_stale_revision_is_a_concurrent_move(players):
    lobby = await _started_game(players)
    leader = await _leader(players, lobby)
    async with await players[leader].socket(lobby["id"]) as first, \
            await players[(leader + 1) % 4].socket(lobby["id"]) as second:
        seen = (await receive(second, "state"))["game"]
        game = (await receive(first, "state"))["game"]
        await first.send(json.dumps({"action": "play", "card": game["hand"][0],
                                     "revision": game["revision"]}))
        await receive(second, "state")  # the move landed
        await second.send(json.dumps({"action": "play", "card": seen["hand"][0],
                                      "revision": seen["revision"]}))
        assert (await receive(second, "error"))["code"] == "concurrent_move"


async def test_a_message_over_4096_bytes_closes_with_1009(players):
    lobby = await _started_game(players)
    async with await players[0].socket(lobby["id"]) as socket:
        await receive(socket, "state")
        await socket.send(json.dumps({"action": "state", "pad": "x" * 5000}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(socket)
    assert closed.value.rcvd.code == 1009


async def test_every_socket_of_every_seat_gets_each_update(players):
    lobby = await _started_game(players)
    leader = await _leader(players, lobby)
    sockets = [await players[leader].socket(lobby["id"]), await players[leader].socket(lobby["id"]),
               await players[(leader + 2) % 4].socket(lobby["id"])]
    try:
        first = [(await receive(s, "state"))["game"] for s in sockets]
        card = first[0]["hand"][0]
        await sockets[0].send(json.dumps({"action": "play", "card": card,
                                          "revision": first[0]["revision"]}))
        for socket in sockets:
            game = (await receive(socket, "state"))["game"]
            assert game["last_play"]["card"] == card and game["last_play"]["seat"] == leader
            assert game["revision"] > first[0]["revision"]
    finally:
        for socket in sockets:
            await socket.close()


async def test_a_socket_opened_in_the_lobby_gets_the_first_state_at_the_start(players):
    alice = players[0]
    lobby = (await alice.http.post("/api/games")).json()
    async with await alice.socket(lobby["id"]) as socket:
        await socket.send('{"action": "state"}')
        assert (await receive(socket, "error"))["code"] == "illegal_move"
        for player in players[1:]:
            await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
        game = (await receive(socket, "state"))["game"]
    assert game["status"] == "playing" and game["you"] == 0


async def test_ending_the_session_closes_its_sockets_and_the_others_see_the_erasure(stack):
    """DELETE /api/me (or a logout) ends the session: its sockets close at once (an idle one
    too: the session store announces it), and the other seats' views name "deleted player"."""
    players = [await Player(stack, name).login() for name in ("erin", "finn", "gwen", "hugh")]
    try:
        lobby = await _started_game(players)
        leader = await _leader(players, lobby)
        leading, erased = players[leader], players[(leader + 1) % 4]
        watching = await leading.socket(lobby["id"])
        acting = await erased.socket(lobby["id"])
        idle = await erased.socket(lobby["id"])
        for socket in (acting, idle):
            await receive(socket, "state")
        game = (await receive(watching, "state"))["game"]
        assert (await erased.http.delete("/api/me")).status_code == 204
        with contextlib.suppress(websockets.ConnectionClosed):  # the erasure may have closed it
            await acting.send('{"action": "state"}')
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(acting)
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "Session ended")
        card, capture = legal_plays(game["hand"], game["table"], False)[0]
        await watching.send(json.dumps({"action": "play", "card": card, "capture": capture}))
        game = (await receive(watching, "state"))["game"]
        assert game["revision"] == 1
        names = ["erin", "finn", "gwen", "hugh"]
        names[(leader + 1) % 4] = "deleted player"
        assert [p["name"] for p in game["players"]] == names
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await receive(idle)
        assert closed.value.rcvd.code == 1008
        await watching.close()
    finally:
        for player in players:
            await player.close()


async def test_a_null_revision_is_a_bad_request(players):
    lobby = await _started_game(players)
    async with await players[0].socket(lobby["id"]) as socket:
        await receive(socket, "state")
        await socket.send('{"action": "state", "revision": null}')
        error = await receive(socket)
    assert (error["type"], error["code"]) == ("error", "bad_request")


async def test_a_waiting_room_socket_gets_the_lobby_then_each_seat_then_the_state(players):
    alice, bob, carol, dave = players
    lobby = (await alice.http.post("/api/games")).json()
    async with await alice.socket(lobby["id"]) as socket:
        first = await receive(socket)
        assert first == {"type": "lobby", "game": lobby}
        for player, open_seats in ((bob, 2), (carol, 1)):
            await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
            update = await receive(socket)
            assert update["type"] == "lobby" and update["game"]["seats_open"] == open_seats
            assert update["game"]["players"][-1]["name"] == player.username
            assert update["game"]["players"][0]["is_you"] is True
        await dave.http.post("/api/games/join", json={"code": lobby["join_code"]})
        started = await receive(socket)
        assert started["type"] == "state" and started["game"]["status"] == "playing"
        leads = started["game"]["dealer"] == 3  # alice, at seat 0, leads when seat 3 dealt
        assert ("your_turn" in started["game"], "legal" in started["game"]) == (leads, leads)


async def test_a_late_seat_in_the_lobby_sees_who_sits_already(players):
    alice, bob = players[:2]
    lobby = (await alice.http.post("/api/games")).json()
    await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})
    async with await bob.socket(lobby["id"]) as socket:
        game = (await receive(socket, "lobby"))["game"]
        assert [(p["name"], p["is_you"]) for p in game["players"]] == [("alice", False),
                                                                       ("bob", True)]


async def test_a_socket_follows_its_player_to_another_seat_and_never_shows_another_hand(players):
    """bob opens his socket at seat 1, then sits at seat 3 in the waiting room; carol takes seat
    1. Over the whole match, bob's socket shows seat 3 and his own cards only, and the others
    see him connected there."""
    alice, bob, carol, dave = players
    lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1,
                                                                  "napola": False}})).json()
    code = lobby["join_code"]
    assert (await bob.http.post("/api/games/join", json={"code": code})).json()["players"][1]["name"] == "bob"
    bobs = await bob.socket(lobby["id"])
    assert (await receive(bobs, "lobby"))["game"]["players"][1]["is_you"] is True
    moved = await bob.http.post(f"/api/games/{lobby['id']}/seat", json={"seat": 3})
    assert moved.status_code == 200, moved.text
    lobby_now = (await receive(bobs, "lobby"))["game"]
    while [p["seat"] for p in lobby_now["players"] if p["is_you"]] != [3]:
        lobby_now = (await receive(bobs, "lobby"))["game"]
    for player in (carol, dave):
        assert (await player.http.post("/api/games/join", json={"code": code})).status_code == 200
    sockets = {"bob": bobs, **{p.username: await p.socket(lobby["id"]) for p in (alice, carol, dave)}}
    hands: dict[int, dict[str, list[str]]] = {}  # revision -> name -> hand shown
    others_see_bob: list[bool] = []

    async def play(name: str) -> None:
        socket = sockets[name]
        while (message := await receive(socket, timeout=30))["type"] != "game_over":
            if message["type"] != "state":
                continue
            game = message["game"]
            if name == "bob":
                assert game["you"] == 3 and game["players"][3]["is_you"], game["players"]
            else:
                others_see_bob.append(game["players"][3]["connected"])
            hands.setdefault(game["revision"], {})[name] = game["hand"]
            await take_turn(socket, game)

    try:
        await asyncio.gather(*(play(name) for name in sockets))
    finally:
        for socket in sockets.values():
            await socket.close()
    assert hands and all("bob" in shown for shown in hands.values())
    for revision, shown in hands.items():
        cards = [card for hand in shown.values() for card in hand]
        assert len(cards) == len(set(cards)), f"revision {revision}: a hand shown twice: {shown}"
    assert others_see_bob and all(others_see_bob)
    log = (await bob.http.get(f"/api/games/{lobby['id']}/log")).json()
    assert {m["seat"] for m in log["moves"] if m["type"] == "play"} == {f"seat:{i}" for i in range(4)}
