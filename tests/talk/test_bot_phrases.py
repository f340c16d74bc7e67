"""What a bot says (issue 42, item 4): a fitting phrase now and then, decided from its own view and
the same wherever it is decided; never a text, never about cards."""

from __future__ import annotations

import pytest

from talk.bot_phrases import CHANCE, Pace, bot_phrase
from talk.catalogue import PHRASE_IDS

TABLES = [f"table-{n}" for n in range(400)]


def _play(seat: int, scopa: bool) -> dict:
    return {"seat": seat, "card": "07D", "capture": ["07C"], "scopa": scopa, "auto": False}


@pytest.mark.parametrize(("status", "last_play", "seat", "fitting"), [
    ("finished", _play(0, False), 1, "good_game"),
    ("playing", _play(3, True), 1, "well_played"),  # its partner swept the table
    ("playing", _play(0, True), 1, "nice_scopa"),  # the other team did
    ("playing", _play(2, True), 1, "nice_scopa"),
    ("playing", _play(1, True), 1, None),  # its own scopa
    ("playing", _play(3, False), 1, None),  # a capture, no sweep
    ("hand_end", None, 1, None),
    ("seeding", None, 1, None),
])
def test_a_bot_says_a_fitting_phrase_now_and_then(status, last_play, seat, fitting):
    view = {"status": status, "last_play": last_play, "hand": ["01D", "02D"]}
    said = [bot_phrase(view, seat, table, 17) for table in TABLES]
    assert set(said) <= {fitting, None}
    if fitting is not None:
        assert fitting in PHRASE_IDS
        assert abs(said.count(fitting) / len(TABLES) - CHANCE) < 0.1  # now and then: about half
    assert said == [bot_phrase(view, seat, table, 17) for table in TABLES]  # decided the same again


def test_the_chance_differs_by_seat_and_revision():
    view = {"status": "finished", "last_play": None}
    by_seat = {seat: [bot_phrase(view, seat, table, 9) for table in TABLES] for seat in range(4)}
    assert len({tuple(said) for said in by_seat.values()}) == 4
    assert by_seat[1] != [bot_phrase(view, 1, table, 10) for table in TABLES]


def test_a_view_without_the_fields_says_nothing():
    assert bot_phrase({}, 1, "t", 1) is None
    assert bot_phrase({"status": "playing", "last_play": {"scopa": True, "seat": "2"}}, 0, "t", 1) is None


def test_a_bot_says_at_most_one_phrase_a_hand_and_its_last_word() -> None:
    pace = Pace()
    hand_1, hand_2 = {"hand_number": 1}, {"hand_number": 2}
    assert pace.allows(1, hand_1, "nice_scopa")
    assert not pace.allows(1, hand_1, "nice_scopa")  # the other team's second sweep: silence
    assert pace.allows(3, hand_1, "well_played")  # another bot seat has its own pace
    assert pace.allows(1, hand_2, "nice_scopa")
    assert pace.allows(1, hand_2, "good_game")  # the end of the match is always worth a word
    assert not pace.allows(1, {}, "nice_scopa")  # a view without its hand number says nothing
