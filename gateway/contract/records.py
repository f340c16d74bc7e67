"""What stays of a game: its move log, the finished matches, ratings and the leaderboard."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from game.status import TableStatus
from gateway.contract import examples
from gateway.contract.common import (
    HEX64,
    PLAYER_ID_TEXT,
    Absent,
    Body,
    Engine,
    GameId,
    GameTypeId,
    Name,
    OneOf,
    Options,
    PlayerId,
    Seat,
    Team,
    absent,
    timestamp,
)
from gateway.contract.table import LastHand, Scores

# -- the move log ----------------------------------------------------------------------------


class LoggedMove(Body):
    """One entry of the move log."""

    number: int = Field(ge=1, description="From 1; every entry counts (plays, acks, auto-plays, hand-end "
                                          "continues).")
    type: str = Field(description="The engine's kind of move, e.g. `play`, `auto_play`, `ack`, `continue`.")
    seat: Annotated[str, Field(pattern="^seat:[0-9]+$", description="The opaque seat, `seat:0`..`seat:3`.")] | None = \
        Field(description="The seat that made (or was given) the move; null for a system move.")
    payload: dict[str, Any] = Field(description="The move's data, e.g. `{\"card\": \"07D\", \"capture\": "
                                                "[\"02D\", \"05C\"]}`.")
    auto: bool = Field(description="Made by the server because a deadline passed.")


class MoveLog(Body):
    """Everything a verifier needs to replay a table from its seed. Names seats, never people."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.LOG]})
    id: GameId
    game_type: GameTypeId
    options: Options
    seats: list[Annotated[str, Field(description="An opaque seat.")]] = Field(
        description="The table's seats in order.", examples=[["seat:0", "seat:1", "seat:2", "seat:3"]])
    seed_commitment: Annotated[str, Field(pattern=HEX64, description="Lowercase hex SHA-256 of the seed bytes.")] \
        | None = Field(description="Null while the game is in the lobby (no seed is drawn yet).")
    moves: list[LoggedMove] = Field(description="Every move, in order.")
    revision: int = Field(ge=0, description="The table's revision.")
    status: Annotated[str, OneOf(*TableStatus)] = Field(
        description="`lobby` (no table yet: no moves), then the table's status.")
    seed: Annotated[str, Field(pattern=HEX64)] | Absent = absent("Finished games only: the seed, lowercase hex.")


# -- matches ---------------------------------------------------------------------------------


class MatchPlayer(Body):
    """One seat of a finished match."""

    seat: Seat
    name: Name
    team: Team | None = Field(description="Null when the game has no teams.")
    won: bool = Field(description="The player's team won.")
    points: int = Field(description="The team's final score.")
    elo_delta: int = Field(description="The rating change this match caused (negative for a loss): 0 in an "
                                       "unrated match (`rated` false) but for an abandoner, and always 0 for a "
                                       "bot.")
    player: PlayerId | Absent = absent(
        f"{PLAYER_ID_TEXT} Present on a person's seat (an erased member's: an id that is nobody's, its page "
        "404); absent on a bot's and in matches recorded before there were player ids.")
    bot: str | Absent = absent("Only on a bot's seat: the level of the bot that played it from the start (the "
                               "match is then a practice match). A bot has no rating.", examples=["esperto"])
    abandoned: Literal[True] | Absent = absent(
        "Only on the seat of a player who left the match (a bot took the seat over and they did not take it "
        "back): always true. Their `elo_delta` is what a lost match cost them.")


class MatchResult(Body):
    """The engine's result (for scopone: scores, winner, target_score, hands and the per-hand audit)."""

    model_config = ConfigDict(extra="allow")
    scores: Scores | Absent = absent("The final scores.")
    winner: Team | Absent = absent("The winning team.")
    target_score: int | Absent = absent("The options' target.")
    hands: int | Absent = absent("Hands played.")
    audit: list[LastHand] | Absent = absent("Every hand's scoring.")
    withheld: list[Seat] | Absent = absent(
        "With player entropy: the seats that did not reveal a value (each contributed zeros).")


class Match(Body):
    """A finished match."""

    model_config = ConfigDict(json_schema_extra={"examples": [examples.MATCH]})
    id: GameId
    game_type: GameTypeId
    started_at: str = timestamp("When the game started.")
    finished_at: str = timestamp("When it ended.")
    rated: bool = Field(description="True when the match moved the ratings: the four people who started it all "
                                    "finished it. False for a practice match (a bot sat there from the start: "
                                    "nobody's rating moved) and for an abandoned one (only the abandoners lost "
                                    "what a lost match costs).")
    result: Engine[MatchResult] = Field(description="The engine's result, as the engine made it.")
    players: list[MatchPlayer] = Field(description="Every seat, in seat order.")


class MatchPage(Body):
    """A page of the member's matches, newest first."""

    items: list[Match] = Field(description="At most `limit` matches; fewer (with a `next_cursor`) when they are "
                                           "large: a page stops at about 1 MiB of results.")
    next_cursor: Annotated[str, Field(description="Opaque.")] | None = Field(
        description="Pass as `cursor` for the next page; null on the last.")


# -- standings -------------------------------------------------------------------------------


class Rating(Body):
    """The member's rating in one game type."""

    game_type: GameTypeId
    rating: int = Field(description="Elo; 1500 before any match.", examples=[1516])
    matches: int = Field(ge=0, description="Matches played.")


class Ratings(Body):
    """One entry per game type played."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"ratings": [{"game_type": "scopone_scientifico", "rating": 1516, "matches": 1}]}]})
    ratings: list[Rating] = Field(description="By game type.")


class LeaderboardEntry(Body):
    """One member of the leaderboard."""

    rank: int = Field(ge=1, description="1-based position.")
    name: Name
    player: PlayerId | Absent = absent(
        f"{PLAYER_ID_TEXT} Absent only while the member's matches were all recorded before there were "
        "player ids (it comes with their next match).")
    rating: int = Field(description="Elo.")
    wins: int = Field(description="Matches won.")
    matches: int = Field(description="Matches played.")
    points: int = Field(description="Sum of the final scores of the member's team.")


class Leaderboard(Body):
    """The best-rated members of a game type."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "game_type": "scopone_scientifico",
        "entries": [{"rank": 1, "name": "alice", "player": examples.PLAYER, "rating": 1516, "wins": 1,
                     "matches": 1, "points": 11}]}]})
    game_type: GameTypeId
    entries: list[LeaderboardEntry] = Field(description="By rating, highest first.")
