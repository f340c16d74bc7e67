"""What this replica's watchers of a table are handed: every state of the table, in revision order.

One feed per watched table, shared by every stream watching it here (a gateway's WatchTable,
a bot's WatchTable of its seat, another team's WatchViews). The feed learns each new state
once, whoever needs it:
- a change made on this replica is handed over in-process by the flow (:meth:`Feeds.changed`),
  so it costs no read at all; the signal's echo that follows names a revision already known;
- a change made by another replica arrives as a signal carrying the new state's snapshot (sent
  only once the change is in the log): the feed takes it as it is, and replays the moves in
  between from the log when several came at once. A signal naming only a revision (a replica of
  an earlier version) makes it read the table, from the cache or the log (game.states);
- a signal can be lost (a replica that could not send it): every ``poll_seconds`` the replica
  reads where the logs of all its watched tables stand, in one query, and a feed behind its
  log reads the table. No per-table polling.

The feed keeps the last states it learned, so a watcher that fell behind catches up step by
step without reading the log; one that fell behind further replays the moves it missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import deque
from collections.abc import AsyncGenerator

from game.cache import TableCache
from game.live import Live, extends
from game.log_store import Position
from game.states import States
from game.status import TableStatus
from services.signals import SUBSCRIBE_TIMEOUT_SECONDS, Signals

log = logging.getLogger(__name__)

# States a feed keeps for watchers that fell behind; one further behind replays the moves from
# the log. Each is a whole game state: at 32, the histories of 500 busy tables made most of the
# game service's heap, and its full collections paused it for 0.14-0.24 s (`make bench`; 8: 24 ms).
HISTORY = 8


class Feeds:
    """The feeds of the tables watched on this replica."""

    def __init__(self, states: States, cache: TableCache, poll_seconds: float = 15.0,
                 replica: str = ""):
        self._states = states
        self._cache = cache
        self.poll_seconds = poll_seconds
        self._replica = replica  # how this replica's follower notices name it
        self._feeds: dict[str, _Feed] = {}
        self._closing = False
        self._checking: asyncio.Task[None] | None = None

    def watched(self, table_id: str) -> bool:
        """Whether the table has watchers on this replica."""
        return table_id in self._feeds

    def changed(self, live: Live) -> None:
        """A change of the table was made on this replica: hand it to the table's watchers."""
        feed = self._feeds.get(live.table_id)
        if feed is not None:
            feed.offer(live)

    async def states(self, table_id: str) -> AsyncGenerator[Live, None]:
        """The table's state now (checked against the log), then each revision after it, until
        the finished one or until the feeds close."""
        feed = self._feeds.get(table_id)
        if feed is None or feed.failed:
            feed = self._feeds[table_id] = _Feed(table_id, self._states, self._cache,
                                                 self._replica)
        if self._checking is None:
            self._checking = asyncio.create_task(self._check_logs(), name="feeds: logs check")
        feed.watchers += 1
        try:
            await feed.listening()
            live = await self._states.current(table_id)
            feed.offer(live)
            yield live
            while live.status != TableStatus.FINISHED and not self._closing:
                newest = await feed.after(live.revision)
                if newest is None:
                    return
                for step in await feed.steps(live, newest):
                    live = step
                    yield live
        finally:
            feed.watchers -= 1
            if feed.watchers == 0 and self._feeds.get(table_id) is feed:
                del self._feeds[table_id]
                await feed.stop()

    def close(self) -> None:
        """End every stream (the service is stopping; callers reconnect elsewhere)."""
        self._closing = True
        for feed in self._feeds.values():
            feed.close()
        if self._checking is not None:
            self._checking.cancel()

    async def _check_logs(self) -> None:
        """Every ``poll_seconds``: where the watched tables' logs stand, in one read; a feed
        behind its log (a lost signal) reads its table. A failed read waits for the next round."""
        while not self._closing:
            await asyncio.sleep(self.poll_seconds)
            known = {table_id: feed.position for table_id, feed in self._feeds.items()
                     if feed.position is not None}
            if not known:
                continue
            try:
                positions = await self._states.log.positions(list(known))
            except Exception as error:  # noqa: BLE001 - a check missed; the signals still come
                log.warning("cannot check the logs of %d watched tables (%s)", len(known), error)
                continue
            for table_id in known:
                feed = self._feeds.get(table_id)
                if feed is not None and _behind(feed.position, positions.get(table_id)):
                    feed.recheck()


class _Feed:
    """One table's feed: its signal listener and the last states it learned."""

    def __init__(self, table_id: str, states: States, cache: TableCache, replica: str):
        self.table_id = table_id
        self.watchers = 0
        self._states = states
        self._cache = cache
        self._replica = replica
        self._signals: Signals | None = None
        self._history: deque[Live] = deque(maxlen=HISTORY)
        self._changed = asyncio.Event()  # replaced at each change: a generation's wake-up
        self._ready = asyncio.Event()
        self._error: Exception | None = None
        self._closed = False
        self._stopping = False
        self._task = asyncio.create_task(self._listen(), name=f"feed {table_id}")

    @property
    def failed(self) -> bool:
        return self._error is not None

    @property
    def position(self) -> Position | None:
        """Where the newest state the feed has stands in the log."""
        return self._history[-1].position if self._history else None

    def recheck(self) -> None:
        """Read the table: the log moved past the feed without a signal."""
        if self._signals is not None:
            self._signals.notify()

    def offer(self, live: Live) -> None:
        """Keep ``live`` when it is newer than every state the feed has (or of a recreated table)."""
        newest = self._history[-1] if self._history else None
        if newest is not None and newest.seed_commitment == live.seed_commitment \
                and newest.revision >= live.revision:
            return
        if newest is not None and newest.seed_commitment != live.seed_commitment:
            self._history.clear()
        self._history.append(live)
        self.wake()

    def wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def close(self) -> None:
        """Let every watcher go (after the state it has)."""
        self._closed = True
        self.wake()

    async def listening(self) -> None:
        """Wait until the feed receives the table's signals (so that no change is missed)."""
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, self._task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
        self._raise_error()

    async def after(self, revision: int) -> Live | None:
        """The newest state once it is past ``revision``; None when the feed is closed."""
        while True:
            self._raise_error()
            if self._closed:
                return None
            newest = self._history[-1] if self._history else None
            if newest is not None and newest.revision > revision:
                return newest
            await self._changed.wait()

    async def steps(self, live: Live, newest: Live) -> list[Live]:
        """The states after ``live`` up to ``newest``, every revision when they can be had."""
        kept = [s for s in self._history if live.revision < s.revision <= newest.revision
                and s.seed_commitment == live.seed_commitment]
        # The history only grows in revision: with the first and the last there, so is every one.
        if kept and kept[0].revision == live.revision + 1 and kept[-1] is newest \
                and len(kept) == newest.revision - live.revision:
            return kept
        if newest.revision - live.revision > 1 and extends(live, newest):  # fell behind the history
            return [step async for step in self._states.replayer.steps_between(live, newest)] + [newest]
        return [newest]  # a take-back in between: its new state is the next there is

    async def stop(self) -> None:
        # The flag as well as the cancel: Python 3.11's wait_for drops a cancel that comes
        # just as the signal it waits for does.
        self._stopping = True
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def _listen(self) -> None:
        try:
            async with self._cache.subscribe(self.table_id) as signals:
                self._signals = signals
                await self._announce()
                self._ready.set()
                while not self._stopping:
                    await signals.wait()
                    newest = self._history[-1] if self._history else None
                    known = -1 if newest is None else newest.revision
                    payloads = signals.payloads()
                    if payloads is None:  # a reconnect, or a check of the log found it behind
                        await self._announce()
                    announced, published = _announced(payloads, self.table_id, known)
                    if announced is not None and announced <= known:
                        continue  # this replica's own change, or one already learned
                    await self._learn(newest, announced, published)
        except Exception as error:  # noqa: BLE001 - handed to the watchers, which end with it
            self._error = error
            self.wake()

    async def _announce(self) -> None:
        """Tell the replicas that this one follows the table, before it reads the table: one
        that changes it without signalling (it knew of no follower) signals again, with its
        newest state (game.snapshots)."""
        try:
            async with asyncio.timeout(SUBSCRIBE_TIMEOUT_SECONDS):
                await self._cache.announce_follower(f"{self._replica} {self.table_id}")
        except Exception as error:  # noqa: BLE001 - the next stored snapshot, or the check of the logs, tells
            log.warning("table %s: cannot announce this replica as a follower (%s)",
                        self.table_id, error)

    async def _learn(self, known: Live | None, announced: int | None, published: Live | None) -> None:
        """The table's state: the ``published`` one, else read at the ``announced`` revision or
        later (None: the log's current one); with several changes since ``known``, the ones in
        between too (once, for every watcher)."""
        if published is not None and (known is None or published.seed_commitment == known.seed_commitment):
            current = published
            self._states.remember(current)
        elif known is not None and announced is not None:
            current = await self._states.at_least(self.table_id, announced, known.seed_commitment)
        else:
            current = await self._states.current(self.table_id)
        if known is not None and current.revision - known.revision > 1 and extends(known, current):
            async for step in self._states.replayer.steps_between(known, current):
                self.offer(step)
        self.offer(current)

    def _raise_error(self) -> None:
        if self._error is not None:
            raise self._error


def _behind(position: Position | None, logged: Position | None) -> bool:
    """Whether a feed at ``position`` missed a change the log has at ``logged`` (None: the table
    is gone). A feed that learned a change after the read is not behind."""
    return (position is None or logged is None or logged.seed_commitment != position.seed_commitment
            or logged.revision > position.revision)


# A snapshot starts with its revision (Live.snapshot_json): an echo of a change already known is
# recognised without parsing the state.
_LEADING_REVISION = re.compile(r'\{"revision":(\d+),')


def _announced(payloads: list[str] | None, table_id: str, known: int) -> tuple[int | None, Live | None]:
    """The highest revision the signals named (-1 when all were taken already) and, when the
    signal of that revision carried its state, that state. (None, None) when a signal named
    nothing usable (read the table then)."""
    if payloads is None:
        return None, None
    highest, state = -1, None
    for payload in payloads:
        if payload.isdigit():
            revision, live = int(payload), None
        else:
            leading = _LEADING_REVISION.match(payload)
            if leading is not None and int(leading.group(1)) <= known:
                continue  # already learned: not worth parsing
            live = Live.from_snapshot(payload, table_id)
            if live is None:
                return None, None
            revision = live.revision
        if revision > highest:
            highest, state = revision, live
    return highest, state
