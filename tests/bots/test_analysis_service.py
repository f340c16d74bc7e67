"""The analyses' worker (bots.analysis.service): queued, run one at a time off the move path,
resumed after a worker died, retried while the game service is out of reach."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import pytest

from bots.analysis import match
from bots.analysis.service import Analyses, WorkerSettings
from bots.analysis.store import DONE, MemoryAnalysisStore
from game.client import LogEntry, LogHeader
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually
from tests.bots.analysis_helpers import play_match

SEARCH = match.Settings(work=2_000, max_samples=30)
SETTINGS = WorkerSettings(search=SEARCH, lease_seconds=0.3, retry_seconds=0.1)


class Logs:
    """GetLog of finished tables, page by page as the game service answers; ``down`` calls fail."""

    def __init__(self, played, down: int = 0):
        self.played = played
        self.down = down
        self.calls = 0

    async def get_log(self, table_id: str, after_number: int = 0, page_size: int = 0):
        self.calls += 1
        if self.down:
            self.down -= 1
            raise ServiceError(Reason.UNAVAILABLE, "game service out of reach")
        moves = self.played.moves
        header = LogHeader(table_id, "scopone_scientifico", "1", self.played.options, ("seat:0",) * 4, "c" * 64,
                           "", "finished", len(moves), len(moves), 0, 1)
        page = [LogEntry(m["number"], m["type"], m["seat"], m["payload"], m["auto"], False, 0)
                for m in moves[after_number:after_number + page_size]]
        after = after_number + len(page)
        return header, page, after if after < len(moves) else 0


@pytest.fixture(scope="module")
def played():
    return play_match("analysis-service", {"target_score": 1})


@contextlib.asynccontextmanager
async def running(analyses: Analyses):
    task = asyncio.create_task(analyses.run())
    try:
        yield analyses
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _done(analyses: Analyses, game: str, member: str):
    async def check():
        found = await analyses.get(game, member)
        return found if found.status == DONE else None

    return await eventually(check, what="the analysis was never done")


async def test_a_request_is_analysed_by_the_worker_as_the_match_analysis_says(played):
    analyses = Analyses(MemoryAnalysisStore(), Logs(played), SETTINGS)
    game = str(uuid.uuid4())
    async with running(analyses):
        queued, created = await analyses.request(game, "alice", 1)
        assert created and queued.status == "queued"
        done = await _done(analyses, game, "alice")
    assert done.result == match.analyse(played.moves, played.options, 1, SEARCH)
    assert (await analyses.request(game, "alice", 1)) == (done, False)


async def test_a_game_service_out_of_reach_is_retried(played):
    logs = Logs(played, down=2)
    analyses = Analyses(MemoryAnalysisStore(), logs, SETTINGS)
    game = str(uuid.uuid4())
    async with running(analyses):
        await analyses.request(game, "alice", 0)
        done = await _done(analyses, game, "alice")
    assert done.attempts == 3 and logs.calls >= 3


async def test_an_analysis_left_running_by_a_worker_that_died_is_resumed(played):
    store = MemoryAnalysisStore()
    game = str(uuid.uuid4())
    await store.request(game, "alice", 2, 3)
    assert await store.claim("died", SETTINGS.lease_seconds) is not None  # then the process died
    restarted = Analyses(store, Logs(played), SETTINGS)
    async with running(restarted):
        done = await _done(restarted, game, "alice")
    assert done.attempts == 2 and restarted.analysed == 1


async def test_a_log_that_is_not_a_finished_match_is_left_for_later(played):
    logs = Logs(played)
    logs.played = type(played)(moves=played.moves[:-3], options=played.options)  # cut inside a hand
    store = MemoryAnalysisStore()
    analyses = Analyses(store, logs, SETTINGS)
    game = str(uuid.uuid4())
    await analyses.request(game, "alice", 0)
    job = await store.claim(analyses.owner, SETTINGS.lease_seconds)
    await analyses.run_one(job)
    assert (await analyses.get(game, "alice")).status == "queued"
    assert await store.claim("other", SETTINGS.lease_seconds) is None  # not again soon


async def test_a_fault_in_one_analysis_leaves_the_worker_running(played, monkeypatch):
    store = MemoryAnalysisStore()
    analyses = Analyses(store, Logs(played), SETTINGS)
    faulty, fine = str(uuid.uuid4()), str(uuid.uuid4())
    real = match.analyse

    def analyse(moves, options, seat, settings, progress=None):
        if seat == 3:
            raise KeyError("a bug")
        return real(moves, options, seat, settings, progress)

    monkeypatch.setattr(match, "analyse", analyse)
    async with running(analyses):
        await analyses.request(faulty, "alice", 3)
        await analyses.request(fine, "alice", 0)
        await _done(analyses, fine, "alice")
    assert (await analyses.get(faulty, "alice")).status == "queued"  # left for later, not lost


# Fixed ids: pytest-xdist's workers must collect the same test names.
A_TABLE = "5f0e1c2a-8b3d-4c6e-9a7f-1d2e3f405162"


@pytest.mark.parametrize("table_id, member_id, seat, field", [
    ("not-a-uuid", "alice", 0, "table_id"), ("", "alice", 0, "table_id"),
    (A_TABLE.upper(), "alice", 0, "table_id"), (A_TABLE, "", 0, "member_id"),
    (A_TABLE, "a\x00b", 0, "member_id"), (A_TABLE, "x" * 513, 0, "member_id"),
    (A_TABLE, "alice", 4, "seat_index"), (A_TABLE, "alice", -1, "seat_index")])
async def test_a_bad_request_is_refused_naming_the_field(table_id, member_id, seat, field):
    analyses = Analyses(MemoryAnalysisStore(), Logs(None), SETTINGS)
    with pytest.raises(ServiceError) as refused:
        await analyses.request(table_id, member_id, seat)
    assert refused.value.reason is Reason.INVALID_ARGUMENT and refused.value.metadata.get("field") == field


async def test_an_analysis_never_asked_is_no_analysis():
    analyses = Analyses(MemoryAnalysisStore(), Logs(None), SETTINGS)
    with pytest.raises(ServiceError) as missing:
        await analyses.get(str(uuid.uuid4()), "alice")
    assert missing.value.reason is Reason.NO_ANALYSIS
