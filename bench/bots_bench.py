"""The bots' strength ladder: seeded bot-vs-bot matches, in process, on the scopone engine.

Run from the repository root: ``python -m bench bots``. Every seat decides from its own
Knowledge only (``knowledge_from_view`` of its view and of the public move log, built as the log
gives it). A pairing plays each deal twice with the teams swapped, so that neither level gets the
better cards; a match is a whole match to 11 (the default options). BENCH_BOT_MATCHES sets the
total number of matches (default 2,000), shared among the pairings as PAIRINGS says; two worker
processes play them.

The maestro plays its matches with a smaller budget than the service's (BENCH_WORK simulated
plays per decision instead of maestro.WORK), so that the ladder fits in the bench's time: its win
rates are those of a weaker maestro. Its decision time is measured with the service budget, on
every position of TIMED_HANDS hands, one decision at a time in one process as the service makes
them (a decision's CPU time grows by half when the machine's other core is busy too). A decision's
CPU time is measured with the garbage collector paused, so that collecting the engine's own
garbage is not billed to the bot; a principiante decision over its 1 ms is timed twice more and
its best time kept (the CPU clock of a virtual machine runs on while the host takes the core
away), and the bench prints how many were, with their first times.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from bots.knowledge import Knowledge, knowledge_from_view
from bots.levels import esperto, maestro, principiante
from game.scopone import ScoponeEngine

T0 = 1_796_205_600_000
WORKERS = 2
DEFAULT_MATCHES = 2000
BENCH_WORK = 20_000
TIMED_HANDS = 12
# (strong, weak, share of the matches, the win rate the strong level must reach). A maestro
# match costs ~4 s of CPU at BENCH_WORK, an esperto one ~0.05 s: the whole bench takes ~12 minutes
# on this 2-core machine at a load average of 3, ~21 at a load average of 10.
PAIRINGS = (
    ("esperto", "principiante", 0.88, 0.60),
    ("maestro", "esperto", 0.10, 0.55),
    ("maestro", "principiante", 0.02, 0.60),
)
PRINCIPIANTE_LIMIT_S = 0.001  # every decision
MAESTRO_LIMITS_S = (0.250, 1.0)  # median, p99

Chooser = Callable[[Knowledge], tuple[str, list[str]]]


def _choosers() -> dict[str, Chooser]:
    return {
        "principiante": principiante.choose,
        "esperto": esperto.choose,
        "maestro": functools.partial(maestro.choose, work=BENCH_WORK),
    }


@dataclass
class Outcome:
    wins: int  # matches the strong level won
    matches: int
    seconds: dict[str, list[float]]  # decision CPU seconds per level


def play_match(engine: ScoponeEngine, seed: bytes, seats: list[str], choosers: dict[str, Chooser],
               seconds: dict[str, list[float]]) -> str:
    """One match to 11; ``seats[s]`` is the level of seat s. Returns the winning team."""

    def decide(seat: int, knowledge: Knowledge) -> tuple[str, list[str]]:
        name = seats[seat]
        card, capture, spent = _timed(choosers[name], knowledge)
        if name == "principiante" and spent > PRINCIPIANTE_LIMIT_S:
            # A virtual machine's CPU clock also runs while the host has taken the core away:
            # a deterministic decision that reads slow is timed again, and the best time kept.
            seconds["principiante over the limit at first"].append(spent)
            spent = min(spent, *(_timed(choosers[name], knowledge)[2] for _ in range(2)))
        seconds[name].append(spent)
        return card, capture

    return play_out(engine, engine.new_state({}, seed, T0), decide)["winner"]


def play_out(engine: ScoponeEngine, state: dict, decide: Callable[[int, Knowledge], tuple[str, list[str]]]) -> dict:
    """Play ``state`` to its end: the seat on turn plays what ``decide(seat, its Knowledge)``
    says, and every hand end is acknowledged at once. Returns the finished state."""
    log: list[dict] = []
    now = T0
    while engine.status(state) != "finished":
        now += 1000
        if engine.status(state) == "playing":
            seat = state["turn"]
            card, capture = decide(seat, knowledge_from_view(engine.view(state, seat), log))
            move = engine.decide(state, seat, {"action": "play", "card": card, "capture": capture}, now)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = engine.decide(state, seat, {"action": "ack"}, now)
        state = engine.apply(state, move, now)
        log.append({"number": len(log) + 1, "type": move.type, "seat": f"seat:{move.seat}",
                    "payload": move.payload, "auto": move.auto})
    return state


def _timed(choose: Chooser, knowledge: Knowledge) -> tuple[str, list[str], float]:
    """(card, capture, CPU seconds) of one decision, timed with the garbage collector paused."""
    gc.disable()
    try:
        started = time.process_time()
        card, capture = choose(knowledge)
        return card, capture, time.process_time() - started
    finally:
        gc.enable()


def _deal(task: tuple[str, str, int]) -> Outcome:
    """Deal ``index`` of a pairing, played twice: the strong level as team A, then as team B."""
    strong, weak, index = task
    engine = ScoponeEngine()
    seed = hashlib.sha256(f"bots-bench:{index}".encode()).digest()
    choosers = _choosers()
    seconds: dict[str, list[float]] = {strong: [], weak: [], "principiante over the limit at first": []}
    wins = 0
    for strong_team in ("A", "B"):
        seats = [strong if (s % 2 == 0) == (strong_team == "A") else weak for s in range(4)]
        wins += play_match(engine, seed, seats, choosers, seconds) == strong_team
    return Outcome(wins, 2, seconds)


def run_pairing(strong: str, weak: str, deals: int) -> Outcome:
    total = Outcome(0, 0, {})
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        for outcome in pool.imap_unordered(_deal, [(strong, weak, i) for i in range(deals)]):
            total.wins += outcome.wins
            total.matches += outcome.matches
            for name, values in outcome.seconds.items():
                total.seconds.setdefault(name, []).extend(values)
    return total


def _timed_hand(index: int) -> list[float]:
    """The maestro's CPU time, at the service budget, at every position of one hand esperto plays."""
    engine = ScoponeEngine()
    state = engine.new_state({}, hashlib.sha256(f"bots-bench-timing:{index}".encode()).digest(), T0)
    log: list[dict] = []
    seconds = []
    while engine.status(state) == "playing":
        seat = state["turn"]
        knowledge = knowledge_from_view(engine.view(state, seat), log)
        seconds.append(_timed(maestro.choose, knowledge)[2])
        card, capture = esperto.choose(knowledge)
        move = engine.decide(state, seat, {"action": "play", "card": card, "capture": capture}, T0)
        state = engine.apply(state, move, T0)
        log.append({"number": len(log) + 1, "type": move.type, "seat": f"seat:{move.seat}",
                    "payload": move.payload, "auto": move.auto})
    return seconds


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _pct(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(percent / 100 * (len(ordered) - 1)))]


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _times(values: list[float]) -> tuple[float, float, float, str]:
    """(median, p99, max) in ms, and the line's figures."""
    median, p99, worst = _pct(values, 50) * 1000, _pct(values, 99) * 1000, max(values) * 1000
    return median, p99, worst, (f"median {median:.3f} ms, p99 {p99:.3f} ms, max {worst:.3f} ms "
                                f"({len(values)} decisions)")


def main() -> None:
    total = int(os.environ.get("BENCH_BOT_MATCHES", DEFAULT_MATCHES))
    print(f"   {total} matches to 11 (BENCH_BOT_MATCHES) in {WORKERS} processes; the maestro plays them with "
          f"{BENCH_WORK:,} simulated plays per decision (service default {maestro.WORK:,}, "
          f"CPU stop {maestro.BUDGET_S * 1000:.0f} ms)", flush=True)
    timings: dict[str, list[float]] = {"principiante": [], "esperto": [], "maestro": [],
                                       "principiante over the limit at first": []}
    for strong, weak, share, target in PAIRINGS:
        deals = max(1, round(total * share / 2))
        started = time.perf_counter()
        outcome = run_pairing(strong, weak, deals)
        low, high = wilson(outcome.wins, outcome.matches)
        rate = outcome.wins / outcome.matches
        print(f"   {strong} vs {weak}: won {rate:.1%} (95 % CI {low:.1%}..{high:.1%}) of {outcome.matches} "
              f"matches in {time.perf_counter() - started:.0f} s; target >= {target:.0%}: {_met(rate >= target)}",
              flush=True)
        for name, values in outcome.seconds.items():
            timings[name].extend(values)
    _, _, worst, figures = _times(timings["principiante"])
    slow = timings["principiante over the limit at first"]
    print(f"   principiante decision CPU: {figures}; {len(slow)} timed again (first "
          f"{', '.join(f'{s * 1000:.2f}' for s in sorted(slow)[-5:]) or '-'} ms); target every decision <= "
          f"{PRINCIPIANTE_LIMIT_S * 1000:.0f} ms: {_met(worst <= PRINCIPIANTE_LIMIT_S * 1000)}")
    print(f"   esperto decision CPU: {_times(timings['esperto'])[3]}; no target")
    print(f"   maestro decision CPU at the bench budget ({BENCH_WORK:,} plays): {_times(timings['maestro'])[3]}; "
          f"no target")
    started = time.perf_counter()
    service = [s for index in range(TIMED_HANDS) for s in _timed_hand(index)]
    median, p99, _, figures = _times(service)
    limit_median, limit_p99 = MAESTRO_LIMITS_S
    print(f"   maestro decision CPU at the service budget ({maestro.WORK:,} plays), every position of "
          f"{TIMED_HANDS} hands: {figures}, {time.perf_counter() - started:.0f} s; target median <= "
          f"{limit_median * 1000:.0f} ms and p99 <= {limit_p99 * 1000:.0f} ms: "
          f"{_met(median <= limit_median * 1000 and p99 <= limit_p99 * 1000)}", flush=True)


if __name__ == "__main__":
    main()
