"""Prometheus: every process serves /metrics, and after a played match the figures are the match's.

The whole stack runs as real processes on real Redis and Postgres, OTLP export off: the
metrics are only scraped (METRICS_PORT, one port per gRPC service; the gateway's own port).
Four players play a short scopone match over their sockets; the move log is the truth the
counters are checked against.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest

from testing.players import Player, play_until_over, seat_four
from testing.prometheus import scrape
from testing.stack import SERVICES, real_stack
from testing.waiting import eventually

ACT = {"rpc_service": "tavolo.game.v1.GameService", "rpc_method": "Act"}
OK = "0"


@pytest.fixture(scope="module")
def stack():
    with real_stack({"OTEL_METRICS_POLL_INTERVAL_SECONDS": "1"}, label="prom") as running:
        yield running


async def test_every_process_counts_the_match_it_served(stack):
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    try:
        lobby = await seat_four(players, {"target_score": 1, "napola": False})
        sockets = [await p.socket(lobby["id"]) for p in players]
        await asyncio.gather(*(play_until_over(s, False) for s in sockets))

        gateway = await scrape(stack, "gateway")
        assert gateway.value("tavolo_websockets_open") == 4
        for socket in sockets:
            await socket.close()

        moves = (await players[0].http.get(f"/api/games/{lobby['id']}/log")).json()["moves"]
        by_type = Counter(m["type"] for m in moves)
        by_players = sum(1 for m in moves if not m["auto"])
        assert by_type["play"] >= 40 and not any(m["auto"] for m in moves)

        game = await scrape(stack, "game")
        for move_type, count in by_type.items():
            assert game.value("tavolo_moves_total", tavolo_game_type="scopone_scientifico",
                              tavolo_move_type=move_type) == count, move_type
        # Every move of the players' was one Act; the refused ones (a stale acknowledgement)
        # were counted as refusals, with their status.
        assert game.value("rpc_server_duration_milliseconds_count", **ACT,
                          rpc_grpc_status_code=OK) == by_players
        refused = (game.value("rpc_server_duration_milliseconds_count", **ACT)
                   - by_players)
        assert (game.value("tavolo_moves_refused_total")
                if game.has("tavolo_moves_refused_total") else 0) == refused
        assert game.value("rpc_server_duration_milliseconds_sum", **ACT) > 0
        assert game.value("tavolo_matches_started_total") == 1
        assert game.value("tavolo_matches_finished_total") == 1
        # Every Act waited for its table's lock (refusals are decided under it too).
        assert game.value("tavolo_table_lock_wait_seconds_count") == \
            game.value("rpc_server_duration_milliseconds_count", **ACT)

        gateway = await scrape(stack, "gateway")
        assert gateway.value("rpc_client_duration_milliseconds_count", **ACT,
                             rpc_grpc_status_code=OK) == by_players
        assert gateway.value("tavolo_websocket_messages_total",
                             tavolo_websocket_direction="in") >= by_players
        assert gateway.value("tavolo_websocket_messages_total",
                             tavolo_websocket_direction="out") >= len(moves)
        assert gateway.value("http_server_request_duration_seconds_count",
                             http_route="/api/games/join", http_request_method="POST",
                             http_response_status_code="200") == 3

        async def four_users() -> bool:  # polled every second here: a quick match beats it
            return (await scrape(stack, "gateway")).value("tavolo_active_users") == 4

        await eventually(four_users, timeout=10, what="the four sessions were never counted")

        lobby_metrics = await scrape(stack, "lobby")
        assert lobby_metrics.value("rpc_server_duration_milliseconds_count",
                                   rpc_method="JoinGame", rpc_grpc_status_code=OK) == 3

        async def handed_over() -> bool:
            """The game service handed the table's deadlines to the deadline service (the
            backstop), as a client: when the table was new, and in a batch once it finished."""
            game_now, deadlines = await scrape(stack, "game"), await scrape(stack, "deadlines")
            method = {"rpc_service": "tavolo.deadlines.v1.DeadlineService",
                      "rpc_method": "SetTableDeadlines", "rpc_grpc_status_code": OK}
            if not deadlines.has("rpc_server_duration_milliseconds_count", **method):
                return False
            sent = game_now.value("rpc_client_duration_milliseconds_count", **method)
            served = deadlines.value("rpc_server_duration_milliseconds_count", **method)
            return sent >= 2 and sent == served and deadlines.has("tavolo_deadline_queue_depth")

        await eventually(handed_over, what="the deadlines were not handed over as counted")

        async def recorded() -> bool:
            game_now, stats = await scrape(stack, "game"), await scrape(stack, "stats")
            return (game_now.has("tavolo_matches_recorded_total")
                    and game_now.value("tavolo_matches_recorded_total") == 1
                    and stats.value("rpc_server_duration_milliseconds_count",
                                    rpc_method="RecordMatch", rpc_grpc_status_code=OK) == 1)

        await eventually(recorded, what="the match was never recorded")

        async def closed() -> bool:
            return (await scrape(stack, "gateway")).value("tavolo_websockets_open") == 0

        await eventually(closed, what="the sockets stayed counted as open")
    finally:
        for player in players:
            await player.close()


async def test_every_process_reports_its_cpu_and_memory_and_none_scrapes_itself(stack):
    for component in (*SERVICES, "gateway"):
        metrics = await scrape(stack, component)
        assert metrics.value("process_memory_usage_bytes") > 10_000_000, component
        assert metrics.has("process_cpu_time_seconds_total"), component
        assert metrics.value("target_info", service_name=f"tavolo-{component}") == 1
    gateway = await scrape(stack, "gateway")
    # /metrics itself is no HTTP request of the platform's: not measured, not documented.
    assert not gateway.has("http_server_request_duration_seconds_count", http_route="/metrics")
    async with httpx.AsyncClient(base_url=stack.gateway_url) as client:
        document = (await client.get("/api/openapi.json")).json()
    assert "/metrics" not in document["paths"]
