"""A NUL character in any string of a request (issue 41): INVALID_ARGUMENT naming the field,
never UNKNOWN with the database driver's text. Real gRPC over a socket, on each store (Postgres
text cannot hold U+0000)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.rpc.errors import DOMAIN
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc, players_pb2, players_pb2_grpc
from testing.nul_requests import NUL_TEXT, nul_requests


def _refusal(error: grpc.aio.AioRpcError) -> tuple[grpc.StatusCode, str, str, list[str]]:
    """(code, message, ErrorInfo reason, the BadRequest's field paths)."""
    status = rpc_status.from_call(error)
    assert status is not None, error.details()
    info, bad_request = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    for detail in status.details:
        detail.Unpack(info) or detail.Unpack(bad_request)
    assert info.domain == DOMAIN
    return (error.code(), error.details(), info.reason,
            [violation.field for violation in bad_request.field_violations])


async def test_a_nul_in_the_game_type_of_the_open_games_is_invalid_argument(harness):
    async with grpc.aio.insecure_channel(harness.address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as listed:
            await lobby.ListOpenGames(lobby_pb2.ListOpenGamesRequest(game_type=NUL_TEXT))
        with pytest.raises(grpc.aio.AioRpcError) as watched:
            async for _ in lobby.WatchOpenGames(lobby_pb2.WatchOpenGamesRequest(game_type=NUL_TEXT)):
                pass
    for error in (listed.value, watched.value):
        assert _refusal(error) == (grpc.StatusCode.INVALID_ARGUMENT,
                                   "game_type must not contain NUL characters",
                                   "INVALID_ARGUMENT", ["game_type"])


LOBBY = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"]
CASES = [(method, path, request) for method in LOBBY.methods for path, request in nul_requests(method)]


def test_the_lobby_api_has_strings_to_check():
    assert {(method.name, path) for method, path, _ in CASES} >= {
        ("ListOpenGames", "game_type"), ("WatchOpenGames", "game_type"),
        ("CreateGame", "display_name"), ("JoinGame", "ratings"), ("GetSeating", "table_id")}


@pytest.mark.parametrize(("method", "path", "request_"), CASES,
                         ids=[f"{m.name}.{p}" for m, p, _ in CASES])
async def test_every_string_of_every_lobby_request_refuses_a_nul(harness, method, path, request_):
    async with grpc.aio.insecure_channel(harness.address) as channel:
        call = getattr(lobby_pb2_grpc.LobbyServiceStub(channel), method.name)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            if method.server_streaming:
                async for _ in call(request_):
                    pass
            else:
                await call(request_)
    code, message, reason, fields = _refusal(refused.value)
    assert (code, reason, fields) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", [path])
    assert message == f"{path} must not contain NUL characters"


PLAYERS = players_pb2.DESCRIPTOR.services_by_name["PlayersService"]
PLAYERS_CASES = [(method, path, request) for method in PLAYERS.methods
                 for path, request in nul_requests(method)]


def test_the_players_api_has_strings_to_check():
    assert {(method.name, path) for method, path, _ in PLAYERS_CASES} >= {
        ("GetPlayer", "viewer_member_id"), ("GetPlayer", "player"), ("Follow", "player"),
        ("Invite", "game_id"), ("ListInvitations", "member_id")}


@pytest.mark.parametrize(("method", "path", "request_"), PLAYERS_CASES,
                         ids=[f"{m.name}.{p}" for m, p, _ in PLAYERS_CASES])
async def test_every_string_of_every_players_request_refuses_a_nul(harness, method, path,
                                                                   request_):
    async with grpc.aio.insecure_channel(harness.address) as channel:
        call = getattr(players_pb2_grpc.PlayersServiceStub(channel), method.name)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call(request_)
    code, message, reason, fields = _refusal(refused.value)
    assert (code, reason, fields) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", [path])
    assert message == f"{path} must not contain NUL characters"
