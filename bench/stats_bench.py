"""Stats: RecordMatch throughput, then ListMatches / GetLeaderboard latency over 100,000 matches.

Runs the real servicer over Postgres (a database of its own, dropped afterwards) behind a real
socket, with a fake lobby servicer answering GetSeating; client, server and fake lobby share one
process. The 100,000 matches are rated in memory by the same Ledger live recording uses and
bulk-loaded with COPY; the backfill over them is timed too (it must change no delta).
The Postgres server is TAVOLO_TEST_POSTGRES (an admin DSN), as for the tests.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import grpc

from lobby.client import LobbyClient
from services.migrations import migrate
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import ErrorInterceptor
from services.stores import postgres_pool
from stats.client import SeatOutcome, StatsClient
from stats.cursor import CursorCodec
from stats.model import Match, Player
from stats.repository import PostgresStatsRepository
from stats.service import StatsService
from stats.servicer import StatsServicer, register
from stats.standings import Ledger, history_order
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from testing.servers import scratch_database

RECORDS = 2000          # RecordMatch calls timed
CONCURRENCY = 16        # of them in flight at once
LOADED = 100_000        # matches bulk-loaded for the read benchmarks
MEMBERS = 2000          # distinct players among them (about 200 matches each)
SAMPLES = 300           # timed calls per read figure
GAME_TYPE = "scopone_scientifico"
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)  # the loaded history starts here
UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class _Lobby(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(self) -> None:
        self.seatings: dict[str, list[str]] = {}

    async def GetSeating(self, request, context):
        members = self.seatings.get(request.table_id)
        if members is None:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found")
        return lobby_pb2.GetSeatingResponse(seats=[
            lobby_pb2.SeatAssignment(seat=f"seat:{i}", seat_index=i, member_id=m, display_name=m)
            for i, m in enumerate(members)])


def _seats(winner: str) -> list[SeatOutcome]:
    return [SeatOutcome(i, "AB"[i % 2] == winner, 11 if "AB"[i % 2] == winner else 6, "AB"[i % 2])
            for i in range(4)]


def _result(winner: str) -> dict:
    loser = "B" if winner == "A" else "A"
    return {"scores": {winner: 11, loser: 6}, "winner": winner, "target_score": 11, "hands": 3,
            "audit": [{"hand": h, "scores": {winner: 4 * h, loser: 2 * h}} for h in (1, 2, 3)]}


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return f"p50 {p(0.50):.2f} ms  p95 {p(0.95):.2f} ms  p99 {p(0.99):.2f} ms"


async def _bench_record(client: StatsClient, lobby: _Lobby, rng: random.Random) -> None:
    members = [f"live-{i}" for i in range(200)]
    tables = []
    for _ in range(RECORDS):
        table = str(uuid.uuid4())
        lobby.seatings[table] = rng.sample(members, 4)
        tables.append(table)
    queue = iter(enumerate(tables))
    base_ms = int((EPOCH + timedelta(days=30)).timestamp() * 1000)  # after the loaded history

    async def worker() -> None:
        for index, table in queue:
            winner = "AB"[index % 2]
            await client.record_match(table, GAME_TYPE, base_ms + index * 1000,
                                      base_ms + index * 1000 + 500, _result(winner), _seats(winner))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
    elapsed = time.perf_counter() - started
    print(f"   RecordMatch: {RECORDS / elapsed:,.0f} matches/s ({RECORDS} new matches on top of "
          f"the {LOADED:,}, {CONCURRENCY} in flight, 200 players sharing them)")
    started = time.perf_counter()
    await asyncio.gather(*(client.record_match(t, GAME_TYPE, base_ms, base_ms + 1, _result("A"),
                                               _seats("A")) for t in tables[:500]))
    elapsed = time.perf_counter() - started
    print(f"   RecordMatch repeated (idempotent no-op): {500 / elapsed:,.0f} calls/s")


async def _bulk_load(dsn: str, rng: random.Random) -> list[str]:
    """LOADED matches among MEMBERS players, rated in finished order as live recording would."""
    members = [f"member-{i:05d}" for i in range(MEMBERS)]
    history = []
    for index in range(LOADED):
        # Several matches share each second: the keyset's tie-break on the id is exercised.
        finished_ms = int((EPOCH + timedelta(seconds=index // 3)).timestamp() * 1000)
        winner = "AB"[rng.getrandbits(1)]
        seated = tuple(Player(seat, member, member, "AB"[seat % 2], "AB"[seat % 2] == winner,
                              11 if "AB"[seat % 2] == winner else 6)
                       for seat, member in enumerate(rng.sample(members, 4)))
        match_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        history.append(Match(match_id, GAME_TYPE, finished_ms - 1_200_000, finished_ms,
                             _result(winner), seated))
    history.sort(key=history_order)  # rated in finished order, as recording them in turn would
    ledger = Ledger()
    matches, players = [], []
    for match in history:
        deltas = ledger.settle(match)
        finished = UNIX_EPOCH + timedelta(milliseconds=match.finished_ms)
        matches.append((match.id, GAME_TYPE, UNIX_EPOCH + timedelta(milliseconds=match.started_ms),
                        finished, json.dumps(match.result)))
        players += [(match.id, p.member_id, p.display_name, p.seat_index, p.team, p.won, p.points,
                     deltas[p.member_id], "{}", GAME_TYPE, finished) for p in match.players]
    ratings = [(member, game_type, s.rating, s.matches, s.wins, s.points, s.display_name,
                UNIX_EPOCH + timedelta(milliseconds=s.last_finished_ms))
               for (member, game_type), s in ledger.standings.items()]
    connection = await asyncpg.connect(dsn)
    try:
        started = time.perf_counter()
        await connection.copy_records_to_table(
            "match", records=matches,
            columns=("id", "game_type", "started_at", "finished_at", "result"))
        await connection.copy_records_to_table(
            "match_player", records=players,
            columns=("match_id", "member_id", "display_name", "seat", "team", "won", "points",
                     "elo_delta", "details", "game_type", "finished_at"))
        await connection.copy_records_to_table(
            "player_rating", records=ratings,
            columns=("member_id", "game_type", "rating", "matches", "wins", "points",
                     "display_name", "last_finished_at"))
        await connection.execute("ANALYZE")
        print(f"   bulk load (COPY) of {LOADED:,} matches, {len(players):,} players: "
              f"{time.perf_counter() - started:.1f} s")
    finally:
        await connection.close()
    return members


async def _bench_reads(client: StatsClient, members: list[str], rng: random.Random) -> None:
    first, deep, filtered = [], [], []
    for _ in range(SAMPLES):
        member = rng.choice(members)
        started = time.perf_counter()
        page = await client.list_matches(member, limit=20)
        first.append(time.perf_counter() - started)
        for _ in range(4):
            page = await client.list_matches(member, limit=20, cursor=page.next_cursor)
        started = time.perf_counter()
        await client.list_matches(member, limit=20, cursor=page.next_cursor)
        deep.append(time.perf_counter() - started)
        started = time.perf_counter()
        await client.list_matches(member, game_type=GAME_TYPE, limit=100)
        filtered.append(time.perf_counter() - started)
    print(f"   ListMatches first page of 20:   {_percentiles(first)}")
    print(f"   ListMatches 6th page of 20:     {_percentiles(deep)}")
    print(f"   ListMatches 100, by game type:  {_percentiles(filtered)}")
    for limit in (10, 100):
        samples = []
        for _ in range(SAMPLES):
            started = time.perf_counter()
            board = await client.leaderboard(GAME_TYPE, limit)
            samples.append(time.perf_counter() - started)
        assert len(board.entries) == limit
        print(f"   GetLeaderboard top {limit:<3}:          {_percentiles(samples)}")


async def _run() -> None:
    rng = random.Random(7)
    async with scratch_database("bench") as dsn:
        await migrate(dsn, components=("stats",))
        repository = PostgresStatsRepository(await postgres_pool(dsn, max_size=10, name="stats"))
        lobby = _Lobby()
        lobby_server = grpc.aio.server(interceptors=[ErrorInterceptor()])
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(lobby, lobby_server)
        lobby_port = lobby_server.add_insecure_port("127.0.0.1:0")
        await lobby_server.start()
        seating = LobbyClient(f"127.0.0.1:{lobby_port}", timeout_seconds=5.0)
        service = StatsService(repository, seating, CursorCodec(b"bench-only-page-token-key-0000"))
        stats_server = grpc.aio.server(interceptors=[ErrorInterceptor()])
        register(StatsServicer(service))(stats_server)
        stats_port = stats_server.add_insecure_port("127.0.0.1:0")
        await stats_server.start()
        client = StatsClient(f"127.0.0.1:{stats_port}", timeout_seconds=60)
        try:
            members = await _bulk_load(dsn, rng)
            started = time.perf_counter()
            summary = await repository.recalculate()
            print(f"   backfill-elo over {summary.matches:,} matches: "
                  f"{time.perf_counter() - started:.1f} s ({summary.ratings:,} ratings rewritten, "
                  f"{summary.changed_deltas} deltas changed)")
            assert summary.changed_deltas == 0, "the backfill must agree with live settlement"
            await _bench_reads(client, members, rng)
            await _bench_record(client, lobby, rng)
        finally:
            await client.close()
            await stats_server.stop(None)
            await seating.close()
            await lobby_server.stop(None)
            await repository.close()


def main() -> None:
    print("   (client, stats servicer and fake lobby in one process; Postgres on this machine)")
    asyncio.run(_run())
