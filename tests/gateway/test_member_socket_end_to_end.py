"""The member socket /ws/me end to end (CONTRACT.md, Players, following, invitations, blocking): the
whole stack as processes, two gateways on one Redis and Postgres, players over HTTP and WebSocket.
A follower sees a player come online and go offline through the other gateway, and nothing of a
player who hides it; an invitation made through one gateway reaches the invitee's socket on the
other, who joins with it; a blocked player's talk stops reaching the blocker live while the others
still get it; the socket is refused without a session, refuses every message, closes on logout."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets

from gateway.sessions import COOKIE_NAME
from testing.players import Player, receive
from testing.stack import real_stack


@pytest.fixture(scope="module")
def two_gateways():
    with real_stack(label="members", gateways=2) as stack:
        yield stack


async def _member_socket(player: Player, gateway_url: str):
    headers = {"Cookie": f"{COOKIE_NAME}={player.cookie}"} if player.cookie else {}
    return await websockets.connect(gateway_url.replace("http://", "ws://") + "/ws/me",
                                    additional_headers=headers, open_timeout=10)


async def _nothing_before_the_answer(socket) -> None:
    """Send a message and read up to its error: nothing else may come first."""
    await socket.send(json.dumps({"action": "probe", "id": "probe-1"}))
    message = json.loads(await asyncio.wait_for(socket.recv(), 10))
    assert message == {"type": "error", "code": "unknown_action", "id": "probe-1",
                       "message": "Unknown action: probe; the member socket takes no actions"}, message


async def _players(stack, *names: str) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


async def test_a_follower_sees_a_player_come_online_and_go_offline_through_the_other_gateway(two_gateways):
    stack = two_gateways
    here, there = stack.gateway_urls
    alice, bob, carol = await _players(stack, "on-alice", "on-bob", "on-carol")
    try:
        bob_id, carol_id = await bob.player_id(), await carol.player_id()
        for followed in (bob_id, carol_id):
            assert (await alice.http.post("/api/me/following", json={"player": followed})).status_code == 204
        assert (await carol.http.put("/api/me/settings", json={"show_online": False})).status_code == 200
        watching = await _member_socket(alice, here)
        await _nothing_before_the_answer(watching)  # nobody followed is online

        bob_tab = await _member_socket(bob, there)
        assert await receive(watching) == {"type": "online", "player": bob_id, "online": True}
        following = (await alice.http.get("/api/me/following")).json()["players"]
        assert {(p["player"], p["online"]) for p in following} == {(bob_id, True), (carol_id, False)}

        carol_tab = await _member_socket(carol, there)  # hides it: nothing
        await bob_tab.close()
        assert await receive(watching) == {"type": "online", "player": bob_id, "online": False}
        await _nothing_before_the_answer(watching)

        # Shown again while online: the state it implies, at once.
        assert (await carol.http.put("/api/me/settings", json={"show_online": True})).status_code == 200
        assert await receive(watching) == {"type": "online", "player": carol_id, "online": True}
        await carol_tab.close()
        assert await receive(watching) == {"type": "online", "player": carol_id, "online": False}
        await watching.close()
    finally:
        for player in (alice, bob, carol):
            await player.close()


async def test_an_invitation_through_one_gateway_reaches_the_invitee_on_the_other(two_gateways):
    stack = two_gateways
    there = stack.gateway_urls[1]
    alice, bob = await _players(stack, "inv-alice", "inv-bob")
    try:
        alice_id, bob_id = await alice.player_id(), await bob.player_id()
        bob_tab = await _member_socket(bob, there)
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        invited = await alice.http.post(f"/api/games/{lobby['id']}/invite", json={"player": bob_id})
        assert invited.status_code == 204, invited.text

        told = await receive(bob_tab, "invited")
        assert told["by"] == {"player": alice_id, "name": "inv-alice"}
        game = told["game"]
        assert (game["id"], game["status"], game["join_code"], game["your_turn"], game["seats_open"]) == (
            lobby["id"], "lobby", lobby["join_code"], False, 3)
        assert [(p["name"], p["is_you"]) for p in game["players"]] == [("inv-alice", False)]
        listed = (await bob.http.get("/api/me/invitations")).json()["invitations"]
        assert [item["game"]["id"] for item in listed] == [lobby["id"]]

        # Invited again: nothing new reaches the socket.
        assert (await alice.http.post(f"/api/games/{lobby['id']}/invite",
                                      json={"player": bob_id})).status_code == 204
        joined = await bob.http.post("/api/games/join", json={"code": game["join_code"]})
        assert joined.status_code == 200, joined.text
        await _nothing_before_the_answer(bob_tab)
        await bob_tab.close()
    finally:
        for player in (alice, bob):
            await player.close()


async def test_a_blocked_players_talk_stops_reaching_the_blocker_live(two_gateways):
    stack = two_gateways
    there = stack.gateway_urls[1]
    alice, bob, carol, dave = await _players(stack, "bl-alice", "bl-bob", "bl-carol", "bl-dave")
    try:
        alice_id = await alice.player_id()
        lobby = (await alice.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        for player in (bob, carol, dave):
            assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
        talking = await alice.socket(lobby["id"], features="chat")
        blocker = await bob.socket(lobby["id"], features="chat", gateway_url=there)
        other = await carol.socket(lobby["id"], features="chat", gateway_url=there)
        for socket in (talking, blocker, other):
            await receive(socket, "state")

        # Blocked through the first gateway while the socket is open on the second.
        assert (await bob.http.post("/api/me/blocked", json={"player": alice_id})).status_code == 204
        await talking.send(json.dumps({"action": "say", "phrase": "good_luck"}))
        assert (await receive(other, "said"))["phrase"] == "good_luck"
        await dave_says(dave, lobby["id"], there, "hello")
        said = await receive(blocker, "said")
        assert (said["from"]["name"], said["phrase"]) == ("bl-dave", "hello")  # alice's never came
        assert (await receive(other, "said"))["phrase"] == "hello"

        assert (await bob.http.delete(f"/api/me/blocked/{alice_id}")).status_code == 204
        await talking.send(json.dumps({"action": "say", "phrase": "thanks"}))
        assert (await receive(blocker, "said"))["phrase"] == "thanks"
        for socket in (talking, blocker, other):
            await socket.close()
    finally:
        for player in (alice, bob, carol, dave):
            await player.close()


async def dave_says(dave: Player, game_id: str, gateway_url: str, phrase: str) -> None:
    socket = await dave.socket(game_id, features="chat", gateway_url=gateway_url)
    await receive(socket, "state")
    await socket.send(json.dumps({"action": "say", "phrase": phrase}))
    await receive(socket, "said")
    await socket.close()


async def test_the_member_socket_needs_a_session_takes_no_action_and_closes_on_logout(two_gateways):
    stack = two_gateways
    nobody = Player(stack, "nobody")
    alice = await Player(stack, "out-alice").login()
    try:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await _member_socket(nobody, stack.gateway_urls[0])
        assert refused.value.response.status_code == 401
        socket = await _member_socket(alice, stack.gateway_urls[1])
        await _nothing_before_the_answer(socket)
        await socket.send("not json")
        assert await receive(socket) == {"type": "error", "code": "bad_request", "message": "Message is not JSON"}
        assert (await alice.http.get("/auth/logout")).status_code == 302  # through the other gateway
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    finally:
        await nobody.close()
        await alice.close()
