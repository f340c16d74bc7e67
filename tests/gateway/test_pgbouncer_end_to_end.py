"""The whole stack behind a real PgBouncer in transaction pooling, as docs/operations.md
("Behind PgBouncer") says to run it: DATABASE_URL at the pooler, DATABASE_STATEMENT_CACHE_SIZE=0,
DATABASE_LISTEN_URL straight at Postgres, and the stats reads through the pooler under an alias
of their own (DATABASE_READ_URL, as a replica behind its own pooler would be).

The migrations, a whole match against bots (the lobby, the game's log, the bots' leases, the
stats' recording), the lobby's open-games watch (LISTEN direct, NOTIFY through the pooler) and
a quick match (its transaction-level advisory lock) all run with two server connections per
alias, shared by every service's pool.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid

import asyncpg
import pytest

from testing.players import Player, play_against_bots, receive
from testing.processes import pgbouncer_server
from testing.servers import REDIS_URL, create_database, delete_keys, drop_database, dsn_for, new_prefix
from testing.stack import Stack
from testing.waiting import eventually

POOL_SIZE = 2  # server connections per alias: fewer than the services' client connections


@pytest.fixture(scope="module")
def pooled():
    """(stack, pgbouncer, database name): every Postgres pool of the stack goes through the
    pooler; the migrations ran through it too, before the services started."""
    database, prefix = asyncio.run(create_database("pgbouncer")), new_prefix("pgbouncer")
    direct = dsn_for(database)
    try:
        with pgbouncer_server({database: direct, f"{database}_read": direct},
                              pool_size=POOL_SIZE) as bouncer:
            stack = Stack({"DATABASE_URL": bouncer.url(database),
                           "DATABASE_READ_URL": bouncer.url(f"{database}_read"),
                           "DATABASE_LISTEN_URL": direct,
                           "DATABASE_STATEMENT_CACHE_SIZE": "0",
                           "REDIS_URL": REDIS_URL, "REDIS_KEY_PREFIX": prefix})
            try:
                migrated = subprocess.run([sys.executable, "-m", "launcher.cli", "migrate"],
                                          env=stack.env, capture_output=True, text=True)
                assert migrated.returncode == 0, migrated.stderr
                assert "applied" in migrated.stdout and "lobby/0001" in migrated.stdout
                yield stack.start(), bouncer, database
            finally:
                stack.stop()
    finally:
        asyncio.run(delete_keys(prefix))
        asyncio.run(drop_database(database))


def _servers(pool: dict[str, str]) -> int:
    return sum(int(pool[column]) for column in ("sv_active", "sv_idle", "sv_used", "sv_tested",
                                                "sv_login"))


def _transactions(bouncer, alias: str) -> int:
    (row,) = [row for row in bouncer.show("STATS") if row["database"] == alias]
    return int(row["total_xact_count"])


async def test_a_match_against_bots_is_played_and_recorded_through_the_pooler(pooled):
    stack, bouncer, database = pooled
    alice = await Player(stack, "alice").login()
    try:
        game, over = await play_against_bots(alice)
        assert over["winner"] in ("A", "B")
        log = (await alice.http.get(f"/api/games/{game['id']}/log")).json()
        assert {m["seat"] for m in log["moves"] if m["type"] == "play"} == {
            "seat:0", "seat:1", "seat:2", "seat:3"}

        async def recorded():
            page = (await alice.http.get("/api/me/matches")).json()
            return page["items"]

        (item,) = await eventually(recorded, what="the match never reached alice's history")
        assert (item["id"], item["rated"], item["result"]["winner"]) == (game["id"], False,
                                                                          over["winner"])
        board = await alice.http.get("/api/leaderboard")
        assert board.status_code == 200 and board.json()["entries"] == []  # practice: unrated
    finally:
        await alice.close()

    # Every service's pool went through PgBouncer, more clients than server connections.
    pool = bouncer.pool(database)
    assert int(pool["cl_active"]) + int(pool["cl_waiting"]) > POOL_SIZE >= _servers(pool)
    assert _transactions(bouncer, database) > len(log["moves"])
    assert _transactions(bouncer, f"{database}_read") >= 2  # the history, the leaderboard


async def test_the_open_games_watch_and_a_quick_match_work_through_the_pooler(pooled):
    stack, bouncer, database = pooled
    people = [await Player(stack, f"{name}-{uuid.uuid4().hex[:6]}").login()
              for name in ("ada", "ben", "cat", "dan")]
    options = {"target_score": 19}
    try:
        async def open_games(stream):
            name = None
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    name = line.removeprefix("event: ")
                elif line.startswith("data: ") and name == "open_games":
                    yield json.loads(line.removeprefix("data: "))

        async with people[1].http.stream("GET", "/api/games/open/events", timeout=30) as stream:
            assert stream.status_code == 200
            lists = open_games(stream)
            await asyncio.wait_for(anext(lists), 20)
            first = await people[0].http.post("/api/games/quick", json={"options": options})
            assert first.status_code == 201, first.text
            game_id = first.json()["id"]

            async def listed(wanted: bool) -> None:
                while (game_id in {g["id"] for g in (await anext(lists))["games"]}) != wanted:
                    pass

            # The quick match's NOTIFY (committed through the pooler) reached the lobby's
            # LISTEN (direct), and the gateway's stream.
            await asyncio.wait_for(listed(True), 20)
            for person in people[1:]:
                joined = await person.http.post("/api/games/quick", json={"options": options})
                assert (joined.status_code, joined.json()["id"]) == (200, game_id)
            assert joined.json()["status"] == "playing"
            await asyncio.wait_for(listed(False), 20)
        socket = await people[3].socket(game_id)
        assert (await receive(socket, "state"))["game"]["you"] == 3
        await socket.close()
    finally:
        for person in people:
            await person.close()

    # The lobby's LISTEN holds a session of its own, straight at Postgres.
    admin = await asyncpg.connect(dsn_for(database))
    try:
        listening = await admin.fetchval(
            """SELECT count(*) FROM pg_stat_activity
                WHERE datname = $1 AND query = 'LISTEN "tavolo_lobby"'""", database)
    finally:
        await admin.close()
    assert listening == 1
    assert _servers(bouncer.pool(database)) <= POOL_SIZE
