"""500 spectators on one table (issue 42): what a move costs each process, and how long until the
last watcher has it.

The whole stack runs as processes on Redis and Postgres (testing.stack.real_stack). Four players
sit at one table (target 121 without napola, timers at an hour: nothing plays by itself) and play
one card at a time; each move is the next once all four players' sockets and every spectator's
socket have its state. Two phases of MOVES moves each: without spectators, then with WATCHERS
watch sockets open (/ws/games/{id}/watch, MEMBERS members with WATCHERS / MEMBERS sockets each).
For each phase: the CPU time (user + system, psutil) the gateway and the game service spent,
per move; and the time from a play sent to its state received by the four players, and by the
last of the watchers (p50, p99, max). The public view is rendered by the game service once per
move whatever the number of watchers, and fanned out by the gateway: the game's figure should
not grow with them; the gateway's grows with the sockets it writes to. Everything runs on the
one machine, the load generator (this process, reading 504 sockets) included, whose CPU is
shown too.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass

import psutil
import websockets

from game.scopone.rules import legal_plays
from gateway.sessions import COOKIE_NAME
from testing.players import Player
from testing.stack import Stack, real_stack

WATCHERS = 500
MEMBERS = 20       # the watchers' members: WATCHERS / MEMBERS sockets each
MOVES = 40         # a hand's plays; a hand end between them is acknowledged, not measured
OPEN_CONCURRENCY = 25
HANG_SECONDS = 60.0


@dataclass
class Phase:
    name: str
    moves: int
    cpu: dict[str, float]            # process -> CPU seconds during the phase
    players: list[float]             # per move: until all four players had it
    watchers: list[float]            # per move: until the last watcher had it


class _Arrivals:
    """Which sockets have seen each revision, and when the last of them did."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.expected = 0
        self.waiting: dict[int, asyncio.Event] = {}
        self.last: dict[int, float] = {}

    def arrived(self, revision: int) -> None:
        self.seen[revision] = self.seen.get(revision, 0) + 1
        if self.seen[revision] == self.expected:
            self.last[revision] = time.perf_counter()
            self.waiting.setdefault(revision, asyncio.Event()).set()

    async def all_have(self, revision: int) -> float:
        if self.expected == 0:
            return time.perf_counter()
        await asyncio.wait_for(self.waiting.setdefault(revision, asyncio.Event()).wait(), HANG_SECONDS)
        return self.last[revision]


async def _connect(player: Player, path: str):
    url = player.stack.gateway_url.replace("http://", "ws://") + path
    return await websockets.connect(url, additional_headers={"Cookie": f"{COOKIE_NAME}={player.cookie}"},
                                    open_timeout=60, ping_interval=None, max_queue=None)


async def _read(socket, arrivals: _Arrivals, views: dict | None = None, seat: int = 0) -> None:
    async for raw in socket:
        message = json.loads(raw)
        if message["type"] == "state":
            if views is not None:
                views[seat] = message["game"]
            arrivals.arrived(message["game"]["revision"])


def _cpu(processes: dict[str, psutil.Process]) -> dict[str, float]:
    times = {name: process.cpu_times() for name, process in processes.items()}
    return {name: t.user + t.system for name, t in times.items()}


async def _phase(name: str, players: list, views: dict, seat_arrivals: _Arrivals,
                 watch_arrivals: _Arrivals, processes: dict[str, psutil.Process]) -> Phase:
    to_players: list[float] = []
    to_watchers: list[float] = []
    before = _cpu(processes)
    for _ in range(MOVES):
        if views[0]["status"] == "hand_end":  # every seat acknowledges (not measured)
            acked = views[0]["revision"] + 4
            for _, socket in players:
                await socket.send(json.dumps({"action": "ack"}))
            await asyncio.gather(seat_arrivals.all_have(acked), watch_arrivals.all_have(acked))
        turn = views[0]["turn"]
        mine = views[turn]
        card, capture = legal_plays(mine["hand"], mine["table"], False)[0]
        revision = mine["revision"] + 1
        sent = time.perf_counter()
        await players[turn][1].send(json.dumps({"action": "play", "card": card, "capture": capture,
                                                "revision": mine["revision"]}))
        players_done, watchers_done = await asyncio.gather(seat_arrivals.all_have(revision),
                                                           watch_arrivals.all_have(revision))
        to_players.append(players_done - sent)
        to_watchers.append(watchers_done - sent)
    after = _cpu(processes)
    return Phase(name, MOVES, {key: after[key] - before[key] for key in after}, to_players, to_watchers)


def _ms(values: list[float], q: float) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:7.1f}"


async def _bench(stack: Stack) -> list[Phase]:
    people = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    members = [await Player(stack, f"watcher{n}").login() for n in range(MEMBERS)]
    sockets = []
    try:
        created = await people[0].http.post("/api/games", json={"options": {"target_score": 121, "napola": False}})
        lobby = created.json()
        for person in people[1:]:
            (await person.http.post("/api/games/join", json={"code": lobby["join_code"]})).raise_for_status()
        game_id = lobby["id"]
        seat_arrivals, watch_arrivals = _Arrivals(), _Arrivals()
        seat_arrivals.expected = 4
        views: dict[int, dict] = {}
        players = []
        readers = []
        for seat, person in enumerate(people):
            socket = await _connect(person, f"/ws/games/{game_id}")
            sockets.append(socket)
            players.append((person, socket))
            readers.append(asyncio.create_task(_read(socket, seat_arrivals, views, seat)))
        while len(views) < 4:
            await asyncio.sleep(0.05)
        processes = {name: psutil.Process(stack.processes[name].pid) for name in ("gateway", "game")}
        processes["bench client"] = psutil.Process()
        phases = [await _phase("no spectators", players, views, seat_arrivals, watch_arrivals, processes)]

        limit = asyncio.Semaphore(OPEN_CONCURRENCY)

        async def watch(member: Player):
            async with limit:
                return await _connect(member, f"/ws/games/{game_id}/watch")
        watching = await asyncio.gather(*(watch(members[n % MEMBERS]) for n in range(WATCHERS)))
        sockets += watching
        current = views[0]["revision"]
        watch_arrivals.expected = WATCHERS
        readers += [asyncio.create_task(_read(socket, watch_arrivals)) for socket in watching]
        await watch_arrivals.all_have(current)  # every watcher has its first state
        phases.append(await _phase(f"{WATCHERS} spectators", players, views, seat_arrivals, watch_arrivals,
                                   processes))
        for reader in readers:
            reader.cancel()
        return phases
    finally:
        await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)
        for person in (*people, *members):
            await person.close()


def _print(phases: list[Phase]) -> None:
    print(f"   one table, {MOVES} moves a phase; CPU ms per move by process; ms from a play sent until "
          "the players / the last watcher had it")
    names = list(phases[0].cpu)
    print("   " + f"{'phase':<16}" + "".join(f"{name:>14}" for name in names)
          + "  players p50/p99   last watcher p50/p99/max")
    for phase in phases:
        cpu = "".join(f"{phase.cpu[name] * 1000 / phase.moves:14.2f}" for name in names)
        watchers = (f"{_ms(phase.watchers, 0.5)} {_ms(phase.watchers, 0.99)} {_ms(phase.watchers, 1.0)}"
                    if phase.name != "no spectators" else "      -")
        print(f"   {phase.name:<16}{cpu}  {_ms(phase.players, 0.5)} {_ms(phase.players, 0.99)}   {watchers}")


def main() -> None:
    with real_stack({"TURN_TIMEOUT_SECONDS": "3600", "HAND_ACK_TIMEOUT_SECONDS": "3600"}, label="bench") as stack:
        _print(asyncio.run(_bench(stack)))


if __name__ == "__main__":
    main()
