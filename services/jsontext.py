"""JSON text from callers, decoded strictly: one check shared by every service that takes it.

``json.loads`` lets through two things nothing downstream can carry: nesting deep enough to
exhaust the recursion limit (it raises RecursionError, not ValueError), and unpaired UTF-16
surrogates (``"\\ud800"``), valid JSON escapes but not Unicode text, which neither UTF-8 (gRPC,
Postgres) nor a log can hold. Both become the ValueError every other malformed text gives.

Text is decoded by orjson first: it refuses both by itself (and NaN and Infinity, which are
not JSON), in a tenth of the time of ``json.loads`` and the second pass over the value that
finding surrogates needs there. Whatever orjson refuses goes the standard library's way, so
what is accepted, the values and the errors' texts are those of ``json.loads`` as before; so
does a number of 19 digits or more, which orjson would turn into a float past 64 bits.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_LONG_NUMBER = re.compile(r"\d{19}")
_LONG_NUMBER_BYTES = re.compile(rb"\d{19}")
# Options orjson's decoding needs no help for: it refuses the constants they would refuse.
_PLAIN_OPTIONS = frozenset({"parse_constant"})


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``; ValueError for anything that is not JSON we can pass on."""
    if options.keys() <= _PLAIN_OPTIONS:
        long_number = (_LONG_NUMBER.search(text) if isinstance(text, str)
                       else _LONG_NUMBER_BYTES.search(text))
        if long_number is None:
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:
                pass  # the standard library's answer, and its error's text
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("unpaired surrogates are not text") from None
    return value
