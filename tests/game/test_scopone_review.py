"""Review checks: scopone re-derived from the rules and CONTRACT.md alone, then compared with the engine.

The model below shares no code with game/ (its own HMAC stream, Fisher-Yates, legal plays and
scoring), so a wrong rule in the engine cannot be mirrored by the check. Whole random matches
are driven through the engine's decide/fire/apply while the model plays the same moves; every
view, every auto-play choice and every hand's last_hand must agree.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random

import pytest

from game.dummy import DummyEngine
from game.engine import GameError, Move
from game.scopone import ScoponeEngine, scoring
from tests.game.scopone_helpers import crafted

T0 = 1_796_205_600_000
ENGINE = ScoponeEngine(turn_timeout_ms=30_000, hand_ack_timeout_ms=20_000)
DECK = [f"{r:02d}{s}" for s in "DCSB" for r in range(1, 11)]
PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
CATEGORIES = ("carte", "denara", "settebello", "primiera")


def _rank(card):
    return int(card[:2])


def _words(seed, label):
    for i in itertools.count():
        yield int.from_bytes(hmac.new(seed, f"{label}:{i}".encode(), hashlib.sha256).digest()[:4], "big")


def _uniform(words, n):
    limit = 2**32 - 2**32 % n
    return next(x for x in words if x < limit) % n


def _deal(seed, hand):
    deck, words = list(DECK), _words(seed, f"deal:{hand}")
    for i in range(39, 0, -1):
        j = _uniform(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [sorted(deck[10 * s : 10 * s + 10]) for s in range(4)]


def _asso_sweeps(card, table, asso):
    return asso and _rank(card) == 1 and all(_rank(t) != 1 for t in table)


def _legal(hand, table, asso):
    """Brute force: equal rank first (one card), else every subset summing to the rank, else lay."""
    plays = []
    for card in hand:
        if _asso_sweeps(card, table, asso):
            plays.append((card, sorted(table)))
            continue
        equal = [t for t in table if _rank(t) == _rank(card)]
        if equal:
            plays += [(card, [t]) for t in equal]
            continue
        sums = [sorted(c) for k in range(2, len(table) + 1) for c in itertools.combinations(table, k)
                if sum(map(_rank, c)) == _rank(card)]
        plays += [(card, s) for s in sums] or [(card, [])]
    return sorted(plays)


def _primiera(cards):
    best = {}
    for card in cards:
        best[card[2]] = max(best.get(card[2], 0), PRIMIERA[_rank(card)])
    return sum(best.values()) if len(best) == 4 else 0


def _napola(cards):
    denari = {_rank(c) for c in cards if c[2] == "D"}
    run = next(n for n in range(11) if n + 1 not in denari)
    return run if run >= 3 else 0


def _score(piles, scope, with_napola):
    """last_hand's teams and award, straight from the rules: carte > 20, denara > 5, ..."""
    teams = {
        t: {"cards": len(p), "denari": sum(c[2] == "D" for c in p), "settebello": "07D" in p,
            "primiera": _primiera(p), "scope": scope[t], "napola": _napola(p) if with_napola else 0}
        for t, p in piles.items()
    }
    a, b = teams["A"], teams["B"]
    award = {
        "carte": "A" if a["cards"] > 20 else "B" if b["cards"] > 20 else None,
        "denara": "A" if a["denari"] > 5 else "B" if b["denari"] > 5 else None,
        "settebello": "A" if a["settebello"] else "B",
        "primiera": None if a["primiera"] == b["primiera"] else "A" if a["primiera"] > b["primiera"] else "B",
        "napola": "A" if a["napola"] else "B" if b["napola"] else None,
    }
    for t in "AB":
        won = sum(award[c] == t for c in CATEGORIES)
        teams[t]["points"] = won + teams[t]["scope"] + teams[t]["napola"]
    return teams, award


class Model:
    """The table as the rules describe it; ``moves`` numbers every log entry from 1."""

    def __init__(self, seed, options):
        self.seed, self.options = seed, options
        self.moves, self.scores, self.audit, self.winner = 0, {"A": 0, "B": 0}, [], None
        self.start(1)

    def start(self, hand):
        self.hand, self.hands, self.table = hand, _deal(self.seed, hand), []
        self.captured, self.scope, self.plays = [[] for _ in range(4)], [0] * 4, 0
        self.turn, self.last_capturer, self.last_play = (hand - 1) % 4, None, None
        self.status, self.acknowledged = "playing", []

    def legal(self):
        return _legal(self.hands[self.turn], self.table, self.options["asso_pigliatutto"])

    def auto_choice(self):
        """CONTRACT: the sorted legal plays, index uniform(len) from label auto:<m>."""
        plays = self.legal()
        return plays[_uniform(_words(self.seed, f"auto:{self.moves + 1}"), len(plays))]

    def play(self, card, capture, auto):
        assert (card, sorted(capture)) in self.legal()
        self.moves, self.plays, seat = self.moves + 1, self.plays + 1, self.turn
        self.hands[seat].remove(card)
        sweep = _asso_sweeps(card, self.table, self.options["asso_pigliatutto"])
        taken = sorted(self.table) if sweep else sorted(capture)
        scopa = False
        if sweep or taken:
            self.table = [t for t in self.table if t not in taken]
            self.captured[seat] += [card, *taken]
            self.last_capturer = seat
            scopa = not sweep and not self.table and self.plays < 40
            self.scope[seat] += scopa
        else:
            self.table.append(card)
        self.last_play = {"seat": seat, "card": card, "capture": taken, "scopa": scopa, "auto": auto}
        if self.plays == 40:
            self.end()
        else:
            self.turn = (seat + 1) % 4

    def end(self):
        self.captured[self.last_capturer] += self.table
        self.table, self.turn = [], None

    def score(self):
        piles = {"A": self.captured[0] + self.captured[2], "B": self.captured[1] + self.captured[3]}
        scope = {"A": self.scope[0] + self.scope[2], "B": self.scope[1] + self.scope[3]}
        teams, award = _score(piles, scope, self.options["napola"])
        for t in "AB":
            self.scores[t] += teams[t]["points"]
        self.audit.append({"hand": self.hand, "teams": teams, "award": award, "scores": dict(self.scores)})
        slam = [t for t in "AB" if self.options["napola"] and teams[t]["denari"] == 10]
        a, b = self.scores["A"], self.scores["B"]
        if slam:
            self.winner = slam[0]
        elif a != b and max(a, b) >= self.options["target_score"]:
            self.winner = "A" if a > b else "B"
        self.status = "finished" if self.winner else "hand_end"

    def ack(self, seat):
        self.moves += 1
        self.acknowledged = sorted([*self.acknowledged, seat])
        if len(self.acknowledged) == 4:
            self.start(self.hand + 1)

    def carry_on(self):
        self.moves += 1
        self.start(self.hand + 1)


def _check_views(state, model, seed):
    for seat in range(4):
        view = ENGINE.view(state, seat)
        assert (view["status"], view["hand_number"], view["scores"]) == (model.status, model.hand, model.scores)
        assert view["hand"] == sorted(model.hands[seat]) and sorted(view["table"]) == sorted(model.table)
        assert view["last_play"] == model.last_play
        assert view["players"] == [
            {"seat": s, "team": "AB"[s % 2], "card_count": len(model.hands[s]),
             "captured_count": len(model.captured[s]), "scope": model.scope[s], "is_you": s == seat}
            for s in range(4)
        ]
        assert view.get("your_turn") is (True if model.status == "playing" and model.turn == seat else None)
        assert ("turn_deadline" in view) == (model.status == "playing")
        assert ("hand_end_deadline" in view) == ("acknowledged" in view) == (model.status == "hand_end")
        assert ("seed" in view) == ("winner" in view) == (model.status == "finished")
        assert ("last_hand" in view) == (model.status != "playing")
        if model.status == "playing":
            assert view["turn"] == model.turn
        else:
            assert view["last_hand"] == model.audit[-1]
        if model.status == "hand_end":
            assert view["acknowledged"] == model.acknowledged
        if model.status == "finished":
            assert (view["winner"], view["seed"]) == (model.winner, seed.hex())


def _match(seed, options, rng, p_fire):
    """Drive one match through the engine and the model together; returns (state, model, auto-plays)."""
    full = {"target_score": 11, "napola": True, "asso_pigliatutto": False, **options}
    state, model, now, autos = ENGINE.new_state(options, seed, T0), Model(seed, full), T0, 0
    while True:
        _check_views(state, model, seed)
        if model.status == "finished":
            return state, model, autos
        now += rng.randrange(1, 4000)
        fire = rng.random() < p_fire
        if model.status == "playing" and fire:
            move = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, now)
            card, capture = model.auto_choice()
            assert (move.type, move.seat, move.payload, move.auto) == (
                "auto_play", model.turn, {"card": card, "capture": capture}, True)
            model.play(card, capture, auto=True)
            autos += 1
        elif model.status == "playing":
            card, capture = rng.choice(model.legal())
            action = {"action": "play", "card": card, "capture": capture}
            move = ENGINE.decide(state, model.turn, action, now)
            model.play(card, capture, auto=False)
        elif fire:
            move = ENGINE.fire(state, ENGINE.deadlines(state)[0].token, now)
            assert move.type == "continue"
            model.carry_on()
        else:
            seat = rng.choice([s for s in range(4) if s not in model.acknowledged])
            move = ENGINE.decide(state, seat, {"action": "ack"}, now)
            model.ack(seat)
        state = ENGINE.apply(state, move, now)
        if model.plays == 40 and model.status == "playing":
            # The hand just ended: the engine's piles must be the model's, then score them independently.
            assert [sorted(c) for c in state["captured"]] == [sorted(c) for c in model.captured]
            model.score()
        assert state["moves"] == model.moves


MATCHES = [
    ({}, 0.0),
    ({}, 0.3),
    ({"asso_pigliatutto": True}, 0.3),
    ({"napola": False, "target_score": 7}, 0.5),
    ({"asso_pigliatutto": True, "napola": False, "target_score": 16}, 1.0),
    ({"target_score": 21}, 1.0),
]


@pytest.mark.parametrize(("options", "p_fire"), MATCHES)
@pytest.mark.parametrize("number", range(2))
def test_every_hand_scores_as_an_independent_recount_of_the_captured_piles(options, p_fire, number):
    rng = random.Random(f"{options}-{p_fire}-{number}")
    seed = rng.randbytes(32)
    state, model, autos = _match(seed, options, rng, p_fire)
    assert state["audit"] == model.audit and ENGINE.result(state).to_json()["audit"] == model.audit
    assert (state["winner"], state["scores"]) == (model.winner, model.scores)
    assert autos > 0 or p_fire == 0.0


def test_auto_plays_pick_the_contract_index_over_a_whole_match_of_timeouts():
    rng = random.Random(7)
    seed = rng.randbytes(32)
    _, model, autos = _match(seed, {"asso_pigliatutto": True}, rng, 1.0)
    assert autos == 40 * len(model.audit)


def test_independent_deal_matches_the_contract_vector():
    # Guards the model itself: its deal must be CONTRACT's, or every comparison above is moot.
    assert [" ".join(h) for h in _deal(bytes(range(32)), 1)] == [
        "01D 02C 03D 03S 04B 05S 06D 07D 09S 10S",
        "02D 02S 03C 04D 06C 07C 07S 08D 09D 10C",
        "01B 01S 02B 04C 05C 06B 06S 08B 08C 09B",
        "01C 03B 04S 05B 05D 07B 08S 09C 10B 10D",
    ]


def _piles(rng):
    """A random split of the deck, skewed so that missing suits, denari runs and ties all come up."""
    lean = {suit: rng.choice([0.0, 0.2, 0.5, 0.8, 1.0]) for suit in "DCSB"}
    a = [c for c in DECK if rng.random() < lean[c[2]]]
    if rng.random() < 0.3:
        a = sorted(set(a) | {f"{r:02d}D" for r in range(1, rng.randint(3, 10) + 1)})
    return {"A": a, "B": [c for c in DECK if c not in a]}


def test_hand_scoring_of_random_piles_matches_an_independent_recount():
    rng, seen = random.Random(11), set()
    for _ in range(3000):
        piles = _piles(rng)
        scope = {"A": rng.randrange(4), "B": rng.randrange(4)}
        with_napola = rng.random() < 0.8
        assert scoring.score_hand(piles, scope, with_napola) == _score(piles, scope, with_napola)
        teams, award = _score(piles, scope, with_napola)
        seen |= {"lacks a suit"} if 0 in (teams["A"]["primiera"], teams["B"]["primiera"]) else set()
        seen |= {"napola"} if award["napola"] else set()
        seen |= {"ten denari"} if 10 in (teams["A"]["napola"], teams["B"]["napola"]) else set()
        seen |= {f"{c} tie" for c in ("carte", "denara", "primiera") if award[c] is None}
    assert seen == {"lacks a suit", "napola", "ten denari", "carte tie", "denara tie", "primiera tie"}


def _last_card_state(a_pile, scores, options):
    """Seat 0 lays 10B, the last card of the hand; team A (seat 0) took ``a_pile``, B (seat 1) the rest."""
    b_pile = [c for c in DECK if c != "10B" and c not in a_pile]
    state = crafted([["10B"]], captured=[a_pile, b_pile, [], []], last_capturer=1, scores=scores, options=options)
    return ENGINE.apply(state, ENGINE.decide(state, 0, {"action": "play", "card": "10B"}, T0), T0)


def test_all_ten_denari_win_the_match_at_once_even_for_the_trailing_team():
    denari = [c for c in DECK if c.endswith("D")]
    state = _last_card_state(denari, {"A": 0, "B": 40}, {"target_score": 41})
    assert (state["status"], state["winner"]) == ("finished", "A")
    assert state["audit"][-1]["teams"]["A"]["napola"] == 10


def test_all_ten_denari_do_not_end_the_match_with_napola_off():
    denari = [c for c in DECK if c.endswith("D")]
    state = _last_card_state(denari, {"A": 0, "B": 0}, {"target_score": 11, "napola": False})
    assert state["status"] == "hand_end" and state["audit"][-1]["teams"]["A"]["napola"] == 0


def test_a_tie_at_or_above_the_target_plays_another_hand():
    # A: carte (22 cards) and primiera (B has no coppe); B: denara (9) and settebello. 2 points each.
    a_pile = [c for c in DECK if c[2] in "CS"] + ["07B", "06D"]
    state = _last_card_state(a_pile, {"A": 10, "B": 10}, {"target_score": 11, "napola": False})
    last = state["audit"][-1]
    assert last["teams"]["A"]["points"] == last["teams"]["B"]["points"]
    assert last["scores"]["A"] == last["scores"]["B"] >= 11 and state["status"] == "hand_end"


# -- dummy engine ---------------------------------------------------------------------------

DUMMY = DummyEngine(turn_timeout_ms=10_000)


def _dummy_state_before_a_roll_of(value):
    """A dummy table whose next roll (label roll:<m>) comes out as ``value``."""
    state = DUMMY.new_state({"target": 999}, bytes(range(32)), T0)
    while DUMMY.fire(state, DUMMY.deadlines(state)[0].token, T0).payload["value"] != value:
        state = DUMMY.apply(state, DUMMY.decide(state, state["turn"], {"action": "add", "n": 1}, T0), T0)
    return state


@pytest.mark.parametrize("forged", [True, 1.0])
def test_dummy_roll_must_be_the_seeds_integer_not_a_lookalike(forged):
    # true == 1 == 1.0 in Python: a logged roll of true or 1.0 used to replay as a roll of 1.
    state = _dummy_state_before_a_roll_of(1)
    assert DUMMY.apply(state, Move("roll", state["turn"], {"value": 1}, random=True), T0)["totals"]
    with pytest.raises(GameError) as caught:
        DUMMY.apply(state, Move("roll", state["turn"], {"value": forged}, random=True), T0)
    assert caught.value.code == "illegal_move"
