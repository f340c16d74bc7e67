"""Waiting for something that happens in another process or task, with a bound.

The suite's one polling helper: a test waits for an observable event through it rather than
sleeping and hoping, and fails with what never happened."""

from __future__ import annotations

import asyncio
import inspect


async def eventually(check, timeout: float = 30.0, interval: float = 0.2,
                     what: str = "never happened"):
    """The first truthy result of ``check()`` (awaited when it is a coroutine), asked every
    ``interval`` seconds; fails the test with ``what`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + timeout
    while True:
        result = check()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return result
        assert loop.time() < give_up_at, what
        await asyncio.sleep(interval)
