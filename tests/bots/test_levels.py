"""The bot levels: legal, deterministic, blind to hidden cards, and playing the rules they document."""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Callable

import pytest

from bots.knowledge import Knowledge, Play, knowledge_from_view
from bots.levels import LEVELS, counting, esperto, level, maestro, principiante
from game.scopone import ScoponeEngine, rules

T0 = 1_796_205_600_000
ENGINE = ScoponeEngine()
QUICK_MAESTRO = functools.partial(maestro.choose, work=2_000)
QUICK: dict[str, Callable[[Knowledge], tuple[str, list[str]]]] = {"principiante": principiante.choose, "esperto": esperto.choose, "maestro": QUICK_MAESTRO}


def _log_entry(log: list[dict], move) -> None:
    log.append({"number": len(log) + 1, "type": move.type, "seat": None if move.seat is None else f"seat:{move.seat}",
                "payload": move.payload, "auto": move.auto})


def _positions(seed: int, options: dict, count: int) -> list[tuple[dict, list[dict]]]:
    """(state, public log) of ``count`` turns of a seeded match played by random legal plays and acks."""
    rng = random.Random(seed)
    state = ENGINE.new_state(options, hashlib.sha256(f"bots-test:{seed}".encode()).digest(), T0)
    log: list[dict] = []
    out: list[tuple[dict, list[dict]]] = []
    while ENGINE.status(state) != "finished" and len(out) < count:
        if ENGINE.status(state) == "playing":
            out.append((state, list(log)))
            card, capture = rng.choice(ENGINE.legal_plays(state))
            move = ENGINE.decide(state, state["turn"], {"action": "play", "card": card, "capture": capture}, T0)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = ENGINE.decide(state, seat, {"action": "ack"}, T0)
        state = ENGINE.apply(state, move, T0)
        _log_entry(log, move)
    return out


def _knowledge(state: dict, log: list[dict]) -> Knowledge:
    return knowledge_from_view(ENGINE.view(state, state["turn"]), log)


def _crafted(seat: int, hand: list[str], table: list[str], plays: list[Play], counts: tuple[int, int, int, int],
             options: dict | None = None) -> Knowledge:
    """A Knowledge built by hand, its `legal` computed by the engine's rules as the view does."""
    opts = {"target_score": 11, "napola": True, "asso_pigliatutto": False, **(options or {})}
    legal = tuple(
        (card, tuple(tuple(c) for c in sorted(sorted(c) for c in rules.captures(card, table, opts["asso_pigliatutto"]))))
        for card in sorted(hand)
    )
    return Knowledge(seat, tuple(sorted(hand)), tuple(sorted(table)), tuple(plays), counts, {"A": 0, "B": 0}, opts, legal)


def test_levels_are_the_contract_bot_levels_weakest_first():
    assert [(lv.id, lv.name) for lv in LEVELS] == [("principiante", "Beginner"), ("esperto", "Expert"), ("maestro", "Master")]
    assert level("esperto") is LEVELS[1]
    with pytest.raises(KeyError):
        level("campione")


@pytest.mark.parametrize("options", [{}, {"asso_pigliatutto": True}, {"napola": False, "target_score": 1}])
def test_every_level_plays_a_legal_move_in_random_positions(options):
    for seed in range(2):
        for state, log in _positions(seed, options, 100):
            knowledge = _knowledge(state, log)
            for name, choose in QUICK.items():
                card, capture = choose(knowledge)
                assert (card, capture) in ENGINE.legal_plays(state), (name, knowledge)
                ENGINE.decide(state, state["turn"], {"action": "play", "card": card, "capture": capture}, T0)


def test_the_service_budget_of_every_level_plays_legal_moves():
    for state, log in _positions(7, {}, 40)[::8]:
        knowledge = _knowledge(state, log)
        for lv in LEVELS:
            assert lv.choose(knowledge) in ENGINE.legal_plays(state)


def test_knowledge_holds_exactly_the_current_hands_plays():
    state = ENGINE.new_state({}, bytes(range(32)), T0)
    log: list[dict] = [{"number": 1, "type": "commit", "seat": "seat:0", "payload": {"hash": "00" * 32}, "auto": False}]
    rng = random.Random(1)
    while state["hand_number"] == 1 or state["plays"] < 6:
        if ENGINE.status(state) == "playing":
            card, capture = rng.choice(ENGINE.legal_plays(state))
            move = ENGINE.decide(state, state["turn"], {"action": "play", "card": card, "capture": capture}, T0)
        else:
            seat = next(s for s in range(4) if s not in state["acknowledged"])
            move = ENGINE.decide(state, seat, {"action": "ack"}, T0)
        state = ENGINE.apply(state, move, T0)
        _log_entry(log, move)
    # A hand-end continue from the deadline, as the log may hold one between hands, changes nothing.
    log.insert(-6, {"number": 0, "type": "continue", "seat": None, "payload": {}, "auto": True})
    knowledge = _knowledge(state, log)
    assert knowledge.seat == state["turn"] == (1 + 6) % 4  # hand 2 is led by seat 1
    expected = [(e["seat"], e["payload"]["card"], tuple(e["payload"]["capture"])) for e in log[-6:]]
    assert [(f"seat:{p.seat}", p.card, p.capture) for p in knowledge.plays] == expected
    assert knowledge.hand == tuple(state["hands"][knowledge.seat])
    assert knowledge.table == tuple(state["table"])
    assert sum(knowledge.card_counts) == 34
    assert knowledge.scores == state["scores"]


def test_knowledge_needs_the_seats_turn_and_its_plays():
    state, log = _positions(3, {}, 5)[-1]
    with pytest.raises(ValueError, match="your_turn"):
        knowledge_from_view(ENGINE.view(state, (state["turn"] + 1) % 4), log)
    with pytest.raises(ValueError, match="fewer than"):
        knowledge_from_view(ENGINE.view(state, state["turn"]), log[:-1])


def test_a_decision_ignores_the_cards_the_seat_cannot_see():
    for state, log in _positions(11, {}, 80)[4::6]:
        seat = state["turn"]
        a, b = (seat + 1) % 4, (seat + 3) % 4
        if not state["hands"][a] or not state["hands"][b]:
            continue
        swapped = dict(state)
        swapped["hands"] = [list(h) for h in state["hands"]]
        swapped["hands"][a][0], swapped["hands"][b][0] = state["hands"][b][0], state["hands"][a][0]
        one, other = _knowledge(state, log), _knowledge(swapped, log)
        assert one == other
        for choose in QUICK.values():
            assert choose(one) == choose(other)


def test_principiante_takes_the_settebello_when_it_can():
    plays = [Play(1, "07D", ()), Play(2, "08C", ()), Play(3, "06S", ())]
    hand = ["07B", "06B", "01C", "02C", "04C", "05C", "09C", "10C", "03S", "02S"]
    knowledge = _crafted(0, hand, ["07D", "08C", "06S"], plays, (10, 9, 9, 9))
    assert principiante.choose(knowledge) == ("07B", ["07D"])


def test_principiante_keeps_the_settebello_rather_than_lay_it_down():
    knowledge = _crafted(0, ["07D", "08S"], ["02C", "09B"], [], (2, 2, 2, 2))
    assert principiante.choose(knowledge) == ("08S", [])


def test_principiante_gives_up_a_capture_that_leaves_a_sweepable_table():
    # 06B must take 06S and leave the 2 alone, which any unseen 2 sweeps; laying the re leaves 18.
    knowledge = _crafted(0, ["06B", "10C"], ["02C", "06S"], [], (2, 2, 2, 2))
    assert principiante.choose(knowledge) == ("10C", [])


def test_esperto_answers_the_partners_lead_with_the_same_rank():
    # Seat 0 led the 4 of coppe onto the empty table ("accusa": he holds another 4); seat 1 took it
    # for a scopa. Seat 2 must lay a card on the empty table: by the count the 4 of denari and any
    # of its 8s have one unseen copy each and the 8s are worth less, but the last 4 is the partner's
    # by his signal, so the expert answers with the 4 ("rispondere") and the partner can take it back.
    plays = [Play(0, "04C", ()), Play(1, "04S", ("04C",))]
    hand = ["04D", "08B", "08C", "08S", "10C", "10B", "06C", "05B", "03C", "02B"]
    knowledge = _crafted(2, hand, [], plays, (9, 9, 10, 10))
    assert esperto.choose(knowledge) == ("04D", [])
    assert principiante.choose(knowledge) != ("04D", [])


def test_maestro_is_deterministic():
    state, log = _positions(5, {}, 30)[-1]
    knowledge = _knowledge(state, log)
    assert QUICK_MAESTRO(knowledge) == QUICK_MAESTRO(knowledge)


def test_maestro_takes_a_sure_scopa():
    plays = [Play(2, "02D", ()), Play(3, "03B", ())]
    hand = ["05C", "09B", "02S", "03C", "06S", "07S", "08S", "10S", "10B", "01S"]
    knowledge = _crafted(0, hand, ["02D", "03B"], plays, (10, 10, 9, 9))
    assert QUICK_MAESTRO(knowledge) == ("05C", ["02D", "03B"])


def test_bots_read_who_leads_from_the_plays_whoever_dealt():
    """The first dealer is drawn (CONTRACT "Turns and deadlines"): with the contract's seed seat 1
    deals and seat 2 leads, and every level plays a whole hand from there, each seat counting the
    hand's leader (its team is the coppia di mano) from the public plays, not from seat 0."""
    state = ENGINE.new_state(ENGINE.normalize_options({}), bytes(range(32)), T0)
    log: list[dict] = []
    choosers = [QUICK["principiante"], QUICK["esperto"], QUICK["maestro"], QUICK["esperto"]]
    while ENGINE.status(state) == "playing":
        seat = state["turn"]
        knowledge = _knowledge(state, log)
        assert counting.read(knowledge).leader == 2
        card, capture = choosers[seat](knowledge)
        move = ENGINE.decide(state, seat, {"action": "play", "card": card, "capture": capture}, T0)
        state = ENGINE.apply(state, move, T0)
        _log_entry(log, move)
    assert [entry["seat"] for entry in log[:4]] == ["seat:2", "seat:3", "seat:0", "seat:1"]
    assert len(log) == 40
