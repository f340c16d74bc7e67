"""gateway/openapi.py's document: valid OpenAPI 3.1, and true to CONTRACT.md endpoint by endpoint."""

from __future__ import annotations

import json
import re

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from game.client import GameType
from game.scopone import OPTIONS_SCHEMA as SCOPONE_OPTIONS_SCHEMA
from gateway.contract import examples
from gateway.openapi import SESSION_COOKIE, WS_ERROR_CODES, spec
from tests.gateway_contract.conftest import REPO
from tests.gateway_contract.support import (
    contract_endpoints,
    contract_error_details,
    contract_line,
    detail_matches,
    documented_examples,
    errors_of,
    is_public,
    json_examples,
    key_names,
    keys_of,
    operations,
    property_names,
    public_patterns,
    registry_game_types,
    resolve,
    schema_ref,
    ws_error_codes,
)

# The gateway's own decisions where the contract leaves the text open (gateway/bodies.py, http_errors.py).
GATEWAY_ERRORS = {
    "413": ["Request body too large"],
    "400": ["Request body must be a JSON object", "Unknown field: colour", "code must be a string",
            "Invalid JSON"],
    "503": ["Service unavailable, try again"],
    "429": ["Too many requests"],
}
NAMED_SCHEMAS = (
    "Error", "Providers", "Me", "GameType", "CreateGameRequest", "JoinRequest", "Lobby", "LobbyPlayer", "Preview",
    "GameView", "Player", "LastPlay", "LastHand", "MoveLog", "MatchPage", "Match", "MatchPlayer", "Ratings",
    "Leaderboard", "Health",
)


def _examples_of(document: dict, response: dict) -> list[dict]:
    media = resolve(document, response).get("content", {}).get("application/json", {})
    return [example["value"] for example in media.get("examples", {}).values()]


def _details(document: dict) -> list[tuple[str, str, str, str]]:
    """(method, path, status, detail) of every documented error example."""
    found = []
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            for value in _examples_of(document, response):
                if isinstance(value, dict) and set(value) == {"detail"}:
                    found.append((method, path, status, value["detail"]))
    for name, response in document["components"]["responses"].items():
        for value in _examples_of(document, response):
            found.append(("*", name, "*", value["detail"]))
    return found


def test_the_document_is_valid_openapi_3_1(document):
    OpenAPIV31SpecValidator(document).validate()


def test_the_document_is_tavolo_version_1_without_servers(document):
    assert document["openapi"] == "3.1.0"
    assert (document["info"]["title"], document["info"]["version"]) == ("tavolo", "1")
    assert "servers" not in document


def test_the_document_is_plain_json_and_fresh_on_each_call(document):
    again = spec(registry_game_types())
    assert json.loads(json.dumps(again)) == document
    again["components"]["schemas"]["Lobby"]["properties"]["id"]["format"] = "changed"
    again["paths"].clear()
    fresh = spec(registry_game_types())
    assert fresh["paths"], "spec() must not hand out a shared object"
    assert fresh["components"]["schemas"]["Lobby"]["properties"]["id"]["format"] == "uuid"


def test_every_endpoint_of_the_contract_is_documented_and_nothing_else(contract, document):
    documented = {(method, path) for method, path, _ in operations(document)}
    expected = contract_endpoints(contract)
    assert ("GET", "/ws/games/{id}") in expected and ("DELETE", "/api/me") in expected  # the parser works
    assert documented == expected


def test_every_operation_has_a_unique_id_a_tag_and_a_summary(document):
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids))
    declared = {tag["name"] for tag in document["tags"]}
    for method, path, operation in operations(document):
        assert operation["summary"], (method, path)
        assert set(operation["tags"]) <= declared, (method, path)


def test_path_parameters_are_declared(document):
    for method, path, operation in operations(document):
        declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
        assert declared == set(re.findall(r"\{(\w+)\}", path)), (method, path)


def test_every_error_text_of_the_contract_is_an_example(contract, document):
    details = [detail for *_, detail in _details(document)]
    templates = contract_error_details(contract)
    assert {"Not authenticated", "Game is full", "Unknown game type: <id>"} <= templates  # the parser works
    missing = [t for t in templates if not any(detail_matches(t, d) for d in details)]
    assert not missing


@pytest.mark.parametrize("status, detail", [(s, d) for s, texts in GATEWAY_ERRORS.items() for d in texts])
def test_the_gateway_error_decisions_are_documented_with_their_status(document, status, detail):
    assert any(s == status and d == detail for _, _, s, d in _details(document))


def test_unknown_routes_and_methods_are_documented(document):
    responses = document["components"]["responses"]
    assert _examples_of(document, responses["RouteNotFound"]) == [{"detail": "Not Found"}]
    assert _examples_of(document, responses["MethodNotAllowed"]) == [{"detail": "Method Not Allowed"}]
    assert "Method Not Allowed" in document["info"]["description"]


def test_the_error_statuses_the_contract_names_per_endpoint(document):
    def statuses(method: str, path: str) -> set[str]:
        return set(document["paths"][path][method.lower()]["responses"])

    assert {"201", "400", "401", "413", "422"} <= statuses("POST", "/api/games")
    assert {"200", "400", "401", "404", "409", "413"} <= statuses("POST", "/api/games/join")
    assert {"200", "400", "404"} <= statuses("GET", "/api/games/preview")
    assert {"200", "403", "404"} <= statuses("GET", "/api/games/{id}")
    assert {"101", "401", "403", "404"} <= statuses("GET", "/ws/games/{id}")
    assert {"302", "400"} <= statuses("GET", "/auth/{provider}/callback")
    assert "404" in statuses("GET", "/auth/{provider}/login")
    assert "204" in statuses("DELETE", "/api/me")
    assert "400" in statuses("GET", "/api/me/matches")


def test_public_and_protected_endpoints_follow_the_contract(contract, document):
    patterns = public_patterns(contract)
    assert "/auth/*" in patterns and "/api/health" in patterns  # the parser works
    scheme = document["components"]["securitySchemes"]["session"]
    assert scheme == {**scheme, "type": "apiKey", "in": "cookie", "name": SESSION_COOKIE}
    for method, path, operation in operations(document):
        security = operation.get("security", document["security"])
        if is_public(path, patterns):
            assert security == [], f"{method} {path} is public in the contract"
        else:
            assert security == [{"session": []}], f"{method} {path} needs the session in the contract"


def test_every_protected_endpoint_documents_401_not_authenticated(document):
    for method, path, operation in operations(document):
        if operation.get("security", document["security"]):
            assert _examples_of(document, operation["responses"]["401"]) == [{"detail": "Not authenticated"}], (
                method, path)


def test_every_example_matches_its_schema(document):
    checked, failures = 0, []
    for where, schema, value in documented_examples(document):
        checked += 1
        failures += [f"{where}: {error}" for error in errors_of(document, schema, value)]
    assert checked > 40
    assert not failures


def test_a_schema_refuses_what_breaks_it(document):
    """The example check above could pass on schemas that accept anything: they do not."""
    assert errors_of(document, schema_ref("JoinRequest"), {"code": "K7QX2M", "colour": "red"})
    assert errors_of(document, schema_ref("Lobby"), {"id": "x"})
    assert errors_of(document, schema_ref("Card"), "11D")
    assert errors_of(document, schema_ref("GameView"), {"status": "lobby"})
    assert not errors_of(document, schema_ref("CreateGameRequest"), {})


def test_a_join_code_is_at_least_one_character(document):
    assert errors_of(document, schema_ref("JoinRequest"), {"code": ""})
    assert not errors_of(document, schema_ref("JoinRequest"), {"code": "k7qx2m"})


@pytest.mark.parametrize("options", [{"colour": "red"}, {"target_score": 11, "target": 20},
                                     {"target_score": 0}, {"napola": "yes"}])
def test_options_are_closed_like_the_games_own_schema(document, options):
    """The gateway answers 422 to an unknown option: the document says so before anyone tries."""
    assert errors_of(document, schema_ref("CreateGameRequest"), {"options": options})


@pytest.mark.parametrize("options", [None, {}, {"target_score": 21},
                                     {"target_score": 11, "napola": True, "asso_pigliatutto": False}])
def test_options_the_game_takes_fit_the_document(document, options):
    assert not errors_of(document, schema_ref("CreateGameRequest"), {"options": options})


def test_the_options_schema_is_the_scopone_engines(document):
    options = document["components"]["schemas"]["Options"]
    assert options["anyOf"] == [schema_ref("ScoponeScientificoOptions")]
    scopone = resolve(document, options["anyOf"][0])
    assert scopone["additionalProperties"] is False
    assert scopone["properties"] == SCOPONE_OPTIONS_SCHEMA["properties"]
    assert scopone["examples"] == [{"target_score": 11, "napola": True, "asso_pigliatutto": False,
                                    "player_entropy": False, "first_dealer": "drawn", "pace": "live"}]


def test_the_options_are_those_of_the_catalogue_it_is_made_for():
    """The gateway knows no game: the options come with the game types (ListGameTypes)."""
    chess = GameType("chess", "Chess", "Kings.", 2, json.dumps({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": False,
        "properties": {"clock": {"type": "integer", "default": 300}}}))
    document = spec([chess])
    OpenAPIV31SpecValidator(document).validate()
    schemas = document["components"]["schemas"]
    assert schemas["Options"]["anyOf"] == [schema_ref("ChessOptions")]
    assert "ScoponeScientificoOptions" not in schemas and "$schema" not in schemas["ChessOptions"]
    assert schemas["ChessOptions"]["examples"] == [{"clock": 300}]
    assert not errors_of(document, schema_ref("CreateGameRequest"), {"options": {"clock": 60}})
    assert errors_of(document, schema_ref("CreateGameRequest"), {"options": {"target_score": 11}})


def test_a_request_names_only_a_game_type_of_the_catalogue():
    """Any other is 400 Unknown game type: the served document says which are taken."""
    chess = GameType("chess", "Chess", "Kings.", 2, json.dumps({"type": "object"}))
    document = spec([*registry_game_types(), chess])
    assert document["components"]["schemas"]["KnownGameType"]["enum"] == ["scopone_scientifico", "chess"]
    for body in ({"game_type": "chess"}, {"game_type": "scopone_scientifico"}, {}):
        assert not errors_of(document, schema_ref("CreateGameRequest"), body)
        assert not errors_of(document, schema_ref("QuickMatchRequest"), body)
    assert errors_of(document, schema_ref("CreateGameRequest"), {"game_type": "poker"})
    assert errors_of(document, schema_ref("QuickMatchRequest"), {"game_type": "poker"})
    for path in ("/api/games/open", "/api/games/open/events", "/api/me/matches", "/api/leaderboard"):
        [game_type] = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == "game_type"]
        for value in ("chess", ""):  # empty: as if absent
            assert not errors_of(document, game_type["schema"], value), (path, value)
        assert errors_of(document, game_type["schema"], "poker"), path


def test_the_requests_say_what_the_gateway_refuses():
    document = spec(registry_game_types())
    assert errors_of(document, schema_ref("AddBotRequest"), {"seat": 2, "level": "campione"})
    assert not errors_of(document, schema_ref("AddBotRequest"), {"seat": 2, "level": "maestro"})
    for blank in ("", " ", "\t\n"):  # 400 code is required
        assert errors_of(document, schema_ref("JoinRequest"), {"code": blank})
    [code] = document["paths"]["/api/games/preview"]["get"]["parameters"]
    assert errors_of(document, code["schema"], " ") and not errors_of(document, code["schema"], " k7qx2m")


def test_the_open_games_stream_declares_its_events():
    document = spec(registry_game_types())
    content = document["paths"]["/api/games/open/events"]["get"]["responses"]["200"]["content"]
    event = content["text/event-stream"]["schema"]
    games = json.dumps(examples.OPEN_GAMES)
    assert not errors_of(document, event, {"event": "open_games", "data": games})
    assert errors_of(document, event, {"event": "message", "data": games})
    assert errors_of(document, event, games)  # what the document said before: a string
    assert resolve(document, event["properties"]["data"]["contentSchema"]) == resolve(
        document, schema_ref("OpenGames"))


def test_without_a_catalogue_the_options_are_any_object():
    schemas = spec([])["components"]["schemas"]
    assert schemas["Options"]["type"] == "object" and "anyOf" not in schemas["Options"]


def test_the_gateway_imports_no_game_rules():
    for path in [REPO / "gateway" / "openapi.py", *(REPO / "gateway" / "contract").glob("*.py")]:
        games = set(re.findall(r"^(?:from|import) (game\.\w+)", path.read_text(encoding="utf-8"), re.MULTILINE))
        assert games <= {"game.client", "game.status"}, path


def test_every_ref_resolves(document):
    refs = re.findall(r'"\$ref": "([^"]+)"', json.dumps(document))
    assert refs
    for ref in set(refs):
        assert resolve(document, {"$ref": ref}) is not None


def test_the_named_component_schemas_exist(document):
    schemas = document["components"]["schemas"]
    assert set(NAMED_SCHEMAS) <= set(schemas)
    assert schemas["Error"]["required"] == ["detail"]
    assert schemas["Health"]["properties"]["status"]["const"] == "ok"


@pytest.mark.parametrize("schema, marker", [("Lobby", "seats_open"), ("GameView", "you"), ("LastHand", "teams")])
def test_the_contract_json_examples_fit_the_schemas(contract, document, schema, marker):
    examples = [v for v in json_examples(contract) if isinstance(v, dict) and marker in v]
    assert examples, f"no contract example with {marker!r}"
    assert keys_of(examples[0]) <= property_names(document, schema_ref(schema))


@pytest.mark.parametrize("schema, line", [
    ("Preview", "| GET | /api/games/preview"),
    ("MatchPage", "| GET | /api/me/matches"),
    ("Ratings", "| GET | /api/me/ratings"),
    ("Leaderboard", "| GET | /api/leaderboard"),
    ("Match", "A match item:"),
    ("MoveLog", "- GET /api/games/{id}/log:"),
    ("Providers", "| GET | /api/auth/providers"),
    ("Me", "| GET | /api/me |"),
    ("GameType", "| GET | /api/game-types"),
])
def test_the_contract_shapes_in_prose_fit_the_schemas(contract, document, schema, line):
    names = key_names(contract_line(contract, line))
    assert names
    assert names <= property_names(document, schema_ref(schema))


def test_the_game_view_has_every_phase_field_and_status(contract, document):
    view = document["components"]["schemas"]["GameView"]
    for field in ("your_turn", "turn_deadline", "last_play", "last_hand", "acknowledged", "hand_end_deadline",
                  "winner", "seed", "seed_commitment", "revision", "join_code"):
        assert field in view["properties"], field
    statuses = re.search(r"`status`: (.*?)\.", contract).group(1)
    assert view["properties"]["status"]["enum"] == re.findall(r"`(\w+)`", statuses)
    last_hand = document["components"]["schemas"]["LastHand"]["properties"]
    assert {"teams", "award", "scores"} <= set(last_hand)


def test_the_move_log_lists_every_move_field(document):
    move = document["components"]["schemas"]["LoggedMove"]
    assert set(move["properties"]) == {"number", "type", "seat", "payload", "auto"}
    log = document["components"]["schemas"]["MoveLog"]
    assert log["properties"]["moves"]["items"] == schema_ref("LoggedMove")
    assert "seed" not in log["required"]


def test_the_match_page_limit_is_1_to_100_defaulting_to_20(document):
    parameters = {p["name"]: p for p in document["paths"]["/api/me/matches"]["get"]["parameters"]}
    assert set(parameters) == {"limit", "cursor", "game_type"}
    assert parameters["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}


def test_the_rate_limited_operations_document_429_with_retry_after(document):
    """The logins and the writes, exactly (gateway.rate_limits decides which)."""
    limited = {(method, path) for method, path, operation in operations(document)
               if "429" in operation["responses"]}
    assert ("POST", "/api/games") in limited and ("GET", "/auth/{provider}/callback") in limited
    assert limited == {(method, path) for method, path, _ in operations(document)
                       if (path.startswith("/auth/") and path != "/auth/logout")
                       or (path.startswith("/api/") and method in ("POST", "PUT", "PATCH", "DELETE"))}
    response = resolve(document, document["paths"]["/api/games"]["post"]["responses"]["429"])
    assert response["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 1}


def test_join_and_get_answer_a_lobby_or_a_game_view(document):
    for path, method in (("/api/games/join", "post"), ("/api/games/{id}", "get")):
        media = document["paths"][path][method]["responses"]["200"]["content"]["application/json"]
        assert media["schema"] == {"oneOf": [schema_ref("Lobby"), schema_ref("GameView")]}


def test_the_websocket_messages_are_schemas_with_the_contract_codes(contract, document):
    schemas = document["components"]["schemas"]
    assert set(schemas["WsError"]["properties"]["code"]["enum"]) == set(WS_ERROR_CODES)
    assert set(WS_ERROR_CODES) == ws_error_codes(contract) | {"unavailable", "unconfirmed", "already_played"}  # tavolo's
    socket = document["paths"]["/ws/games/{id}"]["get"]
    assert "docs/websocket.md" in socket["description"]
