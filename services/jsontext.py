"""JSON text from callers, decoded strictly: one check shared by every service that takes it.

``json.loads`` lets through two things nothing downstream can carry: nesting deep enough to
exhaust the recursion limit (it raises RecursionError, not ValueError), and unpaired UTF-16
surrogates (``"\\ud800"``), valid JSON escapes but not Unicode text, which neither UTF-8 (gRPC,
Postgres) nor a log can hold. Both become the ValueError every other malformed text gives.
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``; ValueError for anything that is not JSON we can pass on."""
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("unpaired surrogates are not text") from None
    return value
