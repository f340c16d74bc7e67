"""The engine leaves nothing for the garbage collector: what a move allocates is freed by
reference counting, so the game service's young collections stay rare (docs/performance.md)."""

from __future__ import annotations

import gc

from game.scopone import rules
from tests.game.scopone_helpers import ENGINE, SEED, random_match


def test_a_whole_match_with_every_seats_view_makes_no_reference_cycle():
    def views(state, rng):
        for seat in (0, 1, 2, 3, None):
            ENGINE.view(state, seat)

    gc.collect()
    gc.disable()
    try:
        random_match(SEED, {"asso_pigliatutto": True}, choices=45, on_step=views)
        assert gc.collect() == 0  # nothing unreachable was left to the collector
    finally:
        gc.enable()


def test_finding_the_captures_by_sums_makes_no_reference_cycle():
    gc.collect()
    gc.disable()
    try:
        found = rules.combinations(["01C", "02D", "03S", "04B", "05C", "06D"], 7)
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert found == [["01C", "02D", "04B"], ["01C", "06D"], ["02D", "05C"], ["03S", "04B"]]
