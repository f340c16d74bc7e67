"""Join codes: CONTRACT.md's alphabet and length, typed in any case."""

from __future__ import annotations

from lobby.codes import ALPHABET, LENGTH, generate_code, normalize_code


def test_alphabet_is_contracts_and_has_no_look_alikes():
    assert ALPHABET == "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
    assert not set("01OIL") & set(ALPHABET)


def test_generated_codes_are_six_characters_of_the_alphabet():
    codes = [generate_code() for _ in range(2000)]
    assert all(len(code) == LENGTH == 6 and set(code) <= set(ALPHABET) for code in codes)
    assert set("".join(codes)) == set(ALPHABET)  # every character is drawn
    assert len(set(codes)) > 1990  # random, not a counter or a constant


def test_normalize_accepts_any_case_and_surrounding_blanks():
    assert normalize_code("k7qx2m") == "K7QX2M"
    assert normalize_code("  K7qX2m\n") == "K7QX2M"


def test_normalize_refuses_what_cannot_be_a_code():
    for text in ("", "K7QX2", "K7QX2MM", "K7QX0M", "K7QXOM", "K7 X2M", "K7QX2Ł", "ß7QX2"):
        assert normalize_code(text) is None, text
