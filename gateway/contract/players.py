"""Players and their relations (CONTRACT.md, Players, following, invitations, blocking): a player's
page, the caller's settings, the players they follow and block, and the invitations to a game."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from gateway.contract import examples
from gateway.contract.common import Absent, Body, GameId, Name, PlayerId, Request, absent, player_id, timestamp
from gateway.contract.games import MyGame
from gateway.contract.records import Match, Rating

MAX_FOLLOWING = 500  # CONTRACT: at most 500 players followed
MAX_BLOCKED = 1000  # the lobby's MAX_BLOCKED: more is 409 Blocking too many players
RECENT_MATCHES = 10  # a player page's `recent`

FRIEND = examples.PLAYER  # the examples' player: alice
_LOBBY_ITEM: dict[str, Any] = examples.MY_GAMES["games"][1]  # carol's game in the lobby
INVITER: dict[str, Any] = {"player": _LOBBY_ITEM["players"][0]["player"], "name": "carol"}
INVITATION_GAME: dict[str, Any] = {
    **_LOBBY_ITEM, "players": [{**player, "is_you": False} for player in _LOBBY_ITEM["players"]]}
INVITATION: dict[str, Any] = {"game": INVITATION_GAME, "by": INVITER, "at": examples.TIMESTAMP}
PLAYER_PAGE: dict[str, Any] = {
    "player": FRIEND, "name": "alice",
    "ratings": [{"game_type": "scopone_scientifico", "rating": 1516, "matches": 1}],
    "matches": 2, "wins": 1, "recent": [examples.MATCH], "online": True, "playing": [examples.GAME_ID],
    "following": True, "blocked": False,
}


class PlayerPage(Body):
    """A player as the caller sees them. A player who hides whether they are online, or who blocked
    the caller, has no `online` and an empty `playing`."""

    model_config = ConfigDict(json_schema_extra={"examples": [PLAYER_PAGE]})
    player: PlayerId = player_id()
    name: Name
    ratings: list[Rating] = Field(description="One per game type played (as GET /api/me/ratings).")
    matches: int = Field(ge=0, description="Every finished match the player played, practice matches included.")
    wins: int = Field(ge=0, description="Of those, the matches their team won.")
    recent: list[Match] = Field(description=f"Their last {RECENT_MATCHES} finished matches, newest first "
                                            "(as GET /api/me/matches shows them).")
    online: bool | Absent = absent("Whether a socket of theirs is open now; absent when the player hides it.")
    playing: list[GameId] = Field(description="The games they play now that allow spectators (GET "
                                              "/api/games/{id}/watch), most recently started first.")
    following: bool = Field(description="True when the caller follows the player.")
    blocked: bool = Field(description="True when the caller blocked the player.")


class Settings(Body):
    """The caller's settings."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"show_online": True}]})
    show_online: bool = Field(description="Whether others see when the caller is online (default true).")


class SettingsRequest(Request):
    """The settings to change; a field left out keeps its value."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"show_online": False}]})
    show_online: bool | Absent = absent("Whether others see when the caller is online.")


class FollowRequest(Request):
    """The player to follow."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"player": FRIEND}]})
    player: PlayerId


class BlockRequest(Request):
    """The player to block."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"player": FRIEND}]})
    player: PlayerId


class InviteRequest(Request):
    """The player to invite."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"player": FRIEND}]})
    player: PlayerId


class FollowedPlayer(Body):
    """A player the caller follows."""

    player: PlayerId
    name: Name
    online: bool = Field(description="Whether a socket of theirs is open now; false when they hide it.")
    playing: GameId | None = Field(description="The game they play now that allows spectators (the most "
                                               "recently started); null when none, or hidden.")


class FollowedPlayers(Body):
    """The players the caller follows, most recently followed first."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"players": [
        {"player": FRIEND, "name": "alice", "online": True, "playing": examples.GAME_ID}]}]})
    players: list[FollowedPlayer] = Field(description=f"At most {MAX_FOLLOWING}.")


class PlayerName(Body):
    """A player by id and name."""

    player: PlayerId
    name: Name


class BlockedPlayers(Body):
    """The players the caller blocked, most recently blocked first."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"players": [{"player": FRIEND, "name": "alice"}]}]})
    players: list[PlayerName] = Field(description=f"At most {MAX_BLOCKED}.")


class Invitation(Body):
    """An invitation to a game in the lobby: join it with POST /api/games/join and its `join_code`."""

    model_config = ConfigDict(json_schema_extra={"examples": [INVITATION]})
    game: MyGame = Field(description="The game, as GET /api/me/games shows one (the caller is not seated).")
    by: PlayerName = Field(description="Who invited (the latest, when several players of the game did).")
    at: str = timestamp("When.")


class Invitations(Body):
    """The caller's invitations that still hold: the game has not started and has a seat open, and the
    invitation is younger than 24 hours. Newest first, at most 50."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"invitations": [INVITATION]}]})
    invitations: list[Invitation] = Field(description="The invitations.")
