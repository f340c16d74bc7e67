"""PlayersService over gRPC: messages in, :class:`~lobby.players.Players` calls, messages out.

Served by the lobby's process beside LobbyService (lobby.server). Errors are ServiceErrors
raised by the domain; the shared server's interceptor sends them with their ErrorInfo.
"""

from __future__ import annotations

import grpc

from tavolo.lobby.v1 import players_pb2_grpc


class PlayersServicer(players_pb2_grpc.PlayersServiceServicer):
    """Every call answers UNIMPLEMENTED until the use cases land (the generated base class)."""


def register(server: grpc.aio.Server) -> None:
    # The base class answers UNIMPLEMENTED for every call (its stubs are abstract to mypy).
    players_pb2_grpc.add_PlayersServiceServicer_to_server(PlayersServicer(), server)  # type: ignore[abstract]
