"""The firing loop: sleep until the next entry falls due, claim it, fire it, settle it.

A consumer plans its sleep from the queue (the next due time or lease expiry) and is woken
early by the queue's wake-ups when something sooner is scheduled; the heartbeat
(DEADLINE_HEARTBEAT_MS) bounds every sleep, so a lost wake-up delays a fire by at most that.
Each poll also sweeps expired leases back to pending, so the entries of a replica that died
mid-fire are fired by whichever replica polls next once their lease has run out.

A fire that fails (the game service errs or cannot be reached) goes back to the queue with an
exponential backoff; nothing is ever dropped, except an entry whose table the game service no
longer knows (TABLE_NOT_FOUND) or refuses. Stopping the consumer gives its unsettled claims
back, due now.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from deadlines.entry import Claim, Entry
from deadlines.queue import DeadlineQueue
from services.cancellation import raise_if_cancelled
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

DEFAULT_LEASE_MS = 30_000


class FireOutcome(enum.Enum):
    """How the game service answered a fire; each one ends the entry."""

    FIRED = "fired"          # the deadline was current and its move was applied
    STALE = "stale"          # the token was stale: nothing changed
    TABLE_GONE = "gone"      # the game service has no such table: drop the entry


class FireTarget(Protocol):
    """Who deadlines are fired at: the game service (game.client.GameClient).

    The answer's ``fired`` is False for a stale token. A ServiceError TABLE_NOT_FOUND ends the
    entry (the table is gone); any other exception means "try again later", unless its reason
    says that a retry is refused again (see Consumer._fire).
    """

    async def fire_deadline(self, table_id: str, token: str, kind: str) -> Mapping[str, Any]: ...


async def fire(target: FireTarget, entry: Entry) -> FireOutcome:
    """Fire ``entry`` at ``target``: how it answered; a failure is raised."""
    try:
        answer = await target.fire_deadline(entry.table_id, entry.token, entry.kind)
    except ServiceError as error:
        if error.reason is Reason.TABLE_NOT_FOUND:
            return FireOutcome.TABLE_GONE
        raise
    return FireOutcome.FIRED if answer["fired"] else FireOutcome.STALE


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter between the attempts of a failing fire."""

    initial_ms: int = 250
    max_ms: int = 10_000

    def delay_ms(self, attempt: int, jitter: float) -> int:
        """The wait after the ``attempt``-th failure (1, 2, ...); ``jitter`` is in [0, 1)."""
        ceiling = min(self.max_ms, self.initial_ms * 2 ** min(max(attempt, 1) - 1, 30))
        return max(1, int(ceiling * (0.5 + jitter / 2)))


def wall_clock_ms() -> float:
    """Due times are wall-clock epoch milliseconds, shared by every service and replica."""
    return time.time() * 1000


class Consumer:
    """Fires due entries of ``queue`` at ``target``; run one per replica with :meth:`run`."""

    def __init__(self, queue: DeadlineQueue, target: FireTarget, *,
                 heartbeat_ms: int = 30_000, lease_ms: int = DEFAULT_LEASE_MS,
                 max_in_flight: int = 64, backoff: Backoff = Backoff(),
                 wakeups: bool = True):
        if lease_ms <= 0 or heartbeat_ms <= 0 or max_in_flight <= 0:
            raise ValueError("lease_ms, heartbeat_ms and max_in_flight must be positive")
        self.queue = queue
        self.target = target
        self.heartbeat_ms = heartbeat_ms
        self.lease_ms = lease_ms
        self.max_in_flight = max_in_flight
        self.backoff = backoff
        self.wakeups = wakeups  # False: heartbeat only (as if every wake-up were lost)
        self._woken = asyncio.Event()
        self._planned_until = math.inf  # wall-clock ms this consumer sleeps until
        self._firing: dict[asyncio.Task, Claim] = {}
        self._waiting_for_slot = False

    async def run(self) -> None:
        """Poll and fire until cancelled; then give back what was claimed and not settled."""
        listener = (asyncio.create_task(self.queue.listen(self._on_wake), name="deadline-wakeups")
                    if self.wakeups else None)
        failures = 0
        try:
            while True:
                raise_if_cancelled()
                self._woken.clear()
                self._planned_until = math.inf  # any wake-up during the poll counts
                try:
                    wait_ms = await self._poll_and_fire()
                    failures = 0
                except Exception as error:  # the queue does not answer: back off, keep going  # noqa: BLE001
                    failures += 1
                    wait_ms = min(self.heartbeat_ms,
                                  self.backoff.delay_ms(failures, random.random()))
                    log.warning("deadline queue unavailable (polling again in %d ms): %s",
                                wait_ms, error)
                raise_if_cancelled()
                await self._sleep(wait_ms)
        finally:
            if listener is not None:
                listener.cancel()
                await asyncio.wait({listener}, timeout=5)
            await self._give_back()

    def _on_wake(self, due_ms: int | None) -> None:
        if due_ms is None or due_ms < self._planned_until:
            self._woken.set()

    async def _poll_and_fire(self) -> float:
        """One poll: claim what is due (up to the free slots) and fire it; how long to sleep."""
        free = self.max_in_flight - len(self._firing)
        if free <= 0:
            self._waiting_for_slot = True  # a settled fire wakes us
            return self.heartbeat_ms
        now = math.floor(wall_clock_ms())
        poll = await self.queue.poll(now, now + self.lease_ms, free)
        if poll.returned:
            log.info("%d expired lease(s) returned to the queue", poll.returned)
        for member in poll.undecodable:
            log.error("dropped a queue member that is not a deadline entry: %.80r", member)
        for claim in poll.claims:
            task = asyncio.create_task(self._fire(claim))
            self._firing[task] = claim
            task.add_done_callback(self._settled)
        if len(poll.claims) == free:
            return 0  # more may be due
        if poll.next_wake_ms is None:
            return self.heartbeat_ms
        return min(self.heartbeat_ms, max(0.0, poll.next_wake_ms - wall_clock_ms()))

    async def _sleep(self, wait_ms: float) -> None:
        if wait_ms <= 0:
            await asyncio.sleep(0)  # let fires and wake-ups run between polls
            return
        self._planned_until = wall_clock_ms() + wait_ms
        if self._woken.is_set():
            return
        timer = asyncio.get_running_loop().call_later(wait_ms / 1000, self._woken.set)
        try:
            await self._woken.wait()
        finally:
            timer.cancel()

    async def _fire(self, claim: Claim) -> None:
        entry = claim.entry
        try:
            try:
                outcome = await fire(self.target, entry)
            except Exception as error:  # any failure: retried, unless refused  # noqa: BLE001
                if isinstance(error, ServiceError) and not error.reason.transient \
                        and error.reason is not Reason.CONCURRENT_MOVE:  # that one: try again
                    # the game service refused the entry itself (a malformed table id, a log
                    # that cannot be read): firing it again would only be refused again
                    log.error("dropped the %s/%s deadline of table %s: the game service "
                              "refused it (%s: %s)", entry.kind, entry.token, entry.table_id,
                              error.reason.name, error.message)
                    await self.queue.ack(claim)
                    return
                # the game service failed or is out of reach: try again later
                attempt = claim.attempts + 1
                delay = self.backoff.delay_ms(attempt, random.random())
                # an outage fails every due entry: say so on the 1st, 10th, 20th... attempt
                level = logging.WARNING if attempt == 1 or attempt % 10 == 0 else logging.DEBUG
                log.log(level, "fire of %s/%s for table %s failed (attempt %d, again in %d ms): %s",
                        entry.kind, entry.token, entry.table_id, attempt, delay, error)
                await self.queue.retry(claim, math.floor(wall_clock_ms()) + delay)
                return
            if outcome is FireOutcome.TABLE_GONE:
                log.info("table %s is gone: dropped its %s deadline", entry.table_id, entry.kind)
            lateness = wall_clock_ms() - claim.due_ms
            metrics.deadline_fired(entry.kind, outcome.value, lateness / 1000, "backstop")
            log.debug("fired %s/%s for table %s (%s, %.0f ms after due)", entry.kind,
                      entry.token, entry.table_id, outcome.value, lateness)
            await self.queue.ack(claim)
        except Exception as error:  # the queue failed while settling: the lease will return it  # noqa: BLE001
            log.warning("could not settle the %s deadline of table %s (its lease returns it): %s",
                        entry.kind, entry.table_id, error)

    def _settled(self, task: asyncio.Task) -> None:
        self._firing.pop(task, None)
        if self._waiting_for_slot:
            self._waiting_for_slot = False
            self._woken.set()

    async def _give_back(self) -> None:
        """On stop: cancel the fires still running and release their claims, due now."""
        firing = dict(self._firing)
        for task in firing:
            task.cancel()
        await asyncio.gather(*firing, return_exceptions=True)
        released = 0
        for task, claim in firing.items():
            if not task.cancelled():
                continue
            try:
                released += await self.queue.release(claim, math.floor(wall_clock_ms()))
            except Exception as error:  # noqa: BLE001
                log.warning("could not give back a claim (its lease returns it): %s", error)
        if released:
            log.info("gave back %d unfired deadline(s) to the queue", released)
