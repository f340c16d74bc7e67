"""A guard for loops that must stop when their task is cancelled.

On Python 3.11, ``asyncio.wait_for`` returns normally when its inner call finishes in the same
step as a cancellation, so the ``CancelledError`` never arrives (fixed in 3.12). redis-py wraps
every socket write in ``wait_for`` (its default socket timeout), so a task cancelled while it
talks to Redis may simply carry on. Loops call :func:`raise_if_cancelled` between steps.
"""

from __future__ import annotations

import asyncio


def raise_if_cancelled() -> None:
    """Raise CancelledError if the current task was asked to stop and carried on regardless."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
