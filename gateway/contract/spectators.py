"""Spectators (CONTRACT.md, Spectators): the public view of a game that anyone logged in may watch,
the live games worth watching, and the `spectators` socket message.

The public view is the engine's onlooker view (rendered with no seat: no hand, no legal plays, no
`you`), with the platform's fields joined in but never the join code; in the lobby it is the lobby
without the join code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, RootModel

from gateway.contract import examples
from gateway.contract.common import (
    HEX64,
    Absent,
    Body,
    BotLevelId,
    Card,
    Engine,
    GameId,
    GameTypeId,
    Name,
    Options,
    PlayerId,
    Rendered,
    Seat,
    Team,
    absent,
    given,
    rendered_always,
    seat_player_id,
    timestamp,
    timestamp_given,
)
from gateway.contract.games import LobbyPlayer
from gateway.contract.table import Entropy, LastHand, LastPlay, Player, Scores

_SPECTATORS = "The number of members watching now (across every gateway)."
SPECTATORS_FORBIDDEN = "This game does not allow spectators"


class PublicLobby(Body):
    """A game waiting for players, as a spectator sees it: the lobby without its join code."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.PUBLIC_LOBBY]})
    id: GameId
    game_type: GameTypeId
    status: Literal["lobby"] = Field(default="lobby", description="Always `lobby` while seats are open.")
    options: Options
    players: list[LobbyPlayer] = Field(description="The seated players, in seat order; every `is_you` false.")
    seats_open: int = Field(ge=0, description="Seats still free.")
    created_at: str = timestamp("When the game was created.")
    open: bool = Field(default=False, description="True while the game is listed in GET /api/games/open.")


def _public_view_schema(schema: dict[str, Any]) -> None:
    rendered_always("table", "turn", "hand_number", "dealer", "scores", "last_play")(schema)
    schema["examples"] = [examples.PUBLIC_PLAYING]


class PublicGameView(Rendered):
    """A started game as a spectator sees it (GET /api/games/{id}/watch, and the `game` of a `state` on
    /ws/games/{id}/watch): the game view without `you`, `hand`, `legal`, `your_turn` and `join_code`,
    every `is_you` false, plus `spectators`. Rendered by the game's engine for no seat, once per
    revision: it never holds a card of a hand before it is played."""

    model_config = ConfigDict(json_schema_extra=_public_view_schema)
    status: Engine[Literal["seeding", "playing", "hand_end", "finished"]] = Field(
        description="Where the game is: `seeding` first with player entropy.")
    options: Engine[Options]
    players: list[Player] = Field(description="All four seats, in seat order; every `is_you` false.")
    table: Engine[list[Card] | Absent] = given("The cards on the table.")
    turn: Engine[Seat | None] = given("The seat to play; null outside play.")
    hand_number: Engine[int | Absent] = given("The hand being played (or just scored), from 1.",
                                              json_schema_extra={"minimum": 1})
    dealer: Engine[Seat | None] = given("The seat that dealt the current hand; null before hand 1 is dealt.")
    scores: Engine[Scores | Absent] = given("The match totals.")
    last_play: Engine[LastPlay | None] = given("Null before the first play of a hand.")
    turn_deadline: Engine[str | Absent] = timestamp_given(
        "While a hand is played: when the seat on turn gets a random legal play.")
    last_hand: Engine[LastHand | Absent] = given("In `hand_end` and `finished`.")
    acknowledged: Engine[list[Seat] | Absent] = given("In `hand_end`: the seats that acknowledged, sorted.")
    hand_end_deadline: Engine[str | Absent] = timestamp_given("In `hand_end`: when the next hand is dealt anyway.")
    entropy: Engine[Entropy | Absent] = given("In `seeding`: the phase, who committed and revealed, its deadline.")
    winner: Engine[Team | Absent] = given("In `finished`: the winning team.")
    seed: Engine[str | Absent] = given("In `finished`: the 32-byte seed, lowercase hex.",
                                      json_schema_extra={"pattern": HEX64})
    id: GameId
    game_type: GameTypeId
    seed_commitment: str = Field(pattern=HEX64, description="Lowercase hex SHA-256 of the seed bytes.")
    revision: int = Field(ge=0, description="Grows with every change.")
    spectators: int = Field(ge=0, description=_SPECTATORS)


class WatchedGame(RootModel[PublicLobby | PublicGameView]):
    """GET /api/games/{id}/watch: the public lobby while the game waits, then the public view."""


# -- the live games --------------------------------------------------------------------------


class LivePlayer(Body):
    """A seat of a live game."""

    seat: Seat
    name: Name
    team: Team
    player: PlayerId | Absent = seat_player_id()
    bot: BotLevelId | Absent = absent("Present while a bot plays this seat: its level.")


class LiveGame(Body):
    """A started, unfinished game that allows spectators."""

    id: GameId
    game_type: GameTypeId
    status: Literal["seeding", "playing", "hand_end"] = Field(description="The game's status.")
    players: list[LivePlayer] = Field(description="The four seats, in seat order.")
    rating: int = Field(description="The mean rating of the seated people for the game type (1500 for a new "
                                    "player); bots do not count.", examples=[1512])
    spectators: int = Field(ge=0, description=_SPECTATORS)
    hand_number: int | None = Field(description="The hand being played (or just scored), from 1; null before "
                                                "hand 1 is dealt.")
    scores: Scores = Field(description="The match totals.")
    updated_at: str = timestamp("When the game last changed.")


class LiveGames(Body):
    """GET /api/games/live: live games anyone may watch, highest `rating` first."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.LIVE_GAMES]})
    games: list[LiveGame] = Field(description="The games.")


# -- the watch socket ------------------------------------------------------------------------


class WsWatchLobby(Body):
    """On /ws/games/{id}/watch while the game waits for players: the public lobby, on connect and
    whenever a seat fills."""

    type: Literal["lobby"] = "lobby"
    game: PublicLobby


class WsWatchState(Body):
    """On /ws/games/{id}/watch: the public view, on connect and after every accepted change."""

    type: Literal["state"] = "state"
    game: PublicGameView


class WsSpectators(Body):
    """The number of members watching changed. Only to sockets that asked for it
    (`?features=spectators`), on the players' and the spectators' sockets."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"type": "spectators", "count": 3}]})
    type: Literal["spectators"] = "spectators"
    count: int = Field(ge=0, description=_SPECTATORS)


class WsWatchMessage(RootModel[Annotated[WsWatchLobby | WsWatchState | WsSpectators,
                                         Field(discriminator="type")]]):
    """What /ws/games/{id}/watch sends besides the players' socket's `game_over`, `presence`, `said` and
    `error`."""

