"""The services behind the gateway: their owner clients, and the typed way to reach them from a
request or a socket."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection

from bots.analysis_client import AnalysisClient
from game.client import GameClient
from game.live_link import LiveLink
from lobby.client import LobbyClient, new_request_id
from lobby.players_client import PlayersClient
from stats.client import StatsClient
from talk.client import TalkClient


@dataclass
class Backends:
    """The services the gateway translates to (tests pass fakes with the same methods).
    ``live`` carries the players' moves and the tables' watches to each table's owner;
    ``game`` every other call of the game service; ``talk`` table talk and ``players`` player
    pages and relations (both served at the lobby's address), ``analysis`` the analyses of
    finished matches (at the bots' address); None: none, their calls answer 503."""

    lobby: LobbyClient
    game: GameClient
    stats: StatsClient
    live: LiveLink
    talk: TalkClient | None = None
    players: PlayersClient | None = None
    analysis: AnalysisClient | None = None


def backends_of(connection: HTTPConnection) -> Backends:
    """The app's backends, typed (Starlette's ``app.state`` is not)."""
    backends: Backends = connection.app.state.backends
    return backends


def request_id_of(connection: HTTPConnection) -> str:
    """This HTTP request's id for the lobby calls that change something (their request_id):
    one per request, which the channel's retries of the call carry, so the lobby acts once."""
    request_id: str | None = getattr(connection.state, "request_id", None)
    if request_id is None:
        request_id = connection.state.request_id = new_request_id()
    return request_id
