"""The sockets open in this process (the games', the watch sockets, the member sockets /ws/me), and
what the gateway's events mean for them.

A socket's session is checked when it opens, ends at its expiry, and is checked again when an
event (gateway.events) says it may have ended, never per message (a message costs no store
call): a logout closes the sockets of that session, an erasure re-checks the member's, and a
listener that was deaf for a while re-checks them all. Names are re-read by the table feeds the events name. A rematch
created is told to the sockets open at the finished game; something said at a table goes to the
sockets there (the table's feed), and a member's new mutes and blocks to their sockets.
Invitations, follows, who is online and whose turn it is go to the member sockets
(gateway.member_feed). Nothing polls. When the gateway
stops (gateway.draining) every socket is restarted: closed with 1012 once it is quiet.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from gateway.contract.common import Body
from gateway.contract.socket import Feature, WsRematch
from gateway.events import (
    BlocksChanged,
    Event,
    EventBus,
    Invited,
    MemberEnded,
    Missed,
    MutesChanged,
    OnlineChanged,
    PresenceChanged,
    RelationsChanged,
    RematchOffered,
    Said,
    SeatingChanged,
    SessionEnded,
    YourTurn,
)
from gateway.member_feed import MemberFeed
from gateway.table_feed import TableFeeds


class LiveSocket(Protocol):
    sub: str  # the member
    session: str  # the digest of its session id (gateway.events.session_digest)
    game_id: str  # the game it is open at ("" for the member socket, /ws/me)

    def tell(self, feature: Feature, message: Body) -> None:
        """Send ``message`` in line with the game's own messages, if the socket asked for
        ``feature``."""

    def end_session(self) -> None:
        """Close: the session ended."""

    def check_session(self) -> None:
        """Re-read the session soon; close if it ended."""

    def restart(self) -> None:
        """Close with 1012 "Service Restart" once quiet: the gateway stops."""

    def mutes_changed(self, players: frozenset[str] | None) -> None:
        """The member mutes ``players`` now (table talk); None: read them again."""

    def blocks_changed(self, players: frozenset[str] | None) -> None:
        """The member blocks ``players`` now (their talk is dropped too); None: read them again."""


class SocketRegistry:
    """The open sockets by session and by member; the handler of this process's events."""

    def __init__(self, bus: EventBus, feeds: TableFeeds, members: MemberFeed | None = None):
        self.bus = bus
        self.feeds = feeds
        self.members = members  # what the member sockets (/ws/me) are told
        self._by_session: dict[str, set[LiveSocket]] = {}
        self._by_member: dict[str, set[LiveSocket]] = {}
        self._by_game: dict[str, set[LiveSocket]] = {}
        self.events_seen = 0  # lets an opening socket learn that an event came meanwhile
        self._restarting = False
        self._empty = asyncio.Event()
        self._empty.set()

    async def listening(self) -> None:
        """Make sure this process hears the events (ServiceError UNAVAILABLE if it cannot)."""
        await self.bus.listen(self.handle)

    def add(self, socket: LiveSocket) -> None:
        self._by_session.setdefault(socket.session, set()).add(socket)
        self._by_member.setdefault(socket.sub, set()).add(socket)
        if socket.game_id:
            self._by_game.setdefault(socket.game_id, set()).add(socket)
        self._empty.clear()
        if self._restarting:  # opened as the gateway began to stop
            socket.restart()

    def discard(self, socket: LiveSocket) -> None:
        for index, key in ((self._by_session, socket.session), (self._by_member, socket.sub),
                           (self._by_game, socket.game_id)):
            sockets = index.get(key)
            if sockets is not None:
                sockets.discard(socket)
                if not sockets:
                    del index[key]
        if not self._by_session:
            self._empty.set()

    def restart_all(self) -> None:
        """The gateway stops: every socket, and any opened from now on, closes with 1012."""
        self._restarting = True
        for sockets in list(self._by_session.values()):
            for socket in list(sockets):
                socket.restart()

    async def closed(self, timeout: float) -> bool:
        """Wait until no socket is open, at most ``timeout`` seconds; whether none is."""
        try:
            await asyncio.wait_for(self._empty.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def __len__(self) -> int:
        return sum(len(sockets) for sockets in self._by_session.values())

    def handle(self, event: Event) -> None:
        self.events_seen += 1
        if isinstance(event, SessionEnded):
            for socket in list(self._by_session.get(event.session, ())):
                socket.end_session()
        elif isinstance(event, MemberEnded):
            # Re-checked, not closed: a socket opened with a session made after the erasure
            # (the member logged in again) lives on.
            for socket in list(self._by_member.get(event.sub, ())):
                socket.check_session()
        elif isinstance(event, SeatingChanged):
            self.feeds.names_changed(event.tables)
        elif isinstance(event, RematchOffered):
            notice = WsRematch(game_id=event.game_id, join_code=event.join_code, by=event.by)
            for socket in list(self._by_game.get(event.table, ())):
                socket.tell(Feature.REMATCH, notice)
        elif isinstance(event, PresenceChanged):
            self.feeds.presence_changed(event.table)
        elif isinstance(event, Said):
            self.feeds.said(event)
        elif isinstance(event, MutesChanged):
            for socket in list(self._by_member.get(event.sub, ())):
                socket.mutes_changed(frozenset(event.players))
        elif isinstance(event, BlocksChanged):
            for socket in list(self._by_member.get(event.sub, ())):
                socket.blocks_changed(frozenset(event.players))
        elif isinstance(event, Invited):
            if self.members is not None:
                self.members.invited(event)
        elif isinstance(event, RelationsChanged):
            if self.members is not None:
                self.members.relations_changed(event.players, event.seen)
        elif isinstance(event, OnlineChanged):
            if self.members is not None:
                self.members.online_changed(event.player)
        elif isinstance(event, YourTurn):
            if self.members is not None:
                self.members.your_turn(event)
        elif isinstance(event, Missed):
            self.feeds.names_changed(None)
            self.feeds.presence_changed(None)
            if self.members is not None:
                self.members.missed()
            for sockets in list(self._by_session.values()):
                for socket in list(sockets):
                    socket.check_session()
                    socket.mutes_changed(None)
                    socket.blocks_changed(None)
