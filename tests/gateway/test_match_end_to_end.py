"""Whole matches through the gateway, on real Redis and Postgres, every component its own process.

Four people log in through the development OIDC provider, create a game, join by code, play a
whole match over four WebSockets to ``game_over``, and find it in their history. Another match
is left to the deadlines alone: with nobody connected it still finishes.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from testing.players import Player, play_until_over, receive, seat_four
from testing.stack import real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module")
def stack():
    """Real servers, the default timeouts: nothing times out while the players play."""
    with real_stack() as running:
        yield running


@pytest.fixture(scope="module")
def hurried_stack():
    """Real servers, turns and hand ends that time out after 50 ms."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.05", "HAND_ACK_TIMEOUT_SECONDS": "0.05"}) as running:
        yield running


async def test_four_players_play_a_whole_match_and_find_it_in_their_history(stack):
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        # To 21 without napola: no hand can end it, so hand ends are acknowledged over the
        # sockets and the next hands dealt.
        lobby = await seat_four(players, {"target_score": 21, "napola": False})
        sockets = [await p.socket(lobby["id"]) for p in players]
        hand_ends: list[list[dict]] = [[] for _ in sockets]
        overs = await asyncio.gather(*(play_until_over(s, False, seen)
                                       for s, seen in zip(sockets, hand_ends)))
        for seen in hand_ends:
            assert seen, "the match ended without a hand end"
            first = seen[0]
            assert first["last_hand"]["hand"] == 1 and first["hand_end_deadline"].endswith("Z")
            assert [p["name"] for p in first["players"]] == ["alice", "bob", "carol", "dave"]
            assert set(first["last_hand"]["teams"]) == {"A", "B"}
        # Acks were taken (the last of a hand's four deals the next one at once, so that seat
        # shows in no hand_end view of that hand), and no hand can end this match: more deals.
        acked = {seat for seen in hand_ends for view in seen for seat in view["acknowledged"]}
        assert len(acked) >= 3
        # After the end a move is refused, the socket stays open.
        await sockets[0].send(json.dumps({"action": "ack"}))
        assert (await receive(sockets[0], "error"))["code"] == "game_finished"
        for socket in sockets:
            await socket.close()
        assert len({json.dumps(o, sort_keys=True) for o in overs}) == 1
        over = overs[0]
        winner = over["winner"]
        assert winner in ("A", "B") and over["scores"][winner] > over["scores"]["AB".replace(winner, "")]

        final = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()
        assert final["status"] == "finished" and len(final["seed"]) == 64
        # A finished game leaves the players' lists of games to go back to.
        assert (await players[0].http.get("/api/me/games")).json() == {"games": []}
        log = (await players[1].http.get(f"/api/games/{lobby['id']}/log")).json()
        assert log["seed"] == final["seed"] and log["moves"][0]["number"] == 1
        assert not any(m["auto"] for m in log["moves"])  # every card was played by a player

        async def recorded():
            page = (await players[0].http.get("/api/me/matches")).json()
            return page["items"] if page["items"] else None

        (item,) = await eventually(recorded)
        assert item["id"] == lobby["id"] and item["result"]["winner"] == winner
        deltas = {p["name"]: p["elo_delta"] for p in item["players"]}
        won = {p["name"]: p["won"] for p in item["players"]}
        for name in deltas:
            assert deltas[name] == (16 if won[name] else -16)  # 1500 vs 1500: K/2 each way
        ratings = (await players[0].http.get("/api/me/ratings")).json()["ratings"]
        assert ratings == [{"game_type": "scopone_scientifico",
                            "rating": 1500 + deltas["alice"], "matches": 1}]
        board = (await players[0].http.get("/api/leaderboard")).json()
        top = board["entries"][0]
        assert top["rank"] == 1 and top["rating"] == 1516 and top["wins"] == 1

        # Once finished, the log is anyone's (a verifier's), not only the players'.
        outsider = await Player(stack, "mallory").login()
        try:
            public = await outsider.http.get(f"/api/games/{lobby['id']}/log")
            assert public.status_code == 200 and public.json()["seed"] == final["seed"]
        finally:
            await outsider.close()

        # Dave deletes his account: his row is anonymized, his rating gone, the log unchanged.
        assert (await players[3].http.delete("/api/me")).status_code == 204
        (item,) = (await players[0].http.get("/api/me/matches")).json()["items"]
        assert [p["name"] for p in item["players"]] == ["alice", "bob", "carol", "deleted player"]
        board = (await players[0].http.get("/api/leaderboard")).json()
        assert "dave" not in {entry["name"] for entry in board["entries"]}
        again = await Player(stack, "dave").login()
        try:
            assert (await again.http.get("/api/me/ratings")).json() == {"ratings": []}
            assert (await again.http.get("/api/me/matches")).json()["items"] == []
        finally:
            await again.close()
        assert (await players[1].http.get(f"/api/games/{lobby['id']}/log")).json() == log
    finally:
        for player in players:
            await player.close()


async def test_a_match_nobody_plays_finishes_on_the_deadlines_alone(hurried_stack):
    players = [await Player(hurried_stack, name).login() for name in ("erin", "frank", "grace", "heidi")]
    try:
        lobby = await seat_four(players, {"target_score": 1})

        async def finished():
            view = (await players[2].http.get(f"/api/games/{lobby['id']}")).json()
            return view if view["status"] == "finished" else None

        final = await eventually(finished, timeout=120)
        assert final["winner"] in ("A", "B")
        log = (await players[0].http.get(f"/api/games/{lobby['id']}/log")).json()
        plays = [m for m in log["moves"] if m["type"] != "ack"]
        assert plays and all(m["auto"] for m in plays)

        # A second match of theirs, then their history page by page through the gateway.
        second = await seat_four(players, {"target_score": 1})

        async def second_finished():
            view = (await players[2].http.get(f"/api/games/{second['id']}")).json()
            return view["status"] == "finished"

        await eventually(second_finished, timeout=120)

        async def both_recorded():
            page = (await players[0].http.get("/api/me/matches?limit=2")).json()
            return len(page["items"]) == 2

        await eventually(both_recorded)
        first_page = (await players[0].http.get("/api/me/matches?limit=1")).json()
        assert [m["id"] for m in first_page["items"]] == [second["id"]]  # newest first
        assert first_page["next_cursor"]
        next_page = (await players[0].http.get(
            "/api/me/matches", params={"limit": 1, "cursor": first_page["next_cursor"]})).json()
        assert [m["id"] for m in next_page["items"]] == [lobby["id"]]
        assert next_page["next_cursor"] is None
    finally:
        for player in players:
            await player.close()


async def test_a_socket_waiting_in_the_lobby_outlives_a_lobby_restart(stack):
    """The socket watches the lobby until the game starts; the lobby being down meanwhile
    (killed, then back) only delays the first state."""
    players = [await Player(stack, name).login() for name in ("ines", "jack", "kate", "liam")]
    try:
        lobby = (await players[0].http.post("/api/games")).json()
        async with await players[0].socket(lobby["id"]) as socket:
            stack.kill("lobby")
            await asyncio.sleep(1.5)  # the watch fails and is tried again meanwhile
            stack.restart("lobby")
            for player in players[1:]:
                async def joined(player=player):  # the gateway reconnects within 2 s
                    response = await player.http.post("/api/games/join",
                                                      json={"code": lobby["join_code"]})
                    return response.status_code == 200
                await eventually(joined, timeout=10)
            game = (await receive(socket, "state"))["game"]
            assert game["status"] == "playing" and game["you"] == 0
    finally:
        for player in players:
            await player.close()


async def test_a_code_holding_a_control_character_names_no_game(stack):
    """404 Game not found, as any code no game has; on Postgres, whose text cannot hold a NUL,
    not the lobby's refusal of the request (nor, before that, the driver's error: a 500)."""
    alice, bob = Player(stack, "alice"), Player(stack, "bob")
    await alice.login()
    await bob.login()
    try:
        code = (await alice.http.post("/api/games", json={})).json()["join_code"]
        # U+0085 alone: a control character, not a blank as JSON Schema's \s reads it (str.strip's)
        for bad in (f"{code}\x00", f"\x00{code}", f"{code[:3]}\x07{code[3:]}", "\x85"):
            joined = await bob.http.post("/api/games/join", json={"code": bad})
            assert (joined.status_code, joined.json()) == (404, {"detail": "Game not found"}), bad
            previewed = await bob.http.get("/api/games/preview", params={"code": bad})
            assert (previewed.status_code, previewed.json()) == (404, {"detail": "Game not found"}), bad
    finally:
        await alice.close()
        await bob.close()
