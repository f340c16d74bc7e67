"""QueueWatch: a deadline queue that lost its entries gets every running table's deadlines back."""

from __future__ import annotations

import asyncio

import pytest

from game.queue_watch import QueueWatch
from services.background import Retry
from services.rpc.errors import Reason, ServiceError


class FakeQueue:
    """Answers GetQueueEpoch from a list: an epoch, or an error to raise."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = 0

    async def queue_epoch(self) -> str:
        self.asked += 1
        answer = self.answers[0] if len(self.answers) == 1 else self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


async def _watch_until(queue: FakeQueue, asked: int, resend) -> QueueWatch:
    watch = QueueWatch(queue, resend, interval_seconds=0.001, retry=Retry(first_seconds=0.001))
    task = asyncio.create_task(watch.run())
    try:
        while queue.asked < asked:
            await asyncio.sleep(0.001)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    return watch


async def test_the_deadlines_are_handed_over_at_start_and_only_again_after_a_loss():
    resends = []

    async def resend():
        resends.append(queue.asked)
        return 3

    queue = FakeQueue("a", "a", "a", "b", "b")
    watch = await _watch_until(queue, 5, resend)
    assert resends == [1, 4] and watch.resent == 2


async def test_a_queue_briefly_down_is_asked_again_without_a_resend():
    resends = []

    async def resend():
        resends.append(queue.asked)
        return 0

    down = ServiceError(Reason.UNAVAILABLE, "down")
    queue = FakeQueue("a", down, down, "a", "a")
    await _watch_until(queue, 5, resend)
    assert resends == [1]


async def test_a_failing_resend_is_retried_until_it_succeeds():
    attempts = []

    async def resend():
        attempts.append(1)
        if len(attempts) < 3:
            raise ServiceError(Reason.UNAVAILABLE, "the log store is down")
        return 1

    queue = FakeQueue("a")
    watch = await _watch_until(queue, 2, resend)
    assert len(attempts) == 3 and watch.resent == 1


async def test_a_definite_refusal_of_the_epoch_is_not_swallowed():
    watch = QueueWatch(FakeQueue(ServiceError(Reason.INVALID_ARGUMENT, "bad", field="")), lambda: None,
                       interval_seconds=0.001)
    with pytest.raises(ServiceError):
        await asyncio.wait_for(watch.run(), 2)
