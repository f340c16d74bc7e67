"""Several replicas serve one table: two gateways and two game replicas, and a replica killed.

Every component is its own process, on real Redis and Postgres. The game's callers find its
replicas as a Kubernetes headless service gives them (testing.stack): one target listing both;
the gateways send each table to its owner (game.owners).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from game.client import GameClient
from game.owners import owner_of
from testing.players import Player, play_until_over, receive, seat_four
from testing.prometheus import scrape
from testing.stack import real_stack
from testing.waiting import eventually

ACT = "tavolo.game.v1.GameService/Act"  # rpc_method of the metrics


@pytest.fixture
def two_by_two():
    """Two gateways, two game replicas; turns time out in 5 s (the players answer at once)."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "5", "HAND_ACK_TIMEOUT_SECONDS": "5"},
                    label="replicas", game_replicas=2, gateways=2) as stack:
        yield stack


@pytest.fixture
def two_game_replicas():
    """Two game replicas; turns time out in half a second, so a table left alone moves on."""
    with real_stack({"TURN_TIMEOUT_SECONDS": "0.5", "HAND_ACK_TIMEOUT_SECONDS": "0.5"},
                    label="replicakill", game_replicas=2) as stack:
        yield stack


async def _login(stack, names) -> list[Player]:
    return [await Player(stack, name).login() for name in names]


def _owner(stack, table_id: str) -> tuple[str, str]:
    """The table's owner among the game replicas, and the other one."""
    addresses = [stack.address(name) for name in stack.games]
    owner = stack.games[addresses.index(owner_of(table_id, addresses))]
    return owner, next(name for name in stack.games if name != owner)


async def _play_at_my_turn(socket, game: dict) -> dict:
    """Wait for the seat's turn (from the ``game`` state on), play its first legal card; the
    state after the move, which must be the next revision."""
    while not game.get("your_turn"):  # (none at a hand's end)
        game = (await receive(socket, "state"))["game"]
    card = game["legal"][0]
    await socket.send(json.dumps({"action": "play", "card": card["card"],
                                  "capture": card["captures"][0], "revision": game["revision"]}))
    played = (await receive(socket, "state"))["game"]
    assert played["revision"] == game["revision"] + 1
    return played


async def _play_and_keep_revisions(socket, revisions: list[int], ids: set[str]) -> dict:
    """The seat plays the match to its end; every state's revision goes to ``revisions``, its
    table's id to ``ids``."""
    async def recorded():
        while True:
            text = await socket.recv()
            message = json.loads(text)
            if message["type"] == "state":
                revisions.append(message["game"]["revision"])
                ids.add(message["game"]["id"])
            yield text

    class Recording:  # what play_until_over reads: a socket whose states are counted
        async def recv(self):
            return await anext(messages)

        async def send(self, text):
            await socket.send(text)

    messages = recorded()
    return await play_until_over(Recording(), asso=False)


async def test_two_gateways_and_two_game_replicas_show_every_move_in_order_on_every_socket(
        two_by_two):
    stack = two_by_two
    players = await _login(stack, ("ann", "ben", "cat", "dan"))
    try:
        lobby = await seat_four(players, {"target_score": 1})
        # seats 0 and 1 on the first gateway, 2 and 3 on the second
        urls = [stack.gateway_urls[0]] * 2 + [stack.gateway_urls[1]] * 2
        sockets = [await player.socket(lobby["id"], gateway_url=url)
                   for player, url in zip(players, urls)]
        # Who is connected is shared between the gateways: ann, on the first, sees dan, on
        # the second, connected (over REST too).
        async def everyone_connected():
            view = (await players[0].http.get(f"/api/games/{lobby['id']}")).json()
            return all(p["connected"] for p in view["players"])

        await eventually(everyone_connected, timeout=10)
        revisions: list[list[int]] = [[] for _ in sockets]
        ids: set[str] = set()
        overs = await asyncio.wait_for(asyncio.gather(*(
            _play_and_keep_revisions(socket, seen, ids)
            for socket, seen in zip(sockets, revisions))), timeout=180)
        for socket in sockets:
            await socket.close()
    finally:
        for player in players:
            await player.close()
    last = revisions[0][-1]
    assert last >= 40  # a whole hand at least, played through both replicas
    for seen in revisions:  # every revision from the first one shown, in order, none twice
        assert seen == list(range(seen[0], last + 1))
    assert len({json.dumps(over, sort_keys=True) for over in overs}) == 1  # one result for all
    # Both gateways sent the table to its owner: it made every move (the players' and the
    # timed-out ones) and served every watch; the other replica made none.
    [table_id] = ids
    owner, other = _owner(stack, table_id)
    owner_metrics, other_metrics = await scrape(stack, owner), await scrape(stack, other)
    assert owner_metrics.value("tavolo_moves_total", tavolo_move_type="play") >= 40
    assert not other_metrics.has("tavolo_moves_total")
    assert not other_metrics.has("rpc_server_call_duration_seconds_count", rpc_method=ACT)


async def test_a_killed_game_replicas_tables_go_on_at_the_other_with_their_deadlines(
        two_game_replicas):
    stack = two_game_replicas
    players = await _login(stack, ("ann", "ben", "cat", "dan"))
    watcher = None
    try:
        lobby = await seat_four(players, {"target_score": 21})  # a match that lasts
        async with await players[0].socket(lobby["id"]) as socket:
            game = (await receive(socket, "state"))["game"]
            table_id = game["id"]
            owner, other = _owner(stack, table_id)
            watcher = GameClient(stack.address(other), credentials=stack.credentials)
            # the others time out: the owner fires for them
            played = await _play_at_my_turn(socket, game)
        stack.kill(owner)  # SIGKILL: its timers die with it

        async def moved_on():  # the other replica alone: the backstop fires there, then it times
            header, moves, _ = await watcher.get_log(table_id)
            return (header, moves) if header.revision >= played["revision"] + 6 else None

        header, moves = await eventually(moved_on, timeout=60)
        mine = [move for move in moves if move.seat == header.seats[0] and not move.auto]
        assert len(mine) == 1  # the move played before the kill is there, once
        assert all(move.auto for move in moves[played["revision"]:])
        # the game goes on through the gateway, which sends the table to its next owner
        async with await players[0].socket(lobby["id"]) as socket:
            state = (await receive(socket, "state"))["game"]
            assert state["revision"] >= len(moves)
            await _play_at_my_turn(socket, state)
        # the player's move went to the survivor (made, or refused if a timed-out turn beat it)
        survivor = await scrape(stack, other)
        assert survivor.value("rpc_server_call_duration_seconds_count", rpc_method=ACT) == 1
    finally:
        if watcher is not None:
            await watcher.close()
        for player in players:
            await player.close()
