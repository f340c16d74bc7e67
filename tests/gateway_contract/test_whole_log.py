"""The gateway reads a log of several pages as one revision, whatever happens between pages."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gateway.games import _whole_log
from services.rpc.errors import Reason, ServiceError


class _ChangingLog:
    """GetLog over a log that ``between_pages`` changes after each page but the last."""

    def __init__(self, moves: int, page: int, between_pages=None):
        self.moves = list(range(1, moves + 1))
        self.revision = moves
        self.page = page
        self.between_pages = between_pages or (lambda log: None)
        self.reads = 0

    def append(self) -> None:
        self.moves.append(len(self.moves) + 1)
        self.revision += 1

    def take_back(self) -> None:
        self.moves.pop()
        self.revision += 1

    async def get_log(self, table_id, after, page_size):
        self.reads += 1
        header = SimpleNamespace(move_count=len(self.moves), revision=self.revision)
        page = [m for m in self.moves if m > after][:self.page]
        following = page[-1] if page and page[-1] < len(self.moves) else 0
        if following:
            self.between_pages(self)
        return header, page, following


async def test_a_still_log_is_read_page_by_page():
    log = _ChangingLog(moves=7, page=3)
    header, moves = await _whole_log(log, "t")
    assert (header.revision, moves, log.reads) == (7, list(range(1, 8)), 3)


async def test_moves_appended_meanwhile_are_cut_at_the_first_pages_revision():
    log = _ChangingLog(moves=7, page=3, between_pages=_ChangingLog.append)
    header, moves = await _whole_log(log, "t")
    assert header.revision == 7 and moves == list(range(1, 8))


async def test_a_take_back_meanwhile_starts_the_read_again():
    changes = iter([_ChangingLog.take_back])  # once: the second read sees a still log

    def once(log):
        next(changes, lambda log: None)(log)

    log = _ChangingLog(moves=7, page=3, between_pages=once)
    header, moves = await _whole_log(log, "t")
    assert header.revision == 8 and moves == list(range(1, 7))
    assert log.reads > 3


async def test_a_log_that_never_stops_changing_is_unavailable():
    log = _ChangingLog(moves=7, page=3, between_pages=lambda log: (log.take_back(), log.append()))
    with pytest.raises(ServiceError) as caught:
        await _whole_log(log, "t", attempts=3)
    assert caught.value.reason is Reason.UNAVAILABLE
