"""The lobby's games in this process's memory (DATABASE_URL unset): one process only."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import replace

from lobby.models import DELETED_PLAYER, MAX_DAILY_GAMES, MAX_OPEN_GAMES, Game
from lobby.store import (
    OPEN_GAMES_KEY,
    QUICK_CANDIDATES,
    REQUEST_TTL_SECONDS,
    AlreadyDone,
    Done,
    Joined,
    JoinOutcome,
    LobbyStore,
    QuickJoined,
    QuickOutcome,
    Request,
    SeatingChange,
    done_by,
    lives_on,
    nearest,
    not_found,
    open_list_changed,
    opens_for,
    quick_fits,
    refused_join,
    seated_daily,
    too_many_daily_games,
    too_many_open_games,
    with_seat,
)
from services.signals import MemorySignalHub, Signals


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
