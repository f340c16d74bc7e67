"""The analysis of a match (bots.analysis): what one costs, and whether its verdicts make sense.

Run from the repository root: ``python -m bench analysis``. For each bot level, seeded matches to
11 (the default options) where all four seats play that level, in process on the scopone engine
(the maestro with the bench's smaller budget, as bench/bots_bench.py plays it); then every seat
of every match is analysed as the service analyses one (ANALYSIS_WORK simulated plays per
position, one process, one core). It prints the CPU seconds of one seat's analysis (what one
request costs the worker: the target is at most 30 s), and each level's share of every verdict:
a principiante should blunder far more often than a maestro. BENCH_ANALYSIS_MATCHES sets the
matches per level (default 2).
"""

from __future__ import annotations

import functools
import hashlib
import os
import statistics
import time
from collections import Counter

from bench.bots_bench import T0
from bots.analysis import judge, match
from bots.knowledge import Knowledge, knowledge_from_view
from bots.levels import esperto, maestro, principiante
from game.scopone import ScoponeEngine

DEFAULT_MATCHES = 2
MAESTRO_WORK = 20_000  # bench/bots_bench.py's BENCH_WORK
TARGET_S = 30.0
VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder")
LEVELS = {
    "principiante": principiante.choose,
    "esperto": esperto.choose,
    "maestro": functools.partial(maestro.choose, work=MAESTRO_WORK),
}


def played_match(level: str, index: int) -> tuple[list[dict], dict, int]:
    """(the public log, the options, hands) of a match to 11 between four bots of ``level``."""
    engine = ScoponeEngine()
    state = engine.new_state({}, hashlib.sha256(f"analysis-bench:{level}:{index}".encode()).digest(), T0)
    choose = LEVELS[level]
    moves: list[dict] = []
    now = T0
    while engine.status(state) != "finished":
        now += 1000
        if engine.status(state) == "playing":
            seat = state["turn"]
            knowledge: Knowledge = knowledge_from_view(engine.view(state, seat), moves)
            card, capture = choose(knowledge)
            move = engine.decide(state, seat, {"action": "play", "card": card, "capture": capture}, now)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = engine.decide(state, seat, {"action": "ack"}, now)
        state = engine.apply(state, move, now)
        moves.append({"number": len(moves) + 1, "type": move.type, "seat": f"seat:{move.seat}",
                      "payload": move.payload, "auto": move.auto})
    return moves, dict(state["options"]), int(state["hand_number"])


def main() -> None:
    matches = int(os.environ.get("BENCH_ANALYSIS_MATCHES", DEFAULT_MATCHES))
    settings = match.Settings(work=int(os.environ.get("ANALYSIS_WORK", judge.WORK)))
    print(f"   {matches} matches to 11 per level, every seat analysed at {settings.work:,} simulated plays a "
          f"position; thresholds: good < {judge.GOOD_BELOW}, inaccuracy < {judge.INACCURACY_BELOW}, "
          f"mistake < {judge.MISTAKE_BELOW} <= blunder (expected points)")
    seconds: list[float] = []
    hands: list[int] = []
    for level in LEVELS:
        verdicts: Counter[str] = Counter()
        accuracy: list[int] = []
        losses: list[float] = []
        for index in range(matches):
            moves, options, hand_count = played_match(level, index)
            hands.append(hand_count)
            for seat in range(4):
                started = time.process_time()
                result = match.analyse(moves, options, seat, settings)
                seconds.append(time.process_time() - started)
                verdicts.update(p["verdict"] for p in result["plays"] if not p["auto"])
                losses.extend(p["loss"] for p in result["plays"] if not p["auto"])
                accuracy.append(result["summary"]["accuracy"])
        total = sum(verdicts.values())
        shares = "  ".join(f"{v} {100 * verdicts[v] / total:4.1f}%" for v in VERDICTS)
        print(f"   {level:<12} {total:4d} plays  {shares}  mean loss {statistics.mean(losses):.3f}  "
              f"accuracy {statistics.mean(accuracy):.0f}", flush=True)
    worst = max(seconds)
    print(f"   one seat's analysis: median {statistics.median(seconds):.1f} s, max {worst:.1f} s of CPU "
          f"(matches of {min(hands)}..{max(hands)} hands; target <= {TARGET_S:.0f} s): "
          f"{'ok' if worst <= TARGET_S else 'OVER'}")
