"""Player entropy in the scopone engine (CONTRACT.md, Fairness, "Player entropy"): the seeding
phase, its commits, reveals and deadlines, the deal key K and the contract's test vector.

The tables are built with the state module, with a seeding timeout of the tests' own."""

from __future__ import annotations

import copy
import hashlib

import pytest

from game import fairness
from game.engine import GameError
from game.scopone import state as table
from game.status import TableStatus
from tests.game.scopone_helpers import ENGINE, SEED, T0, TURN_MS

ENTROPY_MS = 10_000
VALUES = [bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32, bytes([4]) * 32]
# CONTRACT.md's vector: r_0..r_2 as VALUES, seat 3 withheld.
VECTOR_K = "2edb59735f8407f01c6aaec14f0b3318ada33b977ee4f42be863ac9951eb2495"
VECTOR_DEAL = [
    "01B 02B 03D 04C 04S 05B 05C 06C 07D 08C", "01C 01D 01S 02C 03C 05D 05S 06S 07C 09C",
    "02D 02S 03B 03S 06D 07S 08S 09B 09D 09S", "04B 04D 06B 07B 08B 08D 10B 10C 10D 10S",
]


def seeding():
    options = {"target_score": 11, "napola": True, "asso_pigliatutto": False, "player_entropy": True}
    return table.new_table(options, SEED, TURN_MS, 20_000, T0, ENTROPY_MS)


def act(state, seat, action, now=T0 + 1000):
    """decide + apply, as the game service does; the input state is never changed."""
    before = copy.deepcopy(state)
    move = ENGINE.decide(state, seat, action, now)
    after = ENGINE.apply(state, move, now)
    assert state == before
    return after, move


def commit(state, seat, now=T0 + 1000):
    return act(state, seat, {"action": "commit", "hash": hashlib.sha256(VALUES[seat]).hexdigest()}, now)[0]


def reveal(state, seat, now=T0 + 2000):
    return act(state, seat, {"action": "reveal", "value": VALUES[seat].hex()}, now)[0]


def fire(state, now):
    (deadline,) = ENGINE.deadlines(state)
    move = ENGINE.fire(state, deadline.token, now)
    assert (move.type, move.auto, move.random) == ("entropy_deadline", True, True)
    return ENGINE.apply(state, move, now)


def dealt(state):
    return [" ".join(sorted(hand)) for hand in state["hands"]]


def test_a_table_with_player_entropy_starts_seeding_with_its_commitment_shown():
    state = seeding()
    assert (state["status"], state["hand_number"], state["hands"]) == (TableStatus.SEEDING, 0, [[]] * 4)
    view = ENGINE.view(state, 2)
    assert view["status"] == "seeding" and view["hand"] == [] and view["turn"] is None
    assert view["entropy"] == {"phase": "commit", "committed": [], "revealed": [],
                               "deadline": "2026-12-02T10:00:10.000Z"}
    assert [d.kind for d in ENGINE.deadlines(state)] == ["entropy"]


def test_the_contract_vector_three_reveal_and_seat_3_withholds():
    state = seeding()
    for seat in range(4):
        state = commit(state, seat)
    assert ENGINE.view(state, 0)["entropy"]["phase"] == "reveal"
    assert ENGINE.view(state, 0)["entropy"]["committed"] == [0, 1, 2, 3]
    for seat in range(3):
        state = reveal(state, seat)
    assert ENGINE.view(state, 0)["entropy"]["revealed"] == [0, 1, 2]
    state = fire(state, T0 + 25_000)  # seat 3 keeps its value: the reveal time runs out
    assert state["key"] == VECTOR_K
    assert (state["status"], state["hand_number"], state["turn"]) == (TableStatus.PLAYING, 1, 0)
    assert dealt(state) == VECTOR_DEAL
    assert state["turn_deadline_ms"] == T0 + 25_000 + TURN_MS


def test_the_last_reveal_deals_at_once_and_draws_the_randomness():
    state = seeding()
    for seat in range(4):
        state = commit(state, seat)
    for seat in range(3):
        state, move = act(state, seat, {"action": "reveal", "value": VALUES[seat].hex()})
        assert move.random is False
    state, move = act(state, 3, {"action": "reveal", "value": VALUES[3].hex()})
    assert move.random is True and state["status"] == TableStatus.PLAYING
    assert state["key"] == hashlib.sha256(SEED + b"".join(VALUES)).hexdigest()


def test_a_seat_that_does_not_commit_contributes_zeros_and_the_others_reveal():
    state = seeding()
    state = commit(commit(state, 0), 2)
    state = fire(state, T0 + 10_000)  # commits close: seats 1 and 3 contribute zeros
    assert ENGINE.view(state, 1)["entropy"] == {"phase": "reveal", "committed": [0, 2], "revealed": [],
                                                "deadline": "2026-12-02T10:00:20.000Z"}
    state = reveal(reveal(state, 0), 2)
    zeros = bytes(32)
    assert state["key"] == hashlib.sha256(SEED + VALUES[0] + zeros + VALUES[2] + zeros).hexdigest()


def test_nobody_commits_and_the_deal_comes_at_the_commit_deadline():
    state = fire(seeding(), T0 + 10_000)
    assert state["status"] == TableStatus.PLAYING
    assert state["key"] == hashlib.sha256(SEED + bytes(128)).hexdigest()


def test_auto_plays_are_keyed_with_k_too():
    state = seeding()
    state = fire(state, T0 + 10_000)
    (deadline,) = ENGINE.deadlines(state)
    auto = ENGINE.fire(state, deadline.token, deadline.due_ms)
    plays = ENGINE.legal_plays(state)
    index = fairness.choose(bytes.fromhex(state["key"]), f"auto:{state['moves'] + 1}", len(plays))
    assert [auto.payload["card"], auto.payload["capture"]] == list(plays[index])


@pytest.mark.parametrize(("setup", "seat", "action", "code", "message"), [
    ("commit", 0, {"action": "play", "card": "01D"}, "illegal_move",
     "The cards are not dealt yet: commit, then reveal your value"),
    ("commit", 0, {"action": "commit", "hash": "ab"}, "bad_request",
     "'hash' must be 64 lowercase hex characters (32 bytes)"),
    ("commit", 0, {"action": "commit", "hash": "A" * 64}, "bad_request",
     "'hash' must be 64 lowercase hex characters (32 bytes)"),
    ("commit", 0, {"action": "reveal", "value": "00" * 32}, "illegal_move",
     "Reveal once every seat committed or the commit time ran out"),
    ("committed", 0, {"action": "commit", "hash": "00" * 32}, "illegal_move", "You already committed"),
    ("reveal", 0, {"action": "commit", "hash": "00" * 32}, "illegal_move",
     "Commitments are closed: reveal your value"),
    ("reveal", 0, {"action": "reveal", "value": VALUES[1].hex()}, "illegal_move",
     "That value does not match your commitment"),
    ("reveal", 1, {"action": "reveal", "value": VALUES[1].hex()}, "illegal_move",
     "You did not commit: your seat contributes zeros"),
    ("reveal", 0, {"action": "reveal", "value": 7}, "bad_request",
     "'value' must be 64 lowercase hex characters (32 bytes)"),
    ("revealed", 0, {"action": "reveal", "value": VALUES[0].hex()}, "illegal_move", "You already revealed"),
    ("commit", 0, {"action": "dance"}, "unknown_action",
     "Unknown action 'dance': expected 'play', 'ack', 'commit' or 'reveal'"),
])
def test_refusals_name_what_went_wrong(setup, seat, action, code, message):
    state = seeding()
    if setup == "committed":
        state = commit(state, 0)
    if setup in ("reveal", "revealed"):
        state = commit(commit(state, 0), 2)
        state = fire(state, T0 + 10_000)
    if setup == "revealed":
        state = reveal(state, 0)
    before = copy.deepcopy(state)
    with pytest.raises(GameError) as caught:
        ENGINE.decide(state, seat, action, T0 + 3000)
    assert (caught.value.code, caught.value.message) == (code, message)
    assert state == before


def test_a_game_without_the_option_has_no_seeding_phase():
    state = ENGINE.new_state({}, SEED, T0)
    assert state["status"] == TableStatus.PLAYING and state["key"] is None
    with pytest.raises(GameError) as caught:
        ENGINE.decide(state, 0, {"action": "commit", "hash": "00" * 32}, T0)
    assert caught.value.message == "This game has no seeding phase (the option player_entropy)"


def test_a_stale_entropy_deadline_fires_nothing():
    state = commit(seeding(), 0)
    (deadline,) = ENGINE.deadlines(state)
    state = commit(commit(commit(state, 1), 2), 3)  # the commit phase ended by itself
    assert ENGINE.fire(state, deadline.token, T0 + 10_000) is None


def test_the_log_replays_to_the_same_table():
    """Every seeding move applied again from a fresh table gives the same state (the log is the truth)."""
    state, moves = seeding(), []
    for seat in range(4):
        state, move = act(state, seat, {"action": "commit", "hash": hashlib.sha256(VALUES[seat]).hexdigest()})
        moves.append(move)
    for seat in (1, 3):
        state, move = act(state, seat, {"action": "reveal", "value": VALUES[seat].hex()})
        moves.append(move)
    replayed = seeding()
    for move in moves:
        replayed = ENGINE.apply(replayed, type(move).from_json(move.to_json()), T0 + 1000)
    assert replayed["entropy"] == state["entropy"] and replayed["moves"] == 6
