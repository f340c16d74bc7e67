"""The pace option: a daily table's every deadline is DAILY_TURN_HOURS, a live one's the seconds of
its kind; the pace is fixed when the table is made, and a game logged without it is live."""

from __future__ import annotations

import hashlib

from game.pace import DAILY, LIVE, Paces, Timeouts, pace_of
from game.scopone import ScoponeEngine
from game.status import TableStatus

from .scopone_helpers import SEED, T0

TURN_MS, ACK_MS, ENTROPY_MS, DAY_MS = 30_000, 20_000, 10_000, 86_400_000
ENGINE = ScoponeEngine(turn_timeout_ms=TURN_MS, hand_ack_timeout_ms=ACK_MS, entropy_timeout_ms=ENTROPY_MS,
                       daily_timeout_ms=DAY_MS)


def fire_due(state, now):
    [deadline] = ENGINE.deadlines(state)
    return ENGINE.apply(state, ENGINE.fire(state, deadline.token, now), now)


def deadline_lengths(options):
    """The (kind, length) of every deadline a table with these options meets through seeding (seat
    0 commits, so that there is a reveal phase), the turns of hand 1 and its hand end, each fired
    at the moment it was set."""
    state, now, seen = ENGINE.new_state(options, SEED, T0), T0, []
    if state["status"] == TableStatus.SEEDING:
        commit = ENGINE.decide(state, 0, {"action": "commit", "hash": hashlib.sha256(bytes(32)).hexdigest()}, now)
        state = ENGINE.apply(state, commit, now)
    while state["hand_number"] < 2:
        [deadline] = ENGINE.deadlines(state)
        seen.append((deadline.kind, deadline.due_ms - now))
        now += 7
        state = fire_due(state, now)
    return seen


def test_a_daily_tables_every_deadline_is_the_daily_length():
    seen = deadline_lengths({"pace": DAILY, "player_entropy": True})
    assert {kind for kind, _ in seen} == {"entropy", "turn", "hand_end"}
    assert [kind for kind, _ in seen].count("entropy") == 2  # commit, then reveal
    assert {length for _, length in seen} == {DAY_MS}


def test_a_live_tables_deadlines_are_the_seconds_of_each_kind():
    seen = dict(deadline_lengths({"pace": LIVE, "player_entropy": True}))
    assert seen == {"entropy": ENTROPY_MS, "turn": TURN_MS, "hand_end": ACK_MS}


def test_a_new_games_options_carry_the_pace_and_its_views_show_a_day_ahead():
    state = ENGINE.new_state(ENGINE.normalize_options({"pace": DAILY}), SEED, T0)
    assert state["options"]["pace"] == DAILY
    assert ENGINE.view(state, ENGINE.turn_seat(state))["turn_deadline"] == "2026-12-03T10:00:00.000Z"


def test_a_game_logged_without_the_pace_replays_live():
    old = {"target_score": 11, "napola": True, "asso_pigliatutto": False, "player_entropy": False}
    state = ENGINE.new_state(old, SEED, T0)
    assert "pace" not in state["options"] and pace_of(state["options"]) == LIVE
    assert ENGINE.deadlines(state)[0].due_ms == T0 + TURN_MS


def test_the_pace_is_fixed_at_creation():
    """The lengths are the table's: an engine set up with other ones (a restart with another
    DAILY_TURN_HOURS) keeps a daily table's day."""
    state = ENGINE.new_state({"pace": DAILY}, SEED, T0)
    later = ScoponeEngine(daily_timeout_ms=3_600_000)
    state = later.apply(state, later.fire(state, later.deadlines(state)[0].token, T0 + 5), T0 + 5)
    assert later.status(state) == TableStatus.PLAYING
    assert later.deadlines(state)[0].due_ms == T0 + 5 + DAY_MS


def test_paces_turn_options_into_lengths():
    paces = Paces(Timeouts(1, 2, 3), daily_ms=9)
    assert paces.timeouts({"pace": "daily"}) == Timeouts(9, 9, 9)
    assert paces.timeouts({"pace": "live"}) == paces.timeouts({}) == paces.timeouts(None) == Timeouts(1, 2, 3)
    assert pace_of({"pace": "weekly"}) == LIVE  # only a known daily is daily (options are checked before)
