"""tavolo beside boardgame.io: the same game shape, the same load generator, one run (issue 45).

The peer is ../shared/peer-bench (beside the repository's root, or PEER_BENCH_DIR): boardgame.io's
own Server serving a 4-player card game shaped like scopone, and one load generator (load.js) that
drives both systems the same way (N tables, 4 sockets a table, latency = move sent until a newer
state is on all four sockets). The bench is skipped, not failed, when that folder or node is
absent. boardgame.io and the generator's client libraries are installed from npm, at the versions
pinned in bench/peer/package-lock.json, into bench/.peer (git-ignored).

tavolo runs as the real stack (every service a process, the machine's Postgres, a private
redis-server when there is one so that its CPU is the stack's alone), turn and hand-end timers at an
hour and rate limits off; four players log in through the development OIDC provider and sit at the
tables. boardgame.io commits nothing; tavolo commits every move to Postgres before anyone sees it.

Each round runs every load on tavolo, then on boardgame.io (interleaved: the machine's noise
falls on both); the figure is the ratio tavolo / boardgame.io, whose range over the rounds is
printed last. CPU per move counts every process of the system (tavolo: its services, Redis and
the Postgres backends of its database; boardgame.io: its one process), not the load generator.

BENCH_PEER_ROUNDS (3), BENCH_PEER_TABLES (500), BENCH_PEER_MOVES (moves a table, closed loop: 4),
BENCH_PEER_PACED_MOVES (moves a table, paced: 2 at 100/s, twice that at 400/s), BENCH_PEER_ONE_MOVES
(moves of the one table, closed loop: 200).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gateway.sessions import COOKIE_NAME
from testing.players import Player
from testing.processes import free_port, redis_server
from testing.stack import Stack, real_stack

ROOT = Path(__file__).resolve().parent.parent
PINNED = Path(__file__).parent / "peer"       # package.json + package-lock.json, committed
MODULES = Path(__file__).parent / ".peer"     # where npm installs them, git-ignored
ROUNDS = int(os.environ.get("BENCH_PEER_ROUNDS", "3"))
TABLES = int(os.environ.get("BENCH_PEER_TABLES", "500"))
MOVES = int(os.environ.get("BENCH_PEER_MOVES", "4"))
PACED_MOVES = int(os.environ.get("BENCH_PEER_PACED_MOVES", "2"))
ONE_MOVES = int(os.environ.get("BENCH_PEER_ONE_MOVES", "200"))
RUN_TIMEOUT = 300.0  # one load.js run: a hung system stops the bench, it is not a figure
SEATING = 25         # tables seated at once


@dataclass(frozen=True)
class Load:
    name: str
    tables: int
    moves: int
    rate: int | None = None  # offered moves/s of all the tables together; None: closed loop


LOADS = (Load("paced100", TABLES, PACED_MOVES, 100), Load("closed", TABLES, MOVES),
         Load("paced400", TABLES, PACED_MOVES * 2, 400), Load("one", 1, ONE_MOVES))


def _cpu_ms(result: dict) -> float:
    return 1000 * sum(result["server_cpu_s"].values()) / result["moves"]


# measure, the load it is read from, how it is read, its unit, whether higher is better
MEASURES = (
    ("CPU/move, paced 100/s", "paced100", _cpu_ms, "ms"),
    ("CPU/move, closed loop", "closed", _cpu_ms, "ms"),
    ("p99, paced 100/s", "paced100", lambda r: r["p99_ms"], "ms"),
    ("p99, paced 400/s", "paced400", lambda r: r["p99_ms"], "ms"),
    ("p50, 1 table closed", "one", lambda r: r["p50_ms"], "ms"),
    ("moves/s, closed loop", "closed", lambda r: r["moves_per_s"], "/s"),
)


def peer_folder() -> Path | None:
    """PEER_BENCH_DIR, else shared/peer-bench beside the repository's root (for a git worktree,
    beside the main checkout's root too)."""
    if os.environ.get("PEER_BENCH_DIR"):
        folder = Path(os.environ["PEER_BENCH_DIR"])
        return folder if (folder / "load.js").is_file() else None
    roots = [ROOT]
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=ROOT,
                                check=True, capture_output=True, text=True).stdout.strip()
        roots.append(Path(common).parent)
    for root in roots:
        folder = root.parent / "shared" / "peer-bench"
        if (folder / "load.js").is_file():
            return folder
    return None


def _install() -> Path:
    """bench/.peer/node_modules at the pinned versions (npm ci again when the lock changed)."""
    stamp = MODULES / ".installed"
    lock = PINNED / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        MODULES.mkdir(exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(PINNED / name, MODULES / name)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=MODULES, check=True)
        stamp.touch()
    return MODULES / "node_modules"


async def _seat(stack: Stack, count: int) -> tuple[list[str], list[str]]:
    """Four players logged in, seated at ``count`` started games: their cookies and the games."""
    players = [await Player(stack, name).login() for name in ("alice", "bob", "carol", "dave")]
    limit = asyncio.Semaphore(SEATING)

    async def one() -> str:
        async with limit:
            # target 121 and no napola: no table ends its match within the bench's moves
            created = await players[0].http.post("/api/games", json={"options": {"target_score": 121, "napola": False}})
            created.raise_for_status()
            lobby = created.json()
            for player in players[1:]:
                (await player.http.post("/api/games/join", json={"code": lobby["join_code"]})).raise_for_status()
            return str(lobby["id"])

    try:
        games = list(await asyncio.gather(*(one() for _ in range(count))))
        return [f"{COOKIE_NAME}={player.cookie}" for player in players], games
    finally:
        for player in players:
            await player.close()


@contextlib.contextmanager
def _bgio(folder: Path, modules: Path) -> Iterator[tuple[int, int]]:
    """boardgame.io's server, started as the peer's README says: its port and process id."""
    port = free_port()
    env = {**os.environ, "NODE_PATH": str(modules), "BGIO_PORT": str(port)}
    process = subprocess.Popen(["node", str(folder / "bgio" / "server.js")], env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "bgio server on PORT pid PID" once it listens
        if "bgio server on" not in line:
            raise RuntimeError(f"boardgame.io's server did not start: {line!r}")
        yield port, process.pid
    finally:
        process.terminate()
        process.wait(10)


def _run(folder: Path, modules: Path, load: Load, args: list[str]) -> dict:
    command = ["node", str(folder / "load.js"), "--tables", str(load.tables), "--moves", str(load.moves),
               "--label", load.name, *args]
    if load.rate:
        command += ["--rate", str(load.rate)]
    done = subprocess.run(command, env={**os.environ, "NODE_PATH": str(modules)}, capture_output=True,
                          text=True, timeout=RUN_TIMEOUT)
    if done.returncode != 0:
        raise RuntimeError(f"load.js {' '.join(args[:2])} {load.name} failed: {done.stderr.strip()[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["moves"] < load.tables * load.moves:
        raise RuntimeError(f"{load.name}: {result['moves']} moves of {load.tables * load.moves}")
    return result


def _pids(stack: Stack, redis_pid: int | None) -> str:
    named = [f"{name}:{process.pid}" for name, process in stack.processes.items()]
    return ",".join(named + ([f"redis:{redis_pid}"] if redis_pid else []))


@contextlib.contextmanager
def _redis() -> Iterator[tuple[dict[str, str], int | None]]:
    """A private redis-server (its CPU is the stack's alone) when there is one, else the shared one."""
    if shutil.which("redis-server") is None:
        yield {}, None
        return
    with redis_server() as (url, process):
        yield {"REDIS_URL": url}, process.pid


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def _print(rounds: list[dict[str, dict[str, dict]]]) -> None:
    print(f"   {'measure':<24} {'round':>5} {'tavolo':>10} {'boardgame.io':>13} {'ratio':>7}")
    for title, load, read, unit in MEASURES:
        ratios = []
        for number, results in enumerate(rounds, 1):
            ours, theirs = read(results[load]["tavolo"]), read(results[load]["bgio"])
            ratios.append(ours / theirs if theirs else float("inf"))
            print(f"   {title if number == 1 else '':<24} {number:>5} {_fmt(ours) + ' ' + unit:>10} "
                  f"{_fmt(theirs) + ' ' + unit:>13} {ratios[-1]:>6.2f}x")
        print(f"   {'':<24} {'range':>5} {'':>10} {'':>13} {min(ratios):.2f}x-{max(ratios):.2f}x")
    print("   tavolo CPU/move by process, ms (paced 100/s | closed loop), mean of the rounds:")
    for name in sorted(rounds[0]["paced100"]["tavolo"]["server_cpu_s"]):
        per = [sum(1000 * r[load]["tavolo"]["server_cpu_s"][name] / r[load]["tavolo"]["moves"] for r in rounds)
               / len(rounds) for load in ("paced100", "closed")]
        print(f"     {name:<12} {per[0]:6.2f} | {per[1]:6.2f}")
    errors = [(load, system, r[load][system]["errors"], r[load][system]["resends"], r[load][system]["stalls"])
              for r in rounds for load in r for system in r[load]]
    for load, system, codes, resends, stalls in errors:
        if codes or resends or stalls:
            print(f"   note: {system} {load}: errors {codes}, resends {resends}, stalls {stalls}")


def main() -> None:
    folder = peer_folder()
    if folder is None:
        print("   skipped: no peer bench (../shared/peer-bench beside the repository, or PEER_BENCH_DIR)")
        return
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("   skipped: the peer bench needs node and npm")
        return
    modules = _install()
    env = {"TURN_TIMEOUT_SECONDS": "3600", "HAND_ACK_TIMEOUT_SECONDS": "3600", "RATE_LIMIT_ENABLED": "false"}
    with (_redis() as (redis_env, redis_pid), real_stack({**env, **redis_env}, label="peer") as stack,
          tempfile.TemporaryDirectory() as scratch, _bgio(folder, modules) as (bgio_port, bgio_pid)):
        started = time.perf_counter()
        # the tables every round shares, then one table of its own a round for the long 1-table run
        cookies, games = asyncio.run(_seat(stack, TABLES + ROUNDS))
        print(f"   {TABLES + ROUNDS} tables seated in {time.perf_counter() - started:.1f} s", flush=True)
        database = stack.env["DATABASE_URL"].rsplit("/", 1)[-1].split("?")[0]
        gateway_port = stack.gateway_url.rsplit(":", 1)[-1].rstrip("/")
        tavolo_args = ["--system", "tavolo", "--port", gateway_port, "--pids", _pids(stack, redis_pid),
                       "--pgscan", database]
        bgio_args = ["--system", "bgio", "--port", str(bgio_port), "--pids", f"bgio:{bgio_pid}"]
        rounds: list[dict[str, dict[str, dict]]] = []
        for number in range(ROUNDS):
            results: dict[str, dict[str, dict]] = {}
            for load in LOADS:
                tables = games[TABLES + number:TABLES + number + 1] if load.tables == 1 else games[:TABLES]
                setup = Path(scratch) / f"{load.name}-{number}.json"
                setup.write_text(json.dumps({"cookies": cookies, "games": tables}))
                results[load.name] = {
                    "tavolo": _run(folder, modules, load, [*tavolo_args, "--setup", str(setup)]),
                    "bgio": _run(folder, modules, load, bgio_args),
                }
            rounds.append(results)
            print(f"   round {number + 1} done ({time.perf_counter() - started:.0f} s)", flush=True)
        _print(rounds)


if __name__ == "__main__":
    main()
