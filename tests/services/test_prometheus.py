"""Prometheus: every process serves /metrics, and after a played match the figures are the match's.

The whole stack runs as real processes on real Redis and Postgres, OTLP export off: the
metrics are only scraped (METRICS_PORT, one port per process, the gateway's too). Four players
play a short scopone match over their sockets; the move log is the truth the counters are
checked against. One process of this test's own measures its event loop, its collections and
a Postgres pool, scraped over HTTP too.
"""

from __future__ import annotations

import asyncio
import gc
import re
from collections import Counter

import httpx
import pytest

from services.config import TelemetrySettings
from services.observability import telemetry as otel
from services.stores import postgres_pool
from testing.players import Player, play_until_over, seat_four
from testing.processes import free_port
from testing.prometheus import Scrape, scrape
from testing.stack import SERVICES, real_stack
from testing.waiting import eventually

ACT = {"rpc_method": "tavolo.game.v1.GameService/Act"}
OK = "OK"
# The statuses a server counts as its own failures (error_type); a client counts any but OK.
SERVER_ERRORS = {"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
                 "DATA_LOSS"}
RPC_BUCKETS = ["0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.075", "0.1", "0.25", "0.5",
               "0.75", "1.0", "2.5", "5.0", "7.5", "10.0", "+Inf"]
SCOPE = {"otel_scope_name", "otel_scope_version", "otel_scope_schema_url"}


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
        assert game.value("rpc_server_call_duration_seconds_count", **ACT,
                          rpc_response_status_code=OK) == by_players
        refused = (game.value("rpc_server_call_duration_seconds_count", **ACT)
                   - by_players)
        assert (game.value("tavolo_moves_refused_total")
                if game.has("tavolo_moves_refused_total") else 0) == refused
        # Seconds: a move takes milliseconds, more than nothing and well under a second.
        mean = (game.value("rpc_server_call_duration_seconds_sum", **ACT)
                / game.value("rpc_server_call_duration_seconds_count", **ACT))
        assert 0 < mean < 0.5
        assert game.value("tavolo_matches_started_total") == 1
        assert game.value("tavolo_matches_finished_total") == 1
        # Every Act waited for its table's lock (refusals are decided under it too).
        assert game.value("tavolo_table_lock_wait_seconds_count") == \
            game.value("rpc_server_call_duration_seconds_count", **ACT)
        # The move log in Postgres: every statement measured (an append is a WITH whose first
        # command is the UPDATE of the table's header), the game's pool reported.
        statements = [s for s in game.samples
                      if s.name == "db_client_operation_duration_seconds_count"]
        assert all(s.labels["db_system_name"] == "postgresql"
                   and re.fullmatch(r"[A-Z]+", s.labels["db_operation_name"]) for s in statements)
        assert game.value("db_client_operation_duration_seconds_count",
                          db_operation_name="UPDATE") >= 1
        assert game.has("db_client_connection_count", db_client_connection_pool_name="game_log",
                        db_client_connection_state="idle")
        assert game.has("db_client_connection_count", db_client_connection_pool_name="game_log",
                        db_client_connection_state="used")

        gateway = await scrape(stack, "gateway")
        assert gateway.value("rpc_client_call_duration_seconds_count", **ACT,
                             rpc_response_status_code=OK) == by_players
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
        # Polled with the sessions: no full window of requests yet, so 0 addresses.
        assert (await scrape(stack, "gateway")).value("tavolo_gateway_client_addresses") == 0

        lobby_metrics = await scrape(stack, "lobby")
        assert lobby_metrics.value("rpc_server_call_duration_seconds_count",
                                   rpc_method="tavolo.lobby.v1.LobbyService/JoinGame",
                                   rpc_response_status_code=OK) == 3

        async def handed_over() -> bool:
            """The game service handed the table's deadlines to the deadline service (the
            backstop), as a client: when the table was new, and in a batch once it finished."""
            game_now, deadlines = await scrape(stack, "game"), await scrape(stack, "deadlines")
            method = {"rpc_method": "tavolo.deadlines.v1.DeadlineService/SetTableDeadlines",
                      "rpc_response_status_code": OK}
            if not deadlines.has("rpc_server_call_duration_seconds_count", **method):
                return False
            sent = game_now.value("rpc_client_call_duration_seconds_count", **method)
            served = deadlines.value("rpc_server_call_duration_seconds_count", **method)
            return sent >= 2 and sent == served and deadlines.has("tavolo_deadline_queue_depth")

        await eventually(handed_over, what="the deadlines were not handed over as counted")

        async def recorded() -> bool:
            game_now, stats = await scrape(stack, "game"), await scrape(stack, "stats")
            return (game_now.has("tavolo_matches_recorded_total")
                    and game_now.value("tavolo_matches_recorded_total") == 1
                    and stats.value("rpc_server_call_duration_seconds_count",
                                    rpc_method="tavolo.stats.v1.StatsService/RecordMatch",
                                    rpc_response_status_code=OK) == 1)

        await eventually(recorded, what="the match was never recorded")

        async def closed() -> bool:
            return (await scrape(stack, "gateway")).value("tavolo_websockets_open") == 0

        await eventually(closed, what="the sockets stayed counted as open")
    finally:
        for player in players:
            await player.close()


async def test_every_call_is_measured_in_seconds_with_the_conventions_attributes(stack):
    """After the match: the durations of every process's calls, on both sides, carry the RPC
    semantic conventions' attributes and the same buckets, in seconds."""
    # Who served and who called during the match (the bots service had no table to play).
    served = {"lobby", "game", "deadlines", "stats"}
    called = {"gateway", "lobby", "game", "stats"}
    for component in (*SERVICES, "gateway"):
        metrics = await scrape(stack, component)
        for side, expected in (("server", served), ("client", called)):
            name = f"rpc_{side}_call_duration_seconds"
            counts = [s for s in metrics.samples if s.name == f"{name}_count"]
            assert bool(counts) == (component in expected), (component, side)
            for sample in counts:
                # error_type is a label only once some call of the process failed (the exporter
                # gives every series of a metric the labels any of its series has).
                labels = {"error_type": "", **sample.labels}
                assert set(labels) == {"rpc_system_name", "rpc_method", "rpc_response_status_code",
                                       "error_type", *SCOPE}, labels
                assert labels["rpc_system_name"] == "grpc"
                assert re.fullmatch(r"tavolo\.[a-z]+\.v1\.[A-Za-z]+Service/[A-Za-z]+",
                                    labels["rpc_method"]), labels
                status = labels["rpc_response_status_code"]
                failed = status in SERVER_ERRORS if side == "server" else status != OK
                assert labels["error_type"] == (status if failed else ""), labels
                buckets = [s.labels["le"] for s in metrics.samples
                           if s.name == f"{name}_bucket"
                           and s.labels["rpc_method"] == labels["rpc_method"]
                           and s.labels["rpc_response_status_code"] == status]
                assert buckets == RPC_BUCKETS, (component, labels)
        assert not any(s.name.startswith(("rpc_server_duration", "rpc_client_duration"))
                       for s in metrics.samples), component


async def test_every_process_reports_its_cpu_memory_loop_and_collections(stack):
    for component in (*SERVICES, "gateway"):
        metrics = await scrape(stack, component)
        assert metrics.value("process_memory_usage_bytes") > 10_000_000, component
        assert metrics.has("process_cpu_time_seconds_total"), component
        assert metrics.value("target_info", service_name=f"tavolo-{component}") == 1
        # The loop was sampled every half second since the process started.
        assert metrics.value("tavolo_event_loop_lag_seconds_count") >= 1, component
        assert 0 <= metrics.value("tavolo_event_loop_lag_seconds_sum") \
            < metrics.value("tavolo_event_loop_lag_seconds_count")  # well under 1 s each

    async def collected() -> bool:  # the match made the gateway and the game collect
        found = [await scrape(stack, name) for name in ("gateway", "game")]
        return all(m.has("tavolo_gc_pause_duration_seconds_count") for m in found)

    await eventually(collected, what="no collection of the match was measured")


async def test_the_gateway_serves_its_metrics_on_its_metrics_port_only(stack):
    metrics = await scrape(stack, "gateway")  # METRICS_PORT
    assert metrics.has("http_server_request_duration_seconds_count")
    async with httpx.AsyncClient(base_url=stack.gateway_url) as client:
        public = await client.get("/metrics")
        page = await client.get("/metrics", headers={"Accept": "text/html"})
        document = (await client.get("/api/openapi.json")).json()
    # The public port knows no /metrics: the contract's 404, or the app's page for a browser.
    assert public.status_code == 404 and public.json() == {"detail": "Not Found"}
    assert page.headers["content-type"].startswith("text/html")
    assert "# TYPE" not in page.text
    assert "/metrics" not in document["paths"]


async def test_a_process_measures_its_loop_its_collections_and_its_postgres_pool(postgres_dsn):
    """One process of this test's own (telemetry set up as ``tavolo serve`` does), scraped over
    HTTP: the loop's lag, a full collection, the pool's connections and its statements."""
    callbacks = list(gc.callbacks)
    telemetry = otel.setup(TelemetrySettings(metrics_port=free_port()), "lobby")
    assert telemetry is not None
    port = telemetry.serve_metrics("127.0.0.1", telemetry.settings.metrics_port)
    pool = None

    async def scraped() -> Scrape:
        async with httpx.AsyncClient(timeout=10) as client:
            response = await client.get(f"http://127.0.0.1:{port}/metrics")
        assert response.status_code == 200
        return Scrape(response.text)

    def connections(metrics: Scrape, state: str) -> float:
        return metrics.value("db_client_connection_count", db_client_connection_state=state,
                             db_client_connection_pool_name="lobby")

    try:
        async with telemetry.runtime.sampling():
            pool = await postgres_pool(postgres_dsn, min_size=2, max_size=2, name="lobby")
            metrics = await scraped()
            assert (connections(metrics, "used"), connections(metrics, "idle")) == (0, 2)
            async with pool.acquire() as held:
                assert await held.fetchval("SELECT 1") == 1
                metrics = await scraped()
                assert (connections(metrics, "used"), connections(metrics, "idle")) == (1, 1)
            with pytest.raises(Exception, match="division by zero"):
                await pool.fetchval("SELECT 1 / 0")
            async with pool.acquire() as held, held.transaction():
                await held.execute("UPDATE pg_settings SET setting = setting WHERE false")
            gc.collect()

            async def measured() -> bool:
                found = await scraped()
                return (found.has("tavolo_gc_pause_duration_seconds_count",
                                  cpython_gc_generation="2")
                        and found.value("tavolo_event_loop_lag_seconds_count") >= 2)

            await eventually(measured, what="the loop and the collection were not measured")
            metrics = await scraped()
        assert (connections(metrics, "used"), connections(metrics, "idle")) == (0, 2)
        assert metrics.value("tavolo_gc_pause_duration_seconds_sum", cpython_gc_generation="2") > 0
        statements = {(s.labels["db_operation_name"], s.labels["error_type"]): s.value
                      for s in metrics.samples
                      if s.name == "db_client_operation_duration_seconds_count"}
        # Each statement once; the pool's reset of each released connection is not one of them.
        assert statements == {("SELECT", ""): 1, ("SELECT", "22012"): 1, ("BEGIN", ""): 1,
                              ("UPDATE", ""): 1, ("COMMIT", ""): 1}
        (failed,) = [s for s in metrics.samples if s.name == "db_client_operation_duration_seconds_count"
                     and s.labels["error_type"]]
        assert failed.labels["db_response_status_code"] == "22012"  # division_by_zero
        assert failed.labels["db_system_name"] == "postgresql"
        assert {s.labels["le"] for s in metrics.samples
                if s.name == "db_client_operation_duration_seconds_bucket"} >= {"0.0005", "10.0"}
    finally:
        if pool is not None:
            await pool.close()
        telemetry.shutdown()
    assert gc.callbacks == callbacks  # the collector is no longer heard
