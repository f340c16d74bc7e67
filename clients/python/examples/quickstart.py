"""List tavolo's game types and read a leaderboard with the tavolo-api package.

Usage: python quickstart.py [LOBBY_ADDRESS [STATS_ADDRESS]] (`make run`: 127.0.0.1:50051, :50054);
TAVOLO_GRPC_TOKEN, when set, is sent as the metadata "authorization: Bearer <token>".
"""
import os
import sys

import grpc
from google.rpc import error_details_pb2, status_pb2

from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc

lobby_address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"
stats_address = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1:50054"
token = os.environ.get("TAVOLO_GRPC_TOKEN")
metadata = [("authorization", f"Bearer {token}")] if token else []


def reason(error: grpc.RpcError) -> str:
    """The google.rpc.ErrorInfo reason of a failed call, e.g. "INVALID_ARGUMENT"."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


with grpc.insecure_channel(lobby_address) as to_lobby, grpc.insecure_channel(stats_address) as to_stats:
    lobby, stats = lobby_pb2_grpc.LobbyServiceStub(to_lobby), stats_pb2_grpc.StatsServiceStub(to_stats)
    try:
        listed = lobby.ListGameTypes(lobby_pb2.ListGameTypesRequest(), metadata=metadata, timeout=10)
        for game_type in listed.game_types:
            print(f"game type {game_type.id}: {game_type.name}, {game_type.players} players")
        request = stats_pb2.GetLeaderboardRequest(game_type="scopone_scientifico", limit=10)
        board = stats.GetLeaderboard(request, metadata=metadata, timeout=10)
    except grpc.RpcError as error:  # e.g. UNAVAILABLE: nothing listens; UNAUTHENTICATED: no token
        sys.exit(f"failed: {error.code().name}, reason {reason(error)}: {error.details()}")
    print(f"leaderboard of {board.game_type}:")
    for entry in board.entries:
        print(f"{entry.rank:3}. {entry.display_name}: {entry.rating} ({entry.wins} won of {entry.matches})")
    try:  # a call that fails on purpose: the limit must be 1..100
        stats.GetLeaderboard(stats_pb2.GetLeaderboardRequest(limit=1000), metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        print(f"limit 1000: {error.code().name}, reason {reason(error)}")
