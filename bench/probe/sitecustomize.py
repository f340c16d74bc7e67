"""What the benchmark's child processes did with their time, opt-in and outside their code.

gateway_bench puts this folder on the PYTHONPATH of the processes it starts, with
TAVOLO_PROBE_LOG naming a folder: Python imports this module at start-up (``site``), and each
process then writes, to files named by its pid in that folder:

- ``<pid>.gc``: every collection that paused it for 1 ms or more, one line
  ``<wall-clock start> <seconds> <CPU seconds> <generation>`` (the pause as the process's callers
  felt it, which includes waiting for a core, and the collector's own CPU time);
and, with TAVOLO_PROBE_TIMELINE=1 too (its hooks cost CPU, a few tenths of a millisecond a move
over the processes, so the bench's cost figures are taken without them):

- ``<pid>.stalls``: every event-loop callback that held the loop for 2 ms or more, one line
  ``<wall-clock start> <seconds> <what ran>`` (a task's coroutine, or the callback's name);
- ``<pid>.hops``: the moments a move passed the live path's hops, one line
  ``<move id> <hop> <perf_counter>`` (CLOCK_MONOTONIC, one clock for every process of the
  machine). The move id is the WebSocket message's ``"id"``; the hops are the gateway's handling
  of the message (``gw.act``), its ``Act`` sent on the live link and answered (``link.send``,
  ``link.answer``), and in the game service the move's ``Act`` (``game.act``, ``game.done``) and
  its append to the log (``log.append``, ``log.done``).

Those functions are wrapped as their modules are imported: the services' code is not touched.
The files are line-buffered, so nothing depends on how the process exits. Without
TAVOLO_PROBE_LOG it does nothing.
"""

from __future__ import annotations

import contextvars
import functools
import gc
import importlib.abc
import importlib.machinery
import os
import sys
import time

_GC_THRESHOLD = 0.001
_STALL_THRESHOLD = 0.002

# The move a task is working on (set where the move's id is known, read by inner hops).
_move: contextvars.ContextVar[str] = contextvars.ContextVar("probe_move", default="")


def _open(folder: str, suffix: str):
    return open(os.path.join(folder, f"{os.getpid()}.{suffix}"), "a", buffering=1)


def _watch_collections(folder: str) -> None:
    out = _open(folder, "gc")
    started = cpu = 0.0

    def callback(phase: str, info: dict) -> None:
        nonlocal started, cpu
        if phase == "start":
            started, cpu = time.perf_counter(), time.thread_time()
            return
        pause = time.perf_counter() - started
        if pause >= _GC_THRESHOLD:
            out.write(f"{time.time() - pause:.6f} {pause:.6f} {time.thread_time() - cpu:.6f} {info['generation']}\n")

    gc.callbacks.append(callback)


def _watch_loop(folder: str) -> None:
    import asyncio.events

    out = _open(folder, "stalls")
    run = asyncio.events.Handle._run

    def timed(handle) -> None:
        started = time.perf_counter()
        run(handle)
        held = time.perf_counter() - started
        if held >= _STALL_THRESHOLD:
            out.write(f"{time.time() - held:.6f} {held:.6f} {_name(handle._callback)}\n")

    asyncio.events.Handle._run = timed


def _name(callback) -> str:
    task = getattr(callback, "__self__", None)
    coro = getattr(task, "get_coro", None)
    if coro is not None:
        return getattr(coro(), "__qualname__", repr(coro()))
    return getattr(callback, "__qualname__", type(callback).__name__).replace(" ", "_")


def _marking(out, start: str, end: str, key):
    """Wrap an async method: the moments it starts and returns (or raises), for its move."""
    def wrap(method):
        @functools.wraps(method)
        async def marked(*args, **kwargs):
            move = key(*args, **kwargs)
            token = _move.set(move) if move else None
            try:
                if move:
                    out.write(f"{move} {start} {time.perf_counter():.6f}\n")
                try:
                    return await method(*args, **kwargs)
                finally:
                    if move:
                        out.write(f"{move} {end} {time.perf_counter():.6f}\n")
            finally:
                if token is not None:
                    _move.reset(token)
        return marked
    return wrap


def _request_move(request_id: str) -> str:
    return request_id.rpartition("/")[2]  # "seat:1/m-17" -> "m-17"


def _hops(folder: str) -> dict:
    out = _open(folder, "hops")

    def gateway_ws(module) -> None:
        module._Connection._act = _marking(out, "gw.act", "gw.done",
                                      lambda self, data, message_id: message_id or "")(module._Connection._act)

    def live_link(module) -> None:
        module.LiveLink.act = _marking(
            out, "link.send", "link.answer",
            lambda self, table_id, seat, action, expected_revision=None, request_id="", **_:
            _request_move(request_id))(module.LiveLink.act)

    def tables(module) -> None:
        module.Tables.act = _marking(
            out, "game.act", "game.done",
            lambda self, table_id, seat, action_json, expected_revision=None, request_id="", **_:
            _request_move(request_id))(module.Tables.act)

    def group_commit(module) -> None:
        module.GroupCommit.submit = _marking(
            out, "log.append", "log.done", lambda *args, **kwargs: _move.get())(module.GroupCommit.submit)

    return {"gateway.ws": gateway_ws, "game.live_link": live_link, "game.tables": tables,
            "game.group_commit": group_commit}


class _Patcher(importlib.abc.MetaPathFinder):
    """Patch a module right after it is first executed."""

    def __init__(self, patches: dict) -> None:
        self.patches = patches

    def find_spec(self, name, path, target=None):
        patch = self.patches.pop(name, None)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module) -> None:
            execute(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


if os.environ.get("TAVOLO_PROBE_LOG"):
    _watch_collections(os.environ["TAVOLO_PROBE_LOG"])
    if os.environ.get("TAVOLO_PROBE_TIMELINE") == "1":
        _watch_loop(os.environ["TAVOLO_PROBE_LOG"])
        sys.meta_path.insert(0, _Patcher(_hops(os.environ["TAVOLO_PROBE_LOG"])))
