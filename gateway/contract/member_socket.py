"""The messages of the member's WebSocket /ws/me (CONTRACT.md, Players, following, invitations,
blocking; docs/websocket.md): what happens to the member away from a table. The server only sends."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from gateway.contract import examples
from gateway.contract.common import Body, PlayerId
from gateway.contract.games import MyGame
from gateway.contract.players import INVITATION_GAME, INVITER, PlayerName


class WsInvited(Body):
    """On /ws/me: a player seated at a game in the lobby invited the member (also listed in GET
    /api/me/invitations)."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"type": "invited", "game": INVITATION_GAME, "by": INVITER}]})
    type: Literal["invited"] = "invited"
    game: MyGame = Field(description="The game, as GET /api/me/games shows one (the member is not seated).")
    by: PlayerName = Field(description="Who invited.")


class WsOnline(Body):
    """On /ws/me: a player the member follows, and who shows it, came online or went offline."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"type": "online", "player": examples.PLAYER, "online": True}]})
    type: Literal["online"] = "online"
    player: PlayerId
    online: bool = Field(description="Whether a socket of theirs is open now.")


class WsYourTurn(Body):
    """On /ws/me: in a turn-based (daily) game, the turn passed to the member, who has no socket open
    at that game."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"type": "your_turn", "game": examples.MY_GAMES["games"][0]}]})
    type: Literal["your_turn"] = "your_turn"
    game: MyGame = Field(description="The game, as GET /api/me/games shows one.")


class WsMemberMessage(RootModel[Annotated[WsInvited | WsOnline | WsYourTurn, Field(discriminator="type")]]):
    """Any message /ws/me sends."""
