"""A finished match reaches stats whatever happens meanwhile, and exactly once.

The stats service here is the real one (its servicer, its domain and its in-memory store) on a
real socket, asking a fake lobby for the seating; it is stopped and started again on the same
address as a restarted process would be; the last test pins, with a recorder in this process,
what the game tells stats. Every test runs in memory and on Postgres + Redis.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid

import grpc
import pytest

from game.registry import default_registry
from game.server import build_tables
from game.tables import Tables
from lobby.client import LobbyClient
from services.background import Throttle
from services.rpc.channels import CallPolicy
from services.rpc.server import ErrorInterceptor
from stats.client import StatsClient
from stats.cursor import CursorCodec
from stats.repository import MemoryStatsRepository
from stats.service import StatsService
from stats.servicer import StatsServicer, register
from testing.processes import free_address
from testing.waiting import eventually
from tests.game_service.conftest import SEATS
from tests.stats.servers import TEST_SECRET, FakeLobby, serving_lobby

MEMBERS = ("ann", "ben", "cat", "dan")


class CountingRepository(MemoryStatsRepository):
    """Stats' store, counting the recordings that created a match."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[str] = []

    async def record_match(self, match, erasures_after=None):
        stored, created = await super().record_match(match, erasures_after)
        if created:
            self.created.append(match.id)
        return stored, created


class StatsServer:
    """The stats service's server, in this process, on one address across restarts."""

    def __init__(self, lobby: FakeLobby) -> None:
        self.repository = CountingRepository()
        # A lobby that refuses is UNAVAILABLE at once (the game service retries the match).
        self.seating = LobbyClient(lobby.address, policy=CallPolicy(attempts=2, max_backoff_seconds=0.1))
        self.service = StatsService(self.repository, self.seating, CursorCodec(TEST_SECRET))
        self.address = free_address()
        self._server: grpc.aio.Server | None = None

    async def start(self) -> None:
        server = grpc.aio.server(interceptors=[ErrorInterceptor()])
        register(StatsServicer(self.service))(server)
        server.add_insecure_port(self.address)
        await server.start()
        self._server = server

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(None)
            self._server = None

    async def close(self) -> None:
        await self.stop()
        await self.seating.close()


@pytest.fixture
async def lobby():
    async with serving_lobby() as running:
        yield running


@pytest.fixture
async def stats(lobby):
    server = StatsServer(lobby)
    yield server
    await server.close()


@pytest.fixture
async def open_tables(backend, stats):
    """Replicas of the game service over ``backend``, handing matches to ``stats``."""
    opened: list[tuple[Tables, StatsClient | None]] = []

    async def open_(*, with_stats: bool = True, **options) -> Tables:
        client = StatsClient(stats.address) if with_stats else None
        options.setdefault("retry_seconds", 0.05)
        tables = build_tables(default_registry(dummy=True), await backend.open_log(), backend.open_cache(),
                              None, client, **options)
        opened.append((tables, client))
        return tables

    yield open_
    for tables, client in opened:
        await tables.close(timeout=0.5)
        if client is not None:
            await client.close()


async def _finish(tables: Tables, lobby: FakeLobby | None, members=MEMBERS) -> str:
    """A dummy match to 1, seated in the lobby by ``members`` (unless None), played to its end."""
    table_id = str(uuid.uuid4())
    if lobby is not None:
        lobby.seat(table_id, *members)
    await tables.create_table(table_id, "dummy", json.dumps({"target": 1}), SEATS)
    view = await tables.act(table_id, "seat:0", json.dumps({"action": "add", "n": 1}))
    assert view.status == "finished"
    return table_id


async def _recorded(tables: Tables, table_id: str) -> bool:
    header = await tables.log.header(table_id)
    return header.recorded_ms is not None


def _messages(caplog, level: int, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "game.recording" and r.levelno == level and text in r.getMessage()]


async def test_a_match_finished_while_stats_is_down_is_recorded_once_when_it_comes_back(
        open_tables, stats, lobby, caplog):
    caplog.set_level(logging.DEBUG, logger="game.recording")
    cap = 1.0
    # Stats has not started: it is down. The backoff goes 0.25, 0.5, 1 (the cap), 1, 1 ... s.
    tables = await open_tables(retry_seconds=0.25, record_cap_seconds=cap)
    table_id = await _finish(tables, lobby)

    async def failed_at_the_cap() -> bool:  # the first failure warns, the next ones in 10 s not
        return len(_messages(caplog, logging.DEBUG, f"match {table_id} not recorded yet")) >= 3

    await eventually(failed_at_the_cap, what="the recorder gave up trying")
    await asyncio.sleep(2 * cap)  # longer than the cap: still trying, not settled
    assert tables.waiting_to_record == 1
    assert await tables.log.unrecorded() == [table_id]  # the log keeps it waiting
    assert await tables.unrecorded_count() == 1
    (warning, *_) = _messages(caplog, logging.WARNING, f"match {table_id} not recorded yet")
    assert "UNAVAILABLE" in warning and "1 finished match(es) wait to be recorded" in warning
    assert not _messages(caplog, logging.ERROR, "")

    await stats.start()
    await eventually(lambda: _recorded(tables, table_id), what="never recorded")
    assert stats.repository.created == [table_id]
    (match,) = (await stats.service.list_matches("ann", "", 0, "")).matches
    assert match.id == table_id and [p.member_id for p in match.players] == list(MEMBERS)
    assert [(r.game_type, r.matches) for r in await stats.service.ratings("ann")] == [("dummy", 1)]
    assert tables.waiting_to_record == 0 and await tables.unrecorded_count() == 0
    await tables.drain(timeout=10)  # the recorder is done: nothing is sent again
    assert stats.repository.created == [table_id]
    assert _messages(caplog, logging.INFO, f"match {table_id} recorded with stats after")


async def test_a_match_whose_seating_the_lobby_lacks_for_a_while_waits_for_it(
        open_tables, stats, lobby, caplog):
    await stats.start()
    tables = await open_tables(record_cap_seconds=0.3)
    table_id = await _finish(tables, None)  # the lobby has no seating (yet): GAME_NOT_FOUND

    async def refused_twice() -> bool:
        return lobby.calls >= 2

    await eventually(refused_twice)
    assert not await _recorded(tables, table_id)
    assert any("GAME_NOT_FOUND" in m for m in _messages(caplog, logging.WARNING, table_id))
    lobby.seat(table_id, *MEMBERS)  # the seating is back (e.g. rebuilt after a flush)
    await eventually(lambda: _recorded(tables, table_id))
    assert stats.repository.created == [table_id]


async def test_a_match_is_recorded_only_once_the_lobby_learnt_its_table_finished(
        open_tables, stats, lobby, caplog):
    caplog.set_level(logging.DEBUG, logger="game.recording")
    await stats.start()
    lobby.marks_fail = True  # the lobby does not hear MarkFinished for a while
    tables = await open_tables(record_cap_seconds=0.3)
    table_id = await _finish(tables, lobby)

    async def tried_twice() -> bool:  # (each try's refusals are retried by stats' client)
        return sum(len(_messages(caplog, level, f"match {table_id} not recorded yet"))
                   for level in (logging.DEBUG, logging.WARNING)) >= 2

    await eventually(tried_twice, what="the game service did not try the match again")
    assert lobby.refused_marks > 0
    assert not await _recorded(tables, table_id)  # the game service keeps it and tries again
    assert stats.repository.created == [table_id] and lobby.marked == []
    lobby.marks_fail = False
    await eventually(lambda: _recorded(tables, table_id), what="never recorded")
    assert lobby.marked == [table_id]
    assert stats.repository.created == [table_id]  # recorded once, marked on the retry


async def test_a_report_stats_can_never_accept_is_settled_loudly_without_a_record(
        open_tables, stats, lobby, caplog):
    await stats.start()
    tables = await open_tables(record_cap_seconds=0.3)
    # Three members for four seats: the report can never match the seating (INVALID_ARGUMENT).
    table_id = await _finish(tables, lobby, MEMBERS[:3])
    await tables.drain(timeout=10)
    assert await _recorded(tables, table_id)  # settled: not offered again at the next start
    assert await tables.log.unrecorded() == [] and await tables.unrecorded_count() == 0
    assert stats.repository.created == [] and lobby.calls == 1
    (error,) = _messages(caplog, logging.ERROR, table_id)
    assert "INVALID_ARGUMENT" in error and "settled without a record" in error


async def test_a_sweep_takes_up_a_match_that_another_replica_left_waiting(
        open_tables, stats, lobby):
    await stats.start()
    sweeping = await open_tables(record_sweep_seconds=0.2)
    running = asyncio.create_task(sweeping.run())
    try:
        await asyncio.sleep(0.1)  # its start-up resume is done: the match finishes after it
        gone = await open_tables(with_stats=False)  # a replica that stops without a restart
        table_id = await _finish(gone, lobby)
        await eventually(lambda: _recorded(sweeping, table_id))
        assert stats.repository.created == [table_id]
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)


async def test_closing_leaves_a_waiting_match_in_the_log_for_the_next_start(open_tables, stats, lobby):
    tables = await open_tables(record_cap_seconds=60)
    table_id = await _finish(tables, lobby)

    async def waiting() -> bool:
        return tables.waiting_to_record == 1

    await eventually(waiting)
    # The backoff does not hold the close up (it would wait for ever: timeout None).
    await asyncio.wait_for(tables.close(timeout=None), 20)
    assert tables.waiting_to_record == 0
    assert await tables.log.unrecorded() == [table_id]
    await stats.start()
    restarted = await open_tables()
    assert await restarted.resume() == 1
    await eventually(lambda: _recorded(restarted, table_id))
    assert stats.repository.created == [table_id]


def test_the_warning_throttle_lets_one_through_per_interval_and_counts_the_rest():
    now = [100.0]
    throttle = Throttle(10.0, clock=lambda: now[0])
    assert throttle.allow() == 0  # the first always
    now[0] += 4
    assert throttle.allow() is None and throttle.allow() is None
    now[0] += 6
    assert throttle.allow() == 2  # and says how many it held back
    assert throttle.allow() is None


class ListeningRecorder:
    """A recorder in this process (game.recording.MatchRecorder): every call's keywords."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    async def record_match(self, **report) -> object:
        self.calls.append(report)
        return object()


async def test_the_recorder_is_told_the_published_result_and_every_seat_by_keyword(backend):
    recorder = ListeningRecorder()
    tables = build_tables(default_registry(dummy=True), await backend.open_log(), backend.open_cache(),
                          None, recorder)
    try:
        table_id = await _finish(tables, None)
        await tables.drain(timeout=10)
        (report,) = recorder.calls
        header = await tables.log.header(table_id)
        assert header.recorded_ms is not None
        assert (report["table_id"], report["game_type"], report["started_ms"], report["finished_ms"]) == (
            table_id, "dummy", header.created_ms, header.finished_ms)
        assert report["result"] == (await tables.get_result(table_id)).result_json  # the same bytes
        assert [(s.seat, s.seat_index, s.team, s.won, s.points, dict(s.details)) for s in report["seats"]] == [
            ("seat:0", 0, "A", True, 1, {}), ("seat:1", 1, "B", False, 0, {}),
            ("seat:2", 2, "A", True, 1, {}), ("seat:3", 3, "B", False, 0, {})]
    finally:
        await tables.close(timeout=0.5)
