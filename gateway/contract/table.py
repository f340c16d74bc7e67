"""A started game as one seat sees it: the game view, rendered by the game's engine, with the
platform's fields joined in (gateway.views.game_view)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from gateway.contract import examples
from gateway.contract.common import (
    HEX64,
    SEAT_PLAYER_TEXT,
    Absent,
    Body,
    BotLevelId,
    Card,
    Engine,
    GameId,
    GameTypeId,
    JoinCode,
    Name,
    Options,
    PlayerId,
    Rendered,
    Seat,
    Team,
    absent,
    given,
    rendered_always,
    timestamp,
    timestamp_given,
)

# The engine's fields are not validated: their constraints are the documentation's only.
_COUNT = {"minimum": 0}


class Scores(Body):
    """Match points per team."""

    A: int = Field(description="Team A.")
    B: int = Field(description="Team B.")


class LegalPlay(Body):
    """A card of your hand and every capture it may make."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"card": "07D", "captures": [["03S", "04B"], ["07C"]]}]})
    card: Card
    captures: list[list[Card]] = Field(
        description="The captures, sorted as lists, each sorted as strings (empty: the card is laid down taking "
                    "nothing); playing `card` with any one of them is legal, and nothing else is.")


class LastPlay(Body):
    """The latest play of the hand."""

    seat: Seat
    card: Card
    capture: list[Card] = Field(description="The table cards taken; empty when none.")
    scopa: bool = Field(description="The play swept the table for a scopa.")
    auto: bool = Field(description="Played by the server because the seat's turn_deadline passed.")


class TeamHand(Body):
    """One team's figures of a hand."""

    cards: int = Field(description="Cards captured.")
    denari: int = Field(description="Denari captured.")
    settebello: bool = Field(description="Captured the 07D.")
    primiera: int = Field(description="The primiera sum (0 when a suit is missing).")
    scope: int = Field(description="Scope made.")
    napola: int = Field(description="Napola points (0 without the option).")
    points: int = Field(description="The hand's total for the team.")


class TeamHands(Body):
    """Per team."""

    A: TeamHand
    B: TeamHand


class Award(Body):
    """The team that won each category, null when nobody did: scopone's views name all five; a game type
    (or an option) may add its own categories."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Team | None] = Field(init=False)
    carte: Team | Absent | None = absent("Most cards.")
    denara: Team | Absent | None = absent("Most denari.")
    settebello: Team | Absent | None = absent("The 07D.")
    primiera: Team | Absent | None = absent("The higher primiera.")
    napola: Team | Absent | None = absent("A napola (null without the option).")


class LastHand(Body):
    """The scoring of the latest finished hand."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.LAST_HAND]})
    hand: int = Field(ge=1, description="The hand's number, from 1.")
    teams: TeamHands
    award: Award
    scores: Scores = Field(description="The match totals after this hand.")


class Player(Rendered):
    """One seat of a started game; the others' cards show only as counts."""

    model_config = ConfigDict(json_schema_extra=rendered_always("card_count", "captured_count", "scope"))
    seat: Seat
    team: Engine[Team]
    card_count: Engine[int | Absent] = given("Cards in the seat's hand.", json_schema_extra=_COUNT)
    captured_count: Engine[int | Absent] = given("Cards the seat captured this hand.", json_schema_extra=_COUNT)
    scope: Engine[int | Absent] = given("Scope the seat made this hand.", json_schema_extra=_COUNT)
    is_you: Engine[bool] = Field(description="True for the caller's seat.")
    name: Name
    player: PlayerId | Absent = given(SEAT_PLAYER_TEXT)
    bot: BotLevelId | Absent = given("Present while a bot plays this seat: its level.")
    took_over: Literal[True] | Absent = given(
        "Present (true) when that bot replaced the person named here, who left or abandoned the seat and may "
        "take it back.")
    connected: bool = Field(description="True when a bot plays the seat or its player has a socket open at this "
                                        "table.")


class Entropy(Body):
    """Player entropy's seeding phase (the option `player_entropy`): who committed and revealed so far."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"phase": "reveal", "committed": [0, 1, 2, 3], "revealed": [1], "deadline": "2026-12-02T10:00:20.000Z"}]})
    phase: Literal["commit", "reveal"] = Field(description="`commit` (send `commit`), then `reveal` (send `reveal`).")
    committed: list[Seat] = Field(description="The seats that committed, sorted.")
    revealed: list[Seat] = Field(description="The seats that revealed, sorted.")
    deadline: str = timestamp("When the phase goes on without the missing seats.")


def _game_view_schema(schema: dict[str, Any]) -> None:
    rendered_always("hand", "table", "turn", "hand_number", "dealer", "scores", "last_play")(schema)
    schema["examples"] = [examples.PLAYING]


class GameView(Rendered):
    """A started game as one seat sees it (the body of GET /api/games/{id} and the `game` of a WebSocket
    `state` message). Fields tied to a phase are present only in it: `turn_deadline`, and `your_turn` with
    `legal` on your move, while a hand is played; `last_hand`, `acknowledged` and `hand_end_deadline` in
    `hand_end`; `last_hand`, `winner` and `seed` once `finished`. This is scopone scientifico's view; other
    game types share the platform's fields (id, game_type, join_code, status, options, players with their
    seat, name and connected, you, seed_commitment, revision) and render the rest their own way."""

    model_config = ConfigDict(json_schema_extra=_game_view_schema)
    # The engine's, in the order it renders them (so the JSON keeps its order).
    status: Engine[Literal["seeding", "playing", "hand_end", "finished"]] = Field(
        description="Where the game is: `seeding` first with player entropy.")
    options: Engine[Options]
    players: list[Player] = Field(description="All four seats, in seat order.")
    you: Engine[Seat]
    hand: Engine[list[Card] | Absent] = given("Your own cards only, sorted as strings.")
    table: Engine[list[Card] | Absent] = given("The cards on the table.")
    turn: Engine[Seat | None] = given("The seat to play; null outside play.")
    hand_number: Engine[int | Absent] = given("The hand being played (or just scored), from 1.",
                                                    json_schema_extra={"minimum": 1})
    dealer: Engine[Seat | None] = given(
        "The seat that dealt the current hand; null before hand 1 is dealt (`seeding`). The first dealer is "
        "drawn from the seed (Fairness), the seat after the dealer leads, and the deal passes to the next seat "
        "each hand. A game whose options lack `first_dealer` is older: seat 0 led its hand 1 (seat 3 dealt).")
    scores: Engine[Scores | Absent] = given("The match totals.")
    last_play: Engine[LastPlay | None] = given("Null before the first play of a hand.")
    turn_deadline: Engine[str | Absent] = timestamp_given(
        "While a hand is played: when the seat on turn gets a random legal play.")
    your_turn: Engine[Literal[True] | Absent] = given("Present, and true, only when it is your move.")
    legal: Engine[list[LegalPlay] | Absent] = given(
        "Present (only) with `your_turn`: every card of your hand, sorted, with the captures it may make, so a "
        "client never re-implements the rules.")
    last_hand: Engine[LastHand | Absent] = given("In `hand_end` and `finished`.")
    acknowledged: Engine[list[Seat] | Absent] = given("In `hand_end`: the seats that acknowledged, sorted.")
    hand_end_deadline: Engine[str | Absent] = timestamp_given("In `hand_end`: when the next hand is dealt anyway.")
    entropy: Engine[Entropy | Absent] = given("In `seeding`: the phase, who committed and revealed, its deadline.")
    winner: Engine[Team | Absent] = given("In `finished`: the winning team.")
    seed: Engine[str | Absent] = given("In `finished`: the 32-byte seed, lowercase hex.",
                                      json_schema_extra={"pattern": HEX64})
    # The platform's.
    id: GameId
    game_type: GameTypeId
    seed_commitment: str = Field(pattern=HEX64, description="Lowercase hex SHA-256 of the seed bytes.")
    revision: int = Field(ge=0, description="Grows with every change; send it back to guard a move.")
    join_code: JoinCode
    spectators: int = given("The number of members watching now (GET /api/games/{id}/watch), across every "
                            "gateway: in every game view the gateway serves.", json_schema_extra={"minimum": 0})
