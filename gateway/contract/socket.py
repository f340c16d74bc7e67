"""The messages of the game's WebSocket (docs/websocket.md): what the server sends, as the gateway
builds them, and what a client sends (documented: the gateway passes an action on to the game's
engine, which knows its own actions)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from gateway.contract import examples
from gateway.contract.common import Absent, Body, Card, Engine, OneOf, Seat, Team, absent
from gateway.contract.games import Lobby
from gateway.contract.spectators import WsSpectators
from gateway.contract.table import GameView, Scores
from gateway.contract.talk import MAX_TEXT_CHARS, SAID_EXAMPLE, ChatMessage, PhraseId

MAX_SOCKET_MESSAGE_BYTES = 4096
# CONTRACT's codes, and those the gateway adds: "unavailable" (a service briefly down, try again),
# "unconfirmed" (the outcome of a move is not known), "already_played" (a move id sent again) and
# "rate_limited" (too many messages: nothing done, send it again in a moment); "chat_closed" (free
# text while cards are in play: only quick phrases then).
WS_ERROR_CODES = ("illegal_move", "not_your_turn", "bad_request", "unknown_action", "concurrent_move",
                  "game_finished", "unavailable", "unconfirmed", "already_played", "rate_limited",
                  "chat_closed")


class Feature(StrEnum):
    """What a socket may ask for on its URL (``?features=presence,rematch``), beyond the four types
    every socket gets (`lobby`, `state`, `game_over`, `error`): a client written to the contract
    alone never meets a type it did not ask for. ``rematch`` is this project's addition."""

    PRESENCE = "presence"  # `presence` messages
    CHAT = "chat"  # `said` messages (table talk)
    SPECTATORS = "spectators"  # `spectators` messages
    REMATCH = "rematch"  # `rematch` messages, at a finished game


MAX_FEATURES_CHARS = 256  # a longer ?features= is read no further: every feature fits in far less


def features_of(query: str | None) -> frozenset[Feature]:
    """The features a ``?features=`` value asks for; unknown names are ignored (CONTRACT)."""
    if not query:
        return frozenset()
    known = {feature.value for feature in Feature}
    names = (name.strip() for name in query[:MAX_FEATURES_CHARS].split(","))
    return frozenset(Feature(name) for name in names if name in known)


# -- server to client ------------------------------------------------------------------------


class WsLobby(Body):
    """The lobby while the game waits for players: on connect and whenever a seat fills (or a seated
    member is erased); the first `state` follows the start."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "lobby", "game": examples.LOBBY}]})
    type: Literal["lobby"] = "lobby"
    game: Lobby


class WsState(Body):
    """The game view: on connect, after every accepted change, and on request."""

    type: Literal["state"] = "state"
    game: GameView


class WsGameOver(Body):
    """Sent after the final state."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"type": "game_over", "scores": {"A": 11, "B": 7}, "winner": "A"}]})
    type: Literal["game_over"] = "game_over"
    scores: Engine[Scores] = Field(description="The final scores, as the final state shows them.")
    winner: Engine[Team] = Field(description="The winning team, as the final state shows it.")


class WsRematch(Body):
    """A player of this finished game created its rematch (POST /api/games/{id}/rematch): join it with the
    same call. Only to sockets that asked for it (`?features=rematch`)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "type": "rematch", "game_id": "0b7e6a55-3a1c-5d1e-9f3b-2c4d5e6f7a8b", "join_code": "Q4WZ7N",
        "by": "alice"}]})
    type: Literal["rematch"] = "rematch"
    game_id: str = Field(description="The new game's id.", json_schema_extra={"format": "uuid"})
    join_code: str = Field(description="The new game's join code.")
    by: str = Field(description="The name of the player who created it.")


class WsError(Body):
    """A refused message; the game is unchanged and the socket stays open. `unconfirmed` alone says that
    the outcome of a move is not known (docs/websocket.md, A move under overload)."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"type": "error", "code": "not_your_turn", "message": "Not your turn"}]})
    type: Literal["error"] = "error"
    code: Annotated[str, OneOf(*WS_ERROR_CODES)] = Field(description="Why.")
    message: str = Field(description="For people.")
    id: str | Absent = absent("The `id` of the message it answers, when that carried one.")


class WsPresence(Body):
    """Who is connected changed (a seat's first socket opened or its last closed); no state comes with
    it. Only to sockets that asked for it (`?features=presence`)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "presence", "connected": [0, 1, 2]}]})
    type: Literal["presence"] = "presence"
    connected: list[Seat] = Field(description="The seats connected now (bots always are), sorted.")


class WsSaid(ChatMessage):
    """Someone at the table said something (Table talk). Only to sockets that asked for it
    (`?features=chat`), never from a player the reader muted; a spectator's message reaches only
    spectators until the game is finished."""

    model_config = ConfigDict(json_schema_extra={"examples": [SAID_EXAMPLE]})
    type: Literal["said"] = "said"


class WsServerMessage(RootModel[Annotated[WsLobby | WsState | WsGameOver | WsPresence | WsSpectators | WsRematch
                                          | WsSaid | WsError, Field(discriminator="type")]]):
    """Any message the server sends."""


# -- client to server ------------------------------------------------------------------------

Revision = Annotated[int, Field(ge=0)]
_REVISION = "The revision the player saw; refused with `concurrent_move` if the game moved on."
# A client message's id (docs/websocket.md); gateway.ws checks it with the same pattern.
MOVE_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$"  # CONTRACT: 1..64 of [A-Za-z0-9_-]
MoveId = Annotated[str, Field(pattern=MOVE_ID_PATTERN)]
_ID = ("Chosen by the client, unique per move: 1 to 64 characters of `A-Z`, `a-z`, `0-9`, `_` and `-`. A move "
       "sent again with an id already played is not played twice (`already_played`); an error answering "
       "the message carries it.")


class WsAction(Body):
    """What every message of the client's may carry besides its action."""

    revision: Revision | Absent = absent(_REVISION)
    id: MoveId | Absent = absent(_ID)


class WsPlay(WsAction):
    """Play a card."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"action": "play", "card": "07D", "capture": ["02D", "05C"]}]})
    action: Literal["play"] = "play"
    card: Card
    capture: list[Card] | Absent = absent("The table cards taken; omitted (or []) when no capture exists.")


class WsAck(WsAction):
    """Acknowledge the hand-end summary."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "ack"}]})
    action: Literal["ack"] = "ack"


class WsCommit(WsAction):
    """Player entropy, phase `commit`: the SHA-256 of 32 random bytes of the seat's own."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"action": "commit", "hash": "72cd6e8422c407fb6d098690f1130b7ded7ec2f7f5e1d30bd9d521f015363793"}]})
    action: Literal["commit"] = "commit"
    hash: str = Field(pattern="^[0-9a-f]{64}$", description="Lowercase hex SHA-256 of the 32 bytes.")


class WsReveal(WsAction):
    """Player entropy, phase `reveal`: the 32 bytes committed to."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"action": "reveal", "value": "0101010101010101010101010101010101010101010101010101010101010101"}]})
    action: Literal["reveal"] = "reveal"
    value: str = Field(pattern="^[0-9a-f]{64}$", description="The 32 bytes, lowercase hex.")


class WsStateRequest(WsAction):
    """Ask for the current view again."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "state"}]})
    action: Literal["state"] = "state"


class WsTakeBack(WsAction):
    """Practice only: take back your last play while nobody played after it."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "takeback"}]})
    action: Literal["takeback"] = "takeback"


class WsSay(WsAction):
    """Table talk: a quick phrase (at any time) or a free text (only in the lobby, at `hand_end` and once
    `finished`; during `seeding` and `playing` error `chat_closed`), one of the two. An unknown phrase, an
    empty text, one over 200 characters once trimmed or one holding control characters: error
    `bad_request`; more than 1 a second (bursts of 5) at one table: error `rate_limited`."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"action": "say", "phrase": "good_luck"},
                                                              {"action": "say", "text": "Bella partita!"}]})
    action: Literal["say"] = "say"
    phrase: PhraseId | Absent = absent("A quick phrase's id (GET /api/phrases).")
    text: str | Absent = absent(f"A free text: trimmed, then 1..{MAX_TEXT_CHARS} characters without control "
                                "characters.")


class WsClientMessage(RootModel[Annotated[WsPlay | WsAck | WsCommit | WsReveal | WsStateRequest | WsTakeBack
                                          | WsSay, Field(discriminator="action")]]):
    __doc__ = (f"Any message a client sends: JSON text of at most {MAX_SOCKET_MESSAGE_BYTES} bytes "
               "(docs/websocket.md).")
