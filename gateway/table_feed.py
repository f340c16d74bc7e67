"""The fan-out of a table to its sockets: one subscription per table per gateway process.

The first socket opened on a game starts its :class:`TableFeed`; every later socket of this
process at that game shares it; the feed stops when the last one leaves. A feed follows the
lobby while the game waits for players (LobbyService.WatchGame: a ``lobby`` message per
change), then the table (GameService.WatchTable: every seat's view once per revision, cut by
the game where the gateway's fields go: game.view_parts). It joins the names in once per seat
and revision, by concatenation, parsing nothing (gateway.view_text; the seating is cached here,
re-read only when an event says it changed: :meth:`TableFeeds.names_changed`), and hands the
same text to every socket of that seat. Nothing here polls, and the cost of an update grows
with the seats watched, not with the sockets open.

Spectators (/ws/games/{id}/watch) share the same feed: their subscribers have no seat
(``spectator``), and get the public view, which the feed asks the game service for only while it
has spectators (WatchTable ``public``: the engine renders it once per revision), names joined in
once per revision for all of them. The feed also keeps how many members watch the table in any
process (gateway.watchers), for the views' ``spectators`` and the ``spectators`` messages.

Each socket has an outbox (gateway.outbox): what the feed hands it waits there, in order, and a
socket that does not keep up is closed, never skipped. Who is connected, and how many watch, is
shared with the other processes by gateway.table_presence; whether a seat was abandoned is
decided in gateway.abandonment from what the feed tells it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from game.client import TableViews
from game.status import TableStatus
from game.view_parts import Facts, ViewCut
from gateway.abandonment import Abandonment
from gateway.closes import GAME_GONE, NOT_SEATED
from gateway.contract.common import Body
from gateway.contract.socket import Feature, WsLobby, WsPresence, WsState
from gateway.contract.spectators import WsSpectators, WsWatchLobby
from gateway.events import Event, Said, SeatingChanged
from gateway.online import Online
from gateway.outbox import Outbox
from gateway.presence import Presence
from gateway.table_presence import Holdings, PresenceMarks, seat_index
from gateway.view_text import Seating, game_over
from gateway.views import game_view, lobby_view, public_lobby_view
from gateway.watchers import Watchers
from lobby.models import Game
from services.rpc.errors import Reason, ServiceError
from talk.bot_phrases import Pace
from talk.models import visible

if TYPE_CHECKING:
    from gateway.bot_talk import BotTalk

log = logging.getLogger(__name__)

FIRST_BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 5.0


def _who_plays(game: Game) -> list[tuple[int, str, bool]]:
    """Which seats bots play, and which of those they took over."""
    return [(seat.index, seat.bot, seat.took_over) for seat in game.seats]


def _text(message: Body) -> str:
    """A message of the contract's (gateway.contract.socket), as the socket sends it: pydantic's
    own JSON, half the CPU of json.dumps over model_dump (a state is sent after every move)."""
    return message.model_dump_json()


class Subscriber:
    """One socket's place at a table: its seat, its member, its outbox, what it was sent.

    ``seat`` is where the member sits now: the feed moves it when the member takes another seat
    in the waiting room, so the socket never gets the views of a seat its member left.
    ``silenced``: the public player ids whose `said` this socket drops (its member muted or
    blocked them: one filter for both)."""

    def __init__(self, feed: TableFeed, seat: str, member_id: str, outbox: Outbox,
                 started: bool, features: frozenset[Feature] = frozenset(), spectator: bool = False):
        self.feed = feed
        self.seat = seat  # "" for a spectator
        self.member_id = member_id
        self.outbox = outbox
        self.features = features  # what the socket asked for beyond the contract's four types
        # A spectator's socket (/ws/games/{id}/watch): the public view, no seat, no moves. Table
        # talk delivers the spectators' channel to these, and the players' channel to all.
        self.spectator = spectator
        self.counted = spectator  # among the table's watchers (not when its member is seated)
        self._started = started
        self.revision = -1  # the revision of the newest state queued for this socket
        self._last_state: str | None = None
        self._last_lobby: str | None = None
        self._lobby_seats = 0
        self.silenced: frozenset[str] = frozenset()

    @property
    def started(self) -> bool:
        """Whether the game has started (actions are refused before)."""
        return self._started or self.feed.started

    def put_state(self, revision: int, text: str, again: bool = False) -> None:
        """A state of the feed: queued unless a newer (or the same) one was queued already
        (an answer to ``state`` may have overtaken the feed). ``again``: the same revision
        shown anew (who is connected, or who plays a seat, changed)."""
        if revision < self.revision or (revision == self.revision and not again):
            return
        self.revision, self._last_state = revision, text
        self.outbox.put(text)

    def put_view(self, view: dict) -> None:
        """A view read outside the feed (a move's outcome), queued as the feed's would be."""
        revision = view.get("revision")
        if isinstance(revision, int):
            self.put_state(revision, self.feed.render_state(view))

    def answer_state(self, view: dict) -> None:
        """The answer to ``{"action": "state"}``: the current view, never older than a state
        this socket was sent already (the states a socket gets never go back)."""
        revision = view.get("revision")
        if isinstance(revision, int) and revision >= self.revision:
            text = self.feed.render_state(view)
            self.revision, self._last_state = revision, text
            self.outbox.put(text)
        elif self._last_state is not None:
            self.outbox.put(self._last_state)

    def put_lobby(self, game: Game) -> None:
        """The waiting room as ``game`` shows it, unless this socket saw it already or saw a
        fuller one (its own reading of the lobby may overtake the feed's)."""
        taken = len(game.seats)
        text = _text(WsWatchLobby(game=public_lobby_view(game)) if self.spectator
                     else WsLobby(game=lobby_view(game, self.member_id)))
        if text != self._last_lobby and taken >= self._lobby_seats:
            self._last_lobby, self._lobby_seats = text, taken
            self.outbox.put(text)

    def put(self, message: Body) -> None:
        """Any other message (an error) in line with the states."""
        self.outbox.put(_text(message))

    def notify(self, feature: Feature, text: str) -> None:
        """A message of ``feature``'s type, queued only if the socket asked for that feature."""
        if feature in self.features:
            self.outbox.put(text)


class TableFeed:
    """The one subscription of this process to a game: its lobby, then its table."""

    def __init__(self, feeds: TableFeeds, game: Game):
        self.feeds = feeds
        self.id = game.id
        self.game = game  # the seating: where the names come from
        self._seating: Seating | None = None  # its text, made when first needed after a change
        self.started = game.started
        self.subscribers: dict[str, set[Subscriber]] = {}  # by seat
        self.revision = -1
        self.views: dict[str, ViewCut] = {}  # the newest view of each seat, as the game cut it
        self.facts: Facts | None = None  # what the newest revision's views show besides
        self._texts: dict[str, str] = {}  # the newest state of each seat, names joined in
        self.game_over: str | None = None  # the game_over message, once finished
        self._names_stale = False
        self.task: asyncio.Task | None = None
        self._refresh: asyncio.Task | None = None
        # N auto-plays in a row with the player away: the rule is gateway.abandonment's.
        self.abandonment = Abandonment(game.id, feeds.abandon_after, feeds.take_over)
        self.elsewhere: set[int] = set()  # seats connected in any process (gateway.presence)
        # One presence read at a time: two events' reads could finish out of order, and the older
        # would then stand (a seat shown away that is connected) until the next change.
        self._presence_read = asyncio.Lock()
        # The table's status as last fanned out (table talk's free text depends on it); None
        # between the start and the first state.
        self.status: str | None = None if game.started else TableStatus.LOBBY
        self._announced: set[int] | None = None  # the connected seats the sockets were told
        self.spectators: set[Subscriber] = set()  # the watching sockets of this process
        self._watching: dict[str, int] = {}  # member id -> this process's sockets watching
        self.watchers = 0  # members watching in any process (gateway.watchers), as last read
        self.public: ViewCut | None = None  # the newest public view, while watched for spectators
        self._public_revision = -1
        self._public_text: str | None = None  # its state message, names joined in
        self.watching_public = False  # the running table stream carries the public view
        self.bot_pace = Pace()  # how often the table's bots have talked (gateway.bot_talk)

    # -- subscribers -----------------------------------------------------------------------

    def add(self, subscriber: Subscriber, game: Game) -> None:
        if subscriber.spectator:
            return self._add_spectator(subscriber, game)
        # The feed's seating may be newer than the socket's reading of it (the member moved, or
        # the game started, in between): it decides the seat. Once started it is final.
        seat = self.game.seat_of(subscriber.member_id)
        if seat is not None:
            subscriber.seat = seat.seat
        elif self.started:
            subscriber.outbox.close(*NOT_SEATED)
            return
        self._seat(subscriber)
        if not self.started:
            if not game.started:
                # The socket's own reading of the lobby is fresh: show it at once (as a watch
                # would), then the feed's changes.
                subscriber.put_lobby(game)
            return  # else the feed is about to learn of the start: the first state follows
        text = self._state_of(subscriber.seat)
        if text is not None:
            subscriber.put_state(self.revision, text)
            if self.game_over is not None:
                subscriber.outbox.put(self.game_over)

    def _add_spectator(self, subscriber: Subscriber, game: Game) -> None:
        self.spectators.add(subscriber)
        # CONTRACT "spectators": the members watching; a player who also opens the watch
        # socket is counted where they sit, not among the watchers.
        subscriber.counted = game.seat_of(subscriber.member_id) is None
        if subscriber.counted:
            self._watching[subscriber.member_id] = self._watching.get(subscriber.member_id, 0) + 1
            if self._watching[subscriber.member_id] == 1:
                self.feeds.mark_watcher(self.id, subscriber.member_id, True)
        if not self.started:
            if not game.started:
                subscriber.put_lobby(game)
            return
        text = self._public_state()
        if text is not None:
            subscriber.put_state(self._public_revision, text)
            if self.game_over is not None:
                subscriber.outbox.put(self.game_over)

    def _remove_spectator(self, subscriber: Subscriber) -> None:
        if subscriber not in self.spectators:
            return
        self.spectators.discard(subscriber)
        if not subscriber.counted:
            return
        left = self._watching.get(subscriber.member_id, 1) - 1
        if left > 0:
            self._watching[subscriber.member_id] = left
        else:
            self._watching.pop(subscriber.member_id, None)
            self.feeds.mark_watcher(self.id, subscriber.member_id, False)

    def watching_members(self) -> list[str]:
        """The members with a socket of this process watching the table."""
        return list(self._watching)

    def _seat(self, subscriber: Subscriber) -> None:
        """Put ``subscriber`` among the sockets of its seat."""
        arrived = subscriber.seat not in self.subscribers
        self.subscribers.setdefault(subscriber.seat, set()).add(subscriber)
        if arrived:
            self.feeds.mark(self.id, seat_index(subscriber.seat), True)
            if self.started and self.views:
                self._announce_presence(skip=subscriber)

    def _unseat(self, subscriber: Subscriber) -> None:
        """Take ``subscriber`` from the sockets of its seat."""
        seat = self.subscribers.get(subscriber.seat)
        if seat is not None and subscriber in seat:
            seat.discard(subscriber)
            if not seat:
                del self.subscribers[subscriber.seat]
                self.elsewhere.discard(seat_index(subscriber.seat))  # until another process says so
                self.feeds.mark(self.id, seat_index(subscriber.seat), False)
                if self.subscribers and self.started and self.views:
                    self._announce_presence()  # the others see the seat go offline

    def remove(self, subscriber: Subscriber) -> bool:
        """Forget ``subscriber``; True when it was the last one."""
        if subscriber.spectator:
            self._remove_spectator(subscriber)
        else:
            self._unseat(subscriber)
        return not self.subscribers and not self.spectators

    def _follow_seating(self, game: Game) -> None:
        """The waiting room changed: each socket follows its member to the seat they sit at now,
        and a socket whose member left is closed. A socket must never be sent the views of a
        seat its member no longer holds: the next one to sit there would show it their hand."""
        for subscriber in self._all():
            seat = game.seat_of(subscriber.member_id)
            if seat is None:
                self._unseat(subscriber)
                subscriber.outbox.close(*NOT_SEATED)
            elif seat.seat != subscriber.seat:
                self._unseat(subscriber)
                subscriber.seat = seat.seat
                self._seat(subscriber)

    def _all(self) -> list[Subscriber]:
        """The players' sockets."""
        return [s for seat in self.subscribers.values() for s in seat]

    def _everyone(self) -> list[Subscriber]:
        """The players' sockets and the spectators'."""
        return [*self._all(), *self.spectators]

    # -- rendering -------------------------------------------------------------------------

    def render_state(self, view: dict) -> str:
        """A ``state`` message of a view read outside the feed (parsed: the answer to the
        ``state`` action), with the cached names joined in, and who is connected."""
        return _text(WsState(game=game_view(view, self.game, self.connected(), self.watchers)))

    def _seated(self) -> Seating:
        if self._seating is None or self._seating.game is not self.game:
            self._seating = Seating(self.game)
        return self._seating

    def _forward(self, parts: ViewCut) -> str:
        """A seat's ``state`` message: the game's cut view with the names, who is connected,
        the join code and the spectators joined in (gateway.view_text)."""
        return self._seated().state(parts, self.connected(), self.watchers)

    def _public_state(self) -> str | None:
        """The spectators' ``state``: the public view with the names joined in (once per
        revision for all of them), or None before the feed has one."""
        if self._public_text is None and self.public is not None:
            self._public_text = self._seated().public_state(self.public, self.connected(), self.watchers)
        return self._public_text

    def connected(self) -> set[int]:
        """The seats a bot plays, and those with a socket open at this table in this process
        or, as gateway.presence last said, in any other."""
        return ({seat_index(seat) for seat in self.subscribers} | self.elsewhere
                | {seat.index for seat in self.game.bot_seats})

    def _announce_presence(self, skip: Subscriber | None = None) -> None:
        """Who is connected changed: every other socket is told (a ``presence`` message, not a
        state: the game did not change), and the next states are rendered with it."""
        connected = self.connected()
        if connected == self._announced:
            return
        self._announced = connected
        self._texts, self._public_text = {}, None
        text = _text(WsPresence(connected=sorted(connected)))
        for subscriber in self._everyone():
            if subscriber is not skip:
                subscriber.notify(Feature.PRESENCE, text)

    async def refresh_presence(self, announce: bool = True) -> None:
        """Re-read who is connected and how many watch in every process (after a
        PresenceChanged)."""
        async with self._presence_read:
            await self._refresh_watchers()
            try:
                self.elsewhere = await self.feeds.presence.seats(self.id)
            except ServiceError as error:  # Redis briefly down: this process's sockets will do
                log.info("game %s: presence not refreshed: %s", self.id, error.message)
                return
            if announce and self.started and self.views:
                self._announce_presence()

    async def _refresh_watchers(self) -> None:
        """Re-read how many members watch; when that changed, the sockets that asked for it are
        told (a ``spectators`` message, no state), and the next states carry it."""
        try:
            watchers = await self.feeds.watchers.count(self.id)
        except ServiceError as error:  # Redis briefly down: the count stays as it was
            log.info("game %s: watchers not counted: %s", self.id, error.message)
            return
        if watchers == self.watchers:
            return
        self.watchers = watchers
        self._texts, self._public_text = {}, None
        text = _text(WsSpectators(count=watchers))
        for subscriber in self._everyone():
            subscriber.notify(Feature.SPECTATORS, text)

    def _show_again(self) -> None:
        """The current revision, rendered anew for every socket: who plays a seat changed."""
        self._texts = {}
        for seat, subscribers in self.subscribers.items():
            text = self._state_of(seat)
            if text is None:
                continue
            for subscriber in subscribers:
                subscriber.put_state(self.revision, text, again=True)
        self._public_text = None
        public = self._public_state()
        if public is not None:
            for subscriber in self.spectators:
                subscriber.put_state(self._public_revision, public, again=True)

    def _state_of(self, seat: str) -> str | None:
        """The newest state of ``seat`` (rendered once per revision and seat), or None."""
        text = self._texts.get(seat)
        if text is None and seat in self.views:
            text = self._texts[seat] = self._forward(self.views[seat])
        return text

    def names_changed(self) -> None:
        """The seating changed (an erasure, a bot took a seat or left it): re-read it, and show
        the current state again with it."""
        self._names_stale = True
        if self.started and self.views and (self._refresh is None or self._refresh.done()):
            self._refresh = asyncio.create_task(self._refresh_names(),
                                                name=f"table feed {self.id} names")

    async def _refresh_names(self) -> None:
        before = _who_plays(self.game)
        await self._fresh_names()
        if not self._names_stale and _who_plays(self.game) != before:
            self._show_again()  # a bot took a seat over or gave it back: show it at once

    async def _fresh_names(self) -> None:
        if not self._names_stale:
            return
        try:
            self.game = await self.feeds.lobby.get_game(self.id)
        except ServiceError as error:
            # The lobby briefly down: the names we have will do, and the next state tries
            # again. Anything else (the seating expired) will not get better: keep them.
            log.info("game %s: names not refreshed: %s", self.id, error.message)
            self._names_stale = error.reason.transient
            return
        self._names_stale = False
        self._texts.clear()
        self._public_text = None

    # -- the subscription ------------------------------------------------------------------

    async def run(self) -> None:
        try:
            if not self.started and not await self._follow_lobby():
                return
            await self.refresh_presence(announce=False)
            await self._follow_table()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must not pass silently: the sockets stay open, unfed
            log.exception("game %s: the feed failed", self.id)

    async def _follow_lobby(self) -> bool:
        """The waiting room, until the game starts (True); False when it expired unstarted
        (its sockets closed) or the lobby refused the watch."""
        backoff = FIRST_BACKOFF_SECONDS
        while not self.started:
            try:
                async for game in self.feeds.lobby.watch_game(self.id):
                    backoff = FIRST_BACKOFF_SECONDS
                    self.game = game
                    self._follow_seating(game)
                    if game.started:
                        self.started = True
                        self.status = None
                        return True
                    for subscriber in self._everyone():
                        subscriber.put_lobby(game)
            except ServiceError as error:
                if error.reason is Reason.GAME_NOT_FOUND:  # expired unstarted (GAME_TTL_SECONDS)
                    for subscriber in self._everyone():
                        subscriber.outbox.close(*GAME_GONE)
                    return False
                if not error.reason.transient:
                    log.warning("game %s: the lobby refused the watch: %s", self.id, error.message)
                    return False
            # The lobby went away (a restart, a replica lost): watch again.
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
        return True

    async def _follow_table(self) -> None:
        backoff = FIRST_BACKOFF_SECONDS
        while True:
            try:
                # The public view only while there are spectators: the first one to come
                # later subscribes again with it (TableFeeds.watch).
                self.watching_public = bool(self.spectators)
                async for views in self.feeds.game.watch_table(self.id, public=self.watching_public,
                                                               parts=True):
                    backoff = FIRST_BACKOFF_SECONDS
                    if views.revision <= self.revision:
                        # A new subscription starts with what was fanned out already; the
                        # public view of it may be new (the first spectator came).
                        if views.public_parts is not None and views.revision > self._public_revision:
                            await self._fresh_names()
                            self._fan_out_public(views)
                        if views.status == TableStatus.FINISHED:
                            return
                        continue
                    await self._fresh_names()
                    self._fan_out(views)
                    if views.status == TableStatus.FINISHED:
                        return
            except ServiceError as error:
                if not error.reason.transient:
                    log.warning("game %s: the table stream ended: %s", self.id, error.message)
                    return
            # The game service went away (a restart, a replica lost): subscribe again.
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)

    def _fan_out(self, views: TableViews) -> None:
        """One revision to every socket; no await in here, so a socket that joins meanwhile
        gets either this revision from :meth:`add` or from here, never neither."""
        self.revision = views.revision
        self.status = views.status
        self.views = dict(views.parts)
        self.facts = views.facts
        self._texts = {}
        if views.status == TableStatus.FINISHED and views.parts and views.facts is not None:
            self.game_over = game_over(views.facts)
        for seat, subscribers in self.subscribers.items():
            text = self._state_of(seat)
            if text is None:  # a seat the table does not know: nothing to show it
                continue
            for subscriber in subscribers:
                subscriber.put_state(views.revision, text)
                if self.game_over is not None:
                    subscriber.outbox.put(self.game_over)
        self._fan_out_public(views)
        self.abandonment.saw(self.facts if self.views else None, self.game, self.connected)
        if self.feeds.bot_talk is not None and self.game.bot_seats and views.facts is not None:
            self.feeds.bot_talk.revision(self.game, views.revision, views.status, views.facts,
                                         self.bot_pace)

    def _fan_out_public(self, views: TableViews) -> None:
        """The public view of one revision to every spectator's socket (no await in here)."""
        if views.public_parts is None:
            return
        self.public, self._public_revision, self._public_text = views.public_parts, views.revision, None
        if views.status == TableStatus.FINISHED and self.game_over is None and views.facts is not None:
            self.game_over = game_over(views.facts)
        text = self._public_state()
        if text is None:
            return
        for subscriber in self.spectators:
            subscriber.put_state(views.revision, text)
            if self.game_over is not None:
                subscriber.outbox.put(self.game_over)

class TableFeeds:
    """This process's feeds, by game id: started by the first socket, stopped after the last."""

    def __init__(self, game, lobby, abandon_after: int = 0,
                 publish: Callable[[Event], Awaitable[None]] | None = None,
                 presence: Presence | None = None, watchers: Watchers | None = None,
                 online: Online | None = None):
        self.game = game  # game.live_link.LiveLink (or a fake with watch_table)
        self.lobby = lobby  # LobbyClient (or a fake with watch_game, get_game, take_over_seat)
        self.abandon_after = abandon_after  # ABANDON_AFTER_TIMEOUTS; 0: never take a seat over
        self._publish = publish  # to every gateway process, this one included (gateway.events)
        self.marks = PresenceMarks(self._holdings, self.presence_changed, publish, presence, watchers,
                                   online)
        self.presence, self.watchers, self.online = self.marks.presence, self.marks.watchers, self.marks.online
        self.bot_talk: BotTalk | None = None  # the bots' table talk (gateway.bot_talk), if any
        self._feeds: dict[str, TableFeed] = {}

    async def seating_changed(self, table_id: str) -> None:
        """Tell every gateway process (this one included) that who plays at a table changed."""
        if self._publish is not None:
            await self._publish(SeatingChanged((table_id,)))
        else:
            self.names_changed((table_id,))

    async def take_over(self, table_id: str, seat: int) -> None:
        """A bot takes an abandoned seat over (gateway.abandonment): the lobby's call, then
        every process re-reads the seating."""
        await self.lobby.take_over_seat(table_id, seat)
        await self.seating_changed(table_id)

    def mark(self, table_id: str, seat: int, present: bool) -> None:
        """This process's first socket at a seat opened (or its last closed): shared with every
        process (gateway.table_presence)."""
        self.marks.mark(table_id, seat, present)

    def mark_watcher(self, table_id: str, member_id: str, watching: bool) -> None:
        """This process's first socket of a member watching a table opened (or its last
        closed): shared with every process (gateway.table_presence)."""
        self.marks.mark_watcher(table_id, member_id, watching)

    def keep_renewing(self) -> None:
        """Renew this process's leases while it holds any (gateway.table_presence)."""
        self.marks.keep_renewing()

    def _holdings(self) -> Holdings:
        """The seats this process has sockets at and the members watching here, to renew."""
        if not self._feeds:
            return None
        marks = [(feed.id, seat_index(seat)) for feed in self._feeds.values() for seat in feed.subscribers]
        watching = [(feed.id, member) for feed in self._feeds.values() for member in feed.watching_members()]
        return marks, watching

    async def spectators_at(self, table_id: str) -> int:
        """How many members watch the table in any process, for a REST view."""
        feed = self._feeds.get(table_id)
        if feed is not None:
            return feed.watchers
        try:
            return await self.watchers.count(table_id)
        except ServiceError:
            return 0

    def presence_changed(self, table_id: str | None) -> None:
        """Who is connected at this table (None: at any) changed in some process."""
        feeds = self._feeds.values() if table_id is None else (
            feed for feed in (self._feeds.get(table_id),) if feed is not None)
        for feed in feeds:
            self.marks.spawn(feed.refresh_presence(), f"presence {feed.id}")

    async def connected_at(self, table_id: str) -> set[int]:
        """The seats with a socket open at the table in any process, for a REST view."""
        feed = self._feeds.get(table_id)
        if feed is not None:
            return {seat_index(seat) for seat in feed.subscribers} | feed.elsewhere
        try:
            return await self.presence.seats(table_id)
        except ServiceError:
            return set()

    def join(self, game: Game, seat: str, member_id: str, outbox: Outbox,
             features: frozenset[Feature] = frozenset()) -> Subscriber:
        """Add a socket of ``member_id`` at ``seat`` of ``game`` (as the lobby answered it),
        asking for ``features``."""
        feed = self._feeds.get(game.id)
        if feed is None:
            feed = self._feeds[game.id] = TableFeed(self, game)
        subscriber = Subscriber(feed, seat, member_id, outbox, started=game.started,
                                features=features)
        feed.add(subscriber, game)
        if feed.task is None or (feed.task.done() and feed.game_over is None):
            # Not started yet, or ended without finishing (a refused watch): (re)start it.
            feed.task = asyncio.create_task(feed.run(), name=f"table feed {game.id}")
        return subscriber

    def watch(self, game: Game, member_id: str, outbox: Outbox,
              features: frozenset[Feature] = frozenset()) -> Subscriber:
        """Add a spectator's socket of ``member_id`` at ``game`` (as the lobby answered it),
        asking for ``features``."""
        feed = self._feeds.get(game.id)
        if feed is None:
            feed = self._feeds[game.id] = TableFeed(self, game)
        subscriber = Subscriber(feed, "", member_id, outbox, started=game.started, features=features,
                                spectator=True)
        feed.add(subscriber, game)
        task = feed.task
        if task is not None and not task.done() and feed.started and not feed.watching_public:
            # The table is followed without the public view: follow it again, with it.
            task.cancel()
            task = None
        if task is None or (task.done() and (feed.game_over is None or feed.public is None)):
            feed.task = asyncio.create_task(feed.run(), name=f"table feed {game.id}")
        return subscriber

    def leave(self, subscriber: Subscriber) -> None:
        feed = subscriber.feed
        if feed.remove(subscriber) and self._feeds.get(feed.id) is feed:
            del self._feeds[feed.id]
            if feed.task is not None:
                feed.task.cancel()
        elif subscriber.spectator and not feed.spectators and feed.watching_public \
                and feed.task is not None and not feed.task.done():
            # The last spectator left while players stay: follow the table again without the
            # public view, which the game then no longer renders for this gateway.
            feed.task.cancel()
            feed.public, feed.watching_public = None, False
            feed._public_revision, feed._public_text = -1, None
            feed.task = asyncio.create_task(feed.run(), name=f"table feed {feed.id}")

    def said(self, event: Said) -> None:
        """Something was said at a table: its `said` to this process's sockets there that asked for
        `chat`, may see it (talk.models.visible) and whose member neither muted nor blocked its
        author."""
        feed = self._feeds.get(event.table)
        if feed is None:
            return
        finished = feed.status == TableStatus.FINISHED
        for subscriber in feed._everyone():  # the players' sockets and the spectators'
            # A member seated at the game reads as a player on the spectators' socket too: the
            # spectators' channel must not reach a player before the end, whatever the socket.
            reader_spectator = subscriber.spectator and feed.game.seat_of(subscriber.member_id) is None
            if (visible(event.spectator, reader_spectator, finished)
                    and not (event.player and event.player in subscriber.silenced)):
                subscriber.notify(Feature.CHAT, event.text)

    def status_of(self, table_id: str) -> str | None:
        """The table's status as this process's feed last saw it; None without a feed or
        before its first state."""
        feed = self._feeds.get(table_id)
        return feed.status if feed is not None else None

    def names_changed(self, table_ids: Iterable[str] | None = None) -> None:
        """The seating of these games (None: of any game) changed: re-read before the next
        state."""
        feeds = self._feeds.values() if table_ids is None else (
            feed for id in table_ids if (feed := self._feeds.get(id)) is not None)
        for feed in feeds:
            feed.names_changed()

    def __len__(self) -> int:
        """How many subscriptions this process holds (one per game with a socket open)."""
        return len(self._feeds)

    async def aclose(self) -> None:
        tasks = [feed.task for feed in self._feeds.values() if feed.task is not None]
        self._feeds.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.marks.aclose()
