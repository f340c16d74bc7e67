"""Players, following, invitations and blocking end to end (CONTRACT.md, Players, following,
invitations, blocking): the whole stack as processes, over each store (in memory, and Postgres
with Redis), players over HTTP. Every endpoint, every error it documents, the bodies against the
contract's models, the limits, a flood of invitations, erasure, and blocking at seating and in
the chat history."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid

import pytest
from pydantic import BaseModel

from gateway.contract.games import Lobby, MyGames
from gateway.contract.players import (
    MAX_BLOCKED,
    MAX_FOLLOWING,
    BlockedPlayers,
    FollowedPlayers,
    Invitations,
    PlayerPage,
    Settings,
)
from gateway.contract.talk import ChatHistory
from lobby.client import LobbyClient
from lobby.invitations import MAX_INVITATIONS
from testing.players import Player, play_against_bots, receive, seat_four
from testing.stack import Stack, real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module", params=["memory", "postgres"])
def stack(request):
    """The stack over each store in turn: the rules must hold for both."""
    if request.param == "memory":
        running = Stack().start()
        yield running
        running.stop()
    else:
        with real_stack(label="players") as running:
            yield running


@pytest.fixture
async def people(stack):
    """Logs in members of fresh names (the module's stack is shared by its tests)."""
    made: list[Player] = []

    async def login(*names: str) -> list[Player]:
        suffix = uuid.uuid4().hex[:6]
        new = [await Player(stack, f"{name}-{suffix}").login() for name in names]
        made.extend(new)
        return new

    yield login
    for player in made:
        await player.close()


def valid(model: type[BaseModel], response) -> dict:
    """The body, after checking it against the contract's model (the document's schema)."""
    body = response.json()
    model.model_validate(body)
    return body


def unknown_id() -> str:
    return secrets.token_urlsafe(16)  # the shape of a player id, nobody's


async def members(stack, count: int) -> list[str]:
    """``count`` new members' player ids, made at the lobby as a login makes them (EnsureMember)."""
    async with LobbyClient(stack.address("lobby"), credentials=stack.credentials) as lobby:
        ids = []
        for start in range(0, count, 50):
            ids += await asyncio.gather(*(lobby.ensure_member(f"crowd-{uuid.uuid4().hex}", f"crowd {n}")
                                          for n in range(start, min(count, start + 50))))
    return ids


async def _post_all(player: Player, path: str, players: list[str]) -> None:
    for start in range(0, len(players), 25):
        answers = await asyncio.gather(*(player.http.post(path, json={"player": p})
                                         for p in players[start:start + 25]))
        assert {answer.status_code for answer in answers} == {204}, answers[0].text


BAD_BODIES = [
    (b"{not json", "Invalid JSON"),
    (b"[1]", "Request body must be a JSON object"),
    (b'{"player": "x", "colour": "red"}', "Unknown field: colour"),
    (b'{"player": 7}', "player must be a string"),
    (b"{}", "player is required"),
]


async def _refuses_bad_bodies(player: Player, path: str) -> None:
    for raw, detail in BAD_BODIES:
        response = await player.http.post(path, content=raw, headers={"Content-Type": "application/json"})
        assert (response.status_code, response.json()) == (400, {"detail": detail}), raw


# -- a player's page and the settings ---------------------------------------------------------


async def test_a_player_page_shows_ratings_totals_matches_and_what_they_play(stack, people):
    alice, bob, carol, dave = await people("alice", "bob", "carol", "dave")
    bob_id = await bob.player_id()

    page = await alice.http.get(f"/api/players/{bob_id}")
    assert page.status_code == 200
    assert valid(PlayerPage, page) == {
        "player": bob_id, "name": bob.username, "ratings": [], "matches": 0, "wins": 0, "recent": [],
        "online": False, "playing": [], "following": False, "blocked": False}

    # A practice match against bots: counted in the totals and the recent matches, not rated.
    game, over = await play_against_bots(bob)
    page = await eventually(lambda: _page_once(alice, bob_id, lambda body: body["matches"] == 1),
                            what="the practice match never reached the page")
    assert page["ratings"] == [] and page["wins"] == (1 if over["winner"] == "A" else 0)
    assert [match["id"] for match in page["recent"]] == [game["id"]]
    mine = (await bob.http.get("/api/me/matches")).json()["items"]
    assert page["recent"] == mine  # rendered as the history renders them

    # Playing now at a game that allows spectators, with a socket open: online, and its id.
    started = await seat_four([bob, alice, carol, dave], {})
    socket = await bob.socket(started["id"])
    await receive(socket, "state")
    page = await eventually(lambda: _page_once(alice, bob_id, lambda body: body.get("online") is True),
                            what="bob never showed online")
    assert page["playing"] == [started["id"]]
    await socket.close()
    await eventually(lambda: _page_once(alice, bob_id, lambda body: body.get("online") is False),
                     what="bob never went offline")

    # Hidden: no `online` at all.
    assert (await bob.http.put("/api/me/settings", json={"show_online": False})).status_code == 200
    hidden = valid(PlayerPage, await alice.http.get(f"/api/players/{bob_id}"))
    assert "online" not in hidden


async def _page_once(viewer: Player, player: str, ready) -> dict | None:
    response = await viewer.http.get(f"/api/players/{player}")
    assert response.status_code == 200, response.text
    body = valid(PlayerPage, response)
    return body if ready(body) else None


async def test_an_unknown_or_malformed_player_is_not_found(people, anonymous):
    (alice,) = await people("alice")
    for player in (unknown_id(), "short", "not%20an%20id", "x" * 15):
        response = await alice.http.get(f"/api/players/{player}")
        assert (response.status_code, response.json()) == (404, {"detail": "Player not found"}), player
    refused = await anonymous.http.get(f"/api/players/{await alice.player_id()}")
    assert (refused.status_code, refused.json()) == (401, {"detail": "Not authenticated"})


async def test_settings_read_and_change(people):
    (alice,) = await people("alice")
    assert valid(Settings, await alice.http.get("/api/me/settings")) == {"show_online": True}
    changed = await alice.http.put("/api/me/settings", json={"show_online": False})
    assert (changed.status_code, valid(Settings, changed)) == (200, {"show_online": False})
    assert (await alice.http.get("/api/me/settings")).json() == {"show_online": False}
    unchanged = await alice.http.put("/api/me/settings", json={})  # the fields given change
    assert unchanged.json() == {"show_online": False}
    for raw, detail in [(b'{"show_online": "no"}', "show_online must be a boolean"),
                        (b'{"show_online": true, "theme": "dark"}', "Unknown field: theme"),
                        (b"nope", "Invalid JSON")]:
        response = await alice.http.put("/api/me/settings", content=raw,
                                        headers={"Content-Type": "application/json"})
        assert (response.status_code, response.json()) == (400, {"detail": detail}), raw
    assert (await alice.http.post("/api/me/settings", json={})).status_code == 405
    assert (await alice.http.get("/api/me/settings")).json() == {"show_online": False}


# -- following -------------------------------------------------------------------------------


async def test_following_and_the_list(people):
    alice, bob, carol, dave = await people("alice", "bob", "carol", "dave")
    bob_id, carol_id = await bob.player_id(), await carol.player_id()
    for _ in range(2):  # idempotent
        followed = await alice.http.post("/api/me/following", json={"player": bob_id})
        assert followed.status_code == 204 and not followed.content
    assert (await alice.http.post("/api/me/following", json={"player": carol_id})).status_code == 204
    listed = valid(FollowedPlayers, await alice.http.get("/api/me/following"))
    assert listed == {"players": [
        {"player": carol_id, "name": carol.username, "online": False, "playing": None},
        {"player": bob_id, "name": bob.username, "online": False, "playing": None}]}
    page = valid(PlayerPage, await alice.http.get(f"/api/players/{bob_id}"))
    assert page["following"] is True

    started = await seat_four([bob, carol, dave, alice], {})
    socket = await bob.socket(started["id"])
    await receive(socket, "state")

    async def bob_as_listed(online: bool):
        players = (await alice.http.get("/api/me/following")).json()["players"]
        return [p for p in players if p == {"player": bob_id, "name": bob.username, "online": online,
                                             "playing": started["id"]}]
    await eventually(lambda: bob_as_listed(True), what="bob never showed online and playing in the list")
    # bob hides it: offline in the list while his socket is open; what he plays is public.
    assert (await bob.http.put("/api/me/settings", json={"show_online": False})).status_code == 200
    assert await bob_as_listed(False)
    await socket.close()

    unfollowed = await alice.http.delete(f"/api/me/following/{bob_id}")
    assert unfollowed.status_code == 204
    assert [p["player"] for p in (await alice.http.get("/api/me/following")).json()["players"]] == [carol_id]
    for nobody in (bob_id, unknown_id(), "not-an-id"):  # again, or never followed: 204
        assert (await alice.http.delete(f"/api/me/following/{nobody}")).status_code == 204


async def test_following_refusals(people):
    (alice,) = await people("alice")
    myself = await alice.player_id()
    refused = await alice.http.post("/api/me/following", json={"player": myself})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Cannot follow yourself"})
    for nobody in (unknown_id(), "bad id!"):
        refused = await alice.http.post("/api/me/following", json={"player": nobody})
        assert (refused.status_code, refused.json()) == (404, {"detail": "Player not found"})
    await _refuses_bad_bodies(alice, "/api/me/following")
    assert (await alice.http.put("/api/me/following", json={})).status_code == 405
    assert (await alice.http.get("/api/me/following")).json() == {"players": []}


async def test_at_most_500_players_are_followed(stack, people):
    (alice,) = await people("alice")
    crowd = await members(stack, MAX_FOLLOWING + 1)
    await _post_all(alice, "/api/me/following", crowd[:MAX_FOLLOWING])
    again = await alice.http.post("/api/me/following", json={"player": crowd[0]})
    assert again.status_code == 204  # following again is no new follow
    refused = await alice.http.post("/api/me/following", json={"player": crowd[-1]})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Following too many players"})
    assert len((await alice.http.get("/api/me/following")).json()["players"]) == MAX_FOLLOWING


# -- blocking --------------------------------------------------------------------------------


async def test_blocking_and_the_list(people):
    alice, bob = await people("alice", "bob")
    bob_id = await bob.player_id()
    for _ in range(2):  # idempotent
        assert (await alice.http.post("/api/me/blocked", json={"player": bob_id})).status_code == 204
    assert valid(BlockedPlayers, await alice.http.get("/api/me/blocked")) == {
        "players": [{"player": bob_id, "name": bob.username}]}
    assert valid(PlayerPage, await alice.http.get(f"/api/players/{bob_id}"))["blocked"] is True
    # The blocked one sees the blocker as hiding, nothing more.
    seen = valid(PlayerPage, await bob.http.get(f"/api/players/{await alice.player_id()}"))
    assert "online" not in seen and seen["playing"] == [] and seen["blocked"] is False

    refused = await alice.http.post("/api/me/blocked", json={"player": await alice.player_id()})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Cannot block yourself"})
    for nobody in (unknown_id(), "bad id!"):
        refused = await alice.http.post("/api/me/blocked", json={"player": nobody})
        assert (refused.status_code, refused.json()) == (404, {"detail": "Player not found"})
    await _refuses_bad_bodies(alice, "/api/me/blocked")

    assert (await alice.http.delete(f"/api/me/blocked/{bob_id}")).status_code == 204
    assert (await alice.http.get("/api/me/blocked")).json() == {"players": []}
    for nobody in (bob_id, unknown_id(), "not-an-id"):
        assert (await alice.http.delete(f"/api/me/blocked/{nobody}")).status_code == 204


async def test_a_blocked_player_cannot_join_nor_is_seated_by_quick_match(people):
    alice, bob, carol = await people("alice", "bob", "carol")
    assert (await alice.http.post("/api/me/blocked", json={"player": await bob.player_id()})).status_code == 204
    lobby = valid(Lobby, await alice.http.post("/api/games", json={}))
    refused = await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Blocked"})
    # Either way round: the blocker cannot join the blocked one's game either.
    bobs = valid(Lobby, await bob.http.post("/api/games", json={}))
    refused = await alice.http.post("/api/games/join", json={"code": bobs["join_code"]})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Blocked"})
    assert (await carol.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200

    # Quick match: alice waits at an open game; bob is never seated there, carol may be.
    game_type = {"game_type": "scopone_scientifico", "options": {"target_score": 7, "napola": False}}
    waiting = await alice.http.post("/api/games/quick", json=game_type)
    assert waiting.status_code in (200, 201)
    matched = await bob.http.post("/api/games/quick", json=game_type)
    assert matched.status_code in (200, 201)
    assert matched.json()["id"] != waiting.json()["id"]
    names = {p["name"] for p in matched.json()["players"]}
    assert alice.username not in names


async def test_a_blocked_players_messages_leave_the_history(people):
    alice, bob = await people("alice", "bob")
    lobby = (await alice.http.post("/api/games", json={})).json()
    assert (await bob.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    for player, text in ((alice, "ciao"), (bob, "buongiorno")):
        socket = await player.socket(lobby["id"], features="chat")
        await receive(socket, "lobby")
        await socket.send(json.dumps({"action": "say", "text": text}))
        said = await receive(socket, "said")
        assert said["text"] == text
        await socket.close()

    async def texts(reader: Player) -> list[str]:
        response = await reader.http.get(f"/api/games/{lobby['id']}/chat")
        return [m["text"] for m in valid(ChatHistory, response)["messages"]]

    assert await texts(alice) == ["ciao", "buongiorno"]
    assert (await alice.http.post("/api/me/blocked", json={"player": await bob.player_id()})).status_code == 204
    assert await texts(alice) == ["ciao"]
    assert await texts(bob) == ["ciao", "buongiorno"]  # the blocker's own still reach the blocked one
    assert (await alice.http.delete(f"/api/me/blocked/{await bob.player_id()}")).status_code == 204
    assert await texts(alice) == ["ciao", "buongiorno"]


async def test_at_most_1000_players_are_blocked(stack, people):
    (alice,) = await people("alice")
    crowd = await members(stack, MAX_BLOCKED + 1)
    await _post_all(alice, "/api/me/blocked", crowd[:MAX_BLOCKED])
    refused = await alice.http.post("/api/me/blocked", json={"player": crowd[-1]})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Blocking too many players"})


# -- invitations -----------------------------------------------------------------------------


async def test_an_invitation_is_listed_and_joined_with_its_code(people):
    alice, bob, carol, dave = await people("alice", "bob", "carol", "dave")
    lobby = (await alice.http.post("/api/games", json={})).json()
    carol_id = await carol.player_id()
    for _ in range(2):  # again: nothing new
        invited = await alice.http.post(f"/api/games/{lobby['id']}/invite", json={"player": carol_id})
        assert invited.status_code == 204 and not invited.content

    listed = await carol.http.get("/api/me/invitations")
    body = valid(Invitations, listed)
    assert len(body["invitations"]) == 1
    invitation = body["invitations"][0]
    assert invitation["by"] == {"player": await alice.player_id(), "name": alice.username}
    assert invitation["at"].endswith("Z")
    game = invitation["game"]
    MyGames.model_validate({"games": [game]})
    assert (game["id"], game["join_code"], game["status"], game["seats_open"], game["your_turn"]) == (
        lobby["id"], lobby["join_code"], "lobby", 3, False)
    assert [(p["name"], p["is_you"]) for p in game["players"]] == [(alice.username, False)]
    assert (await alice.http.get("/api/me/invitations")).json() == {"invitations": []}

    joined = await carol.http.post("/api/games/join", json={"code": game["join_code"]})
    assert joined.status_code == 200
    assert (await carol.http.get("/api/me/invitations")).json() == {"invitations": []}  # seated there now
    # Until the game starts: then no invitation holds, and none can be made.
    dave_id = await dave.player_id()
    assert (await carol.http.post(f"/api/games/{lobby['id']}/invite", json={"player": dave_id})).status_code == 204
    assert len((await dave.http.get("/api/me/invitations")).json()["invitations"]) == 1
    for player in (bob, dave):
        assert (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).status_code == 200
    assert (await dave.http.get("/api/me/invitations")).json() == {"invitations": []}
    (erin,) = await people("erin")
    refused = await alice.http.post(f"/api/games/{lobby['id']}/invite", json={"player": await erin.player_id()})
    assert (refused.status_code, refused.json()) == (409, {"detail": "Game already started"})


async def test_invitation_refusals(people):
    alice, bob, carol = await people("alice", "bob", "carol")
    lobby = (await alice.http.post("/api/games", json={})).json()
    path = f"/api/games/{lobby['id']}/invite"
    carol_id = await carol.player_id()
    cases = [
        (alice, path, {"player": await alice.player_id()}, 409, "Cannot invite yourself"),
        (alice, path, {"player": unknown_id()}, 404, "Player not found"),
        (alice, path, {"player": "bad id!"}, 404, "Player not found"),
        (bob, path, {"player": carol_id}, 403, "Not seated at this game"),
        (alice, f"/api/games/{uuid.uuid4()}/invite", {"player": carol_id}, 404, "Game not found"),
    ]
    for who, where, body, status, detail in cases:
        response = await who.http.post(where, json=body)
        assert (response.status_code, response.json()) == (status, {"detail": detail}), (where, body)
    await _refuses_bad_bodies(alice, path)
    assert (await alice.http.get(path)).status_code == 405

    # Blocked either way: 403, and nothing listed.
    assert (await carol.http.post("/api/me/blocked", json={"player": await alice.player_id()})).status_code == 204
    refused = await alice.http.post(path, json={"player": carol_id})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Blocked"})
    assert (await carol.http.get("/api/me/invitations")).json() == {"invitations": []}
    carols = (await carol.http.post("/api/games", json={})).json()
    refused = await carol.http.post(f"/api/games/{carols['id']}/invite", json={"player": await alice.player_id()})
    assert (refused.status_code, refused.json()) == (403, {"detail": "Blocked"})


async def test_no_live_invitation_to_a_game_where_a_blocker_sits(people):
    """The invitee's /ws/me is told what GET /api/me/invitations lists: not an invitation to a
    game where someone sits who blocked them (the join would be 403 Blocked)."""
    alice, bob, carol = await people("alice", "bob", "carol")
    bob_id = await bob.player_id()
    assert (await alice.http.post("/api/me/blocked", json={"player": bob_id})).status_code == 204
    with_alice = (await carol.http.post("/api/games", json={})).json()
    assert (await alice.http.post("/api/games/join", json={"code": with_alice["join_code"]})).status_code == 200
    without = (await carol.http.post("/api/games", json={})).json()
    member_socket = await bob.member_socket()
    for game in (with_alice, without):  # the second is told: what came before it was told first
        answer = await carol.http.post(f"/api/games/{game['id']}/invite", json={"player": bob_id})
        assert answer.status_code == 204
    told = [await receive(member_socket, "invited")]
    while told[-1]["game"]["id"] != without["id"]:
        told.append(await receive(member_socket, "invited"))
    await member_socket.close()
    assert [m["game"]["id"] for m in told] == [without["id"]], "told of a game bob cannot join"
    listed = (await bob.http.get("/api/me/invitations")).json()["invitations"]
    assert [i["game"]["id"] for i in listed] == [without["id"]]


async def test_a_flood_of_invitations_is_refused(people):
    alice, *guests = await people("alice", "bob", "carol")
    lobby = (await alice.http.post("/api/games", json={})).json()
    guest_ids = [await guest.player_id() for guest in guests]
    answers = [await alice.http.post(f"/api/games/{lobby['id']}/invite", json={"player": guest_ids[n % 2]})
               for n in range(11)]
    assert [answer.status_code for answer in answers[:10]] == [204] * 10
    assert (answers[10].status_code, answers[10].json()) == (429, {"detail": "Too many requests"})
    assert int(answers[10].headers["Retry-After"]) >= 1


# -- erasure ---------------------------------------------------------------------------------


async def test_an_erased_player_is_not_found_and_leaves_every_list(people):
    alice, erin = await people("alice", "erin")
    erin_id = await erin.player_id()
    assert (await alice.http.post("/api/me/following", json={"player": erin_id})).status_code == 204
    assert (await alice.http.post("/api/me/blocked", json={"player": erin_id})).status_code == 204
    assert (await erin.http.delete("/api/me")).status_code == 204
    gone = await alice.http.get(f"/api/players/{erin_id}")
    assert (gone.status_code, gone.json()) == (404, {"detail": "Player not found"})
    assert (await alice.http.get("/api/me/following")).json() == {"players": []}
    assert (await alice.http.get("/api/me/blocked")).json() == {"players": []}
    refused = await alice.http.post("/api/me/following", json={"player": erin_id})
    assert (refused.status_code, refused.json()) == (404, {"detail": "Player not found"})


async def test_at_most_50_members_are_invited_to_a_game():
    """The lobby's limit of invitations a game, reached through the gateway: on a stack without
    rate limits, since one member's invitations are limited far below it."""
    unlimited = Stack({"RATE_LIMIT_ENABLED": "false"}).start()
    try:
        alice = await Player(unlimited, "alice").login()
        lobby = (await alice.http.post("/api/games", json={})).json()
        crowd = await members(unlimited, MAX_INVITATIONS + 1)
        await _post_all(alice, f"/api/games/{lobby['id']}/invite", crowd[:MAX_INVITATIONS])
        refused = await alice.http.post(f"/api/games/{lobby['id']}/invite", json={"player": crowd[-1]})
        assert (refused.status_code, refused.json()) == (409, {"detail": "Too many invitations"})
        await alice.close()
    finally:
        unlimited.stop()
