"""The services behind the gateway: their owner clients, and the typed way to reach them from a
request or a socket."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

from game.client import GameClient
from game.live_link import LiveLink
from lobby.client import LobbyClient
from stats.client import StatsClient


@dataclass
class Backends:
    """The services the gateway translates to (tests pass fakes with the same methods).
    ``live`` carries the players' moves and the tables' watches to each table's owner;
    ``game`` every other call of the game service."""

    lobby: LobbyClient
    game: GameClient
    stats: StatsClient
    live: LiveLink


def backends_of(connection: HTTPConnection) -> Backends:
    """The app's backends, typed (Starlette's ``app.state`` is not)."""
    backends: Backends = connection.app.state.backends
    return backends
