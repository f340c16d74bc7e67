"""Table talk (CONTRACT.md, Table talk): the quick phrases, the `say` message a client sends and the `said`
message the gateway delivers, a table's chat history, the caller's muted players and a report of a
message."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from gateway.contract import examples
from gateway.contract.common import (
    PLAYER_ID,
    PLAYER_ID_TEXT,
    Absent,
    Body,
    Name,
    Request,
    Seat,
    absent,
    timestamp,
)

PLAYER_ID_EXAMPLE = examples.PLAYER
MESSAGE_ID_EXAMPLE = "5f0c6f1b2d8e4a3c9b7d1e2f3a4b5c6d"

MAX_TEXT_CHARS = 200  # a free-text message, once trimmed
MAX_REASON_CHARS = 200  # a report's reason
HISTORY_LIMIT = 100  # GET /api/games/{id}/chat: the last messages the caller may see

PlayerId = Annotated[str, Field(pattern=PLAYER_ID, description=PLAYER_ID_TEXT, examples=[PLAYER_ID_EXAMPLE])]
PhraseId = Annotated[str, Field(
    pattern="^[a-z_]{1,32}$", examples=["good_luck"],
    description="A quick phrase's id of GET /api/phrases; any other is error `bad_request`.")]
MessageId = Annotated[str, Field(description="The message's id, unique on the platform.",
                                 examples=[MESSAGE_ID_EXAMPLE])]

SAID_EXAMPLE: dict[str, Any] = {"type": "said", "id": MESSAGE_ID_EXAMPLE,
                 "from": {"seat": 2, "name": "carol", "player": PLAYER_ID_EXAMPLE},
                 "phrase": "good_luck", "at": examples.TIMESTAMP}


# -- phrases ---------------------------------------------------------------------------------


class PhraseText(Body):
    """A phrase's text in each language the app speaks."""

    it: str = Field(description="In Italian.", examples=["Buona fortuna!"])
    en: str = Field(description="In English.", examples=["Good luck!"])


class Phrase(Body):
    """A quick phrase: its id never changes, its texts may."""

    id: PhraseId
    text: PhraseText


class Phrases(Body):
    """Every quick phrase, in the order the app offers them."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"phrases": [
        {"id": "good_luck", "text": {"it": "Buona fortuna!", "en": "Good luck!"}}]}]})
    phrases: list[Phrase] = Field(description="The phrases.")


# -- a message -------------------------------------------------------------------------------


class SaidBySeat(Body):
    """A seated player (or a bot) said it."""

    seat: Seat
    name: Name
    player: PlayerId | Absent = absent("The author's public player id (a bot has none).")


class SaidBySpectator(Body):
    """A spectator said it."""

    spectator: Literal[True] = Field(description="Always true.")
    name: Name
    player: PlayerId


class ChatMessage(Body):
    """A message of table talk: a quick phrase or a free text, never both."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, json_schema_extra={
        "examples": [{key: value for key, value in SAID_EXAMPLE.items() if key != "type"}]})
    id: MessageId
    from_: SaidBySeat | SaidBySpectator = Field(alias="from", description="Who said it.")
    phrase: PhraseId | Absent = absent("A quick phrase's id (GET /api/phrases).")
    text: str | Absent = absent(f"A free text, trimmed, 1..{MAX_TEXT_CHARS} characters: show it as text.")
    at: str = timestamp("When it was said.")


class ChatHistory(Body):
    """The last messages of a table the caller may see (at most 100), oldest first; those of a player the
    caller muted or blocked are left out."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"messages": [
        {key: value for key, value in SAID_EXAMPLE.items() if key != "type"}]}]})
    messages: list[ChatMessage] = Field(description="The messages.")


# -- mutes and reports -----------------------------------------------------------------------


class MuteRequest(Request):
    """The player to mute."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"player": PLAYER_ID_EXAMPLE}]})
    player: PlayerId


class MutedPlayer(Body):
    """A player the caller muted."""

    player: PlayerId
    name: Name


class MutedPlayers(Body):
    """The players the caller muted: their messages are neither sent to nor listed for the caller."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"players": [
        {"player": PLAYER_ID_EXAMPLE, "name": "carol"}]}]})
    players: list[MutedPlayer] = Field(description="The players, most recently muted first.")


class ReportRequest(Request):
    """Why the message is reported (optional: an empty object, or no body, reports it without a reason)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"reason": "Insults"}]})
    reason: str = Field(default="", max_length=MAX_REASON_CHARS,
                               description=f"At most {MAX_REASON_CHARS} characters, for the operators.")


class Reported(Body):
    """The report is kept for the operators."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"reported": True}]})
    reported: bool = Field(description="Always true.")
