"""The analysis of a match (bots.analysis): each play judged from the seat's information alone.

The honesty checks: the Knowledge the analysis rebuilds at a play is the very Knowledge the
seat's bot decided from; swapping the cards the seat could not see between the other hands
(the log's past unchanged, the rest of the hand played out differently) changes neither that
Knowledge nor the verdict; a play that was the only legal one is best with loss 0.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.analysis import judge, match, positions
from bots.analysis.positions import UnreadableLog
from game.scopone.cards import DECK
from tests.bots.analysis_helpers import play_match, random_hand

FAST = match.Settings(work=4_000, max_samples=60)
OPTIONS = {"target_score": 11, "napola": True, "asso_pigliatutto": False}


@pytest.fixture(scope="module")
def played():
    return play_match("analysis-1")


def test_the_knowledge_at_each_play_is_the_one_the_seats_bot_decided_from(played):
    for seat in range(4):
        found = positions.positions(positions.plays_of(played.moves), seat, played.options)
        assert [(p.number, p.knowledge) for p in found] == played.seen[seat]


def test_the_analysis_lists_every_play_of_the_seat_in_the_contracts_shape(played):
    result = match.analyse(played.moves, played.options, 2, FAST)
    numbers = [m["number"] for m in played.moves if m["type"] == "play" and m["seat"] == "seat:2"]
    assert [p["number"] for p in result["plays"]] == numbers
    for item in result["plays"]:
        assert set(item) == {"number", "hand", "played", "best", "loss", "verdict", "auto"}
        assert item["loss"] >= 0 and item["verdict"] in ("best", "good", "inaccuracy", "mistake", "blunder")
        assert (item["loss"] == 0) == (item["verdict"] == "best")
        if item["verdict"] == "best":
            assert item["best"] == item["played"]
    verdicts = [p["verdict"] for p in result["plays"]]
    assert result["summary"] == {
        "accuracy": judge.accuracy(p["loss"] for p in result["plays"]),
        "inaccuracies": verdicts.count("inaccuracy"), "mistakes": verdicts.count("mistake"),
        "blunders": verdicts.count("blunder")}
    assert result["plays"][-1]["hand"] == played.state["hand_number"]


def test_the_same_log_gives_the_same_analysis(played):
    assert match.analyse(played.moves, played.options, 1, FAST) == match.analyse(played.moves, played.options, 1,
                                                                                 FAST)


def test_an_auto_play_is_listed_and_not_judged(played):
    moves = [dict(m) for m in played.moves]
    first = next(m for m in moves if m["type"] == "play" and m["seat"] == "seat:3")
    first.update(type="auto_play", auto=True)
    result = match.analyse(moves, played.options, 3, FAST)
    assert result["plays"][0] == {"number": first["number"], "hand": 1, "played": {
        "card": first["payload"]["card"], "capture": sorted(first["payload"]["capture"])}, "auto": True}
    judged = [p["loss"] for p in result["plays"] if not p["auto"]]
    assert result["summary"]["accuracy"] == judge.accuracy(judged) and len(judged) == len(result["plays"]) - 1


def test_a_play_that_was_the_only_legal_one_is_best_with_no_loss(played):
    found = positions.positions(positions.plays_of(played.moves), 0, played.options)
    only = [p for p in found if len(p.knowledge.choices()) == 1]
    assert only  # the last card of every hand, at least
    for position in only:
        assert judge.judge(position.knowledge, position.card, position.capture, work=1) == judge.Judgement(
            (position.card, position.capture), 0.0, "best")


def test_a_play_that_is_not_legal_in_the_position_is_refused(played):
    position = positions.positions(positions.plays_of(played.moves), 0, played.options)[0]
    other = next(c for c in DECK if c not in position.knowledge.hand)
    with pytest.raises(ValueError):
        judge.judge(position.knowledge, other, (), work=1)


@pytest.mark.parametrize("loss, verdict", [
    (0.0, "best"), (0.01, "good"), (0.14, "good"), (0.15, "inaccuracy"), (0.39, "inaccuracy"),
    (0.4, "mistake"), (0.99, "mistake"), (1.0, "blunder"), (3.5, "blunder")])
def test_the_thresholds_of_the_verdicts(loss, verdict):
    assert judge.verdict(loss) == verdict


def test_accuracy_is_100_without_loss_and_falls_with_it():
    assert judge.accuracy([]) == 100 and judge.accuracy([0, 0]) == 100
    assert judge.accuracy([1.0]) == 37 and judge.accuracy([0.0, 1.0]) == 68
    assert judge.accuracy([0.1]) > judge.accuracy([0.5]) > judge.accuracy([2.0])


def test_a_log_cut_inside_a_hand_or_with_an_illegal_play_is_unreadable(played):
    plays = positions.plays_of(played.moves)
    with pytest.raises(UnreadableLog, match="inside a hand"):
        positions.positions(plays[:-1], 0, played.options)
    moves = [dict(m) for m in played.moves]
    taking = next(m for m in moves if m["type"] == "play" and m["payload"]["capture"])
    moves[moves.index(taking)] = {**taking, "payload": {**taking["payload"], "capture": []}}
    with pytest.raises(UnreadableLog, match="cannot take"):
        positions.positions(positions.plays_of(moves), 0, played.options)
    with pytest.raises(UnreadableLog, match="not a play"):
        positions.plays_of([{"number": 1, "type": "play", "seat": "seat:0", "payload": {}}])


# -- the hidden cards ------------------------------------------------------------------------

def _swapped(moves: list[dict], seat: int, cut: int, rng: random.Random, asso: bool = False) -> list[dict]:
    """The same hand up to the seat's play at index ``cut``, with the cards the other seats still
    held then dealt again among them (each keeping its count), played out anew after it."""
    dealt: list[list[str]] = [[], [], [], []]
    for move in moves:
        dealt[int(move["seat"][-1])].append(move["payload"]["card"])
    later = [[m["payload"]["card"] for m in moves[cut:] if int(m["seat"][-1]) == s] for s in range(4)]
    pool = [card for s in range(4) if s != seat for card in later[s]]
    rng.shuffle(pool)
    hands = [list(h) for h in dealt]
    for s in range(4):
        if s == seat:
            continue
        kept = [c for c in dealt[s] if c not in later[s]]
        hands[s], pool = kept + pool[:len(later[s])], pool[len(later[s]):]
    return random_hand(hands, int(moves[0]["seat"][-1]), rng, prefix=moves[:cut + 1], asso=asso)


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=0, max_value=9),
       st.booleans())
def test_the_judgement_of_a_play_never_depends_on_the_other_seats_hidden_cards(seed, nth, asso):
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    leader, seat = rng.randrange(4), rng.randrange(4)
    options = {**OPTIONS, "asso_pigliatutto": asso}
    moves = random_hand([deck[i * 10:i * 10 + 10] for i in range(4)], leader, rng, asso=asso)
    cut = [i for i, m in enumerate(moves) if m["seat"] == f"seat:{seat}"][nth]
    other = _swapped(moves, seat, cut, rng, asso)
    assert other[:cut + 1] == moves[:cut + 1]
    here, there = (positions.positions(positions.plays_of(log), seat, options)[nth] for log in (moves, other))
    assert here.number == there.number == cut + 1 and here.card == there.card
    assert here.knowledge == there.knowledge  # what the seat knew: the same
    assert (judge.judge(here.knowledge, here.card, here.capture, work=3_000, max_samples=40)
            == judge.judge(there.knowledge, there.card, there.capture, work=3_000, max_samples=40))


def test_the_swap_does_change_what_the_others_held():
    """The property above is not vacuous: the swapped hands do differ."""
    rng = random.Random(7)
    deck = list(DECK)
    rng.shuffle(deck)
    moves = random_hand([deck[i * 10:i * 10 + 10] for i in range(4)], 0, rng)
    other = _swapped(moves, 0, 4, rng)

    def held(log: list[dict], seat: int) -> set[str]:
        return {m["payload"]["card"] for m in log if m["seat"] == f"seat:{seat}"}

    assert any(held(moves, s) != held(other, s) for s in (1, 2, 3))
    assert held(moves, 0) == held(other, 0)
