"""Who is online (CONTRACT, Players: "a member is online while a socket of theirs is open"),
across every gateway process.

Any socket counts: a game's, a watch socket, the member socket (/ws/me). Each process holds a
lease (gateway.table_leases, kind ``online``, keyed by the public player id) for each socket it
has open, and every process reads the union: a player is online while a lease of theirs has not
lapsed. The leases are renewed by the loop that renews presence and watchers
(gateway.table_presence.PresenceMarks.keep_renewing); a socket's lease is dropped as it closes.

When a process's first socket of a player opens, or its last closes, it publishes
:class:`gateway.events.OnlineChanged` after writing the lease: every process then re-reads that
player's leases for the member sockets that follow them (gateway.member_feed). A process that dies
publishes nothing: its leases lapse within TTL_SECONDS, and the member feeds re-read the players
they last saw online every RECHECK_SECONDS, so a follower sees a stale "online" for at most
TTL_SECONDS + RECHECK_SECONDS (docs/architecture.md, Online status).

Whether a player *shows* it (their ``show_online`` setting) is the lobby's; this module says only
whether they have a socket open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator

from gateway.events import Event, OnlineChanged
from gateway.table_leases import TTL_SECONDS, MemoryTableLeases, RedisTableLeases
from services.rpc.errors import ServiceError
from services.stores import Keys, RedisClient

log = logging.getLogger(__name__)

KIND = "online"
# How often a member feed re-reads the followed players it last saw online: what bounds a stale
# "online" left by a gateway process that died (its leases lapse, nobody says so).
RECHECK_SECONDS = TTL_SECONDS / 2
# Players read a round trip: a following list (at most 500) in one; a gateway's re-read of
# thousands of followed players in several, so the loop is never held long by one pipeline's
# replies (gateway.table_leases.RENEW_BATCH, for the writes).
READ_BATCH = 500


class Online:
    """This process's online leases, and the reading of everyone's."""

    def __init__(self, leases: MemoryTableLeases | RedisTableLeases):
        self._leases = leases
        self._held: dict[str, set[str]] = {}  # player -> the holders (sockets) of this process
        self._marking: dict[str, asyncio.Task] = {}  # holder -> its latest mark, in order
        # Wired by the app (gateway.app.create_app): tell every process (this one included),
        # tell this process alone (the bus is down), and keep the renewal loop running.
        self.publish: Callable[[Event], Awaitable[None]] | None = None
        self.local: Callable[[Event], None] | None = None
        self.renewing: Callable[[], None] | None = None

    @contextlib.contextmanager
    def holding(self, player: str) -> Iterator[None]:
        """A socket of ``player`` is open for the block's duration. The lease is written in the
        background (a socket's messages do not wait for Redis), its drop ordered after it."""
        if not player:  # a gateway without a member directory (tests): nobody to name
            yield
            return
        holder = uuid.uuid4().hex[:16]
        holders = self._held.setdefault(player, set())
        first = not holders
        holders.add(holder)
        self._mark(player, holder, True, first)
        if self.renewing is not None:
            self.renewing()
        try:
            yield
        finally:
            holders = self._held.get(player, set())
            holders.discard(holder)
            last = not holders
            if last:
                self._held.pop(player, None)
            self._mark(player, holder, False, last)

    def _mark(self, player: str, holder: str, held: bool, announce: bool) -> None:
        previous = self._marking.get(holder)
        task = asyncio.get_running_loop().create_task(
            self._write(previous, player, holder, held, announce), name=f"online {player}")
        self._marking[holder] = task

        def done(finished: asyncio.Task) -> None:
            if self._marking.get(holder) is finished:
                del self._marking[holder]
        task.add_done_callback(done)

    async def _write(self, previous: asyncio.Task | None, player: str, holder: str, held: bool,
                     announce: bool) -> None:
        if previous is not None:  # a socket's drop never overtakes its own lease
            with contextlib.suppress(Exception):
                await previous
        try:
            await self._leases.mark(player, holder, held)
        except ServiceError as error:  # this process's own sockets still count
            log.info("online status not shared: %s", error.message)
        if announce:
            await self._announce(player)

    async def _announce(self, player: str) -> None:
        event = OnlineChanged(player)
        if self.publish is not None:
            try:
                await self.publish(event)
                return
            except ServiceError as error:  # the bus is down: this process's sockets hear it at least
                log.warning("an online change was not published: %s", error.message)
        if self.local is not None:
            self.local(event)

    def held(self) -> list[tuple[str, str]]:
        """This process's leases: (player, holder) pairs."""
        return [(player, holder) for player, holders in self._held.items() for holder in holders]

    async def renew(self) -> None:
        """Keep this process's leases from lapsing (the renewal loop's)."""
        held = self.held()
        await self._leases.renew(held)
        # A socket that closed while the renewal was on its way may have been written again
        # after its drop: drop it again, rather than leave its player online until it lapses.
        for player, holder in held:
            if holder not in self._held.get(player, ()):
                await self._leases.mark(player, holder, False)

    def here(self, players: Iterable[str]) -> set[str]:
        """The ones of ``players`` with a socket open in this process."""
        return {player for player in players if player in self._held}

    async def players(self, players: Iterable[str]) -> set[str]:
        """The ones of ``players`` with a socket open in any process: one round trip for up to
        READ_BATCH players. ServiceError UNAVAILABLE when the shared store is down."""
        asked = list(dict.fromkeys(players))
        online: set[str] = set()
        for start in range(0, len(asked), READ_BATCH):
            batch = asked[start:start + READ_BATCH]
            holders = await self._leases.holders(batch)
            online.update(player for player, held in zip(batch, holders, strict=True) if held)
        return online

    async def aclose(self) -> None:
        tasks = list(self._marking.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class MemoryOnline(Online):
    """One gateway process: its own sockets are all there is."""

    def __init__(self) -> None:
        super().__init__(MemoryTableLeases())


class RedisOnline(Online):
    def __init__(self, client: RedisClient, keys: Keys, process: str | None = None,
                 clock: Callable[[], float] = time.time, ttl_seconds: float = TTL_SECONDS):
        super().__init__(RedisTableLeases(client, keys, KIND, process, clock, ttl_seconds))


async def online_players(app, players: Iterable[str]) -> set[str]:
    """The ones of ``players`` (public player ids) who have a socket open on any gateway
    process, for the REST views (a player page, the following list); ``app`` is the gateway's
    Starlette app (``request.app``). It does not apply ``show_online``: the caller does. While
    the shared store is down, the players with a socket in this process (logged)."""
    online: Online = app.state.online
    asked = list(players)
    if not asked:
        return set()
    try:
        return await online.players(asked)
    except ServiceError as error:
        log.warning("online status not read: %s", error.message)
        return online.here(asked)
