"""tavolo's components and the gRPC service each one serves, named once.

A component's name is the argument of ``tavolo serve``, its telemetry's service-name suffix and
its name in the callers file; the service names come from the protos' descriptors.
"""

from __future__ import annotations

from enum import StrEnum

from tavolo.bots.v1 import analysis_pb2, bots_pb2
from tavolo.deadlines.v1 import deadlines_pb2
from tavolo.game.v1 import game_pb2
from tavolo.lobby.v1 import lobby_pb2, players_pb2
from tavolo.stats.v1 import stats_pb2
from tavolo.talk.v1 import talk_pb2


class Component(StrEnum):
    GATEWAY = "gateway"
    LOBBY = "lobby"
    GAME = "game"
    DEADLINES = "deadlines"
    STATS = "stats"
    BOTS = "bots"


LOBBY_SERVICE: str = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
GAME_SERVICE: str = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
DEADLINE_SERVICE: str = deadlines_pb2.DESCRIPTOR.services_by_name["DeadlineService"].full_name
STATS_SERVICE: str = stats_pb2.DESCRIPTOR.services_by_name["StatsService"].full_name
BOTS_SERVICE: str = bots_pb2.DESCRIPTOR.services_by_name["BotsService"].full_name
# Served by the bots' process beside BotsService: the analysis of a finished match.
ANALYSIS_SERVICE: str = analysis_pb2.DESCRIPTOR.services_by_name["AnalysisService"].full_name
# Served by the lobby's process (docs/architecture.md): no component of its own.
TALK_SERVICE: str = talk_pb2.DESCRIPTOR.services_by_name["TalkService"].full_name
PLAYERS_SERVICE: str = players_pb2.DESCRIPTOR.services_by_name["PlayersService"].full_name
