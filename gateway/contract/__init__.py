"""The public JSON contract (CONTRACT.md), defined once: the REST bodies and the WebSocket messages
as pydantic models.

The gateway builds what it serves through them (gateway.views, the socket's envelopes), reads its
request bodies with their field tables (gateway.bodies), and gateway.openapi documents them from
their JSON schemas; the app's TypeScript types are generated from that document (`make
contract`). One module per area: platform (errors, login, the member), games (game types,
requests, a game before it starts), table (the game view), records (the move log, matches,
standings), talk (table talk), socket (the WebSocket messages), spectators (the public view,
the live games), players (player pages, settings, following, blocking, invitations),
member_socket (the messages of /ws/me), push (Web Push: the key, a subscription, the payload),
analysis (the analysis of a finished match); common has the shared types, examples the examples.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from gateway.contract import (
    analysis,
    games,
    member_socket,
    platform,
    players,
    push,
    records,
    socket,
    spectators,
    table,
    talk,
)

REF_TEMPLATE = "#/components/schemas/{model}"

# Every component, in the order of the document.
MODELS: tuple[type[BaseModel], ...] = (
    platform.Error, platform.Health, platform.Provider, platform.Providers, platform.Me,
    games.GameType, games.BotLevel, games.OptionsSchema, games.OptionSchema,
    games.CreateGameRequest, games.JoinRequest, games.AddBotRequest, games.ChangeSeatRequest,
    games.NoFieldsRequest, games.RematchRequest, games.QuickMatchRequest, games.SetOpenRequest, games.Left,
    games.LobbyPlayer, games.Lobby, games.PreviewPlayer, games.Preview, games.MyGame, games.MyGames,
    games.OpenGame, games.OpenGames,
    table.Scores, table.LegalPlay, table.Player, table.LastPlay, table.TeamHand, table.TeamHands, table.Award,
    table.LastHand, table.Entropy, table.GameView,
    records.LoggedMove, records.MoveLog, records.MatchPlayer, records.MatchResult, records.Match,
    records.MatchPage, records.Rating, records.Ratings, records.LeaderboardEntry, records.Leaderboard,
    talk.PhraseText, talk.Phrase, talk.Phrases, talk.SaidBySeat, talk.SaidBySpectator, talk.ChatMessage,
    talk.ChatHistory, talk.MuteRequest, talk.MutedPlayer, talk.MutedPlayers, talk.ReportRequest, talk.Reported,
    socket.WsLobby, socket.WsState, socket.WsGameOver, socket.WsRematch, socket.WsError, socket.WsPresence,
    socket.WsSaid, socket.WsServerMessage, socket.WsPlay, socket.WsAck, socket.WsCommit, socket.WsReveal,
    socket.WsStateRequest, socket.WsTakeBack, socket.WsSay,
    socket.WsClientMessage,
    spectators.PublicLobby, spectators.PublicGameView, spectators.WatchedGame, spectators.LivePlayer,
    spectators.LiveGame, spectators.LiveGames, spectators.WsWatchLobby, spectators.WsWatchState,
    spectators.WsSpectators, spectators.WsWatchMessage,
    players.PlayerPage, players.Settings, players.SettingsRequest, players.FollowRequest, players.BlockRequest,
    players.InviteRequest, players.FollowedPlayer, players.FollowedPlayers, players.PlayerName,
    players.BlockedPlayers, players.Invitation, players.Invitations,
    member_socket.WsInvited, member_socket.WsOnline, member_socket.WsYourTurn, member_socket.WsMemberMessage,
    push.PushKey, push.PushKeys, push.PushSubscribeRequest, push.PushUnsubscribeRequest, push.PushPayload,
    analysis.AnalysedMove, analysis.AnalysedPlay, analysis.AnalysisSummary, analysis.Analysis,
)


class _Schemas(GenerateJsonSchema):
    """pydantic's JSON schemas without the titles it makes up from the names."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        json_schema.pop("title", None)
        if isinstance(json_schema.get("description"), str):  # a docstring: one paragraph
            json_schema["description"] = " ".join(json_schema["description"].split())
        return json_schema

    def sort(self, value: JsonSchemaValue, parent_key: str | None = None) -> JsonSchemaValue:
        """Keys sorted (pydantic's way), but not inside values: examples read as the JSON served."""
        return _sorted(value)


def _sorted(node: Any, in_properties: bool = False) -> Any:
    if isinstance(node, list):
        return [_sorted(item) for item in node]
    if not isinstance(node, dict):
        return node
    items = node.items() if in_properties else sorted(node.items())
    return {key: (child if not in_properties and key in ("examples", "default", "const", "enum")
                  else _sorted(child, in_properties=not in_properties and key == "properties"))
            for key, child in items}


def _tidy(schema: Any) -> None:
    """A field that is left out when None has no default; a constant (a message's ``type``) is
    always there; a model is open without saying so (JSON Schema's default)."""
    if isinstance(schema, list):
        for item in schema:
            _tidy(item)
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = [*schema.get("required", ())]
        for name, field in properties.items():
            if isinstance(field, dict) and "const" in field and field.get("default") == field["const"]:
                del field["default"]
                required.append(name)
        if required:
            schema["required"] = [name for name in properties if name in required]
        if schema.get("additionalProperties") is True:
            del schema["additionalProperties"]
    if "default" in schema and schema["default"] is None:
        del schema["default"]
    for key, child in schema.items():
        if key == "properties" and isinstance(child, dict):
            for field in child.values():
                _tidy(field)
        elif key not in ("examples", "default", "const", "enum"):
            _tidy(child)


def schemas() -> dict[str, Any]:
    """The components' JSON schemas (draft 2020-12, as OpenAPI 3.1 takes them), by model name."""
    _, document = models_json_schema([(model, "validation") for model in MODELS], ref_template=REF_TEMPLATE,
                                     schema_generator=_Schemas)
    definitions = document["$defs"]
    for schema in definitions.values():
        _tidy(schema)
    order = {model.__name__: index for index, model in enumerate(MODELS)}
    return dict(sorted(definitions.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))
