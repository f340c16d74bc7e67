"""The public view (a spectator's, ``view(state, None)``) in every phase: no ``you``, no hand, no
legal plays, and no card of any seat's hand (CONTRACT.md, Spectators)."""

import json
import re

from tests.game.scopone_helpers import ENGINE, SEED, T0, crafted, play

_CARD = re.compile(r"\b(?:0[1-9]|10)[DCSB]\b")
_PRIVATE = {"you", "hand", "legal", "your_turn"}


def _cards_in(view: dict) -> set[str]:
    return set(_CARD.findall(json.dumps(view)))


def _in_hands(state: dict) -> set[str]:
    return {card for hand in state["hands"] for card in hand}


def _assert_public(state: dict) -> dict:
    view = ENGINE.view(state, None)
    assert not _PRIVATE & set(view)
    assert not any(player["is_you"] for player in view["players"])
    assert not _cards_in(view) & _in_hands(state)
    return view


def test_the_public_view_of_a_fresh_deal_shows_counts_only():
    state = ENGINE.new_state({}, SEED, T0)
    assert _in_hands(state)  # forty cards dealt: none of them shows
    view = _assert_public(state)
    assert view["status"] == "playing" and [p["card_count"] for p in view["players"]] == [10, 10, 10, 10]


def test_the_public_view_while_seeding_holds_no_card():
    state = ENGINE.new_state({"player_entropy": True}, SEED, T0)
    view = _assert_public(state)
    assert view["status"] == "seeding" and "entropy" in view


def test_the_public_view_after_a_play_shows_the_play_and_not_the_hands():
    state = play(crafted([["07D", "01C"], ["02C", "05S"], ["03C", "06S"], ["04C", "09B"]], table=["07C"]),
                 0, "07D", ["07C"])
    view = _assert_public(state)
    assert view["last_play"]["card"] == "07D" and "01C" not in _cards_in(view)


def test_the_public_view_at_hand_end_and_when_finished():
    rest = sorted({f"{rank:02d}{suit}" for rank in range(1, 11) for suit in "DCSB"} - {"10B"})
    for target, status in ((99, "hand_end"), (1, "finished")):
        state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                        options={"target_score": target})
        state = play(state, 0, "10B", now=T0 + 4000)
        view = _assert_public(state)
        assert view["status"] == status and "last_hand" in view
