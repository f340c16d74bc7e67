"""Who deals first, over bots-only matches: each seat about a quarter of the time, and how often
the team that leads hand 1 wins.

Run from the repository root: ``python -m bench first_dealer``. Matches are played in process,
through the scopone engine and the bot levels, as new games are created (the options the game
service stores, with ``"first_dealer": "drawn"``), four bots of one level at the table, each
deciding from its own Knowledge. Seeds are fixed, so the figures repeat. BENCH_DEALER_MATCHES
sets the matches per level (default 1,000) and BENCH_DEALER_LEVELS the levels (default
principiante and esperto: a maestro match costs ~4 s); two worker processes play them.

With seat 0 always leading (before the draw), the leading team won 38 % (principiante) and 43 %
(esperto) of 1,000 such matches (issue 41): the dealer's team plays last and sweeps the last table
cards. The draw does not change that edge; it gives it to every seat alike.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from collections import Counter
from dataclasses import dataclass

from bench.bots_bench import T0, play_out, wilson
from bots.levels import level
from game.engine import team_of
from game.scopone import ScoponeEngine

WORKERS = 2
DEFAULT_MATCHES = 1000
DEFAULT_LEVELS = ("principiante", "esperto")
SHARE, TOLERANCE = 0.25, 0.04  # each seat deals first in 25 % ± 4 % of the matches


@dataclass(frozen=True)
class Match:
    dealer: int  # the seat that dealt hand 1, as the view showed it
    leader_won: bool  # the team of the seat that led hand 1 won the match


def play_match(task: tuple[str, int]) -> Match:
    """Match ``index`` of four bots of ``level_id``, to 11 with the new game's default options."""
    level_id, index = task
    engine = ScoponeEngine()
    choose = level(level_id).choose
    seed = hashlib.sha256(f"first-dealer-bench:{index}".encode()).digest()
    state = engine.new_state(engine.normalize_options({}), seed, T0)
    dealer = engine.view(state, 0)["dealer"]
    final = play_out(engine, state, lambda seat, knowledge: choose(knowledge))
    return Match(dealer, final["winner"] == team_of((dealer + 1) % 4))


def run_level(level_id: str, matches: int) -> list[Match]:
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        return pool.map(play_match, [(level_id, i) for i in range(matches)], chunksize=20)


def main() -> None:
    matches = int(os.environ.get("BENCH_DEALER_MATCHES", DEFAULT_MATCHES))
    levels = os.environ.get("BENCH_DEALER_LEVELS", ",".join(DEFAULT_LEVELS)).split(",")
    print(f"   {matches} matches to 11 per level (BENCH_DEALER_MATCHES), four bots of one level, "
          f"in {WORKERS} processes", flush=True)
    for level_id in levels:
        started = time.perf_counter()
        played = run_level(level_id, matches)
        shares = Counter(match.dealer for match in played)
        wins = sum(match.leader_won for match in played)
        low, high = wilson(wins, len(played))
        figures = ", ".join(f"seat {seat} {shares[seat] / len(played):.1%}" for seat in range(4))
        print(f"   {level_id}: first dealer {figures}; the team leading hand 1 won {wins / len(played):.1%} "
              f"(95 % CI {low:.1%}..{high:.1%}); {time.perf_counter() - started:.0f} s", flush=True)
        off = [seat for seat in range(4) if abs(shares[seat] / len(played) - SHARE) > TOLERANCE]
        if off:
            raise AssertionError(f"{level_id}: seats {off} dealt first outside {SHARE:.0%} ± {TOLERANCE:.0%}: "
                                 f"{dict(sorted(shares.items()))}")


if __name__ == "__main__":
    main()
