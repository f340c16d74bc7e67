"""The game types, kept by the gateway: they change only with a deploy, so /api/game-types and
the game-type checks of the leaderboard and the history answer while the lobby is down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class GameTypes:
    """The game types, kept by the gateway: they change only with a deploy.

    Fetched from the lobby on first use and kept, so that /api/game-types and the game-type
    checks of the leaderboard and the history answer while the lobby is down. Once they are
    ``refresh_seconds`` old, a request starts a fetch in the background (one at a time) and
    is answered at once with the kept ones; a fetch that succeeds replaces them, one that
    fails leaves them (the next request tries again). With nothing kept, a request waits for
    the fetch, which concurrent requests share: a lobby that is down is then UNAVAILABLE.
    """

    def __init__(self, lobby, refresh_seconds: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self._lobby = lobby
        self._refresh_seconds = refresh_seconds
        self._clock = clock
        self._types: list | None = None
        self._fetched_at = 0.0
        self._fetch: asyncio.Task | None = None

    async def get(self) -> list:
        """The game types (lobby.models.GameType), the default one first."""
        if self._types is None:
            return await asyncio.shield(self._fetching())
        if self._clock() - self._fetched_at >= self._refresh_seconds:
            self._fetching()
        return self._types

    async def aclose(self) -> None:
        if self._fetch is not None and not self._fetch.done():
            self._fetch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._fetch

    def _fetching(self) -> asyncio.Task:
        if self._fetch is None or self._fetch.done():
            self._fetch = asyncio.create_task(self._fetch_types())
            self._fetch.add_done_callback(_note_failure)
        return self._fetch

    async def _fetch_types(self) -> list:
        types = await self._lobby.list_game_types()
        self._types, self._fetched_at = types, self._clock()
        return types


def _note_failure(task: asyncio.Task) -> None:
    """Collect a fetch's error (a background refresh has nobody waiting for it)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.debug("game types not refreshed: %s", error)
