"""A socket's outbox: the messages waiting to be written to it, in order.

A socket that does not keep up must not hold up the others, so an outbox is bounded: one that is
full when the next message comes (OUTBOX_SIZE messages behind: a client that stopped reading) is
closed with 1013 "Too slow" (docs/websocket.md). Skipping states instead is not an option: the
contract sends a ``state`` after every accepted change. The client reconnects and its first
``state`` is complete. The game's sockets (gateway.ws, fed by gateway.table_feed) and the
member's (gateway.member_socket) each write through one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from gateway.closes import TOO_SLOW

OUTBOX_SIZE = 64  # a match is ~200 changes; 64 queued means the client stopped reading


class Outbox:
    """What waits to be written to one socket, in order; the socket's writer drains it.

    ``on_close(code, reason)`` is called once when the socket must close: at once when its
    outbox overflowed (TOO_SLOW) or its game expired unstarted (GAME_GONE); once what waits is
    written when the gateway stops (:meth:`finish`, SERVICE_RESTART).
    """

    def __init__(self, on_close: Callable[[int, str], None], size: int = OUTBOX_SIZE):
        self._messages: deque[str] = deque()
        self._size = size
        self._ready = asyncio.Event()
        self._roomy = asyncio.Event()  # at most half full: the socket's reader may go on
        self._roomy.set()
        self._on_close = on_close
        self._finishing: tuple[int, str] | None = None
        self.closed = False

    def put(self, text: str) -> None:
        if self.closed:
            return
        if len(self._messages) >= self._size:
            self.close(*TOO_SLOW)
            return
        self._messages.append(text)
        self._ready.set()
        if len(self._messages) > self._size // 2:
            self._roomy.clear()

    async def room(self) -> None:
        """Wait until at most half the outbox is taken (or it closed). The socket's reader waits
        here before it reads the next message: a client that sends faster than it reads (a
        burst of refused messages, each answered) is slowed by its own TCP window, instead of
        filling the outbox with answers until it closes as too slow."""
        await self._roomy.wait()

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self._messages.clear()
            self._roomy.set()
            self._on_close(code, reason)

    def finish(self, code: int, reason: str) -> None:
        """Take nothing more, and close once what waits now is written."""
        if not self.closed:
            self.closed = True
            self._finishing = (code, reason)
            self._ready.set()
            self._roomy.set()

    async def next(self) -> str:
        """The next message to write (waits for one)."""
        while not self._messages:
            if self._finishing is not None:  # the last one was written: close now
                finishing, self._finishing = self._finishing, None
                self._on_close(*finishing)
            self._ready.clear()
            await self._ready.wait()
        text = self._messages.popleft()
        if len(self._messages) <= self._size // 2:
            self._roomy.set()
        return text

    def __len__(self) -> int:
        return len(self._messages)
