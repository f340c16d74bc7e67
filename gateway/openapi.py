"""The gateway's OpenAPI 3.1 document (CONTRACT.md, endpoint by endpoint) and the routes that publish it.

``spec()`` builds the document from small helpers, so each schema reads like the contract's
prose. ``routes()`` serves it at /api/openapi.json and renders it at /api/docs with Swagger UI,
whose assets come from the swagger-ui-py package under /api/docs/static: the page needs no CDN.
The WebSocket protocol does not fit OpenAPI; its reference is docs/websocket.md, and its
messages are the ``Ws*`` schemas here.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui.utils import SWAGGER_UI_PY_ROOT

from game.scopone import OPTIONS_SCHEMA as SCOPONE_OPTIONS_SCHEMA
from lobby.models import team_of

OPENAPI_PATH = "/api/openapi.json"
DOCS_PATH = "/api/docs"
DOCS_STATIC_PATH = "/api/docs/static"
SESSION_COOKIE = "tavolo_session"
MAX_BODY_KIB = 64
MAX_SOCKET_MESSAGE_BYTES = 4096
WS_ERROR_CODES = ("illegal_move", "not_your_turn", "bad_request", "unknown_action", "concurrent_move",
                  "game_finished", "unavailable", "unconfirmed")

Schema = dict[str, Any]

# -- schema helpers ---------------------------------------------------------------------------


def _ref(name: str, description: str | None = None) -> Schema:
    schema: Schema = {"$ref": f"#/components/schemas/{name}"}
    if description:
        schema["description"] = description
    return schema


def _string(description: str, **keywords: Any) -> Schema:
    return {"type": "string", "description": description, **keywords}


def _integer(description: str, **keywords: Any) -> Schema:
    return {"type": "integer", "description": description, **keywords}


def _boolean(description: str, **keywords: Any) -> Schema:
    return {"type": "boolean", "description": description, **keywords}


def _array(items: Schema, description: str, **keywords: Any) -> Schema:
    return {"type": "array", "items": items, "description": description, **keywords}


def _timestamp(description: str) -> Schema:
    return _string(f"{description} ISO 8601, UTC, milliseconds, `Z`.", format="date-time",
                   examples=["2026-12-02T10:00:30.123Z"])


def _nullable(schema: Schema, description: str | None = None) -> Schema:
    """The schema or JSON null (OpenAPI 3.1 has no ``nullable``: a null type does it)."""
    if "$ref" in schema or "type" not in schema:
        out: Schema = {"anyOf": [schema, {"type": "null"}]}
        if description:
            out["description"] = description
        return out
    return {**schema, "type": [schema["type"], "null"], **({"description": description} if description else {})}


def _object(description: str, properties: dict[str, Schema], *, optional: tuple[str, ...] = (),
            closed: bool = False, example: Any = None) -> Schema:
    """An object whose properties are all required but ``optional``; ``closed`` refuses unknown ones.

    Responses stay open (CONTRACT: fields may be added); request bodies are closed (400 Unknown field).
    """
    unknown = set(optional) - set(properties)
    assert not unknown, f"optional fields not among the properties: {unknown}"
    schema: Schema = {"type": "object", "description": description, "properties": properties}
    required = [name for name in properties if name not in optional]
    if required:
        schema["required"] = required
    if closed:
        schema["additionalProperties"] = False
    if example is not None:
        schema["examples"] = [example]
    return schema


# -- examples (CONTRACT.md's, completed to four seats) --------------------------------------

_GAME_ID = "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"
_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
_SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
_OPTIONS = {"target_score": 11, "napola": True, "asso_pigliatutto": False}
_NAMES = ("alice", "bob", "carol", "dave")


_LOBBY_EXAMPLE = {
    "id": _GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "lobby",
    "options": _OPTIONS, "players": [{"seat": 0, "name": "alice", "team": "A", "is_you": True}],
    "seats_open": 3, "created_at": "2026-12-02T10:00:00.000Z",
}
_LAST_HAND_EXAMPLE = {
    "hand": 3,
    "teams": {
        "A": {"cards": 22, "denari": 6, "settebello": True, "primiera": 78, "scope": 1, "napola": 3, "points": 7},
        "B": {"cards": 18, "denari": 4, "settebello": False, "primiera": 81, "scope": 0, "napola": 0, "points": 1},
    },
    "award": {"carte": "A", "denara": "A", "settebello": "A", "primiera": "B", "napola": "A"},
    "scores": {"A": 9, "B": 6},
}
_PLAYING_EXAMPLE: dict[str, Any] = {
    "id": _GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "playing",
    "options": _OPTIONS,
    "players": [
        {"seat": s, "name": _NAMES[s], "team": team_of(s), "card_count": 9 if s < 2 else 10,
         "captured_count": 2 if s == 0 else 0, "scope": 0, "is_you": s == 0, "connected": s != 3}
        for s in range(4)
    ],
    "you": 0, "hand": ["01C", "03S", "07D"], "table": ["04B", "06C"],
    "turn": 2, "hand_number": 1, "scores": {"A": 0, "B": 0},
    "turn_deadline": "2026-12-02T10:00:30.000Z",
    "last_play": {"seat": 1, "card": "05S", "capture": [], "scopa": False, "auto": False},
    "seed_commitment": _COMMITMENT, "revision": 7,
}
# Seat 3's view right after its join filled the table: hand 1 of the contract's test-vector seed.
_STARTED_EXAMPLE = {
    **_PLAYING_EXAMPLE,
    "players": [{**player, "card_count": 10, "captured_count": 0, "is_you": player["seat"] == 3}
                for player in _PLAYING_EXAMPLE["players"]],
    "you": 3, "hand": ["01C", "03B", "04S", "05B", "05D", "07B", "08S", "09C", "10B", "10D"], "table": [],
    "turn": 0, "last_play": None, "turn_deadline": "2026-12-02T10:05:30.000Z", "revision": 1,
}
_MY_GAMES_EXAMPLE = {"games": [
    {"id": _GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "playing",
     "players": [{"seat": s, "name": _NAMES[s], "team": team_of(s), "is_you": s == 2} for s in range(4)],
     "seats_open": 0, "your_turn": True, "updated_at": "2026-12-02T10:12:04.512Z"},
    {"id": "0b7e5d3c-1f2a-4e6b-8c9d-7a6b5c4d3e2f", "game_type": "scopone_scientifico",
     "join_code": "R4TW9P", "status": "lobby",
     "players": [{"seat": 0, "name": "carol", "team": "A", "is_you": True}],
     "seats_open": 3, "your_turn": False, "updated_at": "2026-12-02T09:58:41.007Z"},
]}
_PHASE_FIELDS = ("turn_deadline", "your_turn", "legal")
_HAND_END_EXAMPLE = {
    **{k: v for k, v in _PLAYING_EXAMPLE.items() if k not in _PHASE_FIELDS},
    "status": "hand_end", "turn": None, "hand": [], "table": [], "hand_number": 3, "scores": {"A": 9, "B": 6},
    "players": [{**player, "card_count": 0} for player in _PLAYING_EXAMPLE["players"]],
    "last_hand": _LAST_HAND_EXAMPLE, "acknowledged": [0, 2],
    "hand_end_deadline": "2026-12-02T10:20:30.000Z", "revision": 121,
}
_FINISHED_EXAMPLE = {
    **{k: v for k, v in _HAND_END_EXAMPLE.items() if k not in ("acknowledged", "hand_end_deadline")},
    "status": "finished", "hand_number": 5, "scores": {"A": 11, "B": 7},
    "last_hand": {**_LAST_HAND_EXAMPLE, "hand": 5, "scores": {"A": 11, "B": 7}},
    "winner": "A", "seed": _SEED, "revision": 201,
}
_MATCH_PLAYERS: list[dict[str, Any]] = [
    {"seat": s, "name": _NAMES[s], "team": team_of(s), "won": s % 2 == 0, "points": 11 if s % 2 == 0 else 7,
     "elo_delta": 16 if s % 2 == 0 else -16}
    for s in range(4)
]
_MATCH_EXAMPLE = {
    "id": _GAME_ID, "game_type": "scopone_scientifico",
    "started_at": "2026-12-02T10:00:05.000Z", "finished_at": "2026-12-02T10:41:12.345Z", "rated": True,
    "result": {"scores": {"A": 11, "B": 7}, "winner": "A", "target_score": 11, "hands": 5,
               "audit": [_LAST_HAND_EXAMPLE]},
    "players": _MATCH_PLAYERS,
}
# A practice match (bots at seats 1 and 3 from the start) and one bob abandoned: both unrated.
_PRACTICE_MATCH_EXAMPLE = {
    **_MATCH_EXAMPLE, "id": "3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a", "rated": False,
    "players": [{**player, "elo_delta": 0, **({"name": "Expert", "bot": "esperto"} if player["seat"] % 2 else {})}
                for player in _MATCH_PLAYERS],
}
_ABANDONED_MATCH_EXAMPLE = {
    **_MATCH_EXAMPLE, "id": "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d", "rated": False,
    "players": [{**player, "elo_delta": -16 if player["seat"] == 1 else 0,
                 **({"abandoned": True} if player["seat"] == 1 else {})}
                for player in _MATCH_PLAYERS],
}
_LOG_EXAMPLE = {
    "id": _GAME_ID, "game_type": "scopone_scientifico", "options": _OPTIONS,
    "seats": ["seat:0", "seat:1", "seat:2", "seat:3"], "seed_commitment": _COMMITMENT,
    "moves": [
        {"number": 1, "type": "play", "seat": "seat:0", "payload": {"card": "07D", "capture": []}, "auto": False},
        {"number": 2, "type": "auto_play", "seat": "seat:1", "payload": {"card": "05S", "capture": []},
         "auto": True},
        {"number": 41, "type": "ack", "seat": "seat:2", "payload": {}, "auto": False},
        {"number": 44, "type": "continue", "seat": None, "payload": {}, "auto": True},
    ],
    "revision": 44, "status": "playing",
}

# -- component schemas ----------------------------------------------------------------------

_SEAT = _integer("The seat, 0..3 in join order (the creator sits at 0).", minimum=0, maximum=3)
_GAME_TYPE_ID = _string("The game type id.", examples=["scopone_scientifico"])
_GAME_UUID = _string("The game id (a lowercase uuid), also the id of its table once started.", format="uuid",
                     examples=[_GAME_ID])
_JOIN_CODE = _string("6 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`, unique among live games.",
                     pattern="^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$", examples=["K7QX2M"])
_NAME = _string("The player's display name (\"deleted player\" once erased).", examples=["alice"])
_HEX64 = "^[0-9a-f]{64}$"


def _options_schema() -> Schema:
    """The options of scopone_scientifico, the game type players get: closed, like the engine's own
    schema (GET /api/game-types serves it as the type's `options_schema`)."""
    schema = {key: value for key, value in SCOPONE_OPTIONS_SCHEMA.items() if key != "$schema"}
    return {**schema, "description": "The options of a scopone_scientifico game (in a view: with every "
                                     "default filled in). Each game type's options follow its "
                                     "`options_schema` (GET /api/game-types); an unknown option is refused.",
            "examples": [_OPTIONS]}


def _core_schemas() -> dict[str, Schema]:
    return {
        "Error": _object("Every REST error.", {"detail": _string("What went wrong, for people.")},
                         example={"detail": "Game not found"}),
        "Health": _object("The gateway is up.", {"status": _string("Always `ok`.", enum=["ok"])}),
        "Provider": _object("A login provider.", {
            "name": _string("The provider name.", examples=["default"]),
            "login_url": _string("Where the login starts.", examples=["/auth/default/login"]),
        }),
        "Providers": _object("The login providers, in configuration order.",
                             {"providers": _array(_ref("Provider"), "One per configured provider.")},
                             example={"providers": [{"name": "default", "login_url": "/auth/default/login"}]}),
        "Me": _object("The logged-in member.", {
            "sub": _string("The OIDC subject: the member's stable id at the provider."),
            "name": _string("The display name shown to other players."),
            "provider": _string("The provider the session logged in with."),
        }, example={"sub": "alice", "name": "alice", "provider": "default"}),
        "Team": _string("`A` = seats 0 and 2, `B` = seats 1 and 3.", enum=["A", "B"]),
        "Card": _string("Rank `01`..`10` (08 fante, 09 cavallo, 10 re) then suit: `D` denari, `C` coppe, "
                        "`S` spade, `B` bastoni. `07D` is the settebello.",
                        pattern="^(0[1-9]|10)[DCSB]$", examples=["07D"]),
        "Scores": _object("Match points per team.", {"A": _integer("Team A."), "B": _integer("Team B.")}),
        "Options": _options_schema(),
        "GameType": _object("A game the platform can run.", {
            "id": _GAME_TYPE_ID,
            "name": _string("The name shown to people.", examples=["Scopone scientifico"]),
            "description": _string("One or two sentences on the game."),
            "players": _integer("How many seats a game of this type has.", examples=[4]),
            "options_schema": {"type": "object", "description": "The JSON Schema (draft 2020-12) the options "
                               "of POST /api/games must satisfy, with their defaults."},
            "bot_levels": _array(_ref("BotLevel"), "The levels a bot may play at, weakest first."),
        }),
        "BotLevel": _object("A level of play of the computer players.", {
            "id": _string("The level's id.", enum=["principiante", "esperto", "maestro"]),
            "name": _string("Its name in English.", examples=["Expert"]),
        }, example={"id": "esperto", "name": "Expert"}),
        "AddBotRequest": _object("Where the bot sits, and how well it plays.", {
            "seat": _integer("An empty seat, 0..3."),
            "level": _string("A level id of the game type's `bot_levels`."),
        }, closed=True, example={"seat": 2, "level": "esperto"}),
        "ChangeSeatRequest": _object("The seat to move to.", {
            "seat": _integer("An empty seat, 0..3."),
        }, closed=True, example={"seat": 2}),
        "NoFieldsRequest": _object("No fields: an empty object (or no body at all).", {}, closed=True,
                                   example={}),
        "Left": _object("The caller left the game.", {"left": _boolean("Always true.")},
                        example={"left": True}),
        "CreateGameRequest": _object("Every field is optional; an empty body creates a default game.", {
            "game_type": _string("The game type id.", default="scopone_scientifico"),
            "options": {**_nullable(_ref("Options"), "Options checked against the type's `options_schema` "
                                                     "(an unknown one is 422); null or absent: all defaults."),
                        "default": {}},
        }, optional=("game_type", "options"), closed=True,
            example={"game_type": "scopone_scientifico", "options": _OPTIONS}),
        "JoinRequest": _object("The join code of the game.", {
            "code": _string("The join code, case-insensitive.", minLength=1),
        }, closed=True, example={"code": "K7QX2M"}),
        "RematchRequest": _object("No fields: an empty object (or no body at all).", {}, closed=True,
                                  example={}),
    }


def _game_schemas() -> dict[str, Schema]:
    team, card = _ref("Team"), _ref("Card")
    return {
        "LobbyPlayer": _object("A seated player of a waiting game.", {
            "seat": _SEAT, "name": _NAME, "team": team, "is_you": _boolean("True for the caller's seat."),
            "bot": _string("Present while a bot plays this seat: its level.",
                           enum=["principiante", "esperto", "maestro"]),
            "took_over": _boolean("Present (true) when that bot replaced the person named here, who left "
                                  "or abandoned the seat and may take it back."),
        }, optional=("bot", "took_over")),
        "Lobby": _object("A game waiting for players.", {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID, "join_code": _JOIN_CODE,
            "status": _string("Always `lobby` while seats are open.", enum=["lobby"]),
            "options": _ref("Options"),
            "players": _array(_ref("LobbyPlayer"), "The seated players, in seat order."),
            "seats_open": _integer("Seats still free.", minimum=0),
            "created_at": _timestamp("When the game was created."),
        }, example=_LOBBY_EXAMPLE),
        "PreviewPlayer": _object("A seated player, as anyone with the code sees them.", {
            "seat": _SEAT, "name": _NAME, "team": team,
            "bot": _string("Present while a bot plays this seat: its level.",
                           enum=["principiante", "esperto", "maestro"]),
            "took_over": _boolean("Present (true) when that bot replaced the person named here, who left "
                                  "or abandoned the seat and may take it back."),
        }, optional=("bot", "took_over")),
        "Preview": _object("The game behind a join code, for someone deciding whether to join.", {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID,
            "name": _string("The game type's name."), "description": _string("The game type's description."),
            "status": _string("`lobby` while waiting, then the game's status.",
                              enum=["lobby", "playing", "hand_end", "finished"]),
            "players": _array(_ref("PreviewPlayer"), "The seated players, in seat order."),
            "seats_open": _integer("Seats still free.", minimum=0),
            "options": _ref("Options"),
        }),
        "MyGame": _object("One of the caller's games that is not finished.", {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID, "join_code": _JOIN_CODE,
            "status": _string("`lobby` while seats are open, then the game's status.",
                              enum=["lobby", "playing", "hand_end"]),
            "players": _array(_ref("LobbyPlayer"), "The seated players, in seat order."),
            "seats_open": _integer("Seats still free.", minimum=0),
            "your_turn": _boolean("True only when it is the caller's move."),
            "updated_at": _timestamp("When the game last changed (a seat taken, a move)."),
        }),
        "MyGames": _object("The caller's unfinished games, most recently changed first (at most 50).", {
            "games": _array(_ref("MyGame"), "The games."),
        }, example=_MY_GAMES_EXAMPLE),
        "LegalPlay": _object("A card of your hand and every capture it may make.", {
            "card": card,
            "captures": _array(_array(card, "One capture, sorted as strings; empty: the card is laid "
                                            "down taking nothing."),
                               "The captures, sorted as lists; playing `card` with any one of them is "
                               "legal, and nothing else is."),
        }, example={"card": "07D", "captures": [["03S", "04B"], ["07C"]]}),
        "Player": _object("One seat of a started game; the others' cards show only as counts.", {
            "seat": _SEAT, "name": _NAME, "team": team,
            "card_count": _integer("Cards in the seat's hand.", minimum=0),
            "captured_count": _integer("Cards the seat captured this hand.", minimum=0),
            "scope": _integer("Scope the seat made this hand.", minimum=0),
            "is_you": _boolean("True for the caller's seat."),
            "bot": _string("Present while a bot plays this seat: its level.",
                           enum=["principiante", "esperto", "maestro"]),
            "took_over": _boolean("Present (true) when that bot replaced the person named here, who left "
                                  "or abandoned the seat and may take it back."),
            "connected": _boolean("True when a bot plays the seat or its player has a socket open at "
                                  "this table."),
        }, optional=("card_count", "captured_count", "scope", "bot", "took_over")),
        "LastPlay": _object("The latest play of the hand.", {
            "seat": _SEAT, "card": card,
            "capture": _array(card, "The table cards taken; empty when none."),
            "scopa": _boolean("The play swept the table for a scopa."),
            "auto": _boolean("Played by the server because the seat's turn_deadline passed."),
        }),
        "TeamHand": _object("One team's figures of a hand.", {
            "cards": _integer("Cards captured."), "denari": _integer("Denari captured."),
            "settebello": _boolean("Captured the 07D."),
            "primiera": _integer("The primiera sum (0 when a suit is missing)."),
            "scope": _integer("Scope made."), "napola": _integer("Napola points (0 without the option)."),
            "points": _integer("The hand's total for the team."),
        }),
        "Award": _object("The team that won each category, null when nobody did.", {
            category: _nullable(team) for category in ("carte", "denara", "settebello", "primiera", "napola")
        }),
        "LastHand": _object("The scoring of the latest finished hand.", {
            "hand": _integer("The hand's number, from 1.", minimum=1),
            "teams": _object("Per team.", {"A": _ref("TeamHand"), "B": _ref("TeamHand")}),
            "award": _ref("Award"),
            "scores": _ref("Scores", "The match totals after this hand."),
        }, example=_LAST_HAND_EXAMPLE),
        "GameView": _game_view_schema(),
    }


def _game_view_schema() -> Schema:
    card = _ref("Card")
    return _object(
        "A started game as one seat sees it (the body of GET /api/games/{id} and the `game` of a WebSocket "
        "`state` message). Fields tied to a phase are present only in it: `turn_deadline`, and `your_turn` "
        "with `legal` on your move, while a hand is played; `last_hand`, `acknowledged` and "
        "`hand_end_deadline` in `hand_end`; "
        "`last_hand`, `winner` and `seed` once `finished`. Other game types share the platform's fields "
        "(id, game_type, join_code, status, options, players, you, seed_commitment, revision).",
        {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID, "join_code": _JOIN_CODE,
            "status": _string("Where the game is.", enum=["playing", "hand_end", "finished"]),
            "options": _ref("Options"),
            "players": _array(_ref("Player"), "All four seats, in seat order."),
            "you": _SEAT,
            "hand": _array(card, "Your own cards only, sorted as strings."),
            "table": _array(card, "The cards on the table."),
            "turn": _nullable(_SEAT, "The seat to play; null outside play."),
            "hand_number": _integer("The hand being played (or just scored), from 1.", minimum=1),
            "scores": _ref("Scores", "The match totals."),
            "your_turn": _boolean("Present, and true, only when it is your move.", enum=[True]),
            "legal": _array(_ref("LegalPlay"), "Present (only) with `your_turn`: every card of your hand, "
                                               "sorted, with the captures it may make, so a client never "
                                               "re-implements the rules."),
            "turn_deadline": _timestamp("While a hand is played: when the seat on turn gets a random legal play."),
            "last_play": _nullable(_ref("LastPlay"), "Null before the first play of a hand."),
            "last_hand": _ref("LastHand", "In `hand_end` and `finished`."),
            "acknowledged": _array(_SEAT, "In `hand_end`: the seats that acknowledged, sorted."),
            "hand_end_deadline": _timestamp("In `hand_end`: when the next hand is dealt anyway."),
            "winner": _ref("Team", "In `finished`: the winning team."),
            "seed": _string("In `finished`: the 32-byte seed, lowercase hex.", pattern=_HEX64),
            "seed_commitment": _string("Lowercase hex SHA-256 of the seed bytes.", pattern=_HEX64),
            "revision": _integer("Grows with every change; send it back to guard a move.", minimum=0),
        },
        optional=("hand", "table", "turn", "hand_number", "scores", "last_play", "your_turn", "legal",
                  "turn_deadline",
                  "last_hand", "acknowledged", "hand_end_deadline", "winner", "seed"),
        example=_PLAYING_EXAMPLE,
    )


def _record_schemas() -> dict[str, Schema]:
    return {
        "LoggedMove": _object("One entry of the move log.", {
            "number": _integer("From 1; every entry counts (plays, acks, auto-plays, hand-end continues).",
                               minimum=1),
            "type": _string("The engine's kind of move, e.g. `play`, `auto_play`, `ack`, `continue`."),
            "seat": _nullable(_string("The opaque seat, `seat:0`..`seat:3`.", pattern="^seat:[0-9]+$"),
                              "The seat that made (or was given) the move; null for a system move."),
            "payload": {"type": "object", "description": "The move's data, e.g. `{\"card\": \"07D\", "
                        "\"capture\": [\"02D\", \"05C\"]}`."},
            "auto": _boolean("Made by the server because a deadline passed."),
        }),
        "MoveLog": _object("Everything a verifier needs to replay a table from its seed. Names seats, never "
                           "people.", {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID, "options": _ref("Options"),
            "seats": _array(_string("An opaque seat."), "The table's seats in order.",
                            examples=[["seat:0", "seat:1", "seat:2", "seat:3"]]),
            "seed_commitment": _nullable(_string("Lowercase hex SHA-256 of the seed bytes.", pattern=_HEX64),
                                         "Null while the game is in the lobby (no seed is drawn yet)."),
            "seed": _string("Finished games only: the seed, lowercase hex.", pattern=_HEX64),
            "moves": _array(_ref("LoggedMove"), "Every move, in order."),
            "revision": _integer("The table's revision.", minimum=0),
            "status": _string("`lobby` (no table yet: no moves), `playing`, `hand_end` or `finished`.",
                              enum=["lobby", "playing", "hand_end", "finished"]),
        }, optional=("seed",), example=_LOG_EXAMPLE),
        "MatchPlayer": _object("One seat of a finished match.", {
            "seat": _SEAT, "name": _NAME, "team": _nullable(_ref("Team"), "Null when the game has no teams."),
            "won": _boolean("The player's team won."),
            "points": _integer("The team's final score."),
            "elo_delta": _integer("The rating change this match caused (negative for a loss): 0 in an unrated "
                                  "match (`rated` false) but for an abandoner, and always 0 for a bot."),
            "bot": _string("Only on a bot's seat: the level of the bot that played it from the start (the "
                           "match is then a practice match). A bot has no rating.", examples=["esperto"]),
            "abandoned": _boolean("Only on the seat of a player who left the match (a bot took the seat over "
                                  "and they did not take it back): always true. Their `elo_delta` is what a "
                                  "lost match cost them.", enum=[True]),
        }, optional=("bot", "abandoned")),
        "MatchResult": _object("The engine's result (for scopone: scores, winner, target_score, hands and the "
                               "per-hand audit).", {
            "scores": _ref("Scores"), "winner": _ref("Team"), "target_score": _integer("The options' target."),
            "hands": _integer("Hands played."), "audit": _array(_ref("LastHand"), "Every hand's scoring."),
        }, optional=("scores", "winner", "target_score", "hands", "audit")),
        "Match": _object("A finished match.", {
            "id": _GAME_UUID, "game_type": _GAME_TYPE_ID,
            "started_at": _timestamp("When the game started."), "finished_at": _timestamp("When it ended."),
            "rated": _boolean("True when the match moved the ratings: the four people who started it all "
                              "finished it. False for a practice match (a bot sat there from the start: "
                              "nobody's rating moved) and for an abandoned one (only the abandoners lost "
                              "what a lost match costs)."),
            "result": _ref("MatchResult"),
            "players": _array(_ref("MatchPlayer"), "Every seat, in seat order."),
        }, example=_MATCH_EXAMPLE),
        "MatchPage": _object("A page of the member's matches, newest first.", {
            "items": _array(_ref("Match"), "At most `limit` matches; fewer (with a `next_cursor`) when "
                                           "they are large: a page stops at about 1 MiB of results."),
            "next_cursor": _nullable(_string("Opaque."), "Pass as `cursor` for the next page; null on the last."),
        }),
        "Rating": _object("The member's rating in one game type.", {
            "game_type": _GAME_TYPE_ID, "rating": _integer("Elo; 1500 before any match.", examples=[1516]),
            "matches": _integer("Matches played.", minimum=0),
        }),
        "Ratings": _object("One entry per game type played.", {"ratings": _array(_ref("Rating"), "By game type.")},
                           example={"ratings": [{"game_type": "scopone_scientifico", "rating": 1516, "matches": 1}]}),
        "LeaderboardEntry": _object("One member of the leaderboard.", {
            "rank": _integer("1-based position.", minimum=1), "name": _NAME, "rating": _integer("Elo."),
            "wins": _integer("Matches won."), "matches": _integer("Matches played."),
            "points": _integer("Sum of the final scores of the member's team."),
        }),
        "Leaderboard": _object("The best-rated members of a game type.", {
            "game_type": _GAME_TYPE_ID,
            "entries": _array(_ref("LeaderboardEntry"), "By rating, highest first."),
        }, example={"game_type": "scopone_scientifico",
                    "entries": [{"rank": 1, "name": "alice", "rating": 1516, "wins": 1, "matches": 1, "points": 11}]}),
    }


def _socket_schemas() -> dict[str, Schema]:
    """The WebSocket messages (docs/websocket.md); OpenAPI cannot attach them to /ws, so they stand alone."""
    revision = _integer("The revision the player saw; refused with `concurrent_move` if the game moved on.",
                        minimum=0)
    return {
        "WsLobby": _object("The lobby while the game waits for players: on connect and whenever a seat "
                           "fills (or a seated member is erased); the first `state` follows the start.", {
            "type": _string("`lobby`.", enum=["lobby"]), "game": _ref("Lobby"),
        }, example={"type": "lobby", "game": _LOBBY_EXAMPLE}),
        "WsState": _object("The game view: on connect, after every accepted change, and on request.", {
            "type": _string("`state`.", enum=["state"]), "game": _ref("GameView"),
        }),
        "WsGameOver": _object("Sent after the final state.", {
            "type": _string("`game_over`.", enum=["game_over"]), "scores": _ref("Scores"), "winner": _ref("Team"),
        }, example={"type": "game_over", "scores": {"A": 11, "B": 7}, "winner": "A"}),
        "WsRematch": _object("A player of this finished game created its rematch "
                             "(POST /api/games/{id}/rematch): join it with the same call.", {
            "type": _string("`rematch`.", enum=["rematch"]),
            "game_id": _string("The new game's id.", format="uuid"),
            "join_code": _string("The new game's join code."),
            "by": _string("The name of the player who created it."),
        }, example={"type": "rematch", "game_id": "0b7e6a55-3a1c-5d1e-9f3b-2c4d5e6f7a8b",
                    "join_code": "Q4WZ7N", "by": "alice"}),
        "WsError": _object("A refused message; the game is unchanged and the socket stays open. "
                           "`unconfirmed` alone says that the outcome of a move is not known "
                           "(docs/websocket.md, A move under overload).", {
            "type": _string("`error`.", enum=["error"]),
            "code": _string("Why.", enum=list(WS_ERROR_CODES)),
            "message": _string("For people."),
        }, example={"type": "error", "code": "not_your_turn", "message": "Not your turn"}),
        "WsPresence": _object("Who is connected changed (a seat's first socket opened or its last "
                              "closed); no state comes with it.", {
            "type": _string("`presence`.", enum=["presence"]),
            "connected": _array(_SEAT, "The seats connected now (bots always are), sorted."),
        }, example={"type": "presence", "connected": [0, 1, 2]}),
        "WsServerMessage": {"oneOf": [_ref("WsLobby"), _ref("WsState"), _ref("WsGameOver"), _ref("WsPresence"),
                                      _ref("WsRematch"), _ref("WsError")],
                            "description": "Any message the server sends."},
        "WsPlay": _object("Play a card.", {
            "action": _string("`play`.", enum=["play"]), "card": _ref("Card"),
            "capture": _array(_ref("Card"), "The table cards taken; omitted (or []) when no capture exists."),
            "revision": revision,
        }, optional=("capture", "revision"), example={"action": "play", "card": "07D", "capture": ["02D", "05C"]}),
        "WsAck": _object("Acknowledge the hand-end summary.", {
            "action": _string("`ack`.", enum=["ack"]), "revision": revision,
        }, optional=("revision",), example={"action": "ack"}),
        "WsStateRequest": _object("Ask for the current view again.", {
            "action": _string("`state`.", enum=["state"]), "revision": revision,
        }, optional=("revision",), example={"action": "state"}),
        "WsTakeBack": _object("Practice only: take back your last play while nobody played after it.", {
            "action": _string("`takeback`.", enum=["takeback"]), "revision": revision,
        }, optional=("revision",), example={"action": "takeback"}),
        "WsClientMessage": {"oneOf": [_ref("WsPlay"), _ref("WsAck"), _ref("WsStateRequest"),
                                      _ref("WsTakeBack")],
                            "description": f"Any message a client sends: JSON text of at most "
                                           f"{MAX_SOCKET_MESSAGE_BYTES} bytes."},
    }


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
        "schema": _ref("Error"),
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


_GAME_ID_PARAM = _param("path", "id", "The game id.", {"type": "string", "format": "uuid"})
_LIMIT_ERROR = "limit must be an integer from 1 to 100"
_BODY_ERRORS = ("Invalid JSON", "Request body must be a JSON object", "Unknown field: colour")


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
    }


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


def _body(schema_name: str, description: str, *, required: bool, example: Any) -> dict:
    return {"description": description, "required": required,
            "content": {"application/json": {"schema": _ref(schema_name), "example": example}}}


# -- paths ----------------------------------------------------------------------------------


def _platform_paths() -> dict[str, dict]:
    return {
        "/api/health": {"get": _operation(
            "getHealth", "platform", "Liveness of the gateway",
            {"200": _json("The gateway answers.", _ref("Health"), example={"status": "ok"})},
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
            {"200": _json("In configuration order.", _ref("Providers"))}, public=True, calls_services=False)},
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
                              {"200": _json("The member.", _ref("Me"))}, calls_services=False),
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
    views = {"lobby": _LOBBY_EXAMPLE, "playing": _PLAYING_EXAMPLE, "hand_end": _HAND_END_EXAMPLE,
             "finished": _FINISHED_EXAMPLE}
    lobby_or_game = {"oneOf": [_ref("Lobby"), _ref("GameView")]}
    not_seated = _error("The caller has no seat at this game.", "Not seated at this game")
    return {
        "/api/game-types": {"get": _operation(
            "listGameTypes", "games", "The game types",
            {"200": _json("Every game type, the default (scopone_scientifico) first.",
                          _array(_ref("GameType"), "The catalogue."))},
            description="The gateway keeps the catalogue (it changes only with a deploy): fetched on first "
                        "use, refreshed in the background once a minute, served while the lobby is down.",
            public=True)},
        "/api/games": {"post": _operation(
            "createGame", "games", "Create a game",
            {"201": _json("The new game, the creator at seat 0.", _ref("Lobby"), example=_LOBBY_EXAMPLE),
             "400": _error("Not a JSON object, an unknown field, a wrong type or an unknown game type.",
                           "Unknown game type: chess", *_BODY_ERRORS, "game_type must be a string",
                           "game_type is required"),
             "422": _error("Options that break the game type's options_schema.",
                           "Invalid options: target_score: must be an integer from 1 to 121",
                           "Invalid options: options must be an object")},
            body=_body("CreateGameRequest", "Optional: no body is `{}` (scopone_scientifico, default options).",
                       required=False, example={"game_type": "scopone_scientifico", "options": _OPTIONS}))},
        "/api/games/join": {"post": _operation(
            "joinGame", "games", "Join a game by its code",
            {"200": _json("The lobby, or the game view when this join took the last seat (the game starts). "
                          "Joining again when seated answers the same (idempotent).", lobby_or_game,
                          examples={"lobby": _LOBBY_EXAMPLE, "started": _STARTED_EXAMPLE}),
             "400": _error("Not a JSON object, an unknown field or no code.", *_BODY_ERRORS,
                           "code is required", "code must be a string"),
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("Every seat is taken by others.", "Game is full")},
            body=_body("JoinRequest", "The join code.", required=True, example={"code": "K7QX2M"}))},
        "/api/games/{id}/rematch": {"post": _operation(
            "rematchGame", "games", "Play a finished game again with the same players",
            {"201": _json("This call created the rematch: a new game of the same type and options, "
                          "the caller at seat 0. The players with a socket open at the finished game "
                          "get a `rematch` message (WsRematch).", _ref("Lobby"),
                          example=_LOBBY_EXAMPLE),
             "200": _json("The rematch existed already (another player asked first, or the caller "
                          "asked before): the caller is seated at it (idempotent). The lobby, or the "
                          "game view when this call took the last seat (the game starts).",
                          lobby_or_game, examples={"lobby": _LOBBY_EXAMPLE, "started": _STARTED_EXAMPLE}),
             "400": _error("A body that is not a JSON object, or any field (the body is empty or `{}`).",
                           *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game waits for players or is still being played; or every seat of the "
                           "rematch is taken by others.", "The game is not finished", "Game is full")},
            description="For the seated players of a finished game. Every player who asks while the "
                        "finished game lives (GAME_TTL_SECONDS after it was last read) gets the same new "
                        "game, at the seat they had (partners stay partners): the first creates it (with "
                        "the finished game's bots from the start at their seats), the others join it, and "
                        "the one who fills it starts it.",
            parameters=(_GAME_ID_PARAM,),
            body=_body("RematchRequest", "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/{id}/bots": {"post": _operation(
            "addBot", "games", "Seat a bot",
            {"200": _json("The lobby, or the game view when the bot took the last seat (the game "
                          "starts).", lobby_or_game,
                          examples={"lobby": _LOBBY_EXAMPLE, "started": _STARTED_EXAMPLE}),
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
            body=_body("AddBotRequest", "The seat and the level.", required=True,
                       example={"seat": 2, "level": "esperto"}))},
        "/api/games/{id}/bots/{seat}": {"delete": _operation(
            "removeBot", "games", "Take a bot off a waiting game",
            {"200": _json("The lobby.", _ref("Lobby"), example=_LOBBY_EXAMPLE),
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
            {"200": _json("The lobby.", _ref("Lobby"), example=_LOBBY_EXAMPLE),
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
            body=_body("ChangeSeatRequest", "The empty seat to move to.", required=True,
                       example={"seat": 2}))},
        "/api/games/{id}/leave": {"post": _operation(
            "leaveGame", "games", "Leave a game",
            {"200": _json("Left: in the lobby the seat is free (the next person becomes the creator; "
                          "the game is gone with its last person); while playing an `esperto` bot "
                          "plays the seat until the caller takes it back.", _ref("Left")),
             "400": _error("A body that is not a JSON object, or any field.", *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("The game is finished.", "Game is finished")},
            description="Leaving a started match is an abandonment unless the player comes back "
                        "(POST /api/games/{id}/return): the match is unrated and costs the leaver "
                        "what a lost match would have.",
            parameters=(_GAME_ID_PARAM,),
            body=_body("NoFieldsRequest", "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/{id}/return": {"post": _operation(
            "returnToGame", "games", "Take back a seat a bot took over",
            {"200": _json("The game view; the bot left the seat.", _ref("GameView")),
             "400": _error("A body that is not a JSON object, or any field.", *_BODY_ERRORS),
             "403": not_seated,
             "404": _shared("GameNotFound"),
             "405": _shared("MethodNotAllowed"),
             "409": _error("No bot took the caller's seat over, or the game is finished.",
                           "Seat not taken over", "Game is finished")},
            parameters=(_GAME_ID_PARAM,),
            body=_body("NoFieldsRequest", "Optional: no body, or `{}`.", required=False, example={}))},
        "/api/games/preview": {"get": _operation(
            "previewGame", "games", "See the game behind a code",
            {"200": _json("The game.", _ref("Preview")),
             "400": _error("No code.", "code is required"),
             "404": _shared("GameNotFound")},
            parameters=(_param("query", "code", "The join code, case-insensitive.", {"type": "string"},
                               required=True),))},
        "/api/games/{id}": {"get": _operation(
            "getGame", "games", "The caller's view of a game",
            {"200": _json("The lobby while waiting, the caller's game view once started.", lobby_or_game,
                          examples=views),
             "403": not_seated, "404": _shared("GameNotFound")},
            parameters=(_GAME_ID_PARAM,))},
        "/api/games/{id}/log": {"get": _operation(
            "getGameLog", "games", "The move log (Fairness)",
            {"200": _json("The log; `seed` once finished.", _ref("MoveLog"), example=_LOG_EXAMPLE),
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
                        _param("header", "Upgrade", "`websocket`.", {"type": "string", "enum": ["websocket"]},
                               required=True),
                        _param("header", "Origin", "Browsers send it; it must be the gateway's own or an "
                               "allowed CORS origin.", {"type": "string"})))},
    }


def _stats_paths() -> dict[str, dict]:
    game_type = _param("query", "game_type", "Only this game type.", {"type": "string"})
    return {
        "/api/me/games": {"get": _operation(
            "listMyGames", "games", "The caller's unfinished games, most recently changed first",
            {"200": _json("In the lobby, playing or at a hand end; at most 50. A player who closed the "
                          "tab finds the way back to their table here.", _ref("MyGames"),
                          example=_MY_GAMES_EXAMPLE)})},
        "/api/me/matches": {"get": _operation(
            "listMyMatches", "stats", "The caller's finished matches, newest first",
            {"200": _json("A page.", _ref("MatchPage"), example={
                "items": [_MATCH_EXAMPLE, _ABANDONED_MATCH_EXAMPLE, _PRACTICE_MATCH_EXAMPLE], "next_cursor": None}),
             "400": _error("A bad limit or cursor, or an unknown game type.", _LIMIT_ERROR, "Invalid cursor",
                           "Unknown game type: chess")},
            parameters=(_limit_param(20),
                        _param("query", "cursor", "The `next_cursor` of the previous page (opaque).",
                               {"type": "string"}),
                        game_type))},
        "/api/me/ratings": {"get": _operation(
            "getMyRatings", "stats", "The caller's ratings",
            {"200": _json("One per game type played.", _ref("Ratings"))})},
        "/api/leaderboard": {"get": _operation(
            "getLeaderboard", "stats", "The best-rated members of a game type",
            {"200": _json("By rating, highest first.", _ref("Leaderboard")),
             "400": _error("A bad limit or an unknown game type.", _LIMIT_ERROR, "Unknown game type: chess")},
            parameters=(_param("query", "game_type", "The game type.",
                               {"type": "string", "default": "scopone_scientifico"}),
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
| 503 | `Service unavailable, try again` | a service behind the gateway is down |

**Real time**: `GET /ws/games/{{id}}` opens the game's WebSocket; its protocol is described in the
project's docs/websocket.md, and its messages are the `Ws*` schemas below.
"""

_TAGS = [
    {"name": "platform", "description": "Health and this documentation."},
    {"name": "auth", "description": "OIDC login, the session and the member."},
    {"name": "games", "description": "Game types, lobbies, views and move logs."},
    {"name": "websocket", "description": "The live game (docs/websocket.md)."},
    {"name": "stats", "description": "Match history, ratings, leaderboard."},
]


def spec() -> dict:
    """The OpenAPI 3.1.0 document of every endpoint of CONTRACT.md (a fresh dict on each call)."""
    # Deep-copied: the helpers share pieces (examples, common schemas) that a caller must not alter.
    return copy.deepcopy({
        "openapi": "3.1.0",
        "info": {"title": "tavolo", "version": "1", "description": _DESCRIPTION,
                 "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}},
        "tags": _TAGS,
        "security": [{"session": []}],
        "paths": {**_platform_paths(), **_auth_paths(), **_game_paths(), **_stats_paths()},
        "components": {
            "securitySchemes": {"session": {
                "type": "apiKey", "in": "cookie", "name": SESSION_COOKIE,
                "description": "The session cookie set by /auth/<provider>/callback (HttpOnly: the browser "
                               "sends it; scripts cannot read it).",
            }},
            "schemas": {**_core_schemas(), **_game_schemas(), **_record_schemas(), **_socket_schemas()},
            "responses": _shared_responses(),
        },
    })


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


def routes() -> list[BaseRoute]:
    """/api/openapi.json (the document, rendered once), /api/docs and its assets at /api/docs/static."""
    document = JSONResponse(spec()).body

    async def openapi_json(request: Request) -> Response:
        return Response(document, media_type="application/json")

    async def docs_page(request: Request) -> Response:
        return HTMLResponse(_DOCS_PAGE)

    return [
        Route(OPENAPI_PATH, openapi_json, methods=["GET"], name="openapi"),
        Route(DOCS_PATH, docs_page, methods=["GET"], name="docs"),
        Mount(DOCS_STATIC_PATH, app=StaticFiles(directory=SWAGGER_UI_PY_ROOT / "static"), name="docs-static"),
    ]
