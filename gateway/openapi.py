"""The gateway's OpenAPI 3.1 document (CONTRACT.md, endpoint by endpoint) and the routes that publish it.

The bodies' schemas are gateway.contract's models (their JSON schemas, with the descriptions and
examples on their fields); this module adds the paths: routes, status codes, error bodies,
parameters. The options a game takes are each game type's own: they come with the catalogue, from
the game service's registry (ListGameTypes, kept by gateway.game_types), so the document is made
for the catalogue the gateway has, once per catalogue. ``routes()`` serves it at /api/openapi.json
and renders it at /api/docs with Swagger UI, whose assets come from the swagger-ui-py package under
/api/docs/static: the page needs no CDN. The WebSocket protocol does not fit OpenAPI; its reference
is docs/websocket.md, and its messages are the ``Ws*`` schemas.

``python -m gateway.openapi`` prints the document without a server and without a catalogue (the
options are then any object, each game type's following its `options_schema`): `make contract`
commits it as docs/openapi.json, and the app's types are generated from it.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import sys
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui.utils import SWAGGER_UI_PY_ROOT

from game.client import DEFAULT_GAME_TYPE, GameType
from gateway import contract
from gateway.contract import examples
from gateway.contract.analysis import ANALYSIS_DONE, ANALYSIS_QUEUED, MAX_PENDING, Analysis
from gateway.contract.common import NOT_BLANK
from gateway.contract.games import (
    AddBotRequest,
    ChangeSeatRequest,
    CreateGameRequest,
    JoinRequest,
    Left,
    Lobby,
    MyGames,
    NoFieldsRequest,
    OpenGames,
    Preview,
    QuickMatchRequest,
    RematchRequest,
    SetOpenRequest,
)
from gateway.contract.games import GameType as GameTypeBody
from gateway.contract.platform import Error, Health, Me, Providers
from gateway.contract.players import (
    FRIEND,
    INVITATION,
    MAX_BLOCKED,
    MAX_FOLLOWING,
    PLAYER_PAGE,
    BlockedPlayers,
    BlockRequest,
    FollowedPlayers,
    FollowRequest,
    Invitations,
    InviteRequest,
    PlayerPage,
    SettingsRequest,
)
from gateway.contract.players import Settings as PlayerSettings
from gateway.contract.push import (
    ENDPOINT_EXAMPLE,
    MAX_SUBSCRIPTIONS,
    PUBLIC_KEY_EXAMPLE,
    PUSH_DISABLED_TEXT,
    SUBSCRIPTION,
    SUBSCRIPTION_ERRORS,
    PushKey,
    PushSubscribeRequest,
    PushUnsubscribeRequest,
)
from gateway.contract.records import Leaderboard, MatchPage, MoveLog, Ratings
from gateway.contract.socket import MAX_SOCKET_MESSAGE_BYTES as MAX_SOCKET_MESSAGE_BYTES
from gateway.contract.socket import WS_ERROR_CODES as WS_ERROR_CODES
from gateway.contract.spectators import SPECTATORS_FORBIDDEN, LiveGames, PublicGameView, PublicLobby
from gateway.contract.table import GameView
from gateway.contract.talk import (
    PLAYER_ID_EXAMPLE,
    SAID_EXAMPLE,
    ChatHistory,
    MutedPlayers,
    MuteRequest,
    Phrases,
    Reported,
    ReportRequest,
)
from gateway.rate_limits import TOO_MANY_TEXT, kind_of
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

OPENAPI_PATH = "/api/openapi.json"
DOCS_PATH = "/api/docs"
DOCS_STATIC_PATH = "/api/docs/static"
SESSION_COOKIE = "tavolo_session"
MAX_BODY_KIB = 64
KNOWN_GAME_TYPE = "KnownGameType"  # gateway.contract.common's, the game types a request may name

Schema = dict[str, Any]


def _ref(target: type[BaseModel] | str, description: str | None = None) -> Schema:
    """A reference to a component: a contract model (by its class, so the name cannot drift) or a name."""
    name = target if isinstance(target, str) else target.__name__
    schema: Schema = {"$ref": contract.REF_TEMPLATE.format(model=name)}
    if description:
        schema["description"] = description
    return schema


# -- the options of each game type ------------------------------------------------------------------


def _options_name(game_type: str) -> str:
    """``scopone_scientifico`` -> ``ScoponeScientificoOptions``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", game_type)) + "Options"


def _options_schemas(generic: Schema, game_types: Sequence[GameType]) -> dict[str, Schema]:
    """``Options``: any game type's options, each closed like its engine's own schema (the one
    GET /api/game-types serves as its `options_schema`); without a catalogue, any object."""
    if not game_types:
        return {"Options": generic}
    named: dict[str, Schema] = {}
    for game_type in game_types:
        schema = {key: value for key, value in game_type.options_schema.items() if key != "$schema"}
        defaults = {name: option["default"] for name, option in schema.get("properties", {}).items()
                    if isinstance(option, dict) and "default" in option}
        named[_options_name(game_type.id)] = {
            **schema, "description": f"The options of a `{game_type.id}` game ({game_type.name}).",
            "examples": [defaults]}
    return {"Options": {"description": generic["description"], "anyOf": [_ref(name) for name in named]},
            **named}


# -- responses and parameters ---------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _json(description: str, schema: Schema, *, example: Any = None, examples: dict[str, Any] | None = None,
          headers: dict[str, Any] | None = None) -> dict:
    media: dict[str, Any] = {"schema": schema}
    if example is not None:
        media["example"] = example
    if examples:
        media["examples"] = {name: {"value": value} for name, value in examples.items()}
    response: dict[str, Any] = {"description": description, "content": {"application/json": media}}
    if headers:
        response["headers"] = headers
    return response


def _error(description: str, *details: str) -> dict:
    """An error response whose examples are the exact ``detail`` texts."""
    return {"description": description, "content": {"application/json": {
        "schema": _ref(Error),
        "examples": {_slug(detail): {"summary": detail, "value": {"detail": detail}} for detail in details},
    }}}


def _shared(name: str) -> dict:
    return {"$ref": f"#/components/responses/{name}"}


def _header(description: str) -> dict:
    return {"description": description, "schema": {"type": "string"}}


def _redirect(description: str, *, cookie: str | None = None) -> dict:
    headers = {"Location": _header("Where the browser goes next.")}
    if cookie:
        headers["Set-Cookie"] = _header(cookie)
    return {"description": description, "headers": headers}


def _param(where: str, name: str, description: str, schema: Schema, *, required: bool = False) -> dict:
    return {"name": name, "in": where, "description": description, "required": required or where == "path",
            "schema": schema}


# One event of GET /api/games/open/events. OpenAPI 3.1 has no schema of a stream's items (3.2's
# itemSchema), so, as tools read 3.1 (schemathesis), ``schema`` describes each event: its fields
# as an EventSource parses them, the data JSON text of the body of GET /api/games/open.
_OPEN_GAMES_EVENT: Schema = {
    "type": "object",
    "description": "One event of the stream, as an EventSource parses it.",
    "properties": {
        "event": {"const": "open_games", "description": "Always `open_games`."},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": _ref(OpenGames),
                 "description": "The body of GET /api/games/open, as JSON text."},
    },
    "required": ["event", "data"],
}
_GAME_ID_PARAM = _param("path", "id", "The game id.", {"type": "string", "format": "uuid"})
_LIMIT_ERROR = "limit must be an integer from 1 to 100"
_LIVE_LIMIT_ERROR = "limit must be an integer from 1 to 50"
_BODY_ERRORS = ("Invalid JSON", "Request body must be a JSON object", "Unknown field: colour")


def _game_type_param(description: str, *, default: str | None = None) -> dict:
    """``game_type`` of a query: a known game type, or empty (as if absent)."""
    schema: Schema = {"anyOf": [_ref(KNOWN_GAME_TYPE), {"const": "", "description": "As if absent."}]}
    if default is not None:
        schema["default"] = default
    return _param("query", "game_type", description, schema)


def _limit_param(default: int) -> dict:
    return _param("query", "limit", "How many, 1..100; anything else (empty, given twice, not an integer) "
                  "is a 400.",
                  {"type": "integer", "minimum": 1, "maximum": 100, "default": default})


def _shared_responses() -> dict[str, dict]:
    return {
        "NotAuthenticated": _error("No valid session cookie.", "Not authenticated"),
        "ServiceUnavailable": _error("A service behind the gateway did not answer (a read gives up within "
                                     "about a second); retry. Always this text.",
                                     "Service unavailable, try again"),
        "GameNotFound": _error("No game has this id (or code); an id of blanks or with control characters "
                               "too.", "Game not found"),
        "BodyTooLarge": _error(f"The body is over {MAX_BODY_KIB} KiB.", "Request body too large"),
        "NotJson": _error("A body whose Content-Type is declared and is not JSON (`application/json` or "
                          "`*/*+json`); a body without a Content-Type is read as JSON.",
                          "Content-Type must be application/json"),
        "RouteNotFound": _error("Any path the gateway does not serve.", "Not Found"),
        "MethodNotAllowed": _error("A known path with a method it does not take.", "Method Not Allowed"),
        "TooManyRequests": {
            **_error("Over a rate limit (logins and writes are limited per session and per client "
                     "address): nothing was done; try again after Retry-After.", TOO_MANY_TEXT),
            "headers": {"Retry-After": {"description": "Whole seconds to wait, at least 1.",
                                        "schema": {"type": "integer", "minimum": 1}}},
        },
    }


def _with_rate_limits(paths: dict[str, dict]) -> dict[str, dict]:
    """Every operation the gateway's rate limits cover (gateway.rate_limits) documents its 429."""
    for path, item in paths.items():
        for method, operation in item.items():
            if kind_of(method.upper(), path) is not None:
                responses = {**operation["responses"], "429": _shared("TooManyRequests")}
                operation["responses"] = dict(sorted(responses.items()))
    return paths


def _operation(operation_id: str, tag: str, summary: str, responses: dict[str, dict], *,
               description: str | None = None, parameters: tuple[dict, ...] = (), body: dict | None = None,
               public: bool = False, calls_services: bool = True) -> dict:
    """One operation; a protected one documents 401, one that calls a service documents 503."""
    responses = dict(responses)
    if not public:
        responses.setdefault("401", _shared("NotAuthenticated"))
    if calls_services:
        responses.setdefault("503", _shared("ServiceUnavailable"))
    if body is not None:
        responses.setdefault("413", _shared("BodyTooLarge"))
        responses.setdefault("415", _shared("NotJson"))
    operation: dict[str, Any] = {"operationId": operation_id, "tags": [tag], "summary": summary}
    if description:
        operation["description"] = description
    if parameters:
        operation["parameters"] = list(parameters)
    if body is not None:
        operation["requestBody"] = body
    operation["responses"] = dict(sorted(responses.items()))
    if public:
        operation["security"] = []
    return operation


def _body(model: type[BaseModel], description: str, *, required: bool, example: Any) -> dict:
    return {"description": description, "required": required,
            "content": {"application/json": {"schema": _ref(model), "example": example}}}


# -- paths ----------------------------------------------------------------------------------


def _platform_paths() -> dict[str, dict]:
    return {
        "/api/health": {"get": _operation(
            "getHealth", "platform", "Readiness of the gateway",
            {"200": _json("The gateway answers.", _ref(Health), example={"status": "ok"}),
             "503": _error("The gateway is stopping (a rollout or a restart): it finishes what it "
                           "serves and takes nothing new. Always this text.",
                           "Service unavailable, try again")},
            public=True, calls_services=False)},
        OPENAPI_PATH: {"get": _operation(
            "getOpenApi", "platform", "This document",
            {"200": _json("The OpenAPI 3.1 document.", {"type": "object"})}, public=True, calls_services=False)},
        DOCS_PATH: {"get": _operation(
            "getDocs", "platform", "Swagger UI for this document (works offline)",
            {"200": {"description": "An HTML page.", "content": {"text/html": {"schema": {"type": "string"}}}}},
            public=True, calls_services=False)},
    }


def _auth_paths() -> dict[str, dict]:
    provider = _param("path", "provider", "The provider name, e.g. `default`.", {"type": "string"})
    cookie = f"The session cookie `{SESSION_COOKIE}` (HttpOnly, SameSite=Lax, Path=/, Secure over https)."
    unknown = _error("No provider has this name.", "Not Found")
    return {
        "/api/auth/providers": {"get": _operation(
            "listProviders", "auth", "The login providers",
            {"200": _json("In configuration order.", _ref(Providers))}, public=True, calls_services=False)},
        "/auth/login": {"get": _operation(
            "login", "auth", "Log in with the first provider",
            {"302": _redirect("To the first provider's `/auth/<provider>/login`.")},
            public=True, calls_services=False)},
        "/auth/{provider}/login": {"get": _operation(
            "loginWithProvider", "auth", "Start the OIDC login",
            {"302": _redirect("To the provider's authorization endpoint: authorization code flow with PKCE "
                              "(S256), `state` and `nonce`, kept server-side in the session.",
                              cookie="The session cookie, when the request had no session yet."),
             "404": unknown,
             "503": _error("The provider cannot be reached (or its discovery document is wrong).",
                           "Login provider unavailable")},
            parameters=(provider,), public=True, calls_services=False)},
        "/auth/{provider}/callback": {"get": _operation(
            "loginCallback", "auth", "Finish the OIDC login",
            {"302": _redirect("Logged in: to POST_LOGIN_REDIRECT.", cookie=cookie),
             "400": _error("Any failure (state, code exchange, id_token); the reason goes to the log.",
                           "Login failed"),
             "404": unknown},
            description="Validates `state`, exchanges the code, validates the id_token (signature from JWKS, "
                        "iss, aud, exp, nonce) and sets the session cookie.",
            parameters=(provider,
                        _param("query", "code", "The authorization code.", {"type": "string"}),
                        _param("query", "state", "The state sent at login.", {"type": "string"}),
                        _param("query", "error", "Set by a provider that refused the login (then 400).",
                               {"type": "string"})),
            public=True, calls_services=False)},
        "/auth/logout": {"get": _operation(
            "logout", "auth", "End the session",
            {"302": _redirect("To the provider's end_session_endpoint when it has one (with "
                              "post_logout_redirect_uri), else to POST_LOGOUT_REDIRECT.",
                              cookie="Clears the session cookie.")},
            public=True, calls_services=False)},
        "/api/me": {
            "get": _operation("getMe", "auth", "Who is logged in",
                              {"200": _json("The member.", _ref(Me))}, calls_services=False),
            "delete": _operation(
                "deleteMe", "auth", "Erase the member",
                {"204": {"description": "Erased; the session ended.",
                         "headers": {"Set-Cookie": _header("Clears the session cookie.")}}},
                description="Seatings and match rows are anonymized (name \"deleted player\", a fresh random "
                            "id), ratings removed, every session of the member ended. Every log stays "
                            "replayable."),
        },
    }


def _game_paths() -> dict[str, dict]:
    views = {"lobby": examples.LOBBY, "playing": examples.PLAYING, "hand_end": examples.HAND_END,
             "finished": examples.FINISHED}
    lobby_or_game = {"oneOf": [_ref(Lobby), _ref(GameView)]}
    not_seated = _error("The caller has no seat at this game.", "Not seated at this game")
    return {
        "/api/game-types": {"get": _operation(
            "listGameTypes", "games", "The game types",
            {"200": _json("Every game type, the default (scopone_scientifico) first.",
                          {"type": "array", "items": _ref(GameTypeBody), "description": "The catalogue."})},
            description="The gateway keeps the catalogue (it changes only with a deploy): fetched on first "
                        "use, refreshed in the background once a minute, served while the lobby is down.",
            public=True)},
        "/api/games": {"post": _operation(
            "createGame", "games", "Create a game",
            {"201": _json("The new game, the creator at seat 0.", _ref(Lobby), example=examples.LOBBY),
             "400": _error("Not a JSON object, an unknown field, a wrong type or an unknown game type.",
                           "Unknown game type: chess", *_BODY_ERRORS, "game_type must be a string",
                           "game_type is required"),
             "409": _error("`open` when the caller has 5 open games waiting already; a daily game (`pace`) "
                           "when the caller sits at 20 unfinished daily games already.",
                           "Too many open games", "Too many daily games"),
             "422": _error("Options that break the game type's options_schema.",
                           "Invalid options: target_score: must be an integer from 1 to 121",
                           "Invalid options: options must be an object")},
            body=_body(CreateGameRequest, "Optional: no body is `{}` (scopone_scientifico, default options).",
                       required=False, example={"game_type": "scopone_scientifico", "options": examples.OPTIONS}))},
        "/api/games/join": {"post": _operation(
            "joinGame", "games", "Join a game by its code",
            {"200": _json("The lobby, or the game view when this join took the last seat (the game starts). "
                          "Joining again when seated answers the same (idempotent).", lobby_or_game,
                          examples={"lobby": examples.LOBBY, "started": examples.STARTED}),
             "400": _error("Not a JSON object, an unknown field or no code.", *_BODY_ERRORS,
                           "code is required", "code must be a string"),
             "403": _error("The caller blocked a member seated there, or was blocked by one.", "Blocked"),
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("Every seat is taken by others; or the game is daily and the caller sits at 20 "
                           "unfinished daily games already.", "Game is full", "Too many daily games")},
            body=_body(JoinRequest, "The join code.", required=True, example={"code": "K7QX2M"}))},
        "/api/games/open": {"get": _operation(
            "listOpenGames", "games", "Games anyone may join",
            {"200": _json("Games in the lobby that their creator opened to anyone and that have a seat "
                          "open, newest first, at most 50. Join one with POST /api/games/join and its code.",
                          _ref(OpenGames), example=examples.OPEN_GAMES),
             "400": _error("An unknown game type.", "Unknown game type: chess")},
            parameters=(_game_type_param("Only this game type."),))},
        "/api/games/open/events": {"get": _operation(
            "watchOpenGames", "games", "Games anyone may join, as they change (Server-Sent Events)",
            {"200": {"description": "`text/event-stream`: an `open_games` event at once and whenever the "
                                    "list changes (at most one a second), its data the body of GET "
                                    "/api/games/open; a comment line every 25 s keeps the stream alive.",
                     "content": {"text/event-stream": {"schema": _OPEN_GAMES_EVENT}}},
             "400": _error("An unknown game type.", "Unknown game type: chess")},
            parameters=(_game_type_param("Only this game type."),))},
        "/api/games/quick": {"post": _operation(
            "quickMatch", "games", "Play now: a seat at an open game, or a new open game",
            {"200": _json("Seated at the open game of the type (and options, when given) whose `rating` is "
                          "nearest the caller's: the lobby, or the game view when this call took the last "
                          "seat (the game starts). A caller already waiting at an open game of the type "
                          "gets that game again (idempotent).", lobby_or_game,
                          examples={"lobby": examples.LOBBY, "started": examples.STARTED}),
             "201": _json("No open game had a seat: a new open game, the caller at seat 0.", _ref(Lobby),
                          example=examples.LOBBY),
             "400": _error("Not a JSON object, an unknown field, a wrong type or an unknown game type.",
                           "Unknown game type: chess", *_BODY_ERRORS),
             "409": _error("A new game was needed and the caller has 5 open games waiting already; or "
                           "the game is daily and the caller sits at 20 unfinished daily games already.",
                           "Too many open games", "Too many daily games"),
             "422": _error("Options that break the game type's options_schema.",
                           "Invalid options: target_score: must be an integer from 1 to 121")},
            description="Two callers racing for the last seat of a game never both get it: quick matches of "
                        "one game type are answered one at a time.",
            body=_body(QuickMatchRequest, "Optional: no body is `{}` (scopone_scientifico, any options of "
                                          "the live pace: Play now never seats the caller at a daily game).",
                       required=False, example={"game_type": "scopone_scientifico"}))},
        "/api/games/{id}/open": {"post": _operation(
            "setGameOpen", "games", "Open a waiting game to anyone, or close it",
            {"200": _json("The lobby.", _ref(Lobby), example=examples.LOBBY),
             "400": _error("Not a JSON object, an unknown field or a wrong type.", *_BODY_ERRORS),
             "403": _error("Only the creator (the lowest-seated person) may.", "Not seated at this game",
                           "Only the creator can open or close the game"),
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game has started, or opening it would make 6 open games of the caller's.",
                           "Game already started", "Too many open games")},
            parameters=(_GAME_ID_PARAM,),
            body=_body(SetOpenRequest, "Whether the game is listed.", required=True, example={"open": True}))},
        "/api/games/{id}/rematch": {"post": _operation(
            "rematchGame", "games", "Play a finished game again with the same players",
            {"201": _json("This call created the rematch: a new game of the same type and options, "
                          "the caller at seat 0. The players with a socket open at the finished game "
                          "get a `rematch` message (WsRematch).", _ref(Lobby),
                          example=examples.LOBBY),
             "200": _json("The rematch existed already (another player asked first, or the caller "
                          "asked before): the caller is seated at it (idempotent). The lobby, or the "
                          "game view when this call took the last seat (the game starts).",
                          lobby_or_game, examples={"lobby": examples.LOBBY, "started": examples.STARTED}),
             "400": _error("A body that is not a JSON object, or any field (the body is empty or `{}`).",
                           *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game waits for players or is still being played; every seat of the "
                           "rematch is taken by others; or the game is daily and the caller sits at 20 "
                           "unfinished daily games already.", "The game is not finished", "Game is full",
                           "Too many daily games")},
            description="For the seated players of a finished game. Every player who asks while the "
                        "finished game lives (GAME_TTL_SECONDS after it was last read) gets the same new "
                        "game, at the seat they had (partners stay partners): the first creates it (with "
                        "the finished game's bots from the start at their seats), the others join it, and "
                        "the one who fills it starts it.",
            parameters=(_GAME_ID_PARAM,),
            body=_body(RematchRequest, "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/{id}/bots": {"post": _operation(
            "addBot", "games", "Seat a bot",
            {"200": _json("The lobby, or the game view when the bot took the last seat (the game "
                          "starts).", lobby_or_game,
                          examples={"lobby": examples.LOBBY, "started": examples.STARTED}),
             "400": _error("Not a JSON object, an unknown field, a wrong type or a missing field.",
                           *_BODY_ERRORS, "seat and level are required", "seat must be an integer"),
             "403": _error("The caller is not the game's creator (its lowest-seated person), or not "
                           "seated.", "Only the creator can seat a bot", "Not seated at this game"),
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The seat is taken or not 0..3, or the game has started.", "Seat taken",
                           "Game already started"),
             "422": _error("A level the game type does not offer.", "Unknown bot level: grandmaster")},
            description="The creator seats a bot at an empty seat of a game in the lobby. A practice "
                        "match (a bot from the start) moves nobody's rating.",
            parameters=(_GAME_ID_PARAM,),
            body=_body(AddBotRequest, "The seat and the level.", required=True,
                       example={"seat": 2, "level": "esperto"}))},
        "/api/games/{id}/bots/{seat}": {"delete": _operation(
            "removeBot", "games", "Take a bot off a waiting game",
            {"200": _json("The lobby.", _ref(Lobby), example=examples.LOBBY),
             "403": _error("The caller is not the game's creator, or not seated.",
                           "Only the creator can seat a bot", "Not seated at this game"),
             "404": _error("No bot sits there (or no game has this id).", "No bot at that seat",
                           "Game not found"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game has started.", "Game already started")},
            parameters=(_GAME_ID_PARAM,
                        _param("path", "seat", "The bot's seat, 0..3.", {"type": "integer"},
                               required=True)))},
        "/api/games/{id}/seat": {"post": _operation(
            "changeSeat", "games", "Move to another seat",
            {"200": _json("The lobby.", _ref(Lobby), example=examples.LOBBY),
             "400": _error("Not a JSON object, an unknown field, a wrong type or no seat.",
                           *_BODY_ERRORS, "seat is required", "seat must be an integer"),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The seat is taken or not 0..3, or the game has started.", "Seat taken",
                           "Game already started")},
            description="A seated player moves to an empty seat of a game still in the lobby (their "
                        "own seat: nothing changes). The creator is the lowest-seated person.",
            parameters=(_GAME_ID_PARAM,),
            body=_body(ChangeSeatRequest, "The empty seat to move to.", required=True,
                       example={"seat": 2}))},
        "/api/games/{id}/leave": {"post": _operation(
            "leaveGame", "games", "Leave a game",
            {"200": _json("Left: in the lobby the seat is free (the next person becomes the creator; "
                          "the game is gone with its last person); while playing an `esperto` bot "
                          "plays the seat until the caller takes it back.", _ref(Left)),
             "400": _error("A body that is not a JSON object, or any field.", *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game is finished.", "Game is finished")},
            description="Leaving a started match is an abandonment unless the player comes back "
                        "(POST /api/games/{id}/return): the match is unrated and costs the leaver "
                        "what a lost match would have.",
            parameters=(_GAME_ID_PARAM,),
            body=_body(NoFieldsRequest, "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/{id}/return": {"post": _operation(
            "returnToGame", "games", "Take back a seat a bot took over",
            {"200": _json("The game view; the bot left the seat.", _ref(GameView)),
             "400": _error("A body that is not a JSON object, or any field.", *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("No bot took the caller's seat over, or the game is finished.",
                           "Seat not taken over", "Game is finished")},
            parameters=(_GAME_ID_PARAM,),
            body=_body(NoFieldsRequest, "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/preview": {"get": _operation(
            "previewGame", "games", "See the game behind a code",
            {"200": _json("The game.", _ref(Preview)),
             "400": _error("No code.", "code is required"),
             "404": _shared("GameNotFound")},
            parameters=(_param("query", "code", "The join code, case-insensitive.",
                               {"type": "string", "pattern": NOT_BLANK}, required=True),))},
        "/api/games/{id}": {"get": _operation(
            "getGame", "games", "The caller's view of a game",
            {"200": _json("The lobby while waiting, the caller's game view once started.", lobby_or_game,
                          examples=views),
             "403": not_seated, "404": _shared("GameNotFound")},
            parameters=(_GAME_ID_PARAM,))},
        "/api/games/live": {"get": _operation(
            "listLiveGames", "spectators", "Games anyone may watch",
            {"200": _json("Started, unfinished games that allow spectators, highest `rating` (the mean rating "
                          "of their humans) first.", _ref(LiveGames), example=examples.LIVE_GAMES),
             "400": _error("An unknown game type, or a limit that is not an integer from 1 to 50.",
                           "Unknown game type: chess", _LIVE_LIMIT_ERROR)},
            parameters=(_game_type_param("Only this game type."),
                        _param("query", "limit", "How many, 1..50; anything else (empty, given twice, not an "
                               "integer) is a 400.", {"type": "integer", "minimum": 1, "maximum": 50,
                                                      "default": 20})))},
        "/api/games/{id}/watch": {"get": _operation(
            "watchGame", "spectators", "A game as a spectator sees it",
            {"200": _json("The public lobby while waiting (no join code), the public view once started: "
                          "no hand, no legal plays, every `is_you` false, with `spectators`.",
                          {"oneOf": [_ref(PublicLobby), _ref(PublicGameView)]},
                          examples={"lobby": examples.PUBLIC_LOBBY, "playing": examples.PUBLIC_PLAYING}),
             "403": _error("The game was created with `\"spectators\": false`.", SPECTATORS_FORBIDDEN),
             "404": _shared("GameNotFound")},
            description="Any logged-in member may watch, seated players too.",
            parameters=(_GAME_ID_PARAM,))},
        "/api/games/{id}/log": {"get": _operation(
            "getGameLog", "games", "The move log (Fairness)",
            {"200": _json("The log; `seed` once finished.", _ref(MoveLog), example=examples.LOG),
             "403": _error("Not seated and the game is not finished.", "Not seated at this game"),
             "404": _shared("GameNotFound")},
            description="Seated players at any time (in the lobby: no moves, `seed_commitment` null); any "
                        "logged-in member once the game is finished, also after its lobby has expired.",
            parameters=(_GAME_ID_PARAM,))},
        "/ws/games/{id}": {"get": _operation(
            "openGameSocket", "websocket", "The game's WebSocket (see docs/websocket.md)",
            {"101": {"description": "Switching Protocols: the socket is open. The messages are the `Ws*` "
                                    "schemas; the protocol is docs/websocket.md.",
                     "headers": {"Upgrade": _header("`websocket`.")}},
             "426": {**_error("A plain GET, not a WebSocket upgrade.", "Upgrade Required"),
                     "headers": {"Upgrade": _header("`websocket`.")}},
             "403": _error("Not seated, or an Origin that is neither the gateway's own nor an allowed CORS "
                           "origin.", "Not seated at this game", "Origin not allowed"),
             "404": _shared("GameNotFound")},
            description="A WebSocket upgrade, refused before the handshake with an HTTP status and an Error "
                        "body. Only seated players are accepted; a seated player may connect while the game "
                        "is still in the lobby: it gets a `lobby` message then and whenever a seat fills, "
                        "and the first `state` when the last seat fills. The "
                        "protocol (messages, error codes, the 4096-byte limit) is in the project's "
                        "docs/websocket.md.",
            parameters=(_GAME_ID_PARAM,
                        _param("query", "features", "The message types wanted beyond `lobby`, `state`, "
                               "`game_over` and `error`, comma-separated: `presence`, `chat`, `spectators`, "
                               "`rematch`. Unknown names are ignored.",
                               {"type": "string", "examples": ["presence,rematch"]}),
                        _param("header", "Upgrade", "`websocket`.", {"type": "string", "enum": ["websocket"]},
                               required=True),
                        _param("header", "Origin", "Browsers send it; it must be the gateway's own or an "
                               "allowed CORS origin.", {"type": "string"})))},
        "/ws/games/{id}/watch": {"get": _operation(
            "openWatchSocket", "spectators", "A spectator's WebSocket (see docs/websocket.md)",
            {"101": {"description": "Switching Protocols: the socket is open. It sends `lobby` (WsWatchLobby) "
                                    "and `state` (WsWatchState) with the public view, `game_over`, `error` and "
                                    "the features asked for.",
                     "headers": {"Upgrade": _header("`websocket`.")}},
             "426": {**_error("A plain GET, not a WebSocket upgrade.", "Upgrade Required"),
                     "headers": {"Upgrade": _header("`websocket`.")}},
             "403": _error("The game does not allow spectators, or an Origin that is neither the gateway's "
                           "own nor an allowed CORS origin.", SPECTATORS_FORBIDDEN, "Origin not allowed"),
             "404": _shared("GameNotFound")},
            description="A WebSocket upgrade, refused before the handshake with an HTTP status and an Error "
                        "body, like /ws/games/{id}; any logged-in member may watch. Every action but `say` "
                        "is answered with the error `unknown_action`.",
            parameters=(_GAME_ID_PARAM,
                        _param("query", "features", "The message types wanted beyond `lobby`, `state`, "
                               "`game_over` and `error`, comma-separated: `presence`, `chat`, `spectators`. "
                               "Unknown names are ignored.", {"type": "string", "examples": ["spectators"]}),
                        _param("header", "Upgrade", "`websocket`.", {"type": "string", "enum": ["websocket"]},
                               required=True),
                        _param("header", "Origin", "Browsers send it; it must be the gateway's own or an "
                               "allowed CORS origin.", {"type": "string"})))},
    }


def _stats_paths() -> dict[str, dict]:
    game_type = _game_type_param("Only this game type.")
    return {
        "/api/me/games": {"get": _operation(
            "listMyGames", "games", "The caller's unfinished games, most recently changed first",
            {"200": _json("In the lobby, playing or at a hand end; at most 50. A player who closed the "
                          "tab finds the way back to their table here.", _ref(MyGames),
                          example=examples.MY_GAMES)})},
        "/api/me/matches": {"get": _operation(
            "listMyMatches", "stats", "The caller's finished matches, newest first",
            {"200": _json("A page.", _ref(MatchPage), example={
                "items": [examples.MATCH, examples.ABANDONED_MATCH, examples.PRACTICE_MATCH], "next_cursor": None}),
             "400": _error("A bad limit or cursor, or an unknown game type.", _LIMIT_ERROR, "Invalid cursor",
                           "Unknown game type: chess")},
            parameters=(_limit_param(20),
                        _param("query", "cursor", "The `next_cursor` of the previous page (opaque).",
                               {"type": "string"}),
                        game_type))},
        "/api/me/ratings": {"get": _operation(
            "getMyRatings", "stats", "The caller's ratings",
            {"200": _json("One per game type played.", _ref(Ratings))})},
        "/api/leaderboard": {"get": _operation(
            "getLeaderboard", "stats", "The best-rated members of a game type",
            {"200": _json("By rating, highest first.", _ref(Leaderboard)),
             "400": _error("A bad limit or an unknown game type.", _LIMIT_ERROR, "Unknown game type: chess")},
            parameters=(_game_type_param("The game type.", default="scopone_scientifico"),
                        _limit_param(20)),
            public=True)},
    }


_DESCRIPTION = f"""\
The public HTTP API of tavolo, an open multiplayer card-game platform (scopone scientifico).

JSON bodies in UTF-8; timestamps ISO 8601 in UTC with milliseconds and a `Z`. Seats are 0..3 in join
order; team `A` is seats 0 and 2, `B` seats 1 and 3.

**Authentication**: the `{SESSION_COOKIE}` cookie set by the login flow (`/auth/login`). Every endpoint
but the public ones (health, these docs, game types, leaderboard, login providers, `/auth/*`) answers
401 `{{"detail": "Not authenticated"}}` without it.

**Errors** are `{{"detail": "<message>"}}`. Besides each endpoint's own:

| Status | detail | When |
|---|---|---|
| 400 | `Invalid JSON` | a body that does not parse |
| 400 | `Request body must be a JSON object` | a body that is JSON but not an object |
| 400 | `Unknown field: <name>` | a body field the endpoint does not take |
| 400 | `<field> must be a <type>` | a body field of the wrong type, e.g. `code must be a string` |
| 404 | `Not Found` | a path the gateway does not serve |
| 405 | `Method Not Allowed` | a known path with another method |
| 413 | `Request body too large` | a body over {MAX_BODY_KIB} KiB |
| 415 | `Content-Type must be application/json` | a body declared as something else (a form, text) |
| 429 | `Too many requests` | logins or writes over a rate limit (per session, per address): wait `Retry-After` s |
| 503 | `Service unavailable, try again` | a service behind the gateway is down |

**Real time**: `GET /ws/games/{{id}}` opens the game's WebSocket; its protocol is described in the
project's docs/websocket.md, and its messages are the `Ws*` schemas below.
"""

def _talk_paths() -> dict[str, dict]:
    """Table talk (gateway.table_talk); the `say` and `said` messages are the socket's."""
    message_id = _param("path", "message_id", "The message's id (`id` of `said`).", {"type": "string"})
    player = _param("path", "player", "The muted player's public id.", {"type": "string"})
    said = {key: value for key, value in SAID_EXAMPLE.items() if key != "type"}
    return {
        "/api/phrases": {"get": _operation(
            "listPhrases", "talk", "The quick phrases",
            {"200": _json("Every quick phrase, in Italian and English; ids never change.", _ref(Phrases),
                          example={"phrases": [{"id": "good_luck",
                                                "text": {"it": "Buona fortuna!", "en": "Good luck!"}}]})},
            public=True, calls_services=False)},
        "/api/games/{id}/chat": {"get": _operation(
            "getGameChat", "talk", "A game's table talk",
            {"200": _json("The last 100 messages the caller may see, oldest first: those of a player the "
                          "caller muted or blocked are left out; spectators' only for spectators, and for "
                          "players once the game is finished.", _ref(ChatHistory), example={"messages": [said]}),
             "403": _error("Not a player, and the game does not allow spectators.", "Not seated at this game"),
             "404": _shared("GameNotFound")},
            parameters=(_GAME_ID_PARAM,))},
        "/api/games/{id}/chat/{message_id}/report": {"post": _operation(
            "reportChatMessage", "talk", "Report a message to the operators",
            {"202": _json("Kept for the operators (docs/operations.md, Table talk).", _ref(Reported),
                          example={"reported": True}),
             "400": _error("A bad body.", *_BODY_ERRORS, "reason must be a string",
                           "reason must be at most 200 characters"),
             "404": _error("A message the caller cannot see (or no such game).", "Message not found"),
             "405": _shared("MethodNotAllowed")},
            parameters=(_GAME_ID_PARAM, message_id),
            body=_body(ReportRequest, "Optional: why.", required=False, example={"reason": "Insults"}))},
        "/api/me/muted": {
            "get": _operation(
                "listMuted", "talk", "The players the caller muted",
                {"200": _json("Most recently muted first.", _ref(MutedPlayers),
                              example={"players": [{"player": PLAYER_ID_EXAMPLE, "name": "carol"}]})}),
            "post": _operation(
                "mutePlayer", "talk", "Mute a player",
                {"204": {"description": "Muted: their messages are neither sent to nor listed for the caller."},
                 "400": _error("A bad body.", *_BODY_ERRORS, "player is required", "player must be a string"),
                 "404": _error("No player has this id.", "Player not found"),
                 "409": _error("The caller's own id.", "Cannot mute yourself")},
                body=_body(MuteRequest, "The player.", required=True, example={"player": PLAYER_ID_EXAMPLE})),
        },
        "/api/me/muted/{player}": {"delete": _operation(
            "unmutePlayer", "talk", "Unmute a player",
            {"204": {"description": "Not muted (whether or not they were)."},
             "405": _shared("MethodNotAllowed")},
            parameters=(player,))},
    }


def _players_paths() -> dict[str, dict]:
    """Player pages, settings, following, blocking and invitations (gateway.players)."""
    path_player = _param("path", "player", "The player's public id.", {"type": "string"})
    player_body_errors = (*_BODY_ERRORS, "player is required", "player must be a string")
    not_found = _error("No player has this id (unknown, erased, or not a player id).", "Player not found")
    return {
        "/api/players/{player}": {"get": _operation(
            "getPlayer", "players", "A player's page",
            {"200": _json("The player as the caller sees them.", _ref(PlayerPage), example=PLAYER_PAGE),
             "404": not_found},
            parameters=(path_player,))},
        "/api/me/settings": {
            "get": _operation(
                "getSettings", "players", "The caller's settings",
                {"200": _json("The settings.", _ref(PlayerSettings), example={"show_online": True})}),
            "put": _operation(
                "updateSettings", "players", "Change the caller's settings",
                {"200": _json("The settings, after the change.", _ref(PlayerSettings),
                              example={"show_online": False}),
                 "400": _error("A bad body.", *_BODY_ERRORS, "show_online must be a boolean"),
                 "405": _shared("MethodNotAllowed")},
                body=_body(SettingsRequest, "The settings to change.", required=True,
                           example={"show_online": False})),
        },
        "/api/me/following": {
            "get": _operation(
                "listFollowing", "players", "The players the caller follows",
                {"200": _json("Most recently followed first.", _ref(FollowedPlayers),
                              example={"players": [{"player": FRIEND, "name": "alice", "online": True,
                                                    "playing": examples.GAME_ID}]})}),
            "post": _operation(
                "followPlayer", "players", "Follow a player",
                {"204": {"description": "Followed (also when followed already)."},
                 "400": _error("A bad body.", *player_body_errors),
                 "404": not_found,
                 "405": _shared("MethodNotAllowed"),
                 "409": _error(f"The caller's own id, or {MAX_FOLLOWING} players followed already.",
                               "Cannot follow yourself", "Following too many players")},
                body=_body(FollowRequest, "The player.", required=True, example={"player": FRIEND})),
        },
        "/api/me/following/{player}": {"delete": _operation(
            "unfollowPlayer", "players", "Stop following a player",
            {"204": {"description": "Not followed (whether or not they were)."},
             "405": _shared("MethodNotAllowed")},
            parameters=(path_player,))},
        "/api/me/blocked": {
            "get": _operation(
                "listBlocked", "players", "The players the caller blocked",
                {"200": _json("Most recently blocked first.", _ref(BlockedPlayers),
                              example={"players": [{"player": FRIEND, "name": "alice"}]})}),
            "post": _operation(
                "blockPlayer", "players", "Block a player",
                {"204": {"description": "Blocked (also when blocked already): the two never sit at one game "
                                        "(joining is 403 Blocked, quick match never seats them together, "
                                        "neither can invite the other), and the player's table talk never "
                                        "reaches the caller."},
                 "400": _error("A bad body.", *player_body_errors),
                 "404": not_found,
                 "405": _shared("MethodNotAllowed"),
                 "409": _error(f"The caller's own id, or {MAX_BLOCKED} players blocked already.",
                               "Cannot block yourself", "Blocking too many players")},
                body=_body(BlockRequest, "The player.", required=True, example={"player": FRIEND})),
        },
        "/api/me/blocked/{player}": {"delete": _operation(
            "unblockPlayer", "players", "Unblock a player",
            {"204": {"description": "Not blocked (whether or not they were)."},
             "405": _shared("MethodNotAllowed")},
            parameters=(path_player,))},
        "/api/games/{id}/invite": {"post": _operation(
            "invitePlayer", "players", "Invite a player to the caller's game in the lobby",
            {"204": {"description": "Invited: listed in the player's GET /api/me/invitations until the game "
                                    "starts or 24 hours pass, and sent to their /ws/me (`invited`) the first "
                                    "time. Inviting again, or someone seated already, changes nothing."},
             "400": _error("A bad body.", *player_body_errors),
             "403": _error("The caller is not seated at the game, or either player blocked the other.",
                           "Not seated at this game", "Blocked"),
             "404": _error("No such game, or no such player.", "Game not found", "Player not found"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game started or is full; the caller's own id; 50 members invited to the game "
                           "already.", "Game already started", "Game is full", "Cannot invite yourself",
                           "Too many invitations")},
            parameters=(_GAME_ID_PARAM,),
            body=_body(InviteRequest, "The player.", required=True, example={"player": FRIEND}))},
        "/api/me/invitations": {"get": _operation(
            "listInvitations", "players", "The caller's invitations",
            {"200": _json("Newest first, at most 50: those whose game has not started and has a seat open, "
                          "younger than 24 hours. Join with POST /api/games/join and the game's `join_code`.",
                          _ref(Invitations), example={"invitations": [INVITATION]})})},
    }


def _push_paths() -> dict[str, dict]:
    """Web Push: the key and the caller's subscriptions (gateway.web_push)."""
    disabled = _error("Push is disabled on this server (no VAPID key is set).", PUSH_DISABLED_TEXT)
    body_errors = (*_BODY_ERRORS, "endpoint is required", "endpoint must be a string", "keys is required",
                   "keys must be an object", "keys.p256dh is required", "keys.auth must be a string",
                   "Unknown field: keys.colour")
    return {
        "/api/push/key": {"get": _operation(
            "getPushKey", "push", "The VAPID key to subscribe with",
            {"200": _json("The application server key.", _ref(PushKey),
                          example={"public_key": PUBLIC_KEY_EXAMPLE}),
             "404": disabled},
            public=True, calls_services=False)},
        "/api/me/push": {
            "post": _operation(
                "subscribePush", "push", "Add a push subscription of the caller",
                {"201": {"description": "Stored (again: the same endpoint takes the new keys). The caller then "
                                        "gets `your_turn` and `invited` pushes there. A member keeps at "
                                        f"most {MAX_SUBSCRIPTIONS}: one more replaces the oldest."},
                 "400": _error("A bad body.", *body_errors),
                 "404": disabled,
                 "405": _shared("MethodNotAllowed"),
                 "422": _error("A bad subscription.", *SUBSCRIPTION_ERRORS)},
                body=_body(PushSubscribeRequest, "The subscription.", required=True, example=SUBSCRIPTION)),
            "delete": _operation(
                "unsubscribePush", "push", "Remove a push subscription of the caller",
                {"204": {"description": "Removed (whether or not the caller had it)."},
                 "400": _error("A bad body.", *_BODY_ERRORS, "endpoint is required", "endpoint must be a string")},
                body=_body(PushUnsubscribeRequest, "The subscription.", required=True,
                           example={"endpoint": ENDPOINT_EXAMPLE})),
        },
    }


def _analysis_paths() -> dict[str, dict]:
    """The analysis of a finished match (gateway.analysis; docs/analysis.md)."""
    not_seated = _error("The caller has no seat at this game.", "Not seated at this game")
    running = {**ANALYSIS_QUEUED, "status": "running"}
    return {
        "/api/games/{id}/analysis": {
            "post": _operation(
                "requestAnalysis", "analysis", "Ask for the analysis of the caller's plays in a finished game",
                {"202": _json("Queued: this call asked for it first.", _ref(Analysis), example=ANALYSIS_QUEUED),
                 "200": _json("Asked before: its current status (with `plays` and `summary` once done).",
                              _ref(Analysis), examples={"running": running, "done": ANALYSIS_DONE}),
                 "400": _error("A body that is not a JSON object, or any field.", *_BODY_ERRORS),
                 "403": not_seated,
                 "404": _shared("GameNotFound"),
                 "405": _shared("MethodNotAllowed"),
                 "409": _error(f"The game is not finished; its game type has no analysis (scopone "
                               f"scientifico has); or the caller has {MAX_PENDING} analyses queued or "
                               "running already (of any games): ask again once one is done.",
                               "Game is not finished", "This game type has no analysis", "Too many analyses")},
                description="A seated player of a finished game asks for the analysis of their own seat's "
                            "plays: each judged from what the seat knew at that moment (its own hand and "
                            "everything public), never from the other hands. It runs in the background, one "
                            "at a time per worker; poll GET until `status` is `done`. Finished analyses are "
                            "kept (erasing the member deletes them).",
                parameters=(_GAME_ID_PARAM,),
                body=_body(NoFieldsRequest, "Optional: no body, or `{}`.", required=False, example={})),
            "get": _operation(
                "getAnalysis", "analysis", "The analysis of the caller's plays in a game",
                {"200": _json("Its status; `plays` and `summary` once done.", _ref(Analysis),
                              examples={"queued": ANALYSIS_QUEUED, "done": ANALYSIS_DONE}),
                 "403": not_seated,
                 "404": _error("No game has this id, or the caller never asked for its analysis.",
                               "Game not found", "No analysis")},
                description="The caller's seat is known while the game's lobby entry lives (GAME_TTL_SECONDS "
                            "after it was last read); an analysis asked for before is found after too.",
                parameters=(_GAME_ID_PARAM,)),
        },
    }


_TAGS = [
    {"name": "platform", "description": "Health and this documentation."},
    {"name": "auth", "description": "OIDC login, the session and the member."},
    {"name": "games", "description": "Game types, lobbies, views and move logs."},
    {"name": "websocket", "description": "The live game (docs/websocket.md)."},
    {"name": "spectators", "description": "Watching games: the public view, its WebSocket, the live games."},
    {"name": "stats", "description": "Match history, ratings, leaderboard."},
    {"name": "talk", "description": "Table talk: quick phrases, a game's chat, mutes and reports."},
    {"name": "players", "description": "Player pages, settings, following, blocking and invitations."},
    {"name": "push", "description": "Web Push: the VAPID key and the caller's subscriptions."},
    {"name": "analysis", "description": "The analysis of a finished match: each of the caller's plays judged."},
]


def spec(game_types: Sequence[GameType] = ()) -> dict:
    """The OpenAPI 3.1.0 document of every endpoint of CONTRACT.md (a fresh dict on each call), with
    the options of ``game_types`` (the catalogue the gateway keeps: gateway.game_types)."""
    schemas = contract.schemas()
    schemas.update(_options_schemas(schemas.pop("Options"), game_types))
    if game_types:  # the gateway refuses any other game type: say which it takes, the default
        # (what a request without one means, the documented default) among them
        known = list(dict.fromkeys([DEFAULT_GAME_TYPE, *(t.id for t in game_types)]))
        schemas[KNOWN_GAME_TYPE] = {**schemas[KNOWN_GAME_TYPE], "enum": known}
    # Deep-copied: the helpers share pieces (examples, common schemas) that a caller must not alter.
    return copy.deepcopy({
        "openapi": "3.1.0",
        "info": {"title": "tavolo", "version": "1", "description": _DESCRIPTION,
                 "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}},
        "tags": _TAGS,
        "security": [{"session": []}],
        "paths": _with_rate_limits({**_platform_paths(), **_auth_paths(), **_game_paths(),
                                    **_stats_paths(), **_talk_paths(), **_players_paths(),
                                    **_push_paths(), **_analysis_paths()}),
        "components": {
            "securitySchemes": {"session": {
                "type": "apiKey", "in": "cookie", "name": SESSION_COOKIE,
                "description": "The session cookie set by /auth/<provider>/callback (HttpOnly: the browser "
                               "sends it; scripts cannot read it).",
            }},
            "schemas": schemas,
            "responses": _shared_responses(),
        },
    })


def text(document: dict) -> str:
    """The document as the file docs/openapi.json holds it."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


# -- routes ---------------------------------------------------------------------------------

_DOCS_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tavolo API</title>
<link rel="stylesheet" href="{DOCS_STATIC_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="{DOCS_STATIC_PATH}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{DOCS_STATIC_PATH}/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({{
  url: "{OPENAPI_PATH}",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout"
}});
</script>
</body>
</html>
"""


def _catalogue_key(game_types: Sequence[GameType]) -> tuple:
    return tuple((t.id, t.name, t.description, t.players, t.options_schema_json) for t in game_types)


def routes() -> list[BaseRoute]:
    """/api/openapi.json, /api/docs and its assets at /api/docs/static.

    The document is made for the catalogue of the app's ``state.game_types`` (gateway.game_types),
    once per catalogue; while no catalogue can be had (the lobby down since the gateway started),
    it is served with any object for the options, and made again on the next request.
    """
    made: dict[tuple, bytes] = {}

    async def openapi_json(request: Request) -> Response:
        try:
            game_types = list(await request.app.state.game_types.get())
        except ServiceError as error:
            log.info("the OpenAPI document has no game types: %s", error.message)
            game_types = []
        key = _catalogue_key(game_types)
        body = made.get(key)
        if body is None:
            body = json.dumps(spec(game_types), ensure_ascii=False, separators=(",", ":")).encode()
            if game_types:
                made.clear()  # one catalogue at a time
                made[key] = body
        return Response(body, media_type="application/json")

    async def docs_page(request: Request) -> Response:
        return HTMLResponse(_DOCS_PAGE)

    return [
        Route(OPENAPI_PATH, openapi_json, methods=["GET"], name="openapi"),
        Route(DOCS_PATH, docs_page, methods=["GET"], name="docs"),
        Mount(DOCS_STATIC_PATH, app=StaticFiles(directory=SWAGGER_UI_PY_ROOT / "static"), name="docs-static"),
    ]


def main() -> None:
    """Print the document without a catalogue: the platform's contract, each game's options left to
    its game type (`make contract` writes it to docs/openapi.json)."""
    sys.stdout.write(text(spec()))


if __name__ == "__main__":
    main()
