"""The analysis of a finished match through the gateway, every component its own process on real
Redis and Postgres: a person finishes a practice match against bots, asks for the analysis of
their plays, reads it once done as CONTRACT.md says; a member not seated there is refused; every
bad request gets its clear error; erasing the member deletes the analysis."""

from __future__ import annotations

import uuid

import pytest

from bots.analysis_client import AnalysisClient
from services.rpc.errors import Reason, ServiceError
from testing.players import Player, play_until_over
from testing.stack import real_stack
from testing.waiting import eventually

VERDICTS = {"best", "good", "inaccuracy", "mistake", "blunder"}


@pytest.fixture(scope="module")
def stack():
    """A small search budget: the test is about the path, bench/analysis_bench.py about the cost."""
    with real_stack({"ANALYSIS_WORK": "2000"}, label="analysis") as running:
        yield running


async def _practice_match(player: Player) -> str:
    lobby = (await player.http.post("/api/games", json={"options": {"target_score": 1, "napola": False}})).json()
    for seat in (1, 2, 3):
        response = await player.http.post(f"/api/games/{lobby['id']}/bots", json={"seat": seat, "level": "esperto"})
        assert response.status_code == 200, response.text
    return str(lobby["id"])


async def test_a_player_asks_for_and_reads_the_analysis_of_a_finished_match(stack):
    alice, bob = await Player(stack, "alice").login(), await Player(stack, "bob").login()
    try:
        game = await _practice_match(alice)
        path = f"/api/games/{game}/analysis"
        refused = await alice.http.post(path)
        assert (refused.status_code, refused.json()) == (409, {"detail": "Game is not finished"})
        assert (await alice.http.get(path)).json() == {"detail": "No analysis"}
        socket = await alice.socket(game)
        await play_until_over(socket, False)
        await socket.close()

        assert (await bob.http.post(path)).json() == {"detail": "Not seated at this game"}
        first = await alice.http.post(path, json={})
        assert (first.status_code, first.json()) == (202, {"status": "queued", "seat": 0})
        again = await alice.http.post(path)
        assert again.status_code == 200 and again.json()["seat"] == 0
        assert again.json()["status"] in ("queued", "running", "done")

        async def done():
            body = (await alice.http.get(path)).json()
            return body if body["status"] == "done" else None

        analysis = await eventually(done, timeout=120, what="the analysis was never done")
        log = (await alice.http.get(f"/api/games/{game}/log")).json()
        mine = [m for m in log["moves"] if m["type"] in ("play", "auto_play") and m["seat"] == "seat:0"]
        assert [p["number"] for p in analysis["plays"]] == [m["number"] for m in mine]
        for play, move in zip(analysis["plays"], mine, strict=True):
            assert play["played"] == {"card": move["payload"]["card"],
                                      "capture": sorted(move["payload"]["capture"])}
            assert play["hand"] == 1 and play["auto"] is False, (play, move)
            assert play["verdict"] in VERDICTS and play["loss"] >= 0
            assert set(play["best"]) == {"card", "capture"}
        assert analysis["plays"][-1]["verdict"] == "best"  # the hand's last card: the only play
        summary = analysis["summary"]
        assert set(summary) == {"accuracy", "inaccuracies", "mistakes", "blunders"}
        assert 0 <= summary["accuracy"] <= 100
        assert summary["mistakes"] == sum(p["verdict"] == "mistake" for p in analysis["plays"])
        assert (await alice.http.post(path)).json() == analysis  # asking again: the analysis
        assert (await bob.http.get(path)).json() == {"detail": "Not seated at this game"}

        # Erasure deletes it (the bots service is asked directly: the seat is anonymized too).
        sub = (await alice.http.get("/api/me")).json()["sub"]
        assert (await alice.http.delete("/api/me")).status_code == 204
        client = AnalysisClient(stack.address("bots"), credentials=stack.credentials)
        try:
            with pytest.raises(ServiceError) as gone:
                await client.get_analysis(game, sub)
            assert gone.value.reason is Reason.NO_ANALYSIS
        finally:
            await client.close()
    finally:
        await alice.close()
        await bob.close()


async def test_every_bad_request_gets_a_clear_error(stack):
    carol = await Player(stack, "carol").login()
    try:
        game = await _practice_match(carol)
        path = f"/api/games/{game}/analysis"
        cases = [
            (await carol.http.post(path, json={"seat": 1}), 400, "Unknown field: seat"),
            (await carol.http.post(path, content=b"{not json", headers={"content-type": "application/json"}),
             400, "Invalid JSON"),
            (await carol.http.post(path, json=[1]), 400, "Request body must be a JSON object"),
            (await carol.http.post(f"/api/games/{uuid.uuid4()}/analysis"), 404, "Game not found"),
            (await carol.http.get(f"/api/games/{uuid.uuid4()}/analysis"), 404, "Game not found"),
            (await carol.http.post("/api/games/not-a-game/analysis"), 404, "Game not found"),
            (await carol.http.put(path), 405, "Method Not Allowed"),
        ]
        for response, status, detail in cases:
            assert (response.status_code, response.json()) == (status, {"detail": detail}), response.request.url
        stranger = Player(stack, "nobody")
        try:
            for method in ("GET", "POST"):
                response = await stranger.http.request(method, path)
                assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
        finally:
            await stranger.close()
    finally:
        await carol.close()
