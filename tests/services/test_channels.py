"""services.rpc.channels: how long a caller waits for a service that does not answer.

Between services the transport retries an idempotent call for about 1.5 s; the gateway, whose
callers are people, gives up within a second (PEOPLE_CALLS), also when the service it calls is
up but answers UNAVAILABLE only after retries of its own (a lobby whose game service is dead).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator

import grpc
import pytest

from game.client import GameClient
from lobby.client import LobbyClient
from services.rpc.channels import PEOPLE_CALLS, SERVICE_CALLS, channel_target, service_config
from services.rpc.errors import Reason, ServiceError
from stats.client import StatsClient
from tavolo.game.v1 import game_pb2, game_pb2_grpc
from tavolo.lobby.v1 import lobby_pb2_grpc
from testing.processes import free_address


class _FlakyGame(game_pb2_grpc.GameServiceServicer):
    """Answers UNAVAILABLE to the first ``failures`` calls (after ``delay`` seconds each), then
    answers; counts the calls."""

    def __init__(self, failures: int, delay: float = 0.0):
        self.failures = failures
        self.delay = delay
        self.calls = 0

    async def _answer(self, context, response):
        self.calls += 1
        await asyncio.sleep(self.delay)
        if self.calls <= self.failures:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the table store is down")
        return response

    async def GetView(self, request, context):
        return await self._answer(context, game_pb2.GetViewResponse(view_json="{}"))

    async def Act(self, request, context):
        return await self._answer(context, game_pb2.ActResponse(view_json="{}"))


class _SlowDownLobby(lobby_pb2_grpc.LobbyServiceServicer):
    """A live lobby whose game service is dead: UNAVAILABLE, after its own retries' 0.4 s."""

    def __init__(self):
        self.calls = 0

    async def ListGameTypes(self, request, context):
        self.calls += 1
        await asyncio.sleep(0.4)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses")


@contextlib.asynccontextmanager
async def _serving(register, servicer) -> AsyncIterator[str]:
    server = grpc.aio.server()
    register(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


async def _timed(call) -> tuple[float, ServiceError]:
    started = time.monotonic()
    with pytest.raises(ServiceError) as failed:
        await call
    return time.monotonic() - started, failed.value


@pytest.mark.parametrize(("client_class", "read"), [
    (GameClient, lambda client: client.get_view("t", "seat:0")),
    (LobbyClient, lambda client: client.get_game("t")),
    (StatsClient, lambda client: client.leaderboard("scopone_scientifico")),
], ids=["game", "lobby", "stats"])
async def test_a_read_for_people_is_unavailable_within_a_second_when_nothing_listens(client_class, read):
    client = client_class(free_address(), policy=PEOPLE_CALLS)
    elapsed, error = await _timed(read(client))
    await client.close()
    assert error.reason is Reason.UNAVAILABLE
    assert elapsed < 1.5  # the 1 s read deadline, with room for a slow machine


async def test_between_services_a_read_keeps_retrying_longer():
    """The retries that ride out a peer's restart are still there for the services' own calls."""
    client = GameClient(free_address())
    elapsed, error = await _timed(client.get_view("t", "seat:0"))
    await client.close()
    assert error.reason is Reason.UNAVAILABLE
    assert elapsed >= 1.0


@pytest.mark.parametrize(("policy", "attempts"), [(SERVICE_CALLS, 5), (PEOPLE_CALLS, 4)])
async def test_an_unavailable_read_is_tried_as_often_as_the_policy_says(policy, attempts):
    game = _FlakyGame(failures=99)
    async with _serving(game_pb2_grpc.add_GameServiceServicer_to_server, game) as address:
        client = GameClient(address, policy=policy)
        with pytest.raises(ServiceError):
            await client.get_view("t", "seat:0")
        await client.close()
    assert game.calls == attempts


async def test_a_read_for_people_rides_out_a_brief_unavailability():
    game = _FlakyGame(failures=2)
    async with _serving(game_pb2_grpc.add_GameServiceServicer_to_server, game) as address:
        client = GameClient(address, policy=PEOPLE_CALLS)
        assert await client.get_view("t", "seat:0") == {}
        await client.close()
    assert game.calls == 3


async def test_a_move_is_never_sent_twice():
    game = _FlakyGame(failures=1)
    async with _serving(game_pb2_grpc.add_GameServiceServicer_to_server, game) as address:
        client = GameClient(address, policy=PEOPLE_CALLS)
        with pytest.raises(ServiceError):
            await client.act("t", "seat:0", {"action": "ack"})
        await client.close()
    assert game.calls == 1


async def test_a_read_for_people_gives_up_after_a_second_behind_a_service_that_retries_itself():
    """Without the read deadline the gateway's retries repeat the lobby's: 4 x 0.4 s and more."""
    lobby = _SlowDownLobby()
    async with _serving(lobby_pb2_grpc.add_LobbyServiceServicer_to_server, lobby) as address:
        client = LobbyClient(address, policy=PEOPLE_CALLS)
        elapsed, error = await _timed(client.list_game_types())
        await client.close()
    assert error.reason is Reason.UNAVAILABLE
    assert elapsed < 1.5  # the 1 s read deadline, with room for a slow machine
    assert lobby.calls <= 3


@pytest.mark.parametrize(("address", "target"), [
    ("lobby:50051", "dns:///lobby:50051"),           # a name: every address it resolves to
    ("tavolo-stats.games.svc:50054", "dns:///tavolo-stats.games.svc:50054"),
    ("127.0.0.1:50051", "dns:///127.0.0.1:50051"),
    ("[::1]:50051", "dns:///[::1]:50051"),
    ("localhost:50051", "dns:///localhost:50051"),
    ("dns:///lobby:50051", "dns:///lobby:50051"),     # a target that names its scheme: as it is
    ("dns://10.0.0.10:53/lobby:50051", "dns://10.0.0.10:53/lobby:50051"),
    ("ipv4:10.0.0.1:50051,10.0.0.2:50051", "ipv4:10.0.0.1:50051,10.0.0.2:50051"),
    ("unix:/run/tavolo/lobby.sock", "unix:/run/tavolo/lobby.sock"),
])
def test_an_address_is_dialled_by_the_dns_resolver_unless_it_names_a_scheme(address, target):
    assert channel_target(address) == target


def test_every_channel_spreads_its_calls_round_robin_and_retries_only_idempotent_calls():
    config = json.loads(service_config("tavolo.stats.v1.StatsService", ("GetRatings",), 10))
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]
    (retried,) = [c for c in config["methodConfig"] if "retryPolicy" in c]
    assert retried["name"] == [{"service": "tavolo.stats.v1.StatsService", "method": "GetRatings"}]
    assert retried["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
