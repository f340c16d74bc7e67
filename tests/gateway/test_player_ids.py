"""The public player id end to end (CONTRACT.md "Players, following, invitations, blocking"):
GET /api/me, and every human players item (lobby, socket, game view, preview, /api/me/games,
open games) carries the member's ``player``; bots carry none; erasure makes the id unknown."""

from __future__ import annotations

import re

from lobby.client import LobbyClient
from testing.players import Player, receive

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,}")


async def _me(player: Player) -> str:
    response = await player.http.get("/api/me")
    assert response.status_code == 200, response.text
    return response.json()["player"]


def _players(body: dict) -> list[str | None]:
    return [item.get("player") for item in body["players"]]


async def test_the_player_id_is_stable_opaque_and_ones_own(stack, players):
    alice, bob = players[0], players[1]
    first = await _me(alice)
    assert PLAYER_ID.fullmatch(first) and "alice" not in first.lower()
    again = await Player(stack, "alice").login()  # another session, another login
    try:
        assert await _me(again) == first
    finally:
        await again.close()
    assert await _me(bob) not in (first, "")


async def test_every_human_players_item_carries_the_player_id_and_bots_none(players):
    alice, bob, carol, _ = players
    ids = [await _me(person) for person in (alice, bob, carol)]

    created = await alice.http.post("/api/games", json={"open": True})
    assert created.status_code == 201, created.text
    lobby = created.json()
    assert _players(lobby) == [ids[0]]
    joined = (await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})).json()
    assert _players(joined) == ids[:2]
    added = await alice.http.post(f"/api/games/{lobby['id']}/bots", json={"seat": 2, "level": "esperto"})
    assert added.status_code == 200, added.text
    assert _players(added.json()) == [*ids[:2], None]

    preview = (await carol.http.get(f"/api/games/preview?code={lobby['join_code']}")).json()
    assert _players(preview) == [*ids[:2], None]
    listed = [g for g in (await carol.http.get("/api/games/open")).json()["games"] if g["id"] == lobby["id"]]
    assert [_players(g) for g in listed] == [[*ids[:2], None]]
    mine = [g for g in (await bob.http.get("/api/me/games")).json()["games"] if g["id"] == lobby["id"]]
    assert [_players(g) for g in mine] == [[*ids[:2], None]]

    socket = await bob.socket(lobby["id"])
    try:
        waiting = await receive(socket, "lobby")
        assert _players(waiting["game"]) == [*ids[:2], None]
        started = (await carol.http.post("/api/games/join", json={"code": lobby["join_code"]})).json()
        assert _players(started) == [ids[0], ids[1], None, ids[2]]
        state = await receive(socket, "state")
        assert _players(state["game"]) == [ids[0], ids[1], None, ids[2]]
    finally:
        await socket.close()
    view = (await alice.http.get(f"/api/games/{lobby['id']}")).json()
    assert _players(view) == [ids[0], ids[1], None, ids[2]]


async def test_erasure_makes_the_player_id_unknown(stack):
    erin, frank = await Player(stack, "erin").login(), await Player(stack, "frank").login()
    lobby = LobbyClient(stack.address("lobby"), credentials=stack.credentials)
    try:
        erased = await _me(erin)
        kept = await _me(frank)
        game = (await erin.http.post("/api/games")).json()
        await frank.http.post("/api/games/join", json={"code": game["join_code"]})
        assert [p.player for p in await lobby.get_players([erased, kept])] == [erased, kept]

        assert (await erin.http.delete("/api/me")).status_code == 204

        assert [p.player for p in await lobby.get_players([erased, kept])] == [kept]
        seen = (await frank.http.get(f"/api/games/{game['id']}")).json()
        (gone, gone_id), (name, frank_id) = [(p["name"], p.get("player")) for p in seen["players"]]
        assert (gone, name, frank_id) == ("deleted player", "frank", kept)
        # CONTRACT: every person's item has a player id; the erased seat's is nobody's.
        assert gone_id and re.fullmatch(r"[A-Za-z0-9_-]{16,}", gone_id) and gone_id != erased
        assert (await frank.http.get(f"/api/players/{gone_id}")).status_code == 404
        assert (await frank.http.get(f"/api/players/{erased}")).status_code == 404
        again = (await frank.http.get(f"/api/games/{game['id']}")).json()
        assert again["players"][0]["player"] == gone_id  # the same on every read
        # The same person logging in again is a new member: a new id, the old one stays unknown.
        back = await Player(stack, "erin").login()
        try:
            assert await _me(back) not in (erased, "")
        finally:
            await back.close()
    finally:
        await lobby.close()
        await erin.close()
        await frank.close()
