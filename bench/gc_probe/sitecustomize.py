"""Garbage-collection pauses of the benchmark's child processes, opt-in and outside their code.

gateway_bench puts this folder on the PYTHONPATH of the processes it starts, with TAVOLO_GC_LOG
naming a folder: Python imports this module at start-up (``site``), and each process then appends
every collection that paused it for 1 ms or more to ``<TAVOLO_GC_LOG>/<pid>.gc`` as one line
``<wall-clock start> <seconds> <CPU seconds> <generation>`` (the pause as the process's callers
felt it, which includes waiting for a core, and the collector's own CPU time; line-buffered, so
it can be read while the process runs, and nothing depends on how the process exits). Without
TAVOLO_GC_LOG it does nothing.
"""

from __future__ import annotations

import gc
import os
import time

_THRESHOLD = 0.001


def _install(folder: str) -> None:
    out = open(os.path.join(folder, f"{os.getpid()}.gc"), "a", buffering=1)  # noqa: SIM115 - open for the process's life
    started = cpu = 0.0

    def callback(phase: str, info: dict) -> None:
        nonlocal started, cpu
        if phase == "start":
            started, cpu = time.perf_counter(), time.thread_time()
            return
        pause = time.perf_counter() - started
        if pause >= _THRESHOLD:
            out.write(f"{time.time() - pause:.6f} {pause:.6f} {time.thread_time() - cpu:.6f} {info['generation']}\n")

    gc.callbacks.append(callback)


if os.environ.get("TAVOLO_GC_LOG"):
    _install(os.environ["TAVOLO_GC_LOG"])
