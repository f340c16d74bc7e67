"""Work done now and then: a pass that fails is logged, and the next one comes."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from services.background import every


async def test_a_failed_pass_does_not_stop_the_passes(caplog) -> None:
    passes: list[int] = []
    third = asyncio.Event()

    async def job() -> None:
        passes.append(len(passes))
        if len(passes) == 1:
            raise ConnectionError("store down")
        if len(passes) == 3:
            third.set()

    caplog.set_level(logging.WARNING, logger="services.background")
    task = asyncio.create_task(every(0, 0, job, "test pass"))
    await asyncio.wait_for(third.wait(), 5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert passes[:3] == [0, 1, 2]
    assert "test pass: the pass failed (ConnectionError: store down)" in caplog.text
