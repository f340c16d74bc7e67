"""CONTRACT.md's REST statuses and texts, against the running stack."""

from __future__ import annotations

import re

import pytest

PROTECTED = [
    ("GET", "/api/me"), ("DELETE", "/api/me"), ("POST", "/api/games"),
    ("POST", "/api/games/join"), ("GET", "/api/games/preview?code=ABC123"),
    ("GET", "/api/games/00000000-0000-4000-8000-000000000000"),
    ("GET", "/api/games/00000000-0000-4000-8000-000000000000/log"),
    ("GET", "/api/me/matches"), ("GET", "/api/me/ratings"), ("GET", "/api/me/games"),
    ("GET", "/api/players/q3Zr8YkV0bT1mWc9LxPa2g"), ("GET", "/api/me/settings"), ("PUT", "/api/me/settings"),
    ("GET", "/api/me/following"), ("POST", "/api/me/following"), ("DELETE", "/api/me/following/q3Zr8YkV0bT1mWc9LxPa2g"),
    ("GET", "/api/me/blocked"), ("POST", "/api/me/blocked"), ("DELETE", "/api/me/blocked/q3Zr8YkV0bT1mWc9LxPa2g"),
    ("POST", "/api/games/00000000-0000-4000-8000-000000000000/invite"), ("GET", "/api/me/invitations"),
    ("POST", "/api/me/push"), ("DELETE", "/api/me/push"),
]
PUBLIC = ["/api/health", "/api/docs", "/api/openapi.json", "/api/game-types", "/api/leaderboard",
          "/api/auth/providers"]


@pytest.mark.parametrize(("method", "path"), PROTECTED)
async def test_protected_endpoints_answer_401_without_a_session(anonymous, method, path):
    response = await anonymous.http.request(method, path)
    assert response.status_code == 401
    assert response.json() == {"detail": "Not authenticated"}


@pytest.mark.parametrize("path", PUBLIC)
async def test_public_endpoints_need_no_session(anonymous, path):
    assert (await anonymous.http.get(path)).status_code == 200


async def test_health(anonymous):
    assert (await anonymous.http.get("/api/health")).json() == {"status": "ok"}


async def test_a_forged_session_cookie_is_not_a_login(anonymous):
    anonymous.http.cookies.set("tavolo_session", "A" * 43)
    assert (await anonymous.http.get("/api/me")).status_code == 401


async def test_unknown_routes_are_404_not_found(anonymous):
    for method, path in (("GET", "/api/nothing"), ("POST", "/api/nothing"), ("GET", "/auth/x/y/z")):
        response = await anonymous.http.request(method, path)
        assert response.status_code == 404
        assert response.json() == {"detail": "Not Found"}


async def test_a_wrong_method_on_a_known_path_is_405(anonymous):
    response = await anonymous.http.put("/api/health")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}


async def test_client_routes_get_the_spa_page(anonymous):
    browser = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    for path in ("/", "/games/some-client-route"):
        response = await anonymous.http.get(path, headers=browser)
        assert response.status_code == 200
        assert "text/html" in response.headers["content-type"]


async def test_unknown_routes_outside_the_api_are_404_unless_a_browser_asks_for_a_page(anonymous):
    for path, headers in (("/nope", {}), ("/nope", {"accept": "application/json"}),
                          ("/games/K7QX2M", {"accept": "*/*"}),
                          ("/assets/missing.js", {"accept": "text/html"})):
        response = await anonymous.http.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json() == {"detail": "Not Found"}


async def test_me(players):
    alice = players[0]
    me = (await alice.http.get("/api/me")).json()
    assert re.fullmatch(r"[A-Za-z0-9_-]{16,}", me["player"]) and me["player"] != "alice"
    assert me == {"sub": "alice", "name": "alice", "provider": "default", "player": me["player"]}


async def test_game_types(anonymous):
    (scopone, *_) = (await anonymous.http.get("/api/game-types")).json()
    assert scopone["id"] == "scopone_scientifico"
    assert scopone["name"] == "Scopone scientifico"
    assert scopone["players"] == 4
    assert set(scopone["options_schema"]["properties"]) >= {"target_score", "napola",
                                                            "asso_pigliatutto"}


async def test_create_game_answers_201_with_the_lobby(players):
    response = await players[0].http.post("/api/games", json={"options": {"target_score": 5}})
    assert response.status_code == 201
    lobby = response.json()
    assert lobby["status"] == "lobby"
    assert lobby["game_type"] == "scopone_scientifico"
    assert lobby["options"] == {"target_score": 5, "napola": True, "asso_pigliatutto": False,
                                "player_entropy": False, "first_dealer": "drawn", "pace": "live"}
    assert lobby["players"] == [{"seat": 0, "name": "alice", "team": "A", "is_you": True,
                                 "player": await players[0].player_id()}]
    assert lobby["seats_open"] == 3
    assert len(lobby["join_code"]) == 6
    assert set(lobby["join_code"]) <= set("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    assert lobby["created_at"].endswith("Z") and len(lobby["created_at"]) == 24


async def test_create_game_with_no_body_uses_the_defaults(players):
    response = await players[0].http.post("/api/games")
    assert response.status_code == 201
    assert response.json()["options"]["target_score"] == 11


async def test_a_new_game_carries_first_dealer_drawn_set_by_the_server(players):
    """CONTRACT "Turns and deadlines": set by the server, and a body may say so too."""
    for body in ({}, {"options": {"target_score": 5}}, {"options": {"first_dealer": "drawn"}}):
        response = await players[0].http.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        assert response.json()["options"]["first_dealer"] == "drawn"


@pytest.mark.parametrize(("body", "status", "detail"), [
    (b'{"game_type": "briscola"}', 400, "Unknown game type: briscola"),
    (b'{"options": {"target_score": "eleven"}}', 422, None),
    (b'{"options": {"colour": "red"}}', 422, None),
    (b'{"options": 5}', 422, "Invalid options: options must be an object"),
    (b'{"options": {"first_dealer": "seat_0"}}', 422, 'Invalid options: first_dealer: must be "drawn"'),
    (b'{"options": {"first_dealer": null}}', 422, 'Invalid options: first_dealer: must be "drawn"'),
    (b'{not json', 400, "Invalid JSON"),
    (b'[1, 2]', 400, "Request body must be a JSON object"),
    (b'{"game_typo": "x"}', 400, "Unknown field: game_typo"),
    (b'{"game_type": 7}', 400, "game_type must be a string"),
])
async def test_create_game_refuses_bad_input(players, body, status, detail):
    response = await players[0].http.post("/api/games", content=body,
                                          headers={"content-type": "application/json"})
    assert response.status_code == status
    if detail is None:
        assert response.json()["detail"].startswith("Invalid options: ")
    else:
        assert response.json() == {"detail": detail}


@pytest.mark.parametrize("body", [
    b'{"game_type": ' * 3000 + b'1' + b'}' * 3000,     # deeper than the JSON decoder recurses
    b'[' * 100_00 + b']' * 100_00,
    b'{"game_type": "\\ud800"}',                       # a lone surrogate: not Unicode text
    b'{"options": {"\\udc00": true}}',
    b'\xff\xfe{}',                                     # not UTF-8
])
async def test_json_that_cannot_be_carried_on_is_400_invalid_json(players, body):
    for path in ("/api/games", "/api/games/join"):
        response = await players[0].http.post(path, content=body,
                                              headers={"content-type": "application/json"})
        assert (response.status_code, response.json()) == (400, {"detail": "Invalid JSON"}), path
    assert (await players[0].http.get("/api/me")).status_code == 200  # the connection lives on


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
async def test_a_body_declared_as_anything_but_json_is_415(players, content_type):
    response = await players[0].http.post("/api/games", content=b'{}',
                                          headers={"content-type": content_type})
    assert response.status_code == 415
    assert response.json() == {"detail": "Content-Type must be application/json"}


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
async def test_an_empty_body_declared_as_anything_but_json_is_415_too(players, content_type):
    """What a cross-site form can send: refused before it creates anything, body or none."""
    games = (await players[0].http.get("/api/me/games")).json()
    response = await players[0].http.post("/api/games", content=b"",
                                          headers={"content-type": content_type})
    assert (response.status_code, response.json()) == (
        415, {"detail": "Content-Type must be application/json"})
    assert (await players[0].http.get("/api/me/games")).json() == games


async def test_json_media_types_and_a_missing_content_type_are_read_as_json(players):
    for headers in ({"content-type": "application/json; charset=utf-8"},
                    {"content-type": "application/merge-patch+json"}, {}):
        response = await players[0].http.post("/api/games", content=b'{}', headers=headers)
        assert response.status_code == 201, headers


async def test_an_oversized_body_is_413(players):
    response = await players[0].http.post("/api/games", content=b" " * (65 * 1024))
    assert response.status_code == 413


async def test_join_preview_and_view(players):
    alice, bob, carol, dave = players
    lobby = (await alice.http.post("/api/games")).json()
    code = lobby["join_code"]
    waiting = await alice.http.get(f"/api/games/{lobby['id']}/log")  # seated: at any time
    assert waiting.status_code == 200
    assert waiting.json() == {"id": lobby["id"], "game_type": "scopone_scientifico",
                              "options": lobby["options"], "seed_commitment": None,
                              "seats": ["seat:0", "seat:1", "seat:2", "seat:3"], "moves": [],
                              "revision": 0, "status": "lobby"}
    assert (await bob.http.get(f"/api/games/{lobby['id']}/log")).status_code == 403

    preview = await bob.http.get(f"/api/games/preview?code={code.lower()}")
    assert preview.status_code == 200
    body = preview.json()
    assert body["status"] == "lobby" and body["seats_open"] == 3
    assert body["name"] == "Scopone scientifico" and body["description"]
    assert body["players"] == [{"seat": 0, "name": "alice", "team": "A",
                                "player": await alice.player_id()}]

    joined = await bob.http.post("/api/games/join", json={"code": code.lower()})
    assert joined.status_code == 200
    assert [p["name"] for p in joined.json()["players"]] == ["alice", "bob"]
    again = await bob.http.post("/api/games/join", json={"code": code})
    assert again.status_code == 200 and again.json()["seats_open"] == 2

    assert (await dave.http.get(f"/api/games/{lobby['id']}")).status_code == 403
    assert (await dave.http.get(f"/api/games/{lobby['id']}")).json() == {
        "detail": "Not seated at this game"}
    await carol.http.post("/api/games/join", json={"code": code})
    started = await dave.http.post("/api/games/join", json={"code": code})
    view = started.json()
    assert view["status"] == "playing"
    assert view["you"] == 3 and len(view["hand"]) == 10 and view["table"] == []
    assert [p["name"] for p in view["players"]] == ["alice", "bob", "carol", "dave"]
    assert view["join_code"] == code and view["id"] == lobby["id"]
    assert len(view["seed_commitment"]) == 64 and "seed" not in view

    leader = (view["dealer"] + 1) % 4  # the seat after the drawn dealer leads hand 1
    leader_view = (await players[leader].http.get(f"/api/games/{lobby['id']}")).json()
    assert leader_view["your_turn"] is True and leader_view["turn"] == leader
    assert [entry["card"] for entry in leader_view["legal"]] == leader_view["hand"]
    assert all(entry["captures"] == [[]] for entry in leader_view["legal"])  # the table is empty
    assert ("legal" in view, "your_turn" in view) == (leader == 3, leader == 3)

    log = await alice.http.get(f"/api/games/{lobby['id']}/log")
    assert log.status_code == 200
    assert log.json()["seats"] == ["seat:0", "seat:1", "seat:2", "seat:3"]
    assert "seed" not in log.json() and log.json()["status"] == "playing"
    assert log.json()["seed_commitment"] == view["seed_commitment"]

    outsider = await _fifth_player(players[0].stack)
    try:
        full = await outsider.http.post("/api/games/join", json={"code": code})
        assert full.status_code == 409 and full.json() == {"detail": "Game is full"}
        assert (await outsider.http.get(f"/api/games/{lobby['id']}/log")).status_code == 403
    finally:
        await outsider.close()


async def _fifth_player(stack):
    from testing.players import Player
    return await Player(stack, "erin").login()


async def test_unknown_games_and_codes_are_404(players):
    alice = players[0]
    missing = await alice.http.post("/api/games/join", json={"code": "ZZZZZZ"})
    assert missing.status_code == 404 and missing.json() == {"detail": "Game not found"}
    preview = await alice.http.get("/api/games/preview?code=ZZZZZZ")
    assert preview.status_code == 404 and preview.json() == {"detail": "Game not found"}
    for game_id in ("00000000-0000-4000-8000-000000000000", "not-a-uuid"):
        response = await alice.http.get(f"/api/games/{game_id}")
        assert response.status_code == 404 and response.json() == {"detail": "Game not found"}


@pytest.mark.parametrize("path", ["/api/games/%20", "/api/games/%09", "/api/games/%0A%20",
                                  "/api/games/%00", "/api/games/%00/log", "/api/games/%20/log",
                                  "/api/games/%E2%80%AE/log"])
async def test_an_id_of_blanks_or_control_characters_is_404_like_any_unknown_id(players, path):
    response = await players[0].http.get(path)
    assert (response.status_code, response.json()) == (404, {"detail": "Game not found"})


async def test_preview_without_a_code_is_400(players):
    assert (await players[0].http.get("/api/games/preview")).status_code == 400


async def test_join_needs_a_code(players):
    for body in ({}, {"code": ""}, {"code": "   "}):
        response = await players[0].http.post("/api/games/join", json=body)
        assert (response.status_code, response.json()) == (400, {"detail": "code is required"})


async def test_join_answers_405_to_other_methods_rather_than_taking_join_for_an_id(players):
    for method in ("GET", "PUT", "DELETE"):
        response = await players[0].http.request(method, "/api/games/join")
        assert response.status_code == 405 and response.headers["allow"] == "POST"
        assert response.json() == {"detail": "Method Not Allowed"}


async def test_other_methods_on_the_games_collection_are_405_not_404(players):
    for method in ("GET", "HEAD", "PUT"):
        response = await players[0].http.request(method, "/api/games")
        assert response.status_code == 405 and response.headers["allow"] == "POST"


async def test_oversized_names_in_a_create_are_the_contract_errors_not_503(players):
    """The lobby echoes the type and the engine the option it refuses: a long one must not
    overflow the gRPC trailers that carry the error (it used to come back as 503)."""
    long_type = "t" * 20_000
    response = await players[0].http.post("/api/games", json={"game_type": long_type})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("Unknown game type: ttt")
    assert len(response.json()["detail"]) < 1000
    response = await players[0].http.post("/api/games", json={"options": {"k" * 12_000: 1}})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("Invalid options: ")


async def test_history_and_leaderboard_refuse_an_unknown_game_type_alike(players):
    for path in ("/api/me/matches?game_type=nope", "/api/leaderboard?game_type=nope"):
        response = await players[0].http.get(path)
        assert (response.status_code, response.json()) == (400, {"detail": "Unknown game type: nope"})


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "limit=x", "limit=%C2%B2", "limit=-1",
                                   "limit=1.5", "limit=", "limit=1&limit=2", "limit=5&limit=5",
                                   "limit=" + "1" * 5000, "cursor=forged"])
async def test_bad_limits_and_cursors_are_400(players, query):
    response = await players[0].http.get(f"/api/me/matches?{query}")
    assert response.status_code == 400


@pytest.mark.parametrize("query", ["limit=0", "limit=x", "limit=1.5", "limit=", "limit=1&limit=2"])
async def test_the_leaderboard_refuses_bad_limits_alike(players, query):
    response = await players[0].http.get(f"/api/leaderboard?{query}")
    assert (response.status_code, response.json()) == (
        400, {"detail": "limit must be an integer from 1 to 100"})


async def test_a_limit_at_the_bounds_is_taken(players):
    for query in ("limit=1", "limit=100", "limit=007"):
        assert (await players[0].http.get(f"/api/leaderboard?{query}")).status_code == 200, query
        assert (await players[0].http.get(f"/api/me/matches?{query}")).status_code == 200, query


async def test_empty_history_ratings_and_leaderboard(players):
    alice = players[0]
    assert (await alice.http.get("/api/me/matches")).json() == {"items": [], "next_cursor": None}
    assert (await alice.http.get("/api/me/ratings")).json() == {"ratings": []}
    board = (await alice.http.get("/api/leaderboard")).json()
    assert board["game_type"] == "scopone_scientifico" and isinstance(board["entries"], list)
    assert (await alice.http.get("/api/leaderboard?game_type=briscola")).status_code == 400


async def test_providers(anonymous):
    assert (await anonymous.http.get("/api/auth/providers")).json() == {
        "providers": [{"name": "default", "login_url": "/auth/default/login"}]}


async def test_my_games_lists_the_unfinished_games_newest_first_with_your_turn(stack):
    from testing.players import Player
    mia, noah, olga, pete = [await Player(stack, name).login()
                             for name in ("mia", "noah", "olga", "pete")]
    try:
        assert (await mia.http.get("/api/me/games")).json() == {"games": []}
        waiting = (await mia.http.post("/api/games")).json()
        (item,) = (await mia.http.get("/api/me/games")).json()["games"]
        assert item == {
            "id": waiting["id"], "game_type": "scopone_scientifico",
            "join_code": waiting["join_code"], "status": "lobby",
            "players": [{"seat": 0, "name": "mia", "team": "A", "is_you": True,
                         "player": await mia.player_id()}],
            "seats_open": 3, "your_turn": False, "updated_at": waiting["created_at"], "pace": "live",
        }  # no deadline in the lobby
        playing = (await noah.http.post("/api/games")).json()
        for player in (mia, olga, pete):
            await player.http.post("/api/games/join", json={"code": playing["join_code"]})
        games = (await mia.http.get("/api/me/games")).json()["games"]
        assert [(g["id"], g["status"]) for g in games] == [(playing["id"], "playing"),
                                                           (waiting["id"], "lobby")]
        assert games[0]["updated_at"] >= games[1]["updated_at"]
        assert [p["is_you"] for p in games[0]["players"]] == [False, True, False, False]
        view = (await mia.http.get(f"/api/games/{playing['id']}")).json()
        assert (games[0]["pace"], games[0]["deadline"]) == ("live", view["turn_deadline"])
        seated = (noah, mia, olga, pete)  # seats 0..3
        leader = ((await noah.http.get(f"/api/games/{playing['id']}")).json()["dealer"] + 1) % 4
        turns = {player.username: (await player.http.get("/api/me/games")).json()["games"][0]
                 for player in seated}
        assert {name: item["your_turn"] for name, item in turns.items()} == {
            player.username: seat == leader for seat, player in enumerate(seated)}
        assert [g["id"] for g in (await olga.http.get("/api/me/games")).json()["games"]] == [
            playing["id"]]
    finally:
        for player in (mia, noah, olga, pete):
            await player.close()


async def test_blanks_are_not_json_even_where_a_body_is_optional(players):
    """No body at all is `{}`; a body of blanks is not JSON (the document says so too)."""
    alice = players[0]
    json_type = {"content-type": "application/json"}
    for path in ("/api/games", "/api/games/quick"):
        response = await alice.http.post(path, content=b"\n ", headers=json_type)
        assert (response.status_code, response.json()) == (400, {"detail": "Invalid JSON"}), path
    assert (await alice.http.post("/api/games", content=b"", headers=json_type)).status_code == 201


async def test_a_plain_get_of_a_socket_url_asks_for_the_upgrade(players):
    response = await players[0].http.get("/ws/games/00000000-0000-4000-8000-000000000000")
    assert (response.status_code, response.json()) == (426, {"detail": "Upgrade Required"})
    assert response.headers["upgrade"] == "websocket"


@pytest.mark.parametrize(("path", "allow"), [
    ("/api/me/following/q3Zr8YkV0bT1mWc9LxPa2g", "DELETE"),
    ("/api/me/blocked/q3Zr8YkV0bT1mWc9LxPa2g", "DELETE"),
    ("/api/me/muted/q3Zr8YkV0bT1mWc9LxPa2g", "DELETE"),
    ("/api/games/00000000-0000-4000-8000-000000000000/bots/2", "DELETE"),
    ("/api/games/00000000-0000-4000-8000-000000000000/invite", "POST"),
    ("/api/games/00000000-0000-4000-8000-000000000000/leave", "POST"),
])
async def test_a_read_of_a_path_served_for_other_methods_is_405_naming_them(players, path, allow):
    """GET (or HEAD) of an API path that only other methods serve is a wrong method, not an
    unknown route: the SPA's catch-all, which answers every other GET, must not turn it into 404."""
    for method in ("GET", "HEAD"):
        response = await players[0].http.request(method, path)
        assert response.status_code == 405, (method, path, response.status_code)
        assert response.headers["allow"] == allow
    assert (await players[0].http.get(path)).json() == {"detail": "Method Not Allowed"}
