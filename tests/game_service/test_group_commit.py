"""game.group_commit: an append alone when nothing is being written, the rest together, each
with its own outcome, and a failed batch written again item by item."""

from __future__ import annotations

import asyncio

import pytest

from game.group_commit import GroupCommit


class Log:
    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.release = asyncio.Event()

    async def write_many(self, items: list[int]) -> list[object]:
        self.batches.append(list(items))
        await self.release.wait()
        if 13 in items:
            raise RuntimeError("the whole statement failed")
        return [ValueError(f"{item} refused") if item % 5 == 0 else item * 10 for item in items]

    async def write_one(self, item: int) -> int:
        self.batches.append([item])
        await self.release.wait()
        if item % 5 == 0 or item == 13:
            raise ValueError(f"{item} refused")
        return item * 10


async def test_the_first_goes_alone_and_those_that_wait_go_together():
    log = Log()
    commit = GroupCommit(log.write_many, log.write_one, concurrency=1)
    first = asyncio.create_task(commit.submit(1))
    await asyncio.sleep(0)
    waiting = [asyncio.create_task(commit.submit(n)) for n in (2, 3, 4, 5)]
    await asyncio.sleep(0)
    log.release.set()

    assert await first == 10
    outcomes = await asyncio.gather(*waiting, return_exceptions=True)

    assert log.batches == [[1], [2, 3, 4, 5]]
    assert outcomes[:3] == [20, 30, 40] and isinstance(outcomes[3], ValueError)


async def test_a_batch_that_fails_whole_is_written_item_by_item():
    log = Log()
    commit = GroupCommit(log.write_many, log.write_one, concurrency=1)
    log.release.set()
    outcomes = await asyncio.gather(*(commit.submit(n) for n in (12, 13, 14)),
                                    return_exceptions=True)

    assert outcomes[0] == 120 and isinstance(outcomes[1], ValueError) and outcomes[2] == 140
    assert log.batches == [[12, 13, 14], [12], [13], [14]]


async def test_a_cancelled_caller_leaves_the_others_their_outcomes():
    log = Log()
    commit = GroupCommit(log.write_many, log.write_one, concurrency=1)
    first = asyncio.create_task(commit.submit(1))
    await asyncio.sleep(0)
    gone, kept = asyncio.create_task(commit.submit(2)), asyncio.create_task(commit.submit(3))
    await asyncio.sleep(0)
    gone.cancel()
    log.release.set()

    assert (await first, await kept) == (10, 30)
    with pytest.raises(asyncio.CancelledError):
        await gone
