"""A game API for the bots' unit tests (bots.driver.GameApi): each watch of a seat is a queue the
test feeds views into, or breaks; each move is recorded and answered as the test says."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from services.rpc.errors import ServiceError


@dataclass(frozen=True)
class Header:
    move_count: int = 0


@dataclass(frozen=True)
class Move:
    table_id: str
    seat: str
    action: dict | str
    expected_revision: int | None


class FakeGame:
    def __init__(self) -> None:
        self.watches: dict[tuple[str, str], list[asyncio.Queue]] = defaultdict(list)
        self.watched = asyncio.Condition()
        self.moves: list[Move] = []
        self.moved = asyncio.Condition()
        self.refusals: list[ServiceError] = []  # the next moves' answers, first to last

    async def watch_seat(self, table_id: str, seat: str) -> AsyncGenerator[dict[str, Any], None]:
        queue: asyncio.Queue = asyncio.Queue()
        async with self.watched:
            self.watches[table_id, seat].append(queue)
            self.watched.notify_all()
        while True:
            item = await queue.get()
            if isinstance(item, Exception):
                raise item
            yield item

    async def act(self, table_id: str, seat: str, action: dict | str,
                  expected_revision: int | None = None) -> object:
        async with self.moved:
            self.moves.append(Move(table_id, seat, action, expected_revision))
            self.moved.notify_all()
        if self.refusals:
            raise self.refusals.pop(0)
        return None

    async def get_log(self, table_id: str, after_number: int = 0,
                      page_size: int = 0) -> tuple[Any, list, int]:
        return Header(), [], 0

    # -- the test's side ---------------------------------------------------------------------
    async def watch_opened(self, table_id: str, seat: str, count: int = 1) -> asyncio.Queue:
        """The ``count``-th watch of the seat, once the bot opened it."""
        async with self.watched:
            await asyncio.wait_for(self.watched.wait_for(
                lambda: len(self.watches[table_id, seat]) >= count), 10)
        return self.watches[table_id, seat][count - 1]

    async def moves_made(self, count: int) -> list[Move]:
        async with self.moved:
            await asyncio.wait_for(self.moved.wait_for(lambda: len(self.moves) >= count), 10)
        return self.moves


def hand_end(revision: int, acknowledged: tuple[int, ...] = ()) -> dict:
    """A view at a hand's end, owing an acknowledgement from every seat not in ``acknowledged``."""
    return {"revision": revision, "status": "hand_end", "your_turn": False,
            "acknowledged": list(acknowledged)}


def finished(revision: int) -> dict:
    return {"revision": revision, "status": "finished", "your_turn": False}
