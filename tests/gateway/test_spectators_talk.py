"""Table talk on the spectators' socket (CONTRACT.md, Table talk and Spectators, together): a spectator
says in the spectators' channel, which reaches the spectators only while the game is on; the players'
messages reach the spectators; a spectator's free text during play is refused like a player's; the
history each reader gets follows the same channels. The whole stack as processes."""

from __future__ import annotations

import asyncio
import json

import pytest

from testing.players import Player, receive, seat_four
from testing.stack import real_stack

OPTIONS = {"target_score": 11, "napola": False}


@pytest.fixture(scope="module")
def stack():
    with real_stack(label="spectators-talk") as running:
        yield running


@pytest.fixture
async def people(stack):
    """Four players and two members who watch."""
    made = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave", "eve", "frank")]
    yield made
    for person in made:
        await person.close()


async def _say(socket, **said) -> None:
    await socket.send(json.dumps({"action": "say", **said}))


async def _nothing_said_before_the_next_state(socket) -> None:
    """A player's socket: ask for the state and read up to it; no `said` may come first."""
    await socket.send(json.dumps({"action": "state"}))
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert message["type"] != "said", message
        if message["type"] == "state":
            return


async def test_spectators_talk_among_themselves_and_read_the_players(people):
    players, eve, frank = people[:4], people[4], people[5]
    alice = players[0]
    lobby = await seat_four(players, OPTIONS)
    game_id = lobby["id"]
    eve_id = await eve.player_id()
    table = await alice.socket(game_id, features="chat")
    watching = await eve.watch(game_id, features="chat")
    other = await frank.watch(game_id, features="chat")
    try:
        for socket in (table, watching, other):
            await receive(socket, "state")

        await _say(watching, phrase="hello", id="s-1")
        heard = await receive(other, "said")
        assert heard["from"] == {"spectator": True, "name": "eve", "player": eve_id}
        assert heard["phrase"] == "hello"
        assert await receive(watching, "said") == heard  # the author's own socket too
        await _nothing_said_before_the_next_state(table)  # the players do not read it

        # A spectator's free text while cards are in play: refused as a player's would be.
        await _say(watching, text="who wins?", id="s-2")
        error = await receive(watching, "error")
        assert (error["code"], error.get("id")) == ("chat_closed", "s-2")
        # Any other action is still unknown.
        await watching.send(json.dumps({"action": "ack", "id": "s-3"}))
        error = await receive(watching, "error")
        assert (error["code"], error.get("id")) == ("unknown_action", "s-3")

        await _say(table, phrase="good_luck")
        said = await receive(other, "said")  # a player's message reaches the spectators
        assert said["from"]["seat"] == 0 and said["phrase"] == "good_luck"
        assert (await receive(watching, "said"))["id"] == said["id"]

        # The histories follow the channels.
        seen_by_eve = (await eve.http.get(f"/api/games/{game_id}/chat")).json()["messages"]
        assert [m.get("phrase") for m in seen_by_eve] == ["hello", "good_luck"]
        seen_by_alice = (await alice.http.get(f"/api/games/{game_id}/chat")).json()["messages"]
        assert [m.get("phrase") for m in seen_by_alice] == ["good_luck"]
    finally:
        for socket in (table, watching, other):
            await socket.close()


async def test_a_player_watching_their_own_game_talks_and_reads_as_a_player(people):
    """The watch socket is open to seated players too; it must not hand them the spectators'
    channel during play (their history hides it as well), and what they say there comes from
    their seat."""
    players, eve = people[:4], people[4]
    alice = players[0]
    lobby = await seat_four(players, OPTIONS)
    game_id = lobby["id"]
    alice_id = await alice.player_id()
    peeking = await alice.watch(game_id, features="chat")
    watching = await eve.watch(game_id, features="chat")
    table = await players[1].socket(game_id, features="chat")
    try:
        for socket in (peeking, watching, table):
            await receive(socket, "state")
        await _say(watching, phrase="hello")  # the spectators' channel
        assert (await receive(watching, "said"))["from"]["spectator"] is True

        await _say(peeking, phrase="good_luck")  # alice, from her watch socket
        said = await receive(table, "said")  # a player's message: the players hear it
        assert said["from"] == {"seat": 0, "name": "alice", "player": alice_id}
        assert said["phrase"] == "good_luck"
        # The first `said` alice's watch socket gets is her own: eve's never came before it.
        assert (await receive(peeking, "said"))["id"] == said["id"]
        history = (await alice.http.get(f"/api/games/{game_id}/chat")).json()["messages"]
        assert [m["id"] for m in history] == [said["id"]]
    finally:
        for socket in (peeking, watching, table):
            await socket.close()


async def _count_reaches(socket, count: int) -> None:
    while (await receive(socket, "spectators"))["count"] != count:
        pass


async def test_a_player_watching_their_own_game_is_not_counted_as_a_spectator(people):
    """``spectators`` counts the members watching; alice, seated, opening the watch socket too is
    not one of them: when eve, the only other watcher, leaves, the count is back to 0."""
    players, eve = people[:4], people[4]
    lobby = await seat_four(players, OPTIONS)
    game_id = lobby["id"]
    table = await players[1].socket(game_id, features="spectators")
    peeking = await players[0].watch(game_id)
    try:
        await receive(table, "state")
        await receive(peeking, "state")
        watching = await eve.watch(game_id)
        await _count_reaches(table, 1)
        await watching.close()
        await _count_reaches(table, 0)
        view = (await eve.http.get(f"/api/games/{game_id}/watch")).json()
        assert view["spectators"] == 0
    finally:
        for socket in (table, peeking):
            await socket.close()
