"""Where the lobby keeps its games: join codes, seatings, each member's games, and their changes.

One interface, :class:`LobbyStore`, with a Postgres implementation (lobby.postgres_store:
several replicas share it; the seating is the truth that lets a match be recorded, so it lives
where nothing is lost) and an in-memory one (a single process, used when no database is
configured). Every operation that reads and then writes (create, join, modify, touch, mark
started, erase) is atomic: a locked row in Postgres, a stretch of code without ``await`` in
memory. That is what makes two members racing for the last seat end with exactly one of them
seated.

Everything of a game (its code, its seating, its members' indexes) lives for GAME_TTL_SECONDS
after it was last created, joined or read by id (``touch``: GetGame, GetSeating, FindSeat, the
calls made while a table is played), so a code stays unique among live games and frees itself
when its game is gone, and a seating outlives the play of its table. A started daily game is the
exception (``lives_on``): its players may leave it alone for days while its deadlines play it
on, so it is kept until it finishes (MarkFinished), and lives GAME_TTL_SECONDS from then.

A change made for a :class:`Request` (a call's request id) is remembered with it, atomically, for
REQUEST_TTL_SECONDS: the same request again raises :class:`AlreadyDone` with what the first one
did, and changes nothing; of two made at once, one waits for the other.
"""

from __future__ import annotations

import contextlib
import enum
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace

from lobby.models import DELETED_PLAYER, MAX_DAILY_GAMES, MAX_OPEN_GAMES, Game, Seat
from services.rpc.errors import Reason, ServiceError
from services.signals import MemorySignalHub, Signals

# The key signalled whenever the list of open games may have changed (lobby.service watches it).
OPEN_GAMES_KEY = "open-games"
QUICK_CANDIDATES = 200  # the newest open games of a type a quick match chooses among

# A change of a game's seating (lobby.service): the game as it is, in, the game as it must be,
# out; None deletes the game (the last person left it); a ServiceError refuses the change.
SeatingChange = Callable[[Game], "Game | None"]


class JoinOutcome(enum.Enum):
    SEATED = "seated"            # this call took a free seat
    ALREADY_SEATED = "already"   # the member sat there already: nothing changed
    FULL = "full"                # every seat is taken by others
    BLOCKED = "blocked"          # a member seated there and the joiner: one blocked the other
    NOT_FOUND = "missing"        # no live game has this id


@dataclass(frozen=True)
class Joined:
    """What a join did and the game right after it (None when not found)."""

    outcome: JoinOutcome
    game: Game | None

    @property
    def took_last_seat(self) -> bool:
        return self.outcome is JoinOutcome.SEATED and self.game is not None and self.game.full


class QuickOutcome(enum.Enum):
    SEATED = "seated"            # at an open game that had a seat
    WAITING = "waiting"          # the member waits at an open game of the type already
    CREATED = "created"          # no open game had a seat: the candidate was stored
    CODE_TAKEN = "code taken"    # the candidate's code is a live game's: draw another


@dataclass(frozen=True)
class QuickJoined:
    outcome: QuickOutcome
    game: Game | None  # None only with CODE_TAKEN


REQUEST_TTL_SECONDS = 24 * 3600  # how long a call's request id is remembered


@dataclass(frozen=True)
class Request:
    """A call's request id (LobbyService's ``request_id``), of one method and member."""

    method: str
    member_id: str
    request_id: str


@dataclass(frozen=True)
class Done:
    """What a call made for a request did."""

    game_id: str | None  # the game it made or changed; None: it deleted the game
    created: bool = False  # it made the game
    filled: bool = False  # it took the game's last seat


class AlreadyDone(Exception):
    """The request was made already: nothing was changed now; ``done`` is what it did then."""

    def __init__(self, done: Done):
        super().__init__(f"already done: {done}")
        self.done = done


def done_by(before: Game | None, after: Game | None) -> Done:
    """What a change from ``before`` (None: no game yet) to ``after`` (None: deleted) did."""
    if after is None:
        return Done(None)
    return Done(after.id, created=before is None,
                filled=after.full and (before is None or not before.full))


def not_found() -> ServiceError:
    return ServiceError(Reason.GAME_NOT_FOUND, "Game not found")


def too_many_open_games() -> ServiceError:
    return ServiceError(Reason.TOO_MANY_OPEN_GAMES, "Too many open games",
                        limit=str(MAX_OPEN_GAMES))


def too_many_daily_games() -> ServiceError:
    return ServiceError(Reason.TOO_MANY_DAILY_GAMES, "Too many daily games",
                        limit=str(MAX_DAILY_GAMES))


def seated_daily(before: Game | None, after: Game | None) -> list[str]:
    """The people a change seats at an unfinished daily game (creating it with them, a join, a
    rematch's seat), whose daily games are limited; [] for any other change (a seat taken back
    from a bot was the person's already)."""
    if after is None or not after.counts_daily:
        return []
    had = {seat.member_id for seat in before.seats if seat.is_person} if before is not None else set()
    return [seat.member_id for seat in after.seats
            if seat.is_person and not seat.erased and seat.member_id not in had]


def with_seat(game: Game, member_id: str, display_name: str, rating: int, at_ms: int) -> Game:
    """``game`` with the member at its lowest free seat (a seat taken at ``at_ms``, 0: keep the
    game's time)."""
    assert game.free_index is not None  # the callers refuse a full game
    seat = Seat(game.free_index, member_id, display_name, rating=rating)
    return replace(game, seats=tuple(sorted((*game.seats, seat), key=lambda s: s.index)),
                   updated_at_ms=at_ms or game.updated_at_ms)


def lives_on(game: Game) -> bool:
    """A started daily game not finished: kept until it finishes (then GAME_TTL_SECONDS), since
    its players may leave it alone for days while its deadlines play it on (MarkFinished)."""
    return game.started and game.counts_daily


def quick_fits(game: Game, candidate: Game, options_json: str | None) -> bool:
    """Whether a quick match for ``candidate`` may seat the member at ``game``: the options
    asked for exactly, or, none asked for, any of the candidate's pace (Play now stays live)."""
    if options_json is not None:
        return game.options_json == options_json
    return game.pace == candidate.pace


def opens_for(before: Game | None, after: Game | None) -> str | None:
    """The member a change opens a game for (creating it open, or opening it): its creator, whose
    open games are limited; None for any other change (a seat freed never counts against it)."""
    if after is None or not after.waiting_open or (before is not None and before.open):
        return None
    creator = after.creator
    return creator.member_id if creator is not None else None


def open_list_changed(before: Game | None, after: Game | None) -> bool:
    """Whether a change of one game may change the list of open games."""
    return any(game is not None and game.open for game in (before, after))


def seats_any(game: Game, members: Set[str]) -> bool:
    """Whether one of ``members`` sits at ``game`` (as a person: a seat a bot took over from
    them is still theirs). An erased seat's member id is nobody's."""
    return any(seat.is_person and seat.member_id in members for seat in game.seats)


def nearest(games: list[Game], member_id: str, rating: int,
            apart: Set[str] = frozenset()) -> Game | None:
    """The game with a seat free, where none of ``apart`` sits, whose rating is nearest
    ``rating`` (the longest waiting of equals): where a quick match seats the member."""
    free = [game for game in games if not game.full and game.seat_of(member_id) is None
            and not seats_any(game, apart)]
    return min(free, key=lambda game: (abs(game.rating - rating), game.created_at_ms, game.id),
               default=None)


def refused_join(game: Game | None, member_id: str,
                 apart: Set[str] = frozenset()) -> Joined | None:
    """Why the member takes no seat at ``game``: gone, seated already, full, or one of
    ``apart`` (whom they never sit with: lobby.relations) sits there; None when a seat is free
    for them."""
    if game is None:
        return Joined(JoinOutcome.NOT_FOUND, None)
    if game.seat_of(member_id) is not None:
        return Joined(JoinOutcome.ALREADY_SEATED, game)
    if game.full:
        return Joined(JoinOutcome.FULL, game)
    if seats_any(game, apart):
        return Joined(JoinOutcome.BLOCKED, game)
    return None


class LobbyStore(ABC):
    """The lobby's state. Implementations must keep each method atomic."""

    @abstractmethod
    async def create(self, game: Game, request: Request | None = None) -> bool:
        """Store a new game and its code; False (nothing stored) when a live game has the code
        or the id; TOO_MANY_OPEN_GAMES for an open game whose creator has MAX_OPEN_GAMES;
        TOO_MANY_DAILY_GAMES for a daily game of someone who sits at MAX_DAILY_GAMES;
        AlreadyDone when ``request`` was made."""

    @abstractmethod
    async def game_id_for_code(self, code: str) -> str | None:
        """The id of the live game with this (canonical) code."""

    @abstractmethod
    async def get(self, game_id: str) -> Game | None:
        """The live game with this id."""

    @abstractmethod
    async def touch(self, game_id: str) -> Game | None:
        """The live game with this id, its TTL (and its code's) restarted: a game in use lives on."""

    @abstractmethod
    async def get_many(self, game_ids: Sequence[str]) -> list[Game]:
        """The live games of ``game_ids`` (canonical ids), in no particular order."""

    @abstractmethod
    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0,
                   ratings: Mapping[str, int] | None = None,
                   apart: Set[str] = frozenset()) -> Joined:
        """Seat the member (with their rating for the game's type, from ``ratings``) at the next
        free seat of the live game with this (canonical) code, unless already seated there, the
        game is full, or one of ``apart`` sits there (BLOCKED); a seat taken at ``at_ms`` (epoch
        ms, 0: keep the game's time) is a change its subscribers hear of. TOO_MANY_DAILY_GAMES
        when the game is daily and the member sits at MAX_DAILY_GAMES unfinished ones."""

    @abstractmethod
    async def modify(self, game_id: str, change: SeatingChange,
                     request: Request | None = None) -> Game | None:
        """Apply ``change`` to the live game atomically (no other change of it in between) and
        store its result: a change its subscribers hear of. The game after, None when the
        change deleted it; GAME_NOT_FOUND when no live game has this id; TOO_MANY_OPEN_GAMES
        when it opens a game of a creator who has MAX_OPEN_GAMES open already;
        TOO_MANY_DAILY_GAMES when it seats someone at a daily game who sits at MAX_DAILY_GAMES;
        AlreadyDone when ``request`` was made (before anything else is looked at)."""

    @abstractmethod
    async def open_games(self, game_type: str, limit: int) -> list[Game]:
        """The live open games waiting with a seat free (of ``game_type``; "": of any type),
        newest first, at most ``limit``."""

    @abstractmethod
    async def watchable_games(self, game_type: str, limit: int) -> list[Game]:
        """The live started games that allow spectators and are not marked finished (of
        ``game_type``; "": of any type), highest rating first, at most ``limit``."""

    @abstractmethod
    async def quick_join(self, candidate: Game, member_id: str, display_name: str, rating: int,
                         options_json: str | None, at_ms: int,
                         request: Request | None = None,
                         apart: Set[str] = frozenset()) -> QuickJoined:
        """Atomically for the game type (one quick match of a type at a time): the open game of
        ``candidate``'s type the member waits at already; else the member seated at the one
        (with ``options_json``, when given; else of the candidate's pace: quick_fits) where none
        of ``apart`` sits whose rating is nearest theirs; else ``candidate`` (an open game with
        the member at seat 0) stored, unless its code is taken. TOO_MANY_OPEN_GAMES when the
        candidate was needed and the member has MAX_OPEN_GAMES; TOO_MANY_DAILY_GAMES when the
        game is daily and the member sits at MAX_DAILY_GAMES; AlreadyDone when ``request`` was
        made."""

    @abstractmethod
    async def done(self, request: Request) -> Done | None:
        """What ``request`` did, when it was made (and is remembered still)."""

    @abstractmethod
    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        """Record that the table exists (idempotent); the game after, None when it is gone.
        The first call is a change its subscribers hear of."""

    @abstractmethod
    async def mark_finished(self, game_id: str) -> bool:
        """Record that the game's table finished (idempotent): it is no longer watchable.
        False when no live game has this id (nothing is marked). No change its subscribers
        hear of: a waiting room is long gone when a table finishes."""

    @abstractmethod
    async def member_games(self, member_id: str) -> list[Game]:
        """The live games the member sits at, in no particular order."""

    @abstractmethod
    async def playing(self, member_ids: Iterable[str]) -> dict[str, list[str]]:
        """For each of ``member_ids`` who plays now: the ids of the live games they play a seat
        of themselves (not a bot for them, not erased) that started, are not marked finished
        and allow spectators, most recently started first."""

    @abstractmethod
    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        """Signals of the game's changes (a seat taken, the start, an erasure), active once
        the context is entered."""

    @abstractmethod
    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        """Anonymize each seating of the member (a fresh id from ``new_member_id`` per game, the
        name "deleted player", marked erased) and forget their requests; the ids of the games
        touched, sorted."""

    async def ping(self) -> None:
        """Raise while the store does not answer (the health probe)."""

    async def close(self) -> None:
        """Release connections."""


# -- in memory ------------------------------------------------------------------------------


class MemoryLobbyStore(LobbyStore):
    """A single process's store. No method awaits between its read and its write, so each is
    atomic under asyncio; expired entries are dropped when next looked at."""

    def __init__(self, ttl_seconds: int, clock: Callable[[], float] = time.monotonic):
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._games: dict[str, tuple[Game, float]] = {}
        self._codes: dict[str, tuple[str, float]] = {}
        self._member_games: dict[str, set[str]] = {}
        self._requests: dict[Request, tuple[Done, float]] = {}
        self._next_sweep = clock() + 60
        self._hub = MemorySignalHub()

    async def create(self, game: Game, request: Request | None = None) -> bool:
        self._sweep()
        self._check_request(request)
        if self._live_code(game.join_code) is not None or self._live_game(game.id) is not None:
            return False
        self._check_open_limit(None, game)
        self._check_daily_limit(None, game)
        self._store(game)
        for seat in game.seats:
            self._member_games.setdefault(seat.member_id, set()).add(game.id)
        self._signal(None, game)
        self._remember(request, done_by(None, game))
        return True

    async def done(self, request: Request) -> Done | None:
        entry = self._requests.get(request)
        return entry[0] if entry is not None and entry[1] > self.clock() else None

    def _check_request(self, request: Request | None) -> None:
        """AlreadyDone when ``request`` was made (and is remembered still)."""
        entry = self._requests.get(request) if request is not None else None
        if entry is not None and entry[1] > self.clock():
            raise AlreadyDone(entry[0])

    def _remember(self, request: Request | None, done: Done) -> None:
        if request is not None:
            self._requests[request] = (done, self.clock() + REQUEST_TTL_SECONDS)

    async def game_id_for_code(self, code: str) -> str | None:
        return self._live_code(code)

    async def get(self, game_id: str) -> Game | None:
        return self._live_game(game_id)

    async def touch(self, game_id: str) -> Game | None:
        game = self._live_game(game_id)
        if game is not None:
            self._store(game)
        return game

    async def get_many(self, game_ids: Sequence[str]) -> list[Game]:
        return [game for game_id in dict.fromkeys(game_ids)
                if (game := self._live_game(game_id)) is not None]

    async def join(self, code: str, member_id: str, display_name: str, at_ms: int = 0,
                   ratings: Mapping[str, int] | None = None,
                   apart: Set[str] = frozenset()) -> Joined:
        game_id = self._live_code(code)
        game = self._live_game(game_id) if game_id is not None else None
        if (refusal := refused_join(game, member_id, apart)) is not None:
            return refusal
        assert game is not None  # refused_join answers NOT_FOUND for a missing game
        rating = (ratings or {}).get(game.game_type, 0)
        return Joined(JoinOutcome.SEATED, self._seat(game, member_id, display_name, rating, at_ms))

    def _seat(self, game: Game, member_id: str, display_name: str, rating: int, at_ms: int) -> Game:
        seated = with_seat(game, member_id, display_name, rating, at_ms)
        self._check_daily_limit(game, seated)
        self._store(seated)
        self._member_games.setdefault(member_id, set()).add(game.id)
        self._signal(game, seated)
        return seated

    async def modify(self, game_id: str, change: SeatingChange,
                     request: Request | None = None) -> Game | None:
        self._check_request(request)
        game = self._live_game(game_id)
        if game is None:
            raise not_found()
        changed = change(game)
        self._check_open_limit(game, changed)
        self._check_daily_limit(game, changed)
        if changed is None:
            del self._games[game_id]
            self._codes.pop(game.join_code, None)
        else:
            self._store(changed)
            for seat in changed.seats:
                self._member_games.setdefault(seat.member_id, set()).add(game_id)
        self._signal(game, changed)
        self._remember(request, done_by(game, changed))
        return changed

    async def watchable_games(self, game_type: str, limit: int) -> list[Game]:
        self._sweep()
        games = [game for game, _ in self._games.values()
                 if game.watchable and game_type in ("", game.game_type)
                 and self._live_game(game.id) is not None]
        games.sort(key=lambda game: (-game.rating, -game.changed_at_ms, game.id))
        return games[:limit]

    async def open_games(self, game_type: str, limit: int) -> list[Game]:
        self._sweep()
        games = [game for game, _ in self._games.values()
                 if game.waiting_open and game_type in ("", game.game_type)]
        live = [game for game in games if self._live_game(game.id) is not None]
        live.sort(key=lambda game: (game.created_at_ms, game.id), reverse=True)
        return live[:limit]

    async def quick_join(self, candidate: Game, member_id: str, display_name: str, rating: int,
                         options_json: str | None, at_ms: int,
                         request: Request | None = None,
                         apart: Set[str] = frozenset()) -> QuickJoined:
        self._check_request(request)
        games = [game for game in await self.open_games(candidate.game_type, QUICK_CANDIDATES)
                 if quick_fits(game, candidate, options_json)]
        waiting = next((game for game in games if game.seat_of(member_id) is not None), None)
        if waiting is not None:
            self._remember(request, done_by(waiting, waiting))
            return QuickJoined(QuickOutcome.WAITING, waiting)
        chosen = nearest(games, member_id, rating, apart)
        if chosen is not None:
            seated = self._seat(chosen, member_id, display_name, rating, at_ms)
            self._remember(request, done_by(chosen, seated))
            return QuickJoined(QuickOutcome.SEATED, seated)
        if not await self.create(candidate, request):
            return QuickJoined(QuickOutcome.CODE_TAKEN, None)
        return QuickJoined(QuickOutcome.CREATED, candidate)

    def _check_open_limit(self, before: Game | None, after: Game | None) -> None:
        member_id = opens_for(before, after)
        if member_id is None:
            return
        waiting = [game for game in (self._live_game(game_id)
                                     for game_id in self._member_games.get(member_id, ()))
                   if game is not None and game.waiting_open and game.creator is not None
                   and game.creator.member_id == member_id]
        if len(waiting) >= MAX_OPEN_GAMES:
            raise too_many_open_games()

    def _check_daily_limit(self, before: Game | None, after: Game | None) -> None:
        """TOO_MANY_DAILY_GAMES when the change seats someone at a daily game who sits at
        MAX_DAILY_GAMES unfinished ones already."""
        for member_id in seated_daily(before, after):
            daily = [game for game in (self._live_game(game_id)
                                       for game_id in self._member_games.get(member_id, ()))
                     if game is not None and game.counts_daily and game.seat_of(member_id) is not None
                     and (after is None or game.id != after.id)]
            if len(daily) >= MAX_DAILY_GAMES:
                raise too_many_daily_games()

    def _signal(self, before: Game | None, after: Game | None) -> None:
        self._hub.notify((after or before).id)  # type: ignore[union-attr]
        if open_list_changed(before, after):
            self._hub.notify(OPEN_GAMES_KEY)

    async def mark_started(self, game_id: str, at_ms: int = 0) -> Game | None:
        game = self._live_game(game_id)
        if game is None:
            return None
        if not game.started:
            before, game = game, replace(game, started=True, updated_at_ms=at_ms or game.updated_at_ms)
            if lives_on(game):
                self._store(game)
            else:
                self._games[game_id] = (game, self._games[game_id][1])
            self._signal(before, game)
        return game

    async def mark_finished(self, game_id: str) -> bool:
        game = self._live_game(game_id)
        if game is None:
            return False
        if not game.finished:
            if lives_on(game):  # its TTL starts now
                self._store(replace(game, finished=True))
            else:
                self._games[game_id] = (replace(game, finished=True), self._games[game_id][1])
        return True

    async def member_games(self, member_id: str) -> list[Game]:
        games = (self._live_game(game_id) for game_id in self._member_games.get(member_id, ()))
        return [game for game in games if game is not None and game.seat_of(member_id)]

    async def playing(self, member_ids: Iterable[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for member_id in set(member_ids):
            games = [game for game in await self.member_games(member_id)
                     if game.watchable and (seat := game.seat_of(member_id)) is not None
                     and seat.played_by_person]
            games.sort(key=lambda game: (game.changed_at_ms, game.id), reverse=True)
            if games:
                found[member_id] = [game.id for game in games]
        return found

    def changes(self, game_id: str) -> contextlib.AbstractAsyncContextManager[Signals]:
        return self._hub.subscribe(game_id)

    async def erase_member(self, member_id: str, new_member_id: Callable[[], str]) -> list[str]:
        self._requests = {request: entry for request, entry in self._requests.items()
                          if request.member_id != member_id}
        touched = []
        for game_id in self._member_games.pop(member_id, set()):
            game = self._live_game(game_id)
            seat = game.seat_of(member_id) if game is not None else None
            if game is None or seat is None:
                continue
            # Who plays the seat (a bot for them) stays: only the person is erased.
            erased = replace(seat, member_id=new_member_id(), display_name=DELETED_PLAYER,
                             erased=True, rating=0)
            seats = tuple(erased if s.index == seat.index else s for s in game.seats)
            self._games[game_id] = (replace(game, seats=seats), self._games[game_id][1])
            self._signal(game, self._games[game_id][0])
            touched.append(game_id)
        return sorted(touched)

    def _sweep(self) -> None:
        """Forget expired games, codes and index entries, at most once a minute."""
        now = self.clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + 60
        self._games = {k: v for k, v in self._games.items() if v[1] > now}
        self._codes = {k: v for k, v in self._codes.items() if v[1] > now}
        self._requests = {k: v for k, v in self._requests.items() if v[1] > now}
        for member_id in list(self._member_games):
            self._member_games[member_id] &= self._games.keys()
            if not self._member_games[member_id]:
                del self._member_games[member_id]

    def _store(self, game: Game) -> None:
        """Write the game and (re)start the TTL of it and its code (none while it lives on)."""
        expires = math.inf if lives_on(game) else self.clock() + self.ttl_seconds
        self._games[game.id] = (game, expires)
        self._codes[game.join_code] = (game.id, expires)

    def _live_game(self, game_id: str) -> Game | None:
        entry = self._games.get(game_id)
        if entry is None:
            return None
        if entry[1] <= self.clock():
            del self._games[game_id]
            return None
        return entry[0]

    def _live_code(self, code: str) -> str | None:
        entry = self._codes.get(code)
        if entry is None:
            return None
        if entry[1] <= self.clock():
            del self._codes[code]
            return None
        return entry[0]
