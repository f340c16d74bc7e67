"""Game types, the requests on games, and a game before it starts: lobby, preview, the caller's games."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from bots.catalogue import LEVEL_IDS
from game.client import DEFAULT_GAME_TYPE
from game.status import TableStatus
from gateway.contract import examples
from gateway.contract.common import (
    NOT_BLANK,
    Absent,
    Body,
    BotLevelId,
    Engine,
    GameId,
    GameTypeId,
    JoinCode,
    KnownGameType,
    Name,
    OneOf,
    Options,
    PlayerId,
    Request,
    Seat,
    Team,
    absent,
    seat_player_id,
    timestamp,
)

# -- game types ------------------------------------------------------------------------------


class OptionSchema(Body):
    """One option of a game type, as JSON Schema: the app makes a form field of it (an integer a number
    input with its bounds, a boolean a checkbox; the title labels it, the description explains it)."""

    model_config = ConfigDict(extra="allow")
    type: str | Absent = absent("`integer`, `number`, `boolean` or `string`.")
    title: str | Absent = absent("Its name for people.")
    description: str | Absent = absent("What it does.")
    default: Any = absent("Its value when a game does not set it.")
    minimum: float | Absent = absent("The least value of a number.")
    maximum: float | Absent = absent("The greatest value of a number.")
    const: Any = absent("The only value the option takes.")
    enum: list[Any] | Absent = absent("The values the option takes (scopone's `pace`: `live`, `daily`): the app "
                                      "offers a choice of them.")
    readOnly: bool | Absent = absent(  # JSON Schema's name
        "True for an option the server sets (scopone's `first_dealer`): the app shows no field for it, and a "
        "request leaves it out or gives the server's value.")


class OptionsSchema(Body):
    """The JSON Schema (draft 2020-12) the options of POST /api/games must satisfy, with their defaults:
    an object schema with one property per option."""

    model_config = ConfigDict(extra="allow")
    type: str | Absent = absent("`object`.")
    properties: dict[str, OptionSchema] | Absent = absent("The options by name.")


class BotLevel(Body):
    """A level of play of the computer players."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"id": "esperto", "name": "Expert"}]})
    id: BotLevelId = Field(description="The level's id.")
    name: str = Field(description="Its name in English.", examples=["Expert"])


class GameType(Body):
    """A game the platform can run."""

    id: GameTypeId
    name: str = Field(description="The name shown to people.", examples=["Scopone scientifico"])
    description: str = Field(description="One or two sentences on the game.")
    players: int = Field(description="How many seats a game of this type has.", examples=[4])
    options_schema: Engine[OptionsSchema] = Field(
        description="The JSON Schema (draft 2020-12) the options of POST /api/games must satisfy, with their "
                    "defaults: the game's own, as its engine declares it.")
    bot_levels: list[BotLevel] = Field(description="The levels a bot may play at, weakest first.")


# -- requests --------------------------------------------------------------------------------


class CreateGameRequest(Request):
    """Every field is optional; an empty body creates a default game."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"game_type": "scopone_scientifico", "options": examples.OPTIONS}]})
    game_type: KnownGameType = Field(default=DEFAULT_GAME_TYPE, description="The game type id.")
    options: Options | None = Field(
        default={},
        description="Options checked against the type's `options_schema` (an unknown one is 422); null or "
                    "absent: all defaults.")
    open: bool = Field(
        default=False,
        description="True lists the game in GET /api/games/open for anyone to join (a member has at most "
                    "5 open games waiting: 409 beyond).")
    spectators: bool = Field(
        default=True,
        description="False forbids watching the game (GET /api/games/{id}/watch, /ws/games/{id}/watch: 403); "
                    "fixed at creation.")


class QuickMatchRequest(Request):
    """Every field is optional: a quick match of scopone scientifico with any options."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"game_type": "scopone_scientifico"}]})
    game_type: KnownGameType = Field(default=DEFAULT_GAME_TYPE, description="The game type id.")
    options: Options | None = Field(
        default=None,
        description="Only games with these options (checked against the type's `options_schema`), and "
                    "the options of a game this call creates; null or absent: any game, and all defaults.")


class SetOpenRequest(Request):
    """Whether anyone may find the game in GET /api/games/open."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"open": True}]})
    open: bool = Field(description="True lists the game; false takes it off the list.")


class JoinRequest(Request):
    """The join code of the game."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"code": "K7QX2M"}]})
    code: str = Field(min_length=1, pattern=NOT_BLANK, description="The join code, case-insensitive.")


class AddBotRequest(Request):
    """Where the bot sits, and how well it plays."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"seat": 2, "level": "esperto"}]})
    seat: int = Field(description="An empty seat, 0..3.")
    # The levels are the bots service's catalogue, the same for every game type.
    level: Annotated[str, OneOf(*LEVEL_IDS)] = Field(description="A level id of the game type's `bot_levels`.")


class ChangeSeatRequest(Request):
    """The seat to move to."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"seat": 2}]})
    seat: int = Field(description="An empty seat, 0..3.")


class NoFieldsRequest(Request):
    """No fields: an empty object (or no body at all)."""

    model_config = ConfigDict(json_schema_extra={"examples": [{}]})


class RematchRequest(NoFieldsRequest):
    """No fields: an empty object (or no body at all)."""


# -- a game before it starts -------------------------------------------------------------------

_UNFINISHED = [status for status in TableStatus if status != TableStatus.FINISHED]
_BOT = "Present while a bot plays this seat: its level."
_TOOK_OVER = ("Present (true) when that bot replaced the person named here, who left or abandoned the seat "
              "and may take it back.")


class Left(Body):
    """The caller left the game."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"left": True}]})
    left: bool = Field(description="Always true.")


class PreviewPlayer(Body):
    """A seated player, as anyone with the code sees them."""

    seat: Seat
    name: Name
    team: Team
    player: PlayerId | Absent = seat_player_id()
    bot: BotLevelId | Absent = absent(_BOT)
    took_over: Literal[True] | Absent = absent(_TOOK_OVER)


class LobbyPlayer(Body):
    """A seated player of a waiting game."""

    seat: Seat
    name: Name
    team: Team
    is_you: bool = Field(description="True for the caller's seat.")
    player: PlayerId | Absent = seat_player_id()
    bot: BotLevelId | Absent = absent(_BOT)
    took_over: Literal[True] | Absent = absent(_TOOK_OVER)


class Lobby(Body):
    """A game waiting for players."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.LOBBY]})
    id: GameId
    game_type: GameTypeId
    join_code: JoinCode
    status: Literal["lobby"] = Field(default="lobby", description="Always `lobby` while seats are open.")
    options: Options
    players: list[LobbyPlayer] = Field(description="The seated players, in seat order.")
    seats_open: int = Field(ge=0, description="Seats still free.")
    created_at: str = timestamp("When the game was created.")
    open: bool = Field(default=False, description="True while the game is listed in GET /api/games/open.")


class Preview(Body):
    """The game behind a join code, for someone deciding whether to join."""

    id: GameId
    game_type: GameTypeId
    name: str = Field(description="The game type's name.")
    description: str = Field(description="The game type's description.")
    status: Annotated[str, OneOf(*TableStatus)] = Field(
        description="`lobby` while waiting, then the game's status.")
    players: list[PreviewPlayer] = Field(description="The seated players, in seat order.")
    seats_open: int = Field(ge=0, description="Seats still free.")
    options: Options


class MyGame(Body):
    """One of the caller's games that is not finished."""

    id: GameId
    game_type: GameTypeId
    join_code: JoinCode
    status: Annotated[str, OneOf(*_UNFINISHED)] = Field(
        description="`lobby` while seats are open, then the game's status.")
    players: list[LobbyPlayer] = Field(description="The seated players, in seat order.")
    seats_open: int = Field(ge=0, description="Seats still free.")
    your_turn: bool = Field(description="True only when it is the caller's move.")
    updated_at: str = timestamp("When the game last changed (a seat taken, a move).")
    pace: Annotated[str, OneOf("live", "daily")] = Field(  # game.pace.PACES (the contract imports no rules)
        description="`daily` for a turn-based game (every deadline `DAILY_TURN_HOURS` hours), otherwise "
                    "`live` (also a game type without the option).")
    deadline: str | Absent = absent(
        "The current deadline of a started game: the turn's (`turn_deadline`), the hand end's "
        "(`hand_end_deadline`) or the seeding phase's (`entropy.deadline`). Absent in the lobby and when "
        "there is none. ISO 8601, UTC, milliseconds, `Z`.",
        json_schema_extra={"format": "date-time"}, examples=[examples.TIMESTAMP])


class MyGames(Body):
    """The caller's unfinished games, most recently changed first (at most 50)."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.MY_GAMES]})
    games: list[MyGame] = Field(description="The games.")



class OpenGame(MyGame):
    """A game in the lobby that its creator opened to anyone, with a seat open."""

    options: Options
    rating: int = Field(description="The mean rating of the seated people for the game type (1500 for a "
                                    "new player); bots do not count.", examples=[1512])


class OpenGames(Body):
    """Open games with a seat free, newest first (at most 50)."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.OPEN_GAMES]})
    games: list[OpenGame] = Field(description="The games.")
