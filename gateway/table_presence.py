"""This process's share of who is connected at the tables and who watches them.

Each gateway process knows its own sockets; every process reads the union from the leases
(gateway.presence for the seats, gateway.watchers for the spectators, gateway.online for the
players): :class:`PresenceMarks` writes this process's marks when its first socket at a seat (or
of a watching member) opens or its last one closes, tells every process (a PresenceChanged event),
and renews the leases while its sockets stay open. The table feeds (gateway.table_feed) read the
union back when told, and announce it to their sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from gateway.events import Event, PresenceChanged
from gateway.online import MemoryOnline, Online
from gateway.presence import RENEW_SECONDS, MemoryPresence, Presence
from gateway.watchers import MemoryWatchers, Watchers
from services.rpc.errors import ServiceError

log = logging.getLogger(__name__)

# The leases this process holds now: the (table, seat) pairs with a socket open here, and the
# (table, member) pairs of the members watching here; None when it follows no table.
Holdings = tuple[list[tuple[str, int]], list[tuple[str, str]]] | None


def seat_index(seat: str) -> int:
    """The number of an opaque seat ``seat:<n>``."""
    return int(seat.rpartition(":")[2])


class PresenceMarks:
    """This process's marks in the shared presence, watchers and online leases.

    ``holdings()`` says what this process holds now (renewed every RENEW_SECONDS while it holds
    anything); ``changed(table_id)`` is this process's own handling of a PresenceChanged, called
    directly when there is no bus to publish it on."""

    def __init__(self, holdings: Callable[[], Holdings], changed: Callable[[str | None], None],
                 publish: Callable[[Event], Awaitable[None]] | None = None,
                 presence: Presence | None = None, watchers: Watchers | None = None,
                 online: Online | None = None):
        self._holdings = holdings
        self._changed = changed
        self._publish = publish  # to every gateway process, this one included (gateway.events)
        self.presence = presence or MemoryPresence()
        self.watchers = watchers or MemoryWatchers()
        self.online = online or MemoryOnline()  # renewed here too (gateway.online)
        self._marking: set[asyncio.Task] = set()
        self._renewing: asyncio.Task | None = None

    def spawn(self, job: Awaitable[None], name: str) -> None:
        """Run ``job`` in the background, kept until done (and cancelled by :meth:`aclose`)."""
        task = asyncio.ensure_future(job)
        task.set_name(name)
        self._marking.add(task)
        task.add_done_callback(self._marking.discard)

    def mark(self, table_id: str, seat: int, present: bool) -> None:
        """This process's first socket at a seat opened (or its last closed): mark it where
        every process reads presence, then tell them."""
        self.spawn(self._mark(table_id, seat, present), f"presence {table_id}")
        self.keep_renewing()

    async def _mark(self, table_id: str, seat: int, present: bool) -> None:
        try:
            await self.presence.mark(table_id, seat, present)
            await self._tell(table_id)
        except ServiceError as error:  # this process's own sockets still count
            log.info("game %s: presence not shared: %s", table_id, error.message)

    def mark_watcher(self, table_id: str, member_id: str, watching: bool) -> None:
        """This process's first socket of a member watching a table opened (or its last
        closed): mark it where every process counts watchers, then tell them."""
        self.spawn(self._mark_watcher(table_id, member_id, watching), f"watchers {table_id}")
        self.keep_renewing()

    async def _mark_watcher(self, table_id: str, member_id: str, watching: bool) -> None:
        try:
            await self.watchers.mark(table_id, member_id, watching)
            await self._tell(table_id)
        except ServiceError as error:  # this process's own sockets still count
            log.info("game %s: watchers not shared: %s", table_id, error.message)

    async def _tell(self, table_id: str) -> None:
        if self._publish is not None:
            await self._publish(PresenceChanged(table_id))
        else:
            self._changed(table_id)

    def keep_renewing(self) -> None:
        """Run the renewal loop (if it is not running) while this process holds leases."""
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.create_task(self._renew(), name="presence renewal")

    async def _renew(self) -> None:
        """Keep this process's leases (presence, watchers, online) from lapsing while its sockets
        stay open."""
        while self._holdings() is not None or self.online.held():
            await asyncio.sleep(RENEW_SECONDS)
            marks, watching = self._holdings() or ([], [])
            try:
                await self.presence.renew(marks)
                await self.watchers.renew(watching)
                await self.online.renew()
            except ServiceError as error:
                log.info("presence not renewed: %s", error.message)

    async def aclose(self) -> None:
        tasks = [*self._marking, *([self._renewing] if self._renewing is not None else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
