"""The public player id in GET /api/me/matches and /api/leaderboard, over the real stats service
on Postgres: a person's item carries the id the lobby's seating gave, an erased member's one
that is nobody's, a bot's none (CONTRACT.md, "Players, following, invitations, blocking")."""

from __future__ import annotations

import httpx
import pytest

from tests.gateway_contract.fakes import COOKIE, FakeLobby, gateway
from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_seats
from tests.stats.servers import postgres_repository, running_stack, serving_lobby

IDS = {"alice": "q3Zr8YkV0bT1mWc9LxPa2g", "bob": "Hn4bXw7Qe2LsKd0uYt5RjA",
       "carol": "c9VmP1zGf8NaWq3ErT6oIu", "dave": "Lk2jH7gF5dS3aQ9wE1rTyU"}


@pytest.fixture
async def stats(postgres_dsn):
    repository = await postgres_repository(postgres_dsn)
    async with serving_lobby() as lobby, running_stack(repository, lobby) as stack:
        stack.lobby.players.update(IDS)
        yield stack
    await repository.close()


@pytest.fixture
async def client(stats):
    async with gateway(lobby=FakeLobby(), stats=stats.client) as app, httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://gw.test",
            headers=COOKIE) as http:
        yield http


async def _record(stats, *members, finished_ms=BASE_MS, **seating) -> None:
    table = stats.table(*members, **seating)
    await stats.client.record_match(table, SCOPONE, finished_ms - 60_000, finished_ms,
                                    result_of("A"), team_seats("A"))


async def test_match_items_and_leaderboard_entries_carry_the_player_id(stats, client):
    await _record(stats, "alice", "bob", "carol", "dave")
    await _record(stats, "alice", "bot:1", "carol", "bot:3", finished_ms=BASE_MS + 1000,
                  names={"bot:1": "Bruno", "bot:3": "Bea"}, bots={1: "esperto", 3: "esperto"})
    await stats.client.erase_member("dave")

    practice, rated = (await client.get("/api/me/matches")).json()["items"]
    assert [p.get("player") for p in practice["players"]] == [IDS["alice"], None, IDS["carol"], None]
    *people, (gone, gone_id) = [(p["name"], p.get("player")) for p in rated["players"]]
    assert people == [("Alice", IDS["alice"]), ("Bob", IDS["bob"]), ("Carol", IDS["carol"])]
    # Every person's item has an id; the erased member's is nobody's (not dave's old one).
    assert gone == "deleted player" and gone_id and gone_id not in IDS.values()
    entries = (await client.get("/api/leaderboard")).json()["entries"]
    assert {(e["name"], e["player"]) for e in entries} == {
        ("Alice", IDS["alice"]), ("Bob", IDS["bob"]), ("Carol", IDS["carol"])}
