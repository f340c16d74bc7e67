"""Spectators on the in-memory stores (no REDIS_URL, no DATABASE_URL): the lobby keeps the option
and lists the watchable games, the gateway counts its watchers in its memory."""

from __future__ import annotations

import json

from testing.players import Player, receive
from testing.waiting import eventually


async def test_a_game_watched_from_its_lobby_to_its_start_in_memory(stack, players):
    alice, *others = players
    eve = await Player(stack, "eve").login()
    try:
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 11}})).json()
        player = await alice.socket(lobby["id"], features="spectators")
        await receive(player, "lobby")
        watching = await eve.watch(lobby["id"], features="spectators")
        try:
            first = await receive(watching, "lobby")
            assert "join_code" not in first["game"]
            assert await receive(player, "spectators") == {"type": "spectators", "count": 1}
            for other in others:
                await other.http.post("/api/games/join", json={"code": lobby["join_code"]})
            state = (await receive(watching, "state"))["game"]
            assert state["status"] == "playing" and "hand" not in state and state["spectators"] == 1
            assert all(p["card_count"] == 10 for p in state["players"])
            await watching.send(json.dumps({"action": "play", "card": "01D"}))
            assert (await receive(watching, "error"))["code"] == "unknown_action"

            async def listed():
                games = (await eve.http.get("/api/games/live")).json()["games"]
                return next((g for g in games if g["id"] == lobby["id"] and g["spectators"] == 1), None)
            item = await eventually(listed, what="the started game was never listed")
            assert item["status"] == "playing" and [p["name"] for p in item["players"]] == [
                "alice", "bob", "carol", "dave"]
            mine = (await alice.http.get(f"/api/games/{lobby['id']}")).json()
            assert mine["spectators"] == 1 and "hand" in mine
        finally:
            await watching.close()
            await player.close()
        forbidden = (await alice.http.post("/api/games", json={"spectators": False})).json()
        refused = await eve.http.get(f"/api/games/{forbidden['id']}/watch")
        assert (refused.status_code, refused.json()) == (403, {"detail": "This game does not allow spectators"})
    finally:
        await eve.close()
