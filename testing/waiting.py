"""Waiting for something that happens in another process or task, with a bound."""

from __future__ import annotations

import asyncio


async def eventually(check, timeout: float = 30.0, interval: float = 0.2,
                     what: str = "never happened"):
    """The first truthy result of ``await check()``, asked every ``interval`` seconds; fails
    the test with ``what`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + timeout
    while True:
        result = await check()
        if result:
            return result
        assert loop.time() < give_up_at, what
        await asyncio.sleep(interval)
