"""services.jsontext: strict JSON decoding, orjson first, the standard library's answers kept."""

from __future__ import annotations

import json

import pytest

from services import jsontext

ACCEPTED = [
    '{"action":"play","card":"07D","capture":["02D","05C"],"revision":17,"id":"m-1"}',
    '{"action": "ack"}', " [1, 2.5, -0, -0.0, 1e5, true, false, null] ", '"\\u00e9\\n"', '"é€😀"',
    '{"a":1,"a":2}',  # the last of a repeated member, as json.loads keeps it
    f'{{"big":{2**70},"small":-{2**70},"u64":{2**64 - 1}}}',  # exact integers past 64 bits
    '{"n":1234567890123456789012.5}', "1E400",  # json.loads reads an overflow as infinity
    "[" * 900 + "]" * 900,
]


@pytest.mark.parametrize("text", ACCEPTED)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_what_it_accepts_is_what_json_loads_gives(text, as_bytes):
    raw = text.encode() if as_bytes else text
    decoded = jsontext.loads(raw)
    assert repr(decoded) == repr(json.loads(raw))
    if "big" in text:
        assert decoded["big"] == 2**70 and isinstance(decoded["small"], int)


@pytest.mark.parametrize("text, message", [
    ('{"a": "\\ud800"}', "unpaired surrogates are not text"),
    ('["\\udfff x"]', "unpaired surrogates are not text"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_what_json_loads_lets_through_is_refused(text, message):
    with pytest.raises(ValueError) as refused:
        jsontext.loads(text)
    assert str(refused.value) == message


@pytest.mark.parametrize("text", ["{bad", '{"a":1,}', "", "[1] x", "\ufeff{}", '"tab\tin"'])
def test_a_malformed_text_raises_the_error_of_json_loads(text):
    with pytest.raises(ValueError) as refused:
        jsontext.loads(text)
    with pytest.raises(ValueError) as expected:
        json.loads(text)
    assert str(refused.value) == str(expected.value)


def test_the_constants_go_the_way_the_caller_asks():
    """NaN is not JSON: orjson refuses it, and the standard library answers as the caller asks."""
    assert repr(jsontext.loads('{"x": NaN}')) == "{'x': nan}"

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not a JSON number")

    with pytest.raises(ValueError, match=r"^Infinity is not a JSON number$"):
        jsontext.loads('{"x": Infinity}', parse_constant=refuse)
    assert jsontext.loads('{"x": 1}', parse_constant=refuse) == {"x": 1}


def test_other_options_are_the_standard_librarys():
    assert jsontext.loads('{"x": 1.5}', parse_float=str) == {"x": "1.5"}
