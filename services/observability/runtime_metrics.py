"""``tavolo.event_loop.lag`` and ``tavolo.gc.pause.duration``: how late a process's event loop
runs what is due, and how long the garbage collector stops it.

Both are measured by one task per process (:meth:`RuntimeMetrics.sampling`, which
services.observability.telemetry.running starts), never per call: every half second it sleeps
and records how much later than asked it woke (a loop busy with one long callback, or starved
of the CPU, wakes late; an idle one a millisecond at most), then records the collections since
its last wake-up. The collector reports each collection through ``gc.callbacks``, timed with
time.perf_counter only and kept in a bounded queue: a callback runs inside whatever code
allocated, where taking the metrics SDK's locks could deadlock, so the task records them.
The pauses carry ``cpython.gc.generation`` (0, 1, 2), as OpenTelemetry's CPython runtime
conventions name it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

from services.background import in_background

LOOP_LAG = "tavolo.event_loop.lag"
GC_PAUSE = "tavolo.gc.pause.duration"
GENERATION = "cpython.gc.generation"
SAMPLE_INTERVAL_SECONDS = 0.5
# Seconds. A healthy loop is late by under a millisecond; tens of milliseconds are felt by the
# players (every move waits behind the late callback); seconds are an outage.
_LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# A young collection takes tens of microseconds, a full one of a big heap up to a second.
_PAUSE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                  0.5, 1.0)
# Pauses waiting for the task; more (a loop stuck for long) are dropped, the oldest first.
_MAX_PENDING_PAUSES = 10_000


class RuntimeMetrics:
    """The event loop's lag and the collector's pauses, for one telemetry."""

    def __init__(self, meter: Any, interval_seconds: float = SAMPLE_INTERVAL_SECONDS) -> None:
        self.interval_seconds = interval_seconds
        self.lag = meter.create_histogram(
            LOOP_LAG, unit="s", explicit_bucket_boundaries_advisory=_LAG_BUCKETS,
            description="How much later than due the event loop ran a scheduled wake-up")
        self.gc_pause = meter.create_histogram(
            GC_PAUSE, unit="s", explicit_bucket_boundaries_advisory=_PAUSE_BUCKETS,
            description="How long each garbage collection stopped the process, by generation")
        self._pauses: deque[tuple[int, float]] = deque(maxlen=_MAX_PENDING_PAUSES)
        self._gc_started: float | None = None
        self._generations: dict[int, dict[str, int]] = {}

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        """gc.callbacks: runs wherever a collection starts; appends, nothing else."""
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif self._gc_started is not None:
            self._pauses.append((info["generation"], time.perf_counter() - self._gc_started))
            self._gc_started = None

    def record_pauses(self) -> None:
        """Record the collections reported since the last call."""
        pauses = self._pauses
        while pauses:
            generation, seconds = pauses.popleft()
            attributes = self._generations.get(generation)
            if attributes is None:
                attributes = self._generations[generation] = {GENERATION: generation}
            self.gc_pause.record(seconds, attributes)

    async def run(self) -> None:
        """Sample until cancelled, hearing the collector meanwhile."""
        loop = asyncio.get_running_loop()
        gc.callbacks.append(self._on_gc)
        try:
            while True:
                due = loop.time() + self.interval_seconds
                await asyncio.sleep(self.interval_seconds)
                self.lag.record(max(0.0, loop.time() - due))
                self.record_pauses()
        finally:
            gc.callbacks.remove(self._on_gc)
            self._gc_started = None

    @contextlib.asynccontextmanager
    async def sampling(self) -> AsyncIterator[None]:
        """:meth:`run` as a background task for the life of the block."""
        async with in_background(self.run(), "telemetry-runtime"):
            yield
