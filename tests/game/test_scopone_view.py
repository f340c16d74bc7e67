"""The scopone game view of CONTRACT.md, per seat and per phase."""

import json

from game.fairness import DECK
from tests.game.scopone_helpers import ENGINE, SEED, T0, TURN_MS, ack, crafted, play

PLATFORM_FIELDS = {"id", "game_type", "join_code", "seed_commitment", "revision"}


def fresh():
    return ENGINE.new_state({}, SEED, T0)


def after_last_card(target):
    rest = sorted(set(DECK) - {"10B"})
    state = crafted([["10B"]], captured=[rest[:20], rest[20:], [], []], last_capturer=0,
                    options={"target_score": target})
    return play(state, 0, "10B", now=T0 + 4000)


def test_the_view_leaves_the_platform_fields_out():
    view = ENGINE.view(fresh(), 0)
    assert not PLATFORM_FIELDS & set(view) and all("name" not in p for p in view["players"])


def test_the_playing_view_has_the_contract_fields():
    view = ENGINE.view(fresh(), 0)
    assert set(view) == {"status", "options", "players", "you", "hand", "table", "turn", "hand_number",
                         "dealer", "scores", "turn_deadline", "last_play", "your_turn", "legal"}
    assert view["options"] == {"target_score": 11, "napola": True, "asso_pigliatutto": False,
                               "player_entropy": False}
    assert (view["status"], view["you"], view["turn"], view["hand_number"], view["scores"]) == (
        "playing", 0, 0, 1, {"A": 0, "B": 0}
    )


def test_players_list_all_four_seats_with_counts_only():
    state = play(crafted([["07D", "01C"], ["02C"], ["03C"], ["04C"]], table=["07C"]), 0, "07D", ["07C"])
    players = ENGINE.view(state, 1)["players"]
    assert players == [
        {"seat": 0, "team": "A", "card_count": 1, "captured_count": 2, "scope": 1, "is_you": False},
        {"seat": 1, "team": "B", "card_count": 1, "captured_count": 0, "scope": 0, "is_you": True},
        {"seat": 2, "team": "A", "card_count": 1, "captured_count": 0, "scope": 0, "is_you": False},
        {"seat": 3, "team": "B", "card_count": 1, "captured_count": 0, "scope": 0, "is_you": False},
    ]


def test_the_hand_is_only_your_own_sorted():
    state = fresh()
    for seat in range(4):
        assert ENGINE.view(state, seat)["hand"] == sorted(state["hands"][seat])


def test_your_turn_is_present_only_when_it_is_your_move():
    state = fresh()
    assert ENGINE.view(state, 0)["your_turn"] is True
    assert all("your_turn" not in ENGINE.view(state, s) for s in (1, 2, 3))


def test_legal_comes_only_with_your_turn():
    state = fresh()
    assert "legal" in ENGINE.view(state, 0)
    assert all("legal" not in ENGINE.view(state, s) for s in (1, 2, 3, None))


def test_legal_lists_every_card_with_its_captures_sorted():
    state = crafted([["07D", "02C", "04S"]], table=["07C", "04B", "03S", "02D", "05C"])
    assert ENGINE.view(state, 0)["legal"] == [
        {"card": "02C", "captures": [["02D"]]},
        {"card": "04S", "captures": [["04B"]]},
        {"card": "07D", "captures": [["07C"]]},
    ]
    state = crafted([["07D", "06C"]], table=["04B", "03S", "02D", "05C", "01S"])
    assert ENGINE.view(state, 0)["legal"] == [
        {"card": "06C", "captures": [["01S", "02D", "03S"], ["01S", "05C"], ["02D", "04B"]]},
        {"card": "07D", "captures": [["01S", "02D", "04B"], ["02D", "05C"], ["03S", "04B"]]},
    ]


def test_legal_lays_a_card_that_takes_nothing():
    state = crafted([["09B", "02C"]], table=["04B", "03S"])
    assert ENGINE.view(state, 0)["legal"] == [{"card": "02C", "captures": [[]]},
                                              {"card": "09B", "captures": [[]]}]


def test_legal_lists_the_whole_table_for_an_asso_pigliatutto_sweep():
    state = crafted([["01D"]], table=["07C", "04B"], options={"asso_pigliatutto": True})
    assert ENGINE.view(state, 0)["legal"] == [{"card": "01D", "captures": [["04B", "07C"]]}]


def test_every_legal_entry_is_accepted_and_nothing_else_is():
    state = crafted([["07D", "06C", "03B"]], table=["04B", "03S", "02D", "05C", "01S"])
    listed = {(entry["card"], tuple(capture)) for entry in ENGINE.view(state, 0)["legal"]
              for capture in entry["captures"]}
    assert listed == {(card, tuple(capture)) for card, capture in ENGINE.legal_plays(state)}
    for card, capture in listed:
        play(state, 0, card, list(capture))


def test_turn_deadline_is_iso_utc_with_milliseconds():
    assert ENGINE.view(fresh(), 2)["turn_deadline"] == "2026-12-02T10:00:30.000Z"
    assert fresh()["turn_deadline_ms"] == T0 + TURN_MS


def test_last_play_is_null_before_the_first_play_of_a_hand():
    assert ENGINE.view(fresh(), 0)["last_play"] is None


def test_last_play_shows_the_play():
    state = play(crafted([["07D", "01C"], ["02C"]], table=["03S", "04B", "06C"]), 0, "07D", ["04B", "03S"])
    assert ENGINE.view(state, 3)["last_play"] == {
        "seat": 0, "card": "07D", "capture": ["03S", "04B"], "scopa": False, "auto": False
    }


def test_the_hand_end_view_has_last_hand_acknowledged_and_its_deadline():
    state = ack(ack(after_last_card(99), 3), 1)
    view = ENGINE.view(state, 0)
    assert view["status"] == "hand_end" and view["turn"] is None
    assert "turn_deadline" not in view and "your_turn" not in view and "seed" not in view
    assert view["last_hand"] == state["audit"][-1] and view["acknowledged"] == [1, 3]
    assert view["hand_end_deadline"] == "2026-12-02T10:00:24.000Z"  # ACK_MS = 20 s after the last card


def test_the_finished_view_has_last_hand_winner_and_seed():
    state = after_last_card(1)
    view = ENGINE.view(state, 0)
    assert view["status"] == "finished" and view["winner"] == state["winner"]
    assert view["seed"] == SEED.hex() and view["last_hand"] == state["audit"][-1]
    assert "turn_deadline" not in view and "hand_end_deadline" not in view and "acknowledged" not in view


def test_the_seed_is_hidden_until_the_match_is_finished():
    assert "seed" not in json.dumps(ENGINE.view(fresh(), 0)).replace('"seed_', "")
    assert SEED.hex() not in json.dumps(ENGINE.view(fresh(), 0))


def test_an_onlooker_view_has_no_hand():
    view = ENGINE.view(fresh(), None)
    assert "you" not in view and "hand" not in view and "your_turn" not in view and "legal" not in view
    assert not any(p["is_you"] for p in view["players"])


def test_the_view_is_json_and_not_an_alias_of_the_state():
    state = after_last_card(99)
    view = ENGINE.view(state, 0)
    assert json.loads(json.dumps(view)) == view
    view["last_hand"]["teams"]["A"]["points"] = -1
    view["scores"]["A"] = -1
    assert state["audit"][-1]["teams"]["A"]["points"] != -1 and state["scores"]["A"] != -1
