"""Read tavolo's leaderboard and the best player's latest matches with the tavolo-api package.

Usage: python quickstart.py [STATS_ADDRESS]   (`make run` serves stats on 127.0.0.1:50054)
TAVOLO_GRPC_TOKEN, when set, is sent as the metadata "authorization: Bearer <token>".
"""
import os
import sys

import grpc
from google.rpc import error_details_pb2, status_pb2

from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc

address = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50054"
token = os.environ.get("TAVOLO_GRPC_TOKEN")
metadata = [("authorization", f"Bearer {token}")] if token else []


def reason(error: grpc.RpcError) -> str:
    """The google.rpc.ErrorInfo reason of a failed call, e.g. "METHOD_NOT_ALLOWED"."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


with grpc.insecure_channel(address) as channel:
    stats = stats_pb2_grpc.StatsServiceStub(channel)
    try:
        request = stats_pb2.GetLeaderboardRequest(game_type="scopone_scientifico", limit=10)
        board = stats.GetLeaderboard(request, metadata=metadata, timeout=10)
        print(f"leaderboard of {board.game_type}:")
        for entry in board.entries:
            print(f"{entry.rank:3}. {entry.display_name}: {entry.rating} ({entry.wins} won of {entry.matches})")
        if board.entries:
            best = board.entries[0]
            request = stats_pb2.ListMatchesRequest(member_id=best.member_id, page_size=5)
            print(f"{best.display_name}'s latest matches:")
            for match in stats.ListMatches(request, metadata=metadata, timeout=10).matches:
                players = ", ".join(f"{p.display_name} {p.elo_delta:+d}" for p in match.players)
                print(f"  {match.finished_at.ToJsonString()} {match.game_type}: {players}")
    except grpc.RpcError as error:  # e.g. UNAVAILABLE: nothing listens; UNAUTHENTICATED: no token
        sys.exit(f"failed: {error.code().name}, reason {reason(error)}: {error.details()}")
    try:  # only the game service may record matches: where callers are checked, others
        # get PERMISSION_DENIED (with `make run`, INVALID_ARGUMENT: the request is empty)
        stats.RecordMatch(stats_pb2.RecordMatchRequest(), metadata=metadata, timeout=10)
    except grpc.RpcError as error:
        print(f"RecordMatch: {error.code().name}, reason {reason(error)}")
