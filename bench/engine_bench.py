"""How fast the engines are: legal-move generation, decide and apply per move, a whole random match.

Run from the repository root: ``python -m bench.engine_bench [matches]``. The figures bound what a
table costs the game service per move (it also serializes the state, which this does not time).
"""

from __future__ import annotations

import json
import random
import sys
import time

from game.dummy import DummyEngine
from game.scopone import ScoponeEngine

T0 = 1_796_205_600_000


def random_match(engine: ScoponeEngine, seed: bytes, rng: random.Random) -> list[dict]:
    """Play a match with random legal plays and acknowledgements; return every state it went through."""
    state = engine.new_state({}, seed, T0)
    states = [state]
    now = T0
    while engine.status(state) != "finished":
        now += 1000
        if engine.status(state) == "playing":
            card, capture = rng.choice(engine.legal_plays(state))
            action = {"action": "play", "card": card, "capture": capture}
            move = engine.decide(state, engine.turn_seat(state), action, now)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = engine.decide(state, seat, {"action": "ack"}, now)
        state = engine.apply(state, move, now)
        states.append(state)
    return states


def per_call_us(calls: list, repeat: int = 3) -> float:
    """The best-of-``repeat`` mean time of the zero-argument callables, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for call in calls:
            call()
        best = min(best, time.perf_counter() - start)
    return best / len(calls) * 1e6


def main(matches: int = 200) -> None:
    engine = ScoponeEngine()
    rng = random.Random(2026)
    seeds = [rng.randbytes(32) for _ in range(matches)]

    start = time.perf_counter()
    runs = [random_match(engine, seed, random.Random(i)) for i, seed in enumerate(seeds)]
    match_ms = (time.perf_counter() - start) / matches * 1000

    playing = [s for run in runs for s in run if engine.status(s) == "playing"]
    moves = []
    for state in playing:
        card, capture = rng.choice(engine.legal_plays(state))
        action = {"action": "play", "card": card, "capture": capture}
        moves.append((state, action, engine.decide(state, state["turn"], action, T0)))

    legal_us = per_call_us([lambda s=s: engine.legal_plays(s) for s in playing])
    decide_us = per_call_us([lambda s=s, a=a: engine.decide(s, s["turn"], a, T0) for s, a, _ in moves])
    apply_us = per_call_us([lambda s=s, m=m: engine.apply(s, m, T0) for s, _, m in moves])
    fire_us = per_call_us([lambda s=s: engine.fire(s, engine.deadlines(s)[0].token, T0) for s in playing])
    view_us = per_call_us([lambda s=s: engine.view(s, 0) for s in playing[:2000]])
    json_us = per_call_us([lambda s=s: json.loads(json.dumps(s)) for s in playing[:2000]])
    state_bytes = sum(len(json.dumps(s)) for s in playing) / len(playing)

    dummy = DummyEngine()
    dstate = dummy.new_state({"target": 10**6}, seeds[0], T0)
    dmove = dummy.decide(dstate, 0, {"action": "add", "n": 1, "note": "x" * 16_000}, T0)
    dummy_apply_us = per_call_us([lambda: dummy.apply(dstate, dmove, T0)] * 5000)

    moves_per_match = sum(len(run) - 1 for run in runs) / matches
    hands_per_match = sum(run[-1]["hand_number"] for run in runs) / matches
    print(f"scopone, {matches} random matches (target 11), {len(playing)} plays measured")
    print(f"  legal-move generation     {legal_us:8.1f} µs/move")
    print(f"  decide (validate a play)  {decide_us:8.1f} µs/move")
    print(f"  apply                     {apply_us:8.1f} µs/move")
    print(f"  fire (auto-play choice)   {fire_us:8.1f} µs/move")
    print(f"  view (one seat)           {view_us:8.1f} µs")
    print(f"  state JSON round trip     {json_us:8.1f} µs ({state_bytes:.0f} bytes)")
    print(f"  whole random match        {match_ms:8.2f} ms ({moves_per_match:.0f} moves, {hands_per_match:.1f} hands)")
    print(f"dummy apply, 16,000-byte note {dummy_apply_us:6.1f} µs/move")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
