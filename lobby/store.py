"""Where the lobby keeps its games: join codes, seatings, each member's games, and their changes.

One interface, :class:`LobbyStore`, with a Postgres implementation (lobby.postgres_store:
several replicas share it; the seating is the truth that lets a match be recorded, so it lives
where nothing is lost) and an in-memory one (lobby.memory_store: a single process, used when no database is
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
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, replace

from lobby.models import MAX_DAILY_GAMES, MAX_OPEN_GAMES, Game, Seat
from services.rpc.errors import Reason, ServiceError
from services.signals import Signals

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
