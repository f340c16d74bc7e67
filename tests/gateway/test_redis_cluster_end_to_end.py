"""The whole platform on a Redis Cluster of three masters (REDIS_URL=redis+cluster://...).

Every component is its own process; sessions, presence, the event bus, the tables' cache and
signals and the deadline queue all live on the Cluster, spread over its nodes by their hash tags
(services.stores.Keys). People play a match through two gateways, a person plays bots and then
erases their account, and a table nobody watches moves on by the deadline queue alone.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from services.stores import Keys, redis_client
from testing.players import Player, play_until_over, seat_four
from testing.prometheus import scrape
from testing.redis_deployments import redis_cluster
from testing.stack import real_stack
from testing.waiting import eventually


@pytest.fixture(scope="module")
def cluster():
    with redis_cluster() as deployment:
        yield deployment


@pytest.fixture(scope="module")
def stack(cluster):
    """Two gateways on the Cluster; turns time out after half a second, so a table left alone
    moves on (the players of the matches answer in milliseconds)."""
    with real_stack({"REDIS_URL": cluster.url, "TURN_TIMEOUT_SECONDS": "0.5",
                     "HAND_ACK_TIMEOUT_SECONDS": "0.5"}, label="cluster", gateways=2) as running:
        yield running


async def _login(stack, names) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


async def test_four_people_on_two_gateways_play_a_match_to_its_end(stack, cluster):
    players = await _login(stack, ("ann", "ben", "cat", "dan"))
    try:
        lobby = await seat_four(players, {"target_score": 1})
        urls = [stack.gateway_urls[0]] * 2 + [stack.gateway_urls[1]] * 2
        sockets = [await player.socket(lobby["id"], gateway_url=url)
                   for player, url in zip(players, urls, strict=True)]

        async def everyone_connected():  # presence, shared by the gateways on the Cluster
            view = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()
            return all(p["connected"] for p in view["players"])

        await eventually(everyone_connected, timeout=10)
        overs = await asyncio.wait_for(
            asyncio.gather(*(play_until_over(socket, False) for socket in sockets)), 120)
        for socket in sockets:
            await socket.close()
        assert len({over["winner"] for over in overs}) == 1
        log = (await players[1].http.get(f"/api/games/{lobby['id']}/log")).json()
        plays = [move for move in log["moves"] if move["type"] in ("play", "auto_play")]
        assert len(plays) >= 40  # a whole hand (on a loaded machine a turn may time out)
    finally:
        for player in players:
            await player.close()
    keys, client = Keys(stack.env["REDIS_KEY_PREFIX"]), redis_client(cluster.url)
    try:  # the finished table's last snapshot and the people's sessions, each in its slot
        assert await client.exists(keys.table(lobby["id"], "snapshot")) == 1
        assert await client.zcard(keys.plain("sessions", "live")) >= 4
    finally:
        await client.aclose()


async def test_a_person_plays_bots_then_an_erasure_ends_all_their_sessions(stack):
    alice, alice_elsewhere = await _login(stack, ("alice", "alice"))
    try:
        game = (await alice.http.post("/api/games", json={"options": {"target_score": 1}})).json()
        for seat in (1, 2, 3):
            response = await alice.http.post(f"/api/games/{game['id']}/bots",
                                             json={"seat": seat, "level": "principiante"})
            assert response.status_code == 200, response.text
        async with await alice.socket(game["id"], gateway_url=stack.gateway_urls[1]) as socket:
            over = await asyncio.wait_for(play_until_over(socket, False), 120)
        assert over["winner"] in ("A", "B")
        assert (await alice_elsewhere.http.get("/api/me")).json()["sub"] == "alice"

        async def erased():  # stats may still be recording the match: then 503, and a retry
            response = await alice.http.delete("/api/me")
            assert response.status_code in (204, 503), response.text
            return response.status_code == 204

        await eventually(erased, timeout=30)
        for player in (alice, alice_elsewhere):  # both sessions ended, on either gateway
            assert (await player.http.get("/api/me")).status_code == 401
    finally:
        await alice.close()
        await alice_elsewhere.close()


async def test_a_table_nobody_watches_moves_on_by_the_deadline_queue_after_a_restart(stack):
    """The restarted game replica times no table of its own accord: the deadline service's
    backstop entries, in the Cluster, fire the overdue turns and the table moves on."""
    players = await _login(stack, ("eve", "fay", "gus", "hal"))
    connection = await asyncpg.connect(stack.env["DATABASE_URL"])
    try:
        lobby = await seat_four(players, {"target_score": 21})  # a match that lasts

        async def moves() -> int:  # read from the log, not through the game (which would load it)
            return await connection.fetchval(
                "SELECT count(*) FROM game_move WHERE table_id = $1", lobby["id"])

        await eventually(lambda: _at_least(moves, 2), timeout=30)
        stack.kill("game")
        before = await moves()
        stack.start_again("game")
        await eventually(lambda: _at_least(moves, before + 2), timeout=30,
                         what="the deadline queue never fired the table's turns")
        fired = await scrape(stack, "deadlines")
        assert fired.value("tavolo_deadline_lateness_seconds_count",
                           tavolo_deadline_fired_by="backstop", tavolo_deadline_outcome="fired") >= 1
    finally:
        await connection.close()
        for player in players:
            await player.close()


async def _at_least(count, value: int) -> bool:
    return await count() >= value

