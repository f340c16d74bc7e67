"""Whom a daily table waits for (game.turn_notices): the seats a change made the table wait for,
announced once each; a live table never announces; the entries read back as they were written,
and one that is not a notice reads as None."""

from __future__ import annotations

import copy
import hashlib

from game.live import Live
from game.scopone import state as table
from game.status import TableStatus
from game.turn_notices import TurnNotice, notices
from tests.game.scopone_helpers import ENGINE, SEED, T0, TURN_MS, ack, crafted, play

HANDS = [["01B", "02B"], ["01C", "02C"], ["01D", "02D"], ["01S", "02S"]]


def live(state, revision: int, daily: bool = True) -> Live:
    state = copy.deepcopy(state)
    if daily:
        state["options"]["pace"] = "daily"
    return Live("t1", "scopone", ("seat:0", "seat:1", "seat:2", "seat:3"), "c", T0, state,
                revision, revision, ENGINE.status(state), T0)


def test_the_turn_passing_announces_the_next_seat_with_its_deadline():
    before = crafted(HANDS, table=["07S"], turn=0)
    after = play(before, 0, "01B")
    found = notices(ENGINE, live(before, 4), live(after, 5))
    assert found == [TurnNotice("t1", 1, 5, after["turn_deadline_ms"], "scopone")]
    assert after["turn_deadline_ms"] > T0


def test_a_live_table_never_announces():
    before = crafted(HANDS, table=["07S"], turn=0)
    after = play(before, 0, "01B")
    assert notices(ENGINE, live(before, 4, daily=False), live(after, 5, daily=False)) == []
    assert notices(ENGINE, None, live(after, 5, daily=False)) == []


def test_a_change_that_leaves_the_same_seat_waiting_announces_nothing():
    state = crafted(HANDS, table=["07S"], turn=2)
    assert notices(ENGINE, live(state, 4), live(state, 5)) == []


def test_a_new_table_and_a_take_back_announce_whoever_is_awaited():
    state = crafted(HANDS, table=["07S"], turn=3)
    assert [n.seat for n in notices(ENGINE, None, live(state, 0))] == [3]
    # A take-back goes to an older state at a newer revision: told again.
    assert [n.seat for n in notices(ENGINE, live(state, 6), live(state, 6))] == [3]


def test_a_hand_end_waits_for_nobody_and_the_next_hand_announces_its_first_player():
    last = crafted([["01B"], ["01C"], ["01D"], ["01S"]], table=["07S"], turn=0)
    state = last
    for seat in range(4):
        card, capture = ENGINE.legal_plays(state)[0]
        state = play(state, seat, card, capture)
    assert state["status"] == TableStatus.HAND_END
    assert notices(ENGINE, live(last, 4), live(state, 8)) == []
    dealt = state
    for seat in range(4):
        dealt = ack(dealt, seat)
    assert dealt["status"] == TableStatus.PLAYING
    found = notices(ENGINE, live(state, 8), live(dealt, 12))
    assert [n.seat for n in found] == [dealt["turn"]]


def test_player_entropy_announces_the_seats_each_phase_needs():
    seeding = table.new_table({"target_score": 11, "napola": True, "asso_pigliatutto": False,
                               "player_entropy": True}, SEED, TURN_MS, 20_000, T0, 10_000)
    assert [n.seat for n in notices(ENGINE, None, live(seeding, 0))] == [0, 1, 2, 3]
    values = [bytes([seat + 1]) * 32 for seat in range(4)]
    state = seeding
    for seat in (0, 1, 2):
        previous = state
        move = ENGINE.decide(state, seat, {"action": "commit",
                                           "hash": hashlib.sha256(values[seat]).hexdigest()}, T0)
        state = ENGINE.apply(state, move, T0)
        assert notices(ENGINE, live(previous, seat), live(state, seat + 1)) == []  # still waiting for 3
    # The commit time runs out: the three who committed must reveal; seat 3 has nothing to do.
    closed = ENGINE.apply(state, ENGINE.fire(state, ENGINE.deadlines(state)[0].token, T0 + 10_000), T0 + 10_000)
    found = notices(ENGINE, live(state, 3), live(closed, 4))
    assert [n.seat for n in found] == [0, 1, 2]
    assert {n.deadline_ms for n in found} == {closed["entropy"]["deadline_ms"]}


def test_an_entry_reads_back_as_written_and_anything_else_as_none():
    notice = TurnNotice("t1", 2, 17, T0, "scopone")
    assert TurnNotice.from_fields(notice.fields()) == notice
    assert TurnNotice.from_fields({k.encode(): v.encode() for k, v in notice.fields().items()}) == notice
    for broken in ({}, {**notice.fields(), "seat": "two"}, {**notice.fields(), "table": ""},
                   {**notice.fields(), "seat": "-1"}):
        assert TurnNotice.from_fields(broken) is None
