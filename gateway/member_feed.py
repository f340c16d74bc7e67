"""What this gateway process's member sockets (/ws/me, gateway.member_socket) are told: the
invitations of their members, the daily games waiting for them, and whether the players they
follow are online.

One :class:`MemberFeed` per process, fed by the gateway events (gateway.socket_registry):

- ``Invited`` for a member with a socket here: the game is read from the lobby once, rendered as
  an /api/me/games item for the invitee, and sent to each of the member's sockets here.
- Follow lists: each member's, read from PlayersService.ListFollowing when their first socket
  here opens (again for each later socket), and again on ``RelationsChanged`` naming the member
  (a follow, an unfollow, a block) or, when it changes what they show, a player they follow (a
  block, a ``show_online`` change). It is kept
  per member, shared by their sockets here.
- ``YourTurn`` for a member with a socket here (gateway.turn_notices decided it): the daily game
  is read from the lobby and the game service, rendered as an /api/me/games item for the member
  (``your_turn`` true) and sent to each of the member's sockets here; not when the game finished
  or another seat is on turn meanwhile (the notice was handled late).
- ``OnlineChanged`` of a player followed by a member here: one lease read for the player
  (gateway.online), whatever the number of sockets following them; each socket is sent the
  difference between what it was last told and what holds now. A player who hides it (or blocked
  the follower: the lobby then says ``show_online`` false) reads as offline.

The reads and the telling run in one task per process, one batch at a time: events that come
while a batch is read are coalesced into the next, and no older read overtakes a newer one. The
players last seen online are read again every RECHECK_SECONDS: a gateway process that died says
nothing, its leases just lapse (gateway.online). After missed events (a lost connection, a lost
Redis) everything is read again, and the followed players once more when the leases are renewed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from game.client import GameClient
from game.status import TableStatus
from gateway.contract.common import Body
from gateway.contract.member_socket import WsInvited, WsOnline, WsYourTurn
from gateway.contract.players import PlayerName
from gateway.events import Invited, YourTurn
from gateway.games import member_game_item
from gateway.online import RECHECK_SECONDS, Online
from gateway.table_leases import RENEW_SECONDS
from gateway.views import my_game_item
from lobby.client import LobbyClient
from lobby.players_client import PlayersClient
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0  # a follow list that could not be read is read again after this
# After the events were missed (the bus's connection, or Redis itself, was lost) every followed
# player is read again now, and once more when every gateway has renewed its leases: a Redis that
# lost its keys has them back by then, silently (a renewal announces nothing).
READ_AGAIN_SECONDS = RENEW_SECONDS + 5
# Follow lists read at once: a change of a much-followed player's settings names every member here
# who follows them, and the lobby is asked at this pace, not all at once.
READS_AT_ONCE = 16


class MemberSocket(Protocol):
    sub: str  # the member
    player: str  # their public player id
    told: set[str]  # the followed players this socket was last told are online

    def send(self, message: Body) -> None:
        """Queue ``message`` for the socket."""


class MemberFeed:
    """This process's member sockets, their members' follow lists, and who of the followed is
    online as last read."""

    def __init__(self, lobby: LobbyClient, players: PlayersClient | None, online: Online,
                 game: GameClient | None = None):
        self.lobby = lobby
        self.game = game  # renders a daily game for `your_turn`; None: not told
        self.players = players
        self.online = online
        self._by_sub: dict[str, set[MemberSocket]] = {}
        self._member_of: dict[str, str] = {}  # public player id -> member, of the sockets here
        self._follows: dict[str, dict[str, bool]] = {}  # member -> followed player -> shows it
        self._followers: dict[str, set[str]] = {}  # followed player -> members here who follow
        self._online: dict[str, bool] = {}  # followed player -> online, as last read
        self._dirty_members: set[str] = set()
        self._dirty_players: set[str] = set()
        self._wake = asyncio.Event()
        self._worker: asyncio.Task | None = None
        self._tasks: set[asyncio.Task] = set()
        self._reads = asyncio.Semaphore(READS_AT_ONCE)
        self._closed = False

    # -- sockets ---------------------------------------------------------------------------

    def add(self, socket: MemberSocket) -> None:
        self._by_sub.setdefault(socket.sub, set()).add(socket)
        if socket.player:
            self._member_of[socket.player] = socket.sub
        self._dirty(members=(socket.sub,))  # its first messages: who of its follows is online

    def discard(self, socket: MemberSocket) -> None:
        sockets = self._by_sub.get(socket.sub)
        if sockets is None:
            return
        sockets.discard(socket)
        if not sockets:
            del self._by_sub[socket.sub]
            self._member_of.pop(socket.player, None)
            self._set_follows(socket.sub, {})

    def __len__(self) -> int:
        return sum(len(sockets) for sockets in self._by_sub.values())

    # -- events ----------------------------------------------------------------------------

    def invited(self, event: Invited) -> None:
        if event.sub in self._by_sub:
            self._spawn(self._tell_invitation(event))

    def your_turn(self, event: YourTurn) -> None:
        if event.sub in self._by_sub:
            self._spawn(self._tell_turn(event))

    def relations_changed(self, players: tuple[str, ...], seen: bool) -> None:
        """Whom these players follow or block, or their settings, changed: re-read the lists of
        the members here who are among them, and when what they show changed (``seen``), of those
        who follow one of them."""
        named = set(players)
        members = {self._member_of[player] for player in named if player in self._member_of}
        if seen:
            for player in named:
                members |= self._followers.get(player, set())
        self._dirty(members=members)

    def online_changed(self, player: str) -> None:
        if player in self._followers:
            self._dirty(players=(player,))

    def missed(self) -> None:
        """The events were not heard for a while: read everything again, now and once the
        leases are surely renewed."""
        self._dirty(members=self._by_sub, players=self._followers)
        if not self._closed:
            asyncio.get_running_loop().call_later(READ_AGAIN_SECONDS,
                                                  lambda: self._dirty(players=self._followers))

    # -- the work --------------------------------------------------------------------------

    def _dirty(self, members=(), players=()) -> None:
        self._dirty_members.update(members)
        self._dirty_players.update(players)
        if self._closed or (not self._dirty_members and not self._dirty_players):
            return
        self._wake.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="member feed")

    async def _work(self) -> None:
        while True:
            recheck = RECHECK_SECONDS if any(self._online.values()) else None
            try:
                await asyncio.wait_for(self._wake.wait(), recheck)
            except TimeoutError:  # a process that died says nothing: its leases lapse
                self._dirty_players.update(player for player, on in self._online.items() if on)
            self._wake.clear()
            try:
                await self._batch()
            except Exception:  # one failed batch must not stop the process's only worker
                log.exception("member feed: a batch failed")

    async def _batch(self) -> None:
        members = {sub for sub in self._dirty_members if sub in self._by_sub}
        players = set(self._dirty_players)
        self._dirty_members.clear()
        self._dirty_players.clear()
        if members:
            players |= await self._read_follows(members)
        players &= self._followers.keys()  # only whom someone here follows
        if players:
            try:
                online = await self.online.players(players)
            except ServiceError as error:
                log.warning("member feed: online status not read: %s", error.message)
                online = self.online.here(players)
            for player in players:
                self._online[player] = player in online
        for player in players:
            members |= self._followers.get(player, set())
        for sub in members:
            self._tell_online(sub)

    async def _read_follows(self, members: set[str]) -> set[str]:
        """Read the members' follow lists; the followed players whose online state is not
        known yet."""
        if self.players is None:
            return set()
        subs = list(members)
        results = await asyncio.gather(*(self._following(sub) for sub in subs), return_exceptions=True)
        unknown: set[str] = set()
        failed: list[str] = []
        for sub, result in zip(subs, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, ServiceError):
                    raise result
                log.warning("member feed: a follow list not read: %s", result.message)
                failed.append(sub)
                continue
            if sub not in self._by_sub:  # every socket closed meanwhile
                continue
            follows = {followed.player: followed.show_online for followed in result}
            self._set_follows(sub, follows)
            unknown |= {player for player in follows if player not in self._online}
        if failed:
            asyncio.get_running_loop().call_later(RETRY_SECONDS, lambda: self._dirty(members=failed))
        return unknown

    async def _following(self, sub: str) -> list:
        assert self.players is not None
        async with self._reads:
            return await self.players.list_following(sub)

    def _set_follows(self, sub: str, follows: dict[str, bool]) -> None:
        for player in self._follows.get(sub, {}):
            if player not in follows:
                followers = self._followers.get(player)
                if followers is not None:
                    followers.discard(sub)
                    if not followers:
                        del self._followers[player]
                        self._online.pop(player, None)
        for player in follows:
            self._followers.setdefault(player, set()).add(sub)
        if follows:
            self._follows[sub] = follows
        else:
            self._follows.pop(sub, None)

    def _tell_online(self, sub: str) -> None:
        """Each socket of ``sub`` here gets the difference between what it was told and what
        holds: the followed players who show it and are online."""
        follows = self._follows.get(sub, {})
        now = {player for player, shows in follows.items() if shows and self._online.get(player)}
        for socket in self._by_sub.get(sub, ()):
            for player in sorted(now - socket.told):
                socket.send(WsOnline(player=player, online=True))
            for player in sorted(socket.told - now):
                if player in follows:  # an unfollowed player is no news of this socket's
                    socket.send(WsOnline(player=player, online=False))
            socket.told = set(now)

    async def _tell_invitation(self, event: Invited) -> None:
        try:
            game = await self.lobby.get_game(event.game_id)
        except ServiceError as error:
            if error.reason is not Reason.GAME_NOT_FOUND:
                log.warning("member feed: an invitation's game not read: %s", error.message)
            return
        if game.started or game.seat_of(event.sub) is not None:
            return  # lapsed already (CONTRACT: until the game starts), or taken up
        message = WsInvited(game=my_game_item(game, event.sub, TableStatus.LOBBY, False, game.changed_at_ms),
                            by=PlayerName(player=event.by_player, name=event.by_name))
        self.tell(event.sub, message)

    async def _tell_turn(self, event: YourTurn) -> None:
        if self.game is None:
            return
        try:
            game = await self.lobby.get_game(event.game_id)
            item = await member_game_item(self.game, game, event.sub)
        except ServiceError as error:
            log.warning("member feed: a daily game whose turn it is not read: %s", error.message)
            return
        if item is None:  # finished meanwhile, or the member no longer sits there
            return
        if item.status == TableStatus.PLAYING and not item.your_turn:
            return  # played already (a notice handled late): no longer their turn
        # The table waits for them: their turn, or a phase of player entropy.
        self.tell(event.sub, WsYourTurn(game=item.model_copy(update={"your_turn": True})))

    def tell(self, sub: str, message: Body) -> None:
        """``message`` to every socket of the member ``sub`` in this process."""
        for socket in self._by_sub.get(sub, ()):
            socket.send(message)

    def _spawn(self, job) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        self._closed = True
        tasks = [*self._tasks, *([self._worker] if self._worker is not None else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
