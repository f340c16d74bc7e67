"""GameService.Relay: one stream between a gateway process and a game replica carrying the Act
and WatchTable calls of many tables (the contract of the calls is in game.proto).

A unary Act costs each side about as much CPU as the move itself (bench: ~0.7 ms a call on
this kind of machine, both processes together), and a view stream per table is a call per
table; on one long-lived stream a move is a message, and a message carries whatever the
other side has not yet been sent (the writer sends all that waits when it gets the chance),
so under load many moves and views share one message.

- :func:`serve_relay` is the service's side: it runs each call against the servicer's own
  ``Act`` and ``WatchTable`` handlers, so a relayed call behaves exactly as the call of its own
  would (the same checks, errors and metrics).
- :class:`RelayClient` is the caller's side, owned by :class:`game.client.GameClient`: it opens
  the stream on first use and again after it broke, and turns events back into answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import grpc
from google.rpc import status_pb2

from services.components import GAME_SERVICE
from services.rpc import relayed_calls
from services.rpc.errors import Reason, ServiceError, from_rpc_error, from_status_message
from tavolo.game.v1 import game_pb2

log = logging.getLogger(__name__)

# The service whose Act and WatchTable calls the stream carries (its full proto name).
ACT_METHOD = f"/{GAME_SERVICE}/Act"
# Events per message: a table's views are ~6 KB, so a message stays far below gRPC's 4 MB.
MAX_EVENTS_PER_MESSAGE = 64
MAX_CALLS_PER_MESSAGE = 64
# Events waiting for a caller that stopped reading: past this, its stream ends
# (RESOURCE_EXHAUSTED) rather than the service holding them all; the caller opens another.
MAX_WAITING_EVENTS = 20_000
_FINISHED = game_pb2.TABLE_STATUS_FINISHED


# -- the service's side ---------------------------------------------------------------------------


def serve_relay(servicer: Any, requests: AsyncIterator[game_pb2.RelayRequest],
                context: Any) -> AsyncGenerator[game_pb2.RelayResponse, None]:
    """The responses of one Relay stream: ``servicer`` has the ``Act`` and ``WatchTable``
    handlers of GameService (they raise ServiceError to refuse, never abort the context)."""
    return _RelaySession(servicer, context).run(requests)


class _RelaySession:
    def __init__(self, servicer: Any, context: Any):
        self._servicer = servicer
        self._context = context
        self._calls: dict[int, asyncio.Task[None]] = {}
        self._events: list[game_pb2.RelayEvent] = []
        self._ready = asyncio.Event()
        self._failure: ServiceError | None = None  # ends the stream
        self._reading = True

    async def run(self, requests: AsyncIterator[game_pb2.RelayRequest]
                  ) -> AsyncGenerator[game_pb2.RelayResponse, None]:
        # At once, so the caller knows the stream is served before it writes a call.
        await self._context.send_initial_metadata(())
        reader = asyncio.create_task(self._read(requests), name="relay reader")
        try:
            while True:
                if self._failure is not None:
                    raise self._failure
                if not self._events:
                    if not self._reading:
                        return  # the caller closed its side: its calls end with the stream
                    self._ready.clear()
                    await self._ready.wait()
                    continue
                events = self._events[:MAX_EVENTS_PER_MESSAGE]
                del self._events[:MAX_EVENTS_PER_MESSAGE]
                yield game_pb2.RelayResponse(events=events)
        finally:
            reader.cancel()
            for task in self._calls.values():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self._calls.clear()

    async def _read(self, requests: AsyncIterator[game_pb2.RelayRequest]) -> None:
        try:
            async for request in requests:
                for call in request.calls:
                    self._start(call)
                    if self._failure is not None:
                        return
        except ServiceError as error:  # a message that is no RelayRequest
            self._fail(error)
        finally:
            self._reading = False
            self._ready.set()

    def _start(self, call: game_pb2.RelayCall) -> None:
        kind = call.WhichOneof("kind")
        if kind == "cancel":
            task = self._calls.pop(call.call_id, None)
            if task is not None:
                task.cancel()
            return
        if kind is None:
            return self._fail(ServiceError(Reason.INVALID_ARGUMENT, "A relayed call needs a kind",
                                           field="calls.kind"))
        if call.call_id in self._calls:
            return self._fail(ServiceError(
                Reason.INVALID_ARGUMENT, f"Call {call.call_id} is still running: number each "
                "call anew", field="calls.call_id"))
        work = self._act(call) if kind == "act" else self._watch(call)
        task = asyncio.create_task(work)
        self._calls[call.call_id] = task
        task.add_done_callback(functools.partial(self._forget, call.call_id))

    def _forget(self, call_id: int, task: asyncio.Task[None]) -> None:
        if self._calls.get(call_id) is task:
            del self._calls[call_id]

    async def _act(self, call: game_pb2.RelayCall) -> None:
        try:
            with relayed_calls.observed(ACT_METHOD, call.trace_context, server=True):
                response = await self._servicer.Act(call.act, self._context)
        except ServiceError as error:
            self._push(game_pb2.RelayEvent(call_id=call.call_id, error=_call_status(error)))
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug: the caller is told, as the unary call's interceptor would
            log.exception("a relayed Act failed")
            self._push(game_pb2.RelayEvent(call_id=call.call_id, error=_call_status(
                ServiceError(Reason.UNAVAILABLE, "The game service failed"))))
        else:
            self._push(game_pb2.RelayEvent(call_id=call.call_id, act=response))

    async def _watch(self, call: game_pb2.RelayCall) -> None:
        try:
            async for views in self._servicer.WatchTable(call.watch_table, self._context):
                self._push(game_pb2.RelayEvent(call_id=call.call_id, views=views))
                if views.status == _FINISHED:
                    return
            failure = ServiceError(Reason.UNAVAILABLE, "The table's watch ended: watch again")
        except ServiceError as error:
            failure = error
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a relayed WatchTable failed")
            failure = ServiceError(Reason.UNAVAILABLE, "The game service failed")
        self._push(game_pb2.RelayEvent(call_id=call.call_id, error=_call_status(failure)))

    def _push(self, event: game_pb2.RelayEvent) -> None:
        self._events.append(event)
        if len(self._events) > MAX_WAITING_EVENTS:
            self._fail(ServiceError(Reason.UNAVAILABLE, "The caller reads its events too slowly",
                                    status_code=grpc.StatusCode.RESOURCE_EXHAUSTED))
        self._ready.set()

    def _fail(self, error: ServiceError) -> None:
        if self._failure is None:
            self._failure = error
        self._ready.set()


def _call_status(error: ServiceError) -> game_pb2.CallStatus:
    status = error.to_status_message()
    return game_pb2.CallStatus(code=status.code, message=status.message, details=status.details)


# -- the caller's side ----------------------------------------------------------------------------


class CallLost(ServiceError):
    """A relayed call whose stream broke, or whose answer did not come in time: the service may
    have run it or not (an Act sent again with its request id tells)."""

    def __init__(self, message: str):
        super().__init__(Reason.UNAVAILABLE, message)


class RelayClient:
    """The caller's end of one Relay stream at a time: ``open_stream()`` opens it (on first
    use, and after it broke). A call that was running when the stream broke fails with
    UNAVAILABLE (an Act's move may have been made or not: the caller sends it again with its
    request id, game.live_link); the next call opens a new stream. ``on_lost()`` is told when
    a stream ends because the service could not be reached (UNAVAILABLE)."""

    def __init__(self, open_stream: Callable[[], Any], on_lost: Callable[[], None] = lambda: None):
        self._open_stream = open_stream
        self._on_lost = on_lost
        self._ids = itertools.count(1)
        self._stream: _Stream | None = None

    def _current(self) -> _Stream:
        if self._stream is None or self._stream.broken:
            self._stream = _Stream(self._open_stream(), on_lost=self._on_lost)
        return self._stream

    async def reopen(self, timeout: float) -> bool:
        """Open the next stream now (the last one broke): whether the service answered it
        within ``timeout`` seconds, which only a replica that is up does."""
        stream = self._current()
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(stream.opened)
        except TimeoutError:
            return False

    async def act(self, request: game_pb2.ActRequest, timeout: float) -> game_pb2.ActResponse:
        """The answer to ``request``; UNAVAILABLE when none comes within ``timeout`` seconds
        (the call is cancelled, as a unary call's deadline would)."""
        stream = self._current()
        call_id = next(self._ids)
        answer: asyncio.Future[game_pb2.ActResponse] = asyncio.get_running_loop().create_future()
        stream.pending[call_id] = answer
        call = game_pb2.RelayCall(call_id=call_id, act=request)
        try:
            with relayed_calls.observed(ACT_METHOD, call.trace_context, server=False):
                stream.send(call)
                try:
                    async with asyncio.timeout(timeout):
                        return await answer
                except TimeoutError:
                    raise CallLost("DEADLINE_EXCEEDED: the game service did not answer "
                                   "in time") from None
        finally:
            # Not answered (a timeout or the caller's cancellation cancels the future): the
            # service stops working on it, as it would on a unary call's deadline.
            if stream.pending.pop(call_id, None) is not None and (
                    answer.cancelled() or not answer.done()):
                stream.send(game_pb2.RelayCall(call_id=call_id, cancel=game_pb2.CancelCall()))

    async def watch_table(self, request: game_pb2.WatchTableRequest
                          ) -> AsyncGenerator[game_pb2.WatchTableResponse, None]:
        """The WatchTable stream's messages, up to the finished views; a failure raises its
        ServiceError (UNAVAILABLE when the stream broke: watch again)."""
        stream = self._current()
        call_id = next(self._ids)
        views: _Views = asyncio.Queue()
        stream.pending[call_id] = views
        stream.send(game_pb2.RelayCall(call_id=call_id, watch_table=request))
        finished = False
        try:
            while True:
                item = await views.get()
                if isinstance(item, ServiceError):
                    finished = True
                    raise item
                yield item
                if item.status == _FINISHED:
                    finished = True
                    return
        finally:
            if stream.pending.pop(call_id, None) is not None and not finished:
                stream.send(game_pb2.RelayCall(call_id=call_id, cancel=game_pb2.CancelCall()))

    async def aclose(self) -> None:
        if self._stream is not None:
            await self._stream.aclose()


# A relayed WatchTable's messages, ended by its failure.
_Views = asyncio.Queue[game_pb2.WatchTableResponse | ServiceError]


class _Stream:
    """One open Relay call: a writer that sends what waits, a reader that hands out events."""

    def __init__(self, call: Any, on_lost: Callable[[], None]):
        self._call = call
        self._on_lost = on_lost
        self.pending: dict[int, asyncio.Future[game_pb2.ActResponse] | _Views] = {}
        self._outgoing: list[game_pb2.RelayCall] = []
        self._ready = asyncio.Event()
        self.broken = False
        # True once the service answered the stream's opening, False if it broke first.
        self.opened: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._tasks = [asyncio.create_task(self._write(), name="relay writer"),
                       asyncio.create_task(self._read(), name="relay reader")]

    def send(self, call: game_pb2.RelayCall) -> None:
        if self.broken:
            self._deliver(call.call_id, _broken())
            return
        self._outgoing.append(call)
        self._ready.set()

    async def _write(self) -> None:
        try:
            # A call the service ends at once (it refused the caller) gets no write: the reader
            # gets its status (a write racing the call's end would get INTERNAL).
            await self._call.initial_metadata()
            if self._call.done():
                return
            if not self.opened.done():
                self.opened.set_result(True)
            while True:
                if not self._outgoing:
                    self._ready.clear()
                    await self._ready.wait()
                    continue
                calls = self._outgoing[:MAX_CALLS_PER_MESSAGE]
                del self._outgoing[:MAX_CALLS_PER_MESSAGE]
                await self._call.write(game_pb2.RelayRequest(calls=calls))
        except (grpc.RpcError, grpc.aio.UsageError) as error:
            # The call ended: the reader breaks the stream with the status it ended with.
            log.info("the relay stream to the game service broke: %r", error)
        except BaseException:
            self._break(None)
            raise

    async def _read(self) -> None:
        failure: ServiceError | None = None
        try:
            async for response in self._call:
                for event in response.events:
                    kind = event.WhichOneof("kind")
                    if kind == "error":
                        self._deliver(event.call_id, from_status_message(_status(event.error)))
                    else:
                        self._deliver(event.call_id, event.act if kind == "act" else event.views)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.UNAVAILABLE:
                self._on_lost()  # the service went, or could not be reached
            failure = from_rpc_error(error)
            if failure.reason is Reason.UNAVAILABLE:  # the stream's end, not a call's answer
                failure = CallLost(failure.message)
        finally:
            self._break(failure)

    def _deliver(self, call_id: int, item: Any) -> None:
        waiting = self.pending.get(call_id)
        if waiting is None:
            return  # a call given up (timed out, cancelled, its iteration ended)
        if isinstance(waiting, asyncio.Queue):
            waiting.put_nowait(item)
            if isinstance(item, ServiceError):
                del self.pending[call_id]
        elif not waiting.done():
            if isinstance(item, ServiceError):
                waiting.set_exception(item)
            else:
                waiting.set_result(item)

    def _break(self, failure: ServiceError | None) -> None:
        """Fail every running call: the stream is done; the client opens another."""
        if self.broken:
            return
        self.broken = True
        if not self.opened.done():
            self.opened.set_result(False)
        for call_id in list(self.pending):
            self._deliver(call_id, failure or _broken())
        self.pending.clear()
        self._outgoing.clear()
        self._call.cancel()
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()

    async def aclose(self) -> None:
        self._break(None)
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _broken() -> CallLost:
    return CallLost("The stream to the game service broke")


def _status(error: game_pb2.CallStatus) -> status_pb2.Status:
    return status_pb2.Status(code=error.code, message=error.message, details=error.details)
