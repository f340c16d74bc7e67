"""The write-behind of tables' changes: once a change is in the log, the replicas that follow the
table are told (its snapshot, one signal) and now and then the snapshot is stored in the cache,
in the background and off the call's path.

A change is signalled with the new state as the signal: a replica that follows the table (its
watchers are there) learns it without a read. It is signalled only while another replica
follows the table: a signal that reached no other replica's subscription stops the signals of
the table, and a replica that starts to follow one announces it (Feeds), which starts them
again at once, with the newest state. Tables are owned (game.owners), so most have no other
follower, and a move then costs no cache command at all. Until this replica hears the
announcements (``hear_followers``), and whenever it may have missed one, every change is
signalled.

The snapshot is stored only when a restarted or another replica would otherwise replay more
than a little of the log: a table's first change on this replica (it enters the running set),
a change of status (a hand ends, the next begins, the match ends) and every ``STORE_EVERY``
changes in between; a stored snapshot is signalled too. So a reader of a stored snapshot
replays at most ``STORE_EVERY - 1`` moves from the log.

At most one write per table is in flight; the changes made meanwhile coalesce into the newest,
so a busy table costs one cache call per write, not one per move. The snapshot is a recovery
cache: a write that fails is logged and dropped (the next reader rebuilds the state from the
log), and a late store never replaces a newer snapshot (the cache's compare-and-set).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from dataclasses import dataclass

from game.live import Live
from game.states import States
from game.status import TableStatus
from services.background import Background

log = logging.getLogger(__name__)

STORE_EVERY = 32  # changes between two stored snapshots of a table whose status stays
# Tables remembered as followed by no other replica; one forgotten is signalled again at its next
# change, which finds that out anew (a table that moved to another owner is never seen again).
UNFOLLOWED_KEPT = 10_000


@dataclass(frozen=True)
class _Stored:
    """What this replica last stored of a table."""

    revision: int
    status: str
    seed_commitment: str


class SnapshotWriter:
    """Signals tables' newest states to the replicas that follow them and stores them now and
    then, one write per table at a time.

    ``replica`` names this replica in follower notices."""

    def __init__(self, states: States, background: Background, replica: str = ""):
        self._states = states
        self._background = background
        self._replica = replica
        self._pending: dict[str, Live] = {}
        self._saving: dict[str, asyncio.Event] = {}  # set when the table's writes are done
        self._stored: dict[str, _Stored] = {}
        self._hearing = False  # the follower notices reach this replica
        self._unfollowed: OrderedDict[str, None] = OrderedDict()  # their changes go unsignalled
        self._notices = 0  # follower notices heard (a signal sent before one proves nothing)

    def submit(self, live: Live) -> None:
        """Signal ``live`` (and store it when due) soon, unless a newer state comes first."""
        self._pending[live.table_id] = live
        if live.table_id not in self._saving:
            self._saving[live.table_id] = asyncio.Event()
            self._background.start(self._save(live.table_id))

    async def settle(self, table_id: str) -> None:
        """Drop the table's pending write and wait for the one in flight (purging a table)."""
        self._pending.pop(table_id, None)
        saving = self._saving.get(table_id)
        if saving is not None:
            await saving.wait()
        self._stored.pop(table_id, None)
        self._unfollowed.pop(table_id, None)

    async def hear_followers(self) -> None:
        """Listen for the replicas that start to follow a table, until cancelled: the signals
        of a table that reached no other replica stop only while this runs."""
        while True:
            try:
                async with self._states.cache.followers() as notices:
                    self._hearing = True
                    self._all_maybe_followed()  # any notice before this one was not heard
                    while True:
                        await notices.wait()
                        heard = notices.payloads()
                        if heard is None:  # the connection came back: some may be lost
                            self._all_maybe_followed()
                            continue
                        for notice in heard:
                            replica, _, table_id = notice.partition(" ")
                            if replica != self._replica:
                                self.followed(table_id)
            except Exception as error:  # noqa: BLE001 - meanwhile every change is signalled
                log.warning("cannot hear the tables' new followers (%s); retrying", error)
            finally:
                self._hearing = False
                self._all_maybe_followed()
            await asyncio.sleep(1.0)

    def followed(self, table_id: str) -> None:
        """Another replica started to follow the table: signal its changes again, from the
        newest state this replica knows (which it may have left unsignalled)."""
        self._notices += 1
        if table_id in self._unfollowed:
            del self._unfollowed[table_id]
            live = self._states.remembered(table_id)
            if live is not None and live.status != TableStatus.FINISHED:
                self.submit(live)

    def _all_maybe_followed(self) -> None:
        """Notices may have been missed: signal every table's changes, starting with the newest
        state of each one left unsignalled."""
        self._notices += 1
        unsignalled, self._unfollowed = self._unfollowed, OrderedDict()
        for table_id in unsignalled:
            live = self._states.remembered(table_id)
            if live is not None and live.status != TableStatus.FINISHED:
                self.submit(live)

    def _listening(self) -> bool:
        """Whether follower notices reach this replica now (else every change is signalled)."""
        return self._hearing and self._states.cache.hearing_followers()

    def must_store(self, live: Live) -> bool:
        """Whether ``live``'s snapshot goes to the cache, not only to the other replicas."""
        stored = self._stored.get(live.table_id)
        return (stored is None or stored.seed_commitment != live.seed_commitment
                or stored.status != live.status or live.revision - stored.revision >= STORE_EVERY)

    async def _save(self, table_id: str) -> None:
        try:
            # A loop pass later: the move's answer and its views, which players wait for, go
            # out first.
            await asyncio.sleep(0)
            while (live := self._pending.pop(table_id, None)) is not None:
                if not self.must_store(live):
                    await self._signal(live)
                elif await self._states.save(live, publish=True):
                    self._remember_stored(live)
        finally:
            self._saving.pop(table_id).set()

    async def _signal(self, live: Live) -> None:
        """Signal ``live`` unless no other replica follows its table."""
        cache = self._states.cache
        if live.table_id in self._unfollowed and self._listening():
            return
        notices = self._notices
        # This replica's own subscription counts among those reached only if it was in place
        # all along; a notice heard meanwhile, or notices not heard, prove nothing.
        own_before = cache.receiving(live.table_id)
        reached = await self._states.signal(live)
        own = own_before and cache.receiving(live.table_id)
        if (reached is not None and self._listening() and notices == self._notices
                and reached <= int(own)):
            self._unfollowed[live.table_id] = None  # only this replica, or nobody, listened
            while len(self._unfollowed) > UNFOLLOWED_KEPT:
                self._unfollowed.popitem(last=False)

    def _remember_stored(self, live: Live) -> None:
        if live.status == TableStatus.FINISHED:  # nothing follows a finished table's last state
            self._stored.pop(live.table_id, None)
            self._unfollowed.pop(live.table_id, None)
        else:
            self._stored[live.table_id] = _Stored(live.revision, live.status, live.seed_commitment)
