"""The platform's own bodies: errors, health, login providers and the member."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from gateway.contract import examples
from gateway.contract.common import Body, PlayerId, player_id


class Error(Body):
    """Every REST error."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"detail": "Game not found"}]})
    detail: str = Field(description="What went wrong, for people.")


class Health(Body):
    """The gateway is up."""

    status: Literal["ok"] = Field(default="ok", description="Always `ok`.")


class Provider(Body):
    """A login provider."""

    name: str = Field(description="The provider name.", examples=["default"])
    login_url: str = Field(description="Where the login starts.", examples=["/auth/default/login"])


class Providers(Body):
    """The login providers, in configuration order."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"providers": [{"name": "default", "login_url": "/auth/default/login"}]}]})
    providers: list[Provider] = Field(description="One per configured provider.")


class Me(Body):
    """The logged-in member."""

    model_config = ConfigDict(json_schema_extra={
        "examples": [{"sub": "alice", "name": "alice", "provider": "default",
                      "player": examples.PLAYER}]})
    sub: str = Field(description="The OIDC subject: the member's stable id at the provider.")
    name: str = Field(description="The display name shown to other players.")
    provider: str = Field(description="The provider the session logged in with.")
    player: PlayerId = player_id()
