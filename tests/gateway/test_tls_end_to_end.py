"""The whole stack with mutual TLS between its processes, as the chart runs it with
grpcAuth.tls: each component's certificate holds its own name but not the address its callers
dial (the chart's callers dial a headless Service, whose name no certificate holds), and every
caller checks each service's certificate against the name set for that service
(<SERVICE>_TLS_SERVER_NAME). A match against bots makes every call between the parts but the
deadline service's backstop fires: gateway to lobby, game (the owner's Relay, by the replica's
address) and stats; lobby to game and bots; bots to game; game to deadlines and stats; stats to
lobby."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from lobby.client import LobbyClient
from services.rpc.errors import Reason, ServiceError
from testing.players import Player, play_against_bots
from testing.stack import Stack, real_stack
from testing.waiting import eventually

MISSING_GAME = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with real_stack(label="tls", tls=True) as running:
        yield running


async def test_a_match_against_bots_is_played_and_recorded_over_mutual_tls(stack: Stack) -> None:
    alice = await Player(stack, "alice").login()
    try:
        game, over = await play_against_bots(alice)
        assert over["winner"] in ("A", "B")

        async def recorded():
            return (await alice.http.get("/api/me/matches")).json()["items"]

        (item,) = await eventually(recorded, what="the match never reached alice's history")
        assert (item["id"], item["result"]["winner"]) == (game["id"], over["winner"])
    finally:
        await alice.close()


async def test_a_service_is_reached_by_its_name_not_by_the_address_dialled(stack: Stack) -> None:
    """The certificates do not hold 127.0.0.1: a caller that checks the lobby against the
    address it dials is refused in the handshake; checked against the lobby's name, it is let in."""
    address = stack.address("lobby")
    for credentials, reason in ((stack.credentials, Reason.UNAVAILABLE),
                                (stack.credentials.for_service("lobby"), Reason.GAME_NOT_FOUND)):
        async with LobbyClient(address, credentials=credentials) as client:
            with pytest.raises(ServiceError) as refused:
                await client.get_game(MISSING_GAME)
        assert refused.value.reason is reason


def test_the_services_serve_tls_and_their_health_in_the_clear(stack: Stack) -> None:
    for name, port in stack.health_ports.items():
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING, name
        with grpc.insecure_channel(stack.address(name)) as channel, \
                pytest.raises(grpc.RpcError) as plaintext:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert plaintext.value.code() is grpc.StatusCode.UNAVAILABLE, name
    assert set(stack.health_ports) == {"lobby", "game", "deadlines", "stats", "bots"}
