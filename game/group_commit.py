"""Group commit: many tables' appends to the log in one Postgres statement, under load only.

An append waits for no one: when no batch is being written, it is written at once, alone.
While ``concurrency`` batches are being written, the appends that arrive wait, and the next
batch takes them all (up to ``max_batch``): so at one table a move costs what it did, and at
500 tables a transaction carries many moves. Each item gets its own outcome; a batch that fails
as a whole is written again item by item, so one table's trouble never fails another's move.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Outcome = TypeVar("Outcome")


class GroupCommit(Generic[Item, Outcome]):
    """``write_many(items)`` writes a batch and gives each item's outcome (a value, or the
    exception that item raises); ``write_one(item)`` writes an item alone, for a batch that
    failed whole."""

    def __init__(self, write_many: Callable[[list[Item]], Awaitable[Sequence[Outcome | BaseException]]],
                 write_one: Callable[[Item], Awaitable[Outcome]], *,
                 concurrency: int = 2, max_batch: int = 256):
        self._write_many = write_many
        self._write_one = write_one
        self._concurrency = concurrency
        self._max_batch = max_batch
        self._waiting: list[tuple[Item, asyncio.Future[Outcome]]] = []
        self._writing = 0
        self.batches = 0  # written so far (for tests and the bench)

    async def submit(self, item: Item) -> Outcome:
        """The item's outcome once its batch is written (its exception raised here)."""
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, done))
        if self._writing < self._concurrency:
            self._start()
        return await done

    def _start(self) -> None:
        self._writing += 1
        asyncio.get_running_loop().create_task(self._write_batches(), name="group commit")

    async def _write_batches(self) -> None:
        try:
            while self._waiting:
                batch = self._waiting[:self._max_batch]
                del self._waiting[:self._max_batch]
                await self._write(batch)
        finally:
            self._writing -= 1

    async def _write(self, batch: list[tuple[Item, asyncio.Future[Outcome]]]) -> None:
        self.batches += 1
        items = [item for item, _ in batch]
        try:
            outcomes = await self._write_many(items) if len(items) > 1 else None
        except Exception:  # noqa: BLE001 - the whole batch failed: each item alone tells whose
            outcomes = None
        if outcomes is None:
            outcomes = await asyncio.gather(*(self._write_one(item) for item in items),
                                            return_exceptions=True)
        for (_, done), outcome in zip(batch, outcomes, strict=True):
            if done.done():
                continue  # its caller was cancelled
            if isinstance(outcome, BaseException):
                done.set_exception(outcome)
            else:
                done.set_result(outcome)
