"""tavolo.client's helpers, typed: a channel that sends the token and retries the idempotent
calls, and the details of a failed call.

Usage: python helpers.py STATS_ADDRESS [LOBBY_ADDRESS]
TAVOLO_GRPC_TOKEN, when set, is sent with every call.
"""
from __future__ import annotations

import os
import sys

import grpc

from tavolo.client import ErrorDetails, channel, error_details
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc


def describe(call: str, details: ErrorDetails) -> str:
    text = f"{call}: {details.code.name}, reason {details.reason or '-'}"
    if details.metadata:
        text += ", " + ", ".join(f"{key}={value}" for key, value in sorted(details.metadata.items()))
    if details.field_violations:
        text += ", fields " + ", ".join(sorted(details.field_violations))
    if details.retry_delay is not None:
        text += f", retry in {details.retry_delay.total_seconds():g} s"
    return text


def main(stats_address: str, lobby_address: str | None, token: str | None) -> None:
    with channel(stats_address, token=token) as stats_channel:
        stats = stats_pb2_grpc.StatsServiceStub(stats_channel)
        board: stats_pb2.GetLeaderboardResponse = stats.GetLeaderboard(
            stats_pb2.GetLeaderboardRequest(game_type="scopone_scientifico", limit=3), timeout=10)
        names: list[str] = [entry.display_name for entry in board.entries]
        print("leaderboard:", ", ".join(names))
        try:  # only the game service records matches
            stats.RecordMatch(stats_pb2.RecordMatchRequest(), timeout=10)
        except grpc.RpcError as error:
            print(describe("RecordMatch", error_details(error)))
    if lobby_address is None:
        return
    with channel(lobby_address, token=token) as lobby_channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(lobby_channel)
        try:
            lobby.CreateGame(lobby_pb2.CreateGameRequest(
                member_id="m-example", display_name="example", game_type="scopone_scientifico"),
                timeout=20)
            print("CreateGame: created")
        except grpc.RpcError as error:
            print(describe("CreateGame", error_details(error)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, os.environ.get("TAVOLO_GRPC_TOKEN"))
