"""The open games as they change, for every event stream of one gateway process.

One WatchOpenGames stream to the lobby serves all of this process's listeners (the Play pages
open on it), whatever game type each filters by: it starts with the first listener and ends
with the last. The lobby sends the list again when it changes, at most once a second; each
listener gets the newest list, and one that falls behind skips to it (only the newest counts).
A broken stream is opened again with backoff; its listeners keep the last list meanwhile.
When the gateway stops, every listener is ended (:meth:`OpenGamesFeed.end_streams`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from lobby.client import LobbyClient
from lobby.models import Game
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 10.0


class Listener:
    """One event stream's view of the feed: the newest list, when it changed."""

    def __init__(self) -> None:
        self.games: list[Game] | None = None
        self.ended = False  # the gateway stops: the event stream ends
        self._changed = asyncio.Event()

    def end(self) -> None:
        self.ended = True
        self._changed.set()

    def offer(self, games: list[Game]) -> None:
        self.games = games
        self._changed.set()

    async def next(self, timeout: float) -> list[Game] | None:
        """The newest list once it changed; None after ``timeout`` seconds without a change."""
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return None
        self._changed.clear()
        return self.games


class OpenGamesFeed:
    def __init__(self, lobby: LobbyClient) -> None:
        self.lobby = lobby
        self._listeners: set[Listener] = set()
        self._games: list[Game] | None = None
        self._task: asyncio.Task | None = None
        self._ended = False

    def end_streams(self) -> None:
        """The gateway stops: end every listener, and any that comes from now on."""
        self._ended = True
        for listener in self._listeners:
            listener.end()

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[Listener]:
        listener = Listener()
        if self._ended:
            listener.end()
        self._listeners.add(listener)
        if self._games is not None:
            listener.offer(self._games)
        if (self._task is None or self._task.done()) and not self._ended:
            self._task = asyncio.create_task(self._watch(), name="open games")
        try:
            yield listener
        finally:
            self._listeners.discard(listener)
            if not self._listeners and self._task is not None:
                self._task.cancel()
                self._task, self._games = None, None

    async def _watch(self) -> None:
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            try:
                async for games in self.lobby.watch_open_games():
                    backoff = FIRST_BACKOFF_SECONDS
                    self._games = games
                    for listener in self._listeners:
                        listener.offer(games)
            except ServiceError as error:
                log.info("open games: the lobby's stream broke (%s); opening it again", error.message)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
