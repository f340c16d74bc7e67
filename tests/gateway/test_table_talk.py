"""Table talk end to end (CONTRACT.md, Table talk): the whole stack as processes, players over HTTP
and WebSocket. Phrases at any time, free text only in the lobby, at hand end and once finished,
every bad input refused as written, delivery only to sockets that asked for `chat`, mutes live and
in the history, reports, floods, erasure."""

from __future__ import annotations

import asyncio
import json

import pytest

from services.rpc.errors import Reason, ServiceError
from services.rpc.transport_security import ClientCredentials
from talk.bot_phrases import Pace, bot_phrase
from talk.catalogue import PHRASE_IDS
from talk.client import TalkClient
from testing.players import Player, receive
from testing.waiting import eventually

OPTIONS = {"target_score": 1, "napola": False}


async def _say(socket, **said) -> None:
    await socket.send(json.dumps({"action": "say", **said}))


async def _error(socket) -> dict:
    error = await receive(socket, "error")
    return {key: error[key] for key in error if key != "type"}


async def _player_id(player: Player) -> str:
    return (await player.http.get("/api/me")).json()["player"]


async def _nothing_said_before_the_next_state(socket) -> None:
    """Ask for the state and read up to it: no `said` may come first (a `said` queued to this
    socket before the request would be written before its answer)."""
    await socket.send(json.dumps({"action": "state"}))
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert message["type"] != "said", message
        if message["type"] == "state":
            return


@pytest.fixture
async def erin(stack):
    player = await Player(stack, "erin").login()
    yield player
    await player.close()


async def test_the_phrases_need_no_session(anonymous):
    response = await anonymous.http.get("/api/phrases")
    assert response.status_code == 200
    phrases = response.json()["phrases"]
    assert {p["id"] for p in phrases} == PHRASE_IDS
    assert {"id": "good_luck", "text": {"it": "Buona fortuna!", "en": "Good luck!"}} in phrases


async def test_players_talk_by_the_rules(players, erin):
    alice, bob, carol, dave = players
    alice_id = await _player_id(alice)
    lobby = (await alice.http.post("/api/games", json={"options": OPTIONS, "spectators": False})).json()
    game_id = lobby["id"]
    talking = await alice.socket(game_id, features="chat")
    await receive(talking, "lobby")
    await _say(talking, text="  ciao a tutti!  ")  # the lobby: free text
    said = await receive(talking, "said")
    assert said["from"] == {"seat": 0, "name": "alice", "player": alice_id}
    assert said["text"] == "ciao a tutti!" and "phrase" not in said
    assert set(said) == {"type", "id", "from", "text", "at"} and said["at"].endswith("Z")

    for player in (bob, carol, dave):
        assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    listening = await bob.socket(game_id, features="chat,presence")
    deaf = await dave.socket(game_id)  # no features: never a `said`
    sockets = (talking, listening, deaf)
    for socket in sockets:
        assert (await receive(socket, "state"))["game"]["status"] == "playing"

    # During play: only phrases; every bad `say` refused as written, nothing said.
    await _say(talking, text="I have the settebello", id="t-1")
    assert await _error(talking) == {"code": "chat_closed", "message": "Only quick phrases while cards are in play",
                                     "id": "t-1"}
    await _say(talking, phrase="psst")
    assert await _error(talking) == {"code": "bad_request", "message": "Unknown phrase: psst"}
    await _say(talking, text="x" * 201)
    assert await _error(talking) == {"code": "bad_request", "message": "Text is over 200 characters"}
    await _say(talking, text="one\u0007two")
    assert await _error(talking) == {"code": "bad_request", "message": "Text holds control characters"}
    await _say(talking, text="   ")
    assert await _error(talking) == {"code": "bad_request", "message": "Text is empty"}
    await _say(talking, phrase="hello", text="hi")
    assert await _error(talking) == {"code": "bad_request", "message": "Say a phrase or a text, one of the two"}
    await _say(talking, phrase="hello", to="bob")
    assert await _error(talking) == {"code": "bad_request", "message": "Unknown field: to"}

    await _say(talking, phrase="good_luck", id="m-1")
    good_luck = await receive(listening, "said")
    assert good_luck["phrase"] == "good_luck" and good_luck["from"]["seat"] == 0
    assert (await receive(talking, "said")) == good_luck  # the author's own sockets too
    await _say(talking, phrase="good_luck", id="m-1")  # sent again: not said twice
    assert (await _error(talking))["code"] == "already_played"
    await _nothing_said_before_the_next_state(deaf)
    await _nothing_said_before_the_next_state(listening)

    history = await bob.http.get(f"/api/games/{game_id}/chat")
    assert history.status_code == 200
    messages = history.json()["messages"]
    assert [m.get("text", m.get("phrase")) for m in messages] == ["ciao a tutti!", "good_luck"]
    assert messages[1] == {key: value for key, value in good_luck.items() if key != "type"}

    # Someone who is not seated (the game allows no spectators) reads nothing, reports nothing.
    assert (await erin.http.get(f"/api/games/{game_id}/chat")).json() == {"detail": "Not seated at this game"}
    refused = await erin.http.post(f"/api/games/{game_id}/chat/{good_luck['id']}/report")
    assert (refused.status_code, refused.json()) == (404, {"detail": "Message not found"})

    reported = await bob.http.post(f"/api/games/{game_id}/chat/{good_luck['id']}/report", json={"reason": "spam"})
    assert (reported.status_code, reported.json()) == (202, {"reported": True})
    for unknown in ("0" * 32, "%00", "not-an-id"):
        missing = await bob.http.post(f"/api/games/{game_id}/chat/{unknown}/report")
        assert (missing.status_code, missing.json()) == (404, {"detail": "Message not found"})
    too_long = await bob.http.post(f"/api/games/{game_id}/chat/{good_luck['id']}/report", json={"reason": "x" * 201})
    assert (too_long.status_code, too_long.json()) == (400, {"detail": "reason must be at most 200 characters"})
    not_text = await bob.http.post(f"/api/games/{game_id}/chat/{good_luck['id']}/report", json={"reason": 7})
    assert (not_text.status_code, not_text.json()) == (400, {"detail": "reason must be a string"})

    # bob mutes alice: her messages reach him neither live nor in the history.
    assert (await bob.http.post("/api/me/muted", json={"player": alice_id})).status_code == 204
    assert (await bob.http.get("/api/me/muted")).json() == {"players": [{"player": alice_id, "name": "alice"}]}
    carol_hears = await carol.socket(game_id, features="chat")
    await receive(carol_hears, "state")
    await _say(talking, phrase="thanks")
    assert (await receive(carol_hears, "said"))["phrase"] == "thanks"
    await _nothing_said_before_the_next_state(listening)
    assert (await bob.http.get(f"/api/games/{game_id}/chat")).json() == {"messages": []}
    assert len((await carol.http.get(f"/api/games/{game_id}/chat")).json()["messages"]) == 3

    assert (await bob.http.delete(f"/api/me/muted/{alice_id}")).status_code == 204
    assert (await bob.http.get("/api/me/muted")).json() == {"players": []}
    await _say(talking, phrase="sorry")
    assert (await receive(listening, "said"))["phrase"] == "sorry"
    for socket in (*sockets, carol_hears):
        await socket.close()


async def test_bad_mutes_are_refused(players):
    alice = players[0]
    for body, answer in [({"player": await _player_id(alice)}, (409, "Cannot mute yourself")),
                         ({"player": "no-such-player"}, (404, "Player not found")),
                         ({"player": "q3Zr8YkV0bT1mWc9LxPa2X"}, (404, "Player not found")),
                         ({"player": "nul\u0000nul\u0000nul\u0000nul"}, (404, "Player not found")),
                         ({"player": ""}, (400, "player is required")),
                         ({"player": 3}, (400, "player must be a string")),
                         ({}, (400, "player is required")),
                         ({"who": "x"}, (400, "Unknown field: who"))]:
        response = await alice.http.post("/api/me/muted", json=body)
        assert (response.status_code, response.json()["detail"]) == answer, body
    assert (await alice.http.get("/api/me/muted")).json() == {"players": []}
    for player in ("q3Zr8YkV0bT1mWc9LxPa2X", "%00", "x" * 300):
        assert (await alice.http.delete(f"/api/me/muted/{player}")).status_code == 204


async def test_a_flood_is_refused(players):
    alice = players[0]
    lobby = (await alice.http.post("/api/games", json={"options": OPTIONS})).json()
    socket = await alice.socket(lobby["id"], features="chat")
    await receive(socket, "lobby")
    sent = 12
    for n in range(sent):  # far quicker than 1 a second, beyond a burst of 5
        await _say(socket, phrase="hello", id=f"f-{n}")
    answers = [json.loads(await asyncio.wait_for(socket.recv(), 10)) for _ in range(sent)]
    refused = [a for a in answers if a["type"] == "error"]
    assert refused and {a["code"] for a in refused} == {"rate_limited"}
    assert 5 <= sum(a["type"] == "said" for a in answers) < sent
    await socket.close()


async def _seated(players, options) -> tuple[str, list]:
    """A game of the four ``players``, each with a socket that asked for `chat`."""
    lobby = (await players[0].http.post("/api/games", json={"options": options})).json()
    for player in players[1:]:
        assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    return lobby["id"], [await player.socket(lobby["id"], features="chat") for player in players]


async def _play(socket, until: str) -> dict:
    """Play the seat's turns and acknowledge its hand ends until a state of status ``until``
    comes (not acknowledged), or the game_over. It starts from the state it asks for: one the
    test read already may have been the seat's turn."""
    await socket.send(json.dumps({"action": "state"}))
    while True:
        message = await receive(socket, timeout=30)
        if message["type"] == "game_over":
            return message
        if message["type"] != "state":
            continue
        game = message["game"]
        if game["status"] == until:
            return message
        if game.get("your_turn"):
            option = game["legal"][0]
            await socket.send(json.dumps({"action": "play", "card": option["card"],
                                          "capture": option["captures"][0]}))
        elif game["status"] == "hand_end" and game["you"] not in game["acknowledged"]:
            await socket.send(json.dumps({"action": "ack"}))


async def test_free_text_at_hand_end(players):
    _, sockets = await _seated(players, {"target_score": 121, "napola": False})  # not over in one hand
    ends = await asyncio.gather(*(_play(socket, until="hand_end") for socket in sockets))
    assert all(end["type"] == "state" for end in ends)  # the first hand ended; nobody acknowledged
    await _say(sockets[2], text="bella mano")
    assert (await receive(sockets[0], "said"))["text"] == "bella mano"
    for socket in sockets:
        await socket.close()


async def test_free_text_once_finished(players):
    _, sockets = await _seated(players, OPTIONS)
    ends = await asyncio.gather(*(_play(socket, until="finished") for socket in sockets))
    assert all(end["type"] == "state" for end in ends)
    await _say(sockets[1], text="Bella partita!")
    said = await receive(sockets[3], "said")
    assert said["text"] == "Bella partita!" and said["from"]["name"] == "bob"
    for socket in sockets:
        await socket.close()


async def test_an_erased_members_messages_are_deleted(players, erin):
    alice = players[0]
    lobby = (await alice.http.post("/api/games", json={"options": OPTIONS})).json()
    assert (await erin.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    socket = await erin.socket(lobby["id"], features="chat")
    await receive(socket, "lobby")
    await _say(socket, text="I was here")
    await receive(socket, "said")
    await socket.close()
    history = f"/api/games/{lobby['id']}/chat"
    assert [m["text"] for m in (await alice.http.get(history)).json()["messages"]] == ["I was here"]
    assert (await alice.http.post("/api/me/muted", json={"player": await _player_id(erin)})).status_code == 204
    assert (await erin.http.delete("/api/me")).status_code == 204
    assert (await alice.http.get(history)).json() == {"messages": []}
    assert (await alice.http.get("/api/me/muted")).json() == {"players": []}  # her name is gone too


async def test_only_the_operators_read_and_close_reports(stack, players):
    """ListReports and CloseReport sit behind the callers file: the tests' own caller (every
    method) may, another team's default caller may not."""
    alice = players[0]
    lobby = (await alice.http.post("/api/games", json={"options": OPTIONS})).json()
    socket = await alice.socket(lobby["id"], features="chat")
    await receive(socket, "lobby")
    await _say(socket, text="report me")
    said = await receive(socket, "said")
    await socket.close()
    reported = await alice.http.post(f"/api/games/{lobby['id']}/chat/{said['id']}/report", json={"reason": "test"})
    assert reported.status_code == 202

    async with TalkClient(stack.address("lobby"), credentials=stack.credentials) as operator:
        [report] = [r for r in await operator.reports() if r.message.id == said["id"]]
        assert (report.message.text, report.message.name, report.reason) == ("report me", "alice", "test")
        closed = await operator.close_report(report.id, "fine")
        assert closed.note == "fine" and closed.closed_at_ms is not None
        assert said["id"] not in {r.message.id for r in await operator.reports()}
    async with TalkClient(stack.address("lobby"), credentials=ClientCredentials(token=stack.outside_token)) as other:
        with pytest.raises(ServiceError) as refused:
            await other.reports()
        assert refused.value.reason is Reason.METHOD_NOT_ALLOWED


async def test_bots_say_fitting_phrases_now_and_then(players):
    """A match against three bots: what they say is the phrases talk.bot_phrases decides from the
    plays every seat saw (a scopa, the end), at most one a hand from each bot besides the last
    word, each said once, never a text, never with a player id (a bot has none)."""
    alice = players[0]
    game = (await alice.http.post("/api/games", json={"options": OPTIONS})).json()
    socket = await alice.socket(game["id"], features="chat")
    await receive(socket, "lobby")
    for seat in (1, 2, 3):
        assert (await alice.http.post(f"/api/games/{game['id']}/bots",
                                      json={"seat": seat, "level": "principiante"})).status_code == 200
    expected: list[tuple[int, str]] = []
    pace = Pace()
    while (message := await receive(socket, timeout=30))["type"] != "game_over":
        if message["type"] != "state":
            continue
        view = message["game"]
        expected += [(seat, phrase) for seat in (1, 2, 3)
                     if (phrase := bot_phrase(view, seat, game["id"], view["revision"])) is not None
                     and pace.allows(seat, view, phrase)]
        if view.get("your_turn"):
            option = view["legal"][0]
            await socket.send(json.dumps({"action": "play", "card": option["card"],
                                          "capture": option["captures"][0]}))
        elif view["status"] == "hand_end" and view["you"] not in view["acknowledged"]:
            await socket.send(json.dumps({"action": "ack"}))
    await socket.close()

    async def all_said():
        messages = (await alice.http.get(f"/api/games/{game['id']}/chat")).json()["messages"]
        return messages if len(messages) >= len(expected) else None

    messages = await eventually(all_said) if expected else []
    assert sorted((m["from"]["seat"], m["phrase"]) for m in messages) == sorted(expected)
    assert all("text" not in m and "player" not in m["from"] for m in messages)


async def test_spectators_talk_in_their_own_channel(stack, players, erin):
    """erin watches: she reads the players' talk; her own reaches spectators only until the game is
    finished, then everyone (live, and in the history)."""
    alice = players[0]
    game_id, sockets = await _seated(players, OPTIONS)
    watching = await erin.watch(game_id, features="chat")
    frank = await Player(stack, "frank").login()
    # frank watches too (not bob: a seated player watching reads as a player, see
    # test_spectators_talk.py)
    other_watcher = await frank.watch(game_id, features="chat")
    for socket in (*sockets, watching, other_watcher):
        await receive(socket, "state")

    await _say(sockets[0], phrase="good_luck")
    assert (await receive(watching, "said"))["from"]["seat"] == 0
    assert (await receive(other_watcher, "said"))["phrase"] == "good_luck"
    await _say(watching, text="forza!")  # free text during play: closed for spectators too
    assert (await _error(watching))["code"] == "chat_closed"
    await _say(watching, phrase="hello")
    heard = await receive(other_watcher, "said")
    assert heard["from"] == {"spectator": True, "name": "erin", "player": await _player_id(erin)}
    assert (await receive(sockets[2], "said"))["phrase"] == "good_luck"  # alice's, heard by carol
    await _nothing_said_before_the_next_state(sockets[2])  # but not the spectators'
    await _say(watching, phrase="bye", revision=3)
    assert (await receive(other_watcher, "said"))["phrase"] == "bye"
    await watching.send(json.dumps({"action": "play", "card": "07D"}))
    assert (await _error(watching))["code"] == "unknown_action"

    history = f"/api/games/{game_id}/chat"
    assert [m.get("phrase") for m in (await alice.http.get(history)).json()["messages"]] == ["good_luck"]
    assert [m.get("phrase") for m in (await erin.http.get(history)).json()["messages"]] == [
        "good_luck", "hello", "bye"]
    said_by_erin = (await erin.http.get(history)).json()["messages"][1]["id"]
    refused = await alice.http.post(f"{history}/{said_by_erin}/report")
    assert (refused.status_code, refused.json()) == (404, {"detail": "Message not found"})

    await other_watcher.close()
    # The match is played out; erin's socket is read meanwhile (a socket that is not read is
    # closed as too slow).
    *ends, _ = await asyncio.gather(*(_play(socket, until="finished") for socket in sockets),
                                    receive(watching, "game_over", timeout=60))
    assert all(end["type"] == "state" for end in ends)
    assert [m.get("phrase") for m in (await alice.http.get(history)).json()["messages"]] == [
        "good_luck", "hello", "bye"]
    await _say(watching, text="complimenti a tutti")
    assert (await receive(sockets[0], "said"))["text"] == "complimenti a tutti"
    for socket in (*sockets, watching):
        await socket.close()
    await frank.close()
