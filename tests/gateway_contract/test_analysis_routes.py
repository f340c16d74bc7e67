"""POST and GET /api/games/{id}/analysis in process, before fake services: each answer the
contract and its notes give, the ones a real stack cannot reach cheaply (a member's fourth
analysis, a game type without analysis, a game whose lobby entry expired)."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from bots.analysis_client import MatchAnalysis
from game.client import LogHeader
from services.rpc.errors import Reason, ServiceError
from tests.gateway_contract.fakes import COOKIE, GAME_ID, FakeGame, FakeLobby, gateway, started_game

PATH = f"/api/games/{GAME_ID}/analysis"
DONE = MatchAnalysis(GAME_ID, 0, "done", [
    {"number": 2, "hand": 1, "played": {"card": "07D", "capture": []}, "auto": True},
    {"number": 6, "hand": 1, "played": {"card": "05S", "capture": []}, "best": {"card": "07S", "capture": ["07C"]},
     "loss": 0.42, "verdict": "mistake", "auto": False}],
    {"accuracy": 83, "inaccuracies": 0, "mistakes": 1, "blunders": 0})


class FinishedLobby(FakeLobby):
    def __init__(self, game_type: str = "scopone_scientifico", gone: bool = False):
        super().__init__()
        self.game_type, self.gone = game_type, gone

    async def get_game(self, game_id: str):
        if self.gone:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found")
        game = await super().get_game(game_id)
        return replace(game, finished=True, game_type=self.game_type)


class FakeAnalysis:
    def __init__(self, failure: ServiceError | None = None, known: MatchAnalysis | None = None):
        self.failure, self.known = failure, known
        self.asked: list[tuple[str, str, int]] = []

    async def request_analysis(self, table_id: str, member_id: str, seat: int):
        if self.failure is not None:
            raise self.failure
        self.asked.append((table_id, member_id, seat))
        return MatchAnalysis(table_id, seat, "queued"), True

    async def get_analysis(self, table_id: str, member_id: str) -> MatchAnalysis:
        if table_id != GAME_ID:  # as the service: a table id is a lowercase uuid
            raise ServiceError(Reason.INVALID_ARGUMENT, "table_id must be a lowercase uuid", field="table_id")
        if self.known is None:
            raise ServiceError(Reason.NO_ANALYSIS, "No analysis")
        return self.known


async def _call(lobby, analysis, method: str = "POST", path: str = PATH, **kwargs) -> httpx.Response:
    async with gateway(lobby=lobby, game=FakeGame()) as app:
        app.state.backends.analysis = analysis
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.request(method, path, headers=COOKIE, **kwargs)


async def test_the_callers_seat_is_queued_with_202():
    analysis = FakeAnalysis()
    response = await _call(FinishedLobby(), analysis)
    assert (response.status_code, response.json()) == (202, {"status": "queued", "seat": 0})
    assert analysis.asked == [(GAME_ID, "alice", 0)]


async def test_a_done_analysis_reads_as_the_contract_says():
    response = await _call(FinishedLobby(), FakeAnalysis(known=DONE), "GET")
    assert response.status_code == 200
    assert response.json() == {"status": "done", "seat": 0, "plays": DONE.plays, "summary": DONE.summary}


@pytest.mark.parametrize("lobby, analysis, method, status, detail", [
    (FinishedLobby(), FakeAnalysis(ServiceError(Reason.TOO_MANY_ANALYSES, "Too many analyses", limit="3")), "POST",
     409, "Too many analyses"),
    (FinishedLobby("dummy"), FakeAnalysis(), "POST", 409, "This game type has no analysis"),
    (FinishedLobby(gone=True), FakeAnalysis(), "POST", 404, "Game not found"),
    (FinishedLobby(gone=True), FakeAnalysis(), "GET", 404, "Game not found"),
    (FinishedLobby(), FakeAnalysis(), "GET", 404, "No analysis"),
    (FinishedLobby(), None, "POST", 503, "Service unavailable, try again"),
])
async def test_the_refusals(lobby, analysis, method, status, detail):
    response = await _call(lobby, analysis, method)
    assert (response.status_code, response.json()) == (status, {"detail": detail})


async def test_an_id_that_names_no_table_is_game_not_found():
    response = await _call(FinishedLobby(), FakeAnalysis(known=DONE), "GET", "/api/games/null,null/analysis")
    assert (response.status_code, response.json()) == (404, {"detail": "Game not found"})


async def test_a_wrong_method_names_both_methods():
    response = await _call(FinishedLobby(), FakeAnalysis(), "PUT")
    assert response.status_code == 405 and {"GET", "POST"} <= set(response.headers["allow"].split(", "))


async def test_an_analysis_asked_before_is_read_after_the_lobby_forgot_the_game():
    response = await _call(FinishedLobby(gone=True), FakeAnalysis(known=DONE), "GET")
    assert response.status_code == 200 and response.json()["status"] == "done"


async def test_a_game_still_played_is_not_finished():
    class Playing(FakeLobby):
        async def get_game(self, game_id: str):
            return started_game()

    class Log(FakeGame):
        async def get_log(self, table_id: str, after_number: int = 0, page_size: int = 0):
            return LogHeader(table_id, "scopone_scientifico", "1", {}, (), "", "", "playing", 3, 3, 0, None), [], 0

    async with gateway(lobby=Playing(), game=Log()) as app:
        app.state.backends.analysis = FakeAnalysis()
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            response = await http.post(PATH, headers=COOKIE)
    assert (response.status_code, response.json()) == (409, {"detail": "Game is not finished"})
