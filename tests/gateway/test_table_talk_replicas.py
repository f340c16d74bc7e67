"""Table talk across two gateway processes, on real Redis and Postgres: a message said at one
gateway reaches the sockets of the other (the event bus), a mute made at one takes effect at the
other before the next message, and the talk is kept in Postgres (the lobby's process serves it)."""

from __future__ import annotations

import json

import httpx
import pytest

from gateway.sessions import COOKIE_NAME
from testing.players import Player, receive
from testing.stack import real_stack


@pytest.fixture(scope="module")
def two_gateways():
    with real_stack(label="talk", gateways=2) as stack:
        yield stack


async def test_talk_crosses_gateways(two_gateways):
    stack = two_gateways
    alice, bob, carol, dave = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        alice_id = (await alice.http.get("/api/me")).json()["player"]
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        for player in (bob, carol, dave):
            assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
        here = await alice.socket(lobby["id"], features="chat")
        there = await bob.socket(lobby["id"], features="chat", gateway_url=stack.gateway_urls[1])
        also_there = await carol.socket(lobby["id"], features="chat", gateway_url=stack.gateway_urls[1])
        for socket in (here, there, also_there):
            await receive(socket, "state")

        await here.send(json.dumps({"action": "say", "phrase": "good_luck"}))
        said = await receive(there, "said")
        assert said["from"] == {"seat": 0, "name": "alice", "player": alice_id} and said["phrase"] == "good_luck"
        assert await receive(also_there, "said") == said

        bob_there = httpx_client_at(bob, stack.gateway_urls[1])
        assert (await bob_there.post("/api/me/muted", json={"player": alice_id})).status_code == 204
        await here.send(json.dumps({"action": "say", "phrase": "thanks"}))
        assert (await receive(also_there, "said"))["phrase"] == "thanks"
        await there.send(json.dumps({"action": "state"}))
        while (message := await receive(there))["type"] != "state":
            assert message["type"] != "said", message  # muted before alice spoke: never sent

        history = (await carol.http.get(f"/api/games/{lobby['id']}/chat")).json()["messages"]
        assert [m["phrase"] for m in history] == ["good_luck", "thanks"]
        assert (await bob_there.get(f"/api/games/{lobby['id']}/chat")).json() == {"messages": []}
        await bob_there.aclose()
        for socket in (here, there, also_there):
            await socket.close()
    finally:
        for player in (alice, bob, carol, dave):
            await player.close()


def httpx_client_at(player: Player, url: str) -> httpx.AsyncClient:
    """The player's session, at another gateway (the session store is shared: Redis)."""
    return httpx.AsyncClient(base_url=url, cookies={COOKIE_NAME: player.cookie}, timeout=10)
