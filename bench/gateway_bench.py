"""Through the gateway: moves per second and the latency from a play sent on one socket to the
new state received on all four, with 1, 50 and 500 tables playing at once.

The whole stack runs as real processes on real Redis and Postgres (a database and key prefix of
its own, removed afterwards); four players log in through the development provider and sit at
every table.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

from game.scopone.rules import legal_plays
from testing.players import Player
from testing.stack import real_stack

TABLE_COUNTS = (1, 50, 500)
MOVES_PER_TABLE = {1: 200, 50: 20, 500: 8}


class _Table:
    """Four sockets of one game; each socket's states go to its queue."""

    def __init__(self, sockets):
        self.sockets = sockets
        self.queues = [asyncio.Queue() for _ in sockets]
        self.readers = [asyncio.create_task(self._read(s, q)) for s, q in zip(sockets, self.queues)]

    @staticmethod
    async def _read(socket, queue):
        async for raw in socket:
            message = json.loads(raw)
            if message["type"] == "state":
                await queue.put(message["game"])

    async def latest(self, seat: int) -> dict:
        game = await self.queues[seat].get()
        while not self.queues[seat].empty():
            game = self.queues[seat].get_nowait()
        return game

    async def play(self, moves: int, latencies: list[float]) -> int:
        """Play ``moves`` cards (hand ends acknowledged, not measured); how many were played."""
        views = [await self.latest(seat) for seat in range(4)]
        played = 0
        while played < moves:
            if views[0]["status"] == "hand_end":
                views = await self._acknowledge(views)
                continue
            turn = views[0]["turn"]
            if views[0]["status"] != "playing" or turn is None:
                return played
            mine = views[turn]
            card, capture = legal_plays(mine["hand"], mine["table"], False)[0]
            sent = time.perf_counter()
            await self.sockets[turn].send(json.dumps(
                {"action": "play", "card": card, "capture": capture, "revision": mine["revision"]}))
            views = [await self._after(seat, mine["revision"]) for seat in range(4)]
            latencies.append(time.perf_counter() - sent)
            played += 1
        return played

    async def _acknowledge(self, views: list[dict]) -> list[dict]:
        """Every seat acknowledges the hand end; each seat's view once the next hand is dealt."""
        for seat in range(4):
            await self.sockets[seat].send(json.dumps({"action": "ack"}))
        dealt = []
        for seat in range(4):
            view = views[seat]
            while view["status"] == "hand_end":  # each ack's view, then the deal
                view = await self.queues[seat].get()
            dealt.append(view)
        return dealt

    async def _after(self, seat: int, revision: int) -> dict:
        while True:
            game = await self.queues[seat].get()
            if game["revision"] > revision:
                return game

    async def close(self):
        for socket in self.sockets:
            await socket.close()
        for reader in self.readers:
            reader.cancel()


async def _round(stack, players, tables: int) -> None:
    games = []
    for _ in range(tables):
        lobby = (await players[0].http.post("/api/games", json={"options": {"target_score": 121}})).json()
        for player in players[1:]:
            await player.http.post("/api/games/join", json={"code": lobby["join_code"]})
        games.append(lobby["id"])
    opened = []
    for game_id in games:
        opened.append(_Table([await p.socket(game_id) for p in players]))
    latencies: list[float] = []
    started = time.perf_counter()
    moves = sum(await asyncio.gather(*(t.play(MOVES_PER_TABLE[tables], latencies) for t in opened)))
    elapsed = time.perf_counter() - started
    for table in opened:
        await table.close()
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"   {tables:>3} table(s): {moves / elapsed:8.1f} moves/s; play -> state on all four: "
          f"p50 {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms "
          f"({moves} moves)", flush=True)


async def _bench(stack) -> None:
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    for player in players:
        player.http.timeout = 60
    try:
        for tables in TABLE_COUNTS:
            await _round(stack, players, tables)
    finally:
        for player in players:
            await player.close()


def main() -> None:
    # No turn times out while the players play: on a slow machine, setting up 500 tables takes
    # long enough for automatic plays to race the measured ones.
    with real_stack({"TURN_TIMEOUT_SECONDS": "3600", "HAND_ACK_TIMEOUT_SECONDS": "3600"},
                    label="bench") as stack:
        asyncio.run(_bench(stack))


if __name__ == "__main__":
    main()
