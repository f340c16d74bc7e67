"""The lobby's domain: creating games, seating members, starting tables, erasing members.

It knows no gRPC and no Redis: it works on a :class:`~lobby.store.LobbyStore` and on a
:class:`GameService` (the game service's API: game.client.GameClient satisfies it).

A start that failed. The join that takes the last seat creates the table (CreateTable with
table_id = the game id). If that call fails, the seat is NOT given back: the game stays with
every seat taken and ``started`` false, and the creation is retried by whoever touches the game
next: any JoinGame on its code (the seated members, who get the started game, or anyone else,
who still gets "Game is full"), GetGame and PreviewGame. CreateTable is idempotent on the
table id, so retries racing each other (or a first call that did land but timed out) end with
one table. A JoinGame whose start fails answers UNAVAILABLE (its seat is kept: join again);
GetGame and PreviewGame answer the game as it is (status lobby, no seat open) so that reads
never depend on the game service. Rolling the seat back was rejected: a CreateTable that timed
out may have created the table, which would then run with a seat the lobby gave to someone else.

A retried call. The calls that make or change a seating and are not idempotent by their
arguments (CreateGame, QuickMatch, Rematch, AddBot, RemoveBot, LeaveGame, ReturnSeat) take a
request id: the store records what the call did with it, in the change's own transaction, and
refuses the same request again (lobby.store.AlreadyDone). The call sent again answers what the
first one did: the same game (as it is now, its table started if it waited only for that), the
same created and started. JoinGame, ChangeSeat, SetGameOpen, TakeOverSeat and EraseMember need
none: made again, they find their work done and change nothing.

Blocking. Two members of whom one blocked the other (lobby.relations) never sit at one game:
the calls that seat a member at a game others sit at (JoinGame, QuickMatch, Rematch's seat at
an existing rematch) read whom the member never sits with first, and the store refuses (or, for
a quick match, skips) a game where one of them sits, in the same atomic step that seats. A block
made while both sit at one game already unseats nobody, and a seat taken back (ReturnSeat) is
the member's own: creating a game and seating bots seat nobody beside another member.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from bots.catalogue import LEVEL_IDS, TAKEOVER_LEVEL, bot_name
from lobby import inputs
from lobby.codes import generate_code, normalize_code
from lobby.invitations import InvitationStore, invitations_for
from lobby.members import MemberDirectory, checked_member, directory_for, player_ids
from lobby.models import (
    Game,
    GameType,
    JoinResult,
    PlayerName,
    QuickMatchResult,
    RematchResult,
    Seat,
    bot_member_id,
    seat_id,
)
from lobby.push_subscriptions import PushSubscriptionStore, push_subscriptions_for
from lobby.relations import RelationStore, relations_for
from lobby.store import (
    OPEN_GAMES_KEY,
    AlreadyDone,
    Done,
    JoinOutcome,
    LobbyStore,
    QuickOutcome,
    Request,
    seats_any,
)
from services.background import Background, Retry
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.timeutil import now_ms

log = logging.getLogger(__name__)

CODE_ATTEMPTS = 20
WATCH_BACKSTOP_SECONDS = 30.0
MEMBER_GAMES_LIMIT = 200  # ListMemberGames' page: a member's live games, newest first
OPEN_GAMES_LIMIT = 50  # ListOpenGames' largest page
WATCHABLE_GAMES_LIMIT = 200  # ListWatchableGames' largest page
OPEN_GAMES_COALESCE_SECONDS = 1.0  # WatchOpenGames sends a changing list at most this often


class GameService(Protocol):
    """What the lobby asks of the game service."""

    async def list_game_types(self) -> Sequence[GameType]: ...

    async def normalize_options(self, game_type: str, options: str) -> dict[str, Any]: ...

    async def create_table(self, game_type: str, seats: Sequence[str], options: str,
                           table_id: str) -> object: ...

    async def get_result(self, table_id: str) -> object: ...

    async def take_back(self, table_id: str, expected_revision: int | None = None,
                        seat: str = "") -> int: ...


class BotsService(Protocol):
    """What the lobby asks of the bots service (bots.client.BotsClient is one)."""

    async def drive_table(self, table_id: str, seats: Sequence[tuple[int, str]]) -> None: ...


def new_game_id() -> str:
    return str(uuid.uuid4())


# Rematch ids are derived from the finished game's id (uuid5 in this namespace): every player
# who asks names the same new game without a shared record of it, and two first askers racing
# each other cannot make two games (a store creates a game only if its id is free).
REMATCH_NAMESPACE = uuid.UUID("0d4bd7a4-93c6-4c55-9d8e-7f1a2f5e6b01")


def rematch_id(game_id: str) -> str:
    """The id of the rematch of ``game_id`` (a canonical uuid)."""
    return str(uuid.uuid5(REMATCH_NAMESPACE, game_id))


def new_member_id() -> str:
    """The id an erased seating gets: random, and recognisably not anybody's login."""
    return f"deleted-{secrets.token_hex(16)}"


def _json_text(options: dict[str, Any]) -> str:
    """Options as the lobby keeps them: JSON text as the game service writes it (compact)."""
    return json.dumps(options, separators=(",", ":"), ensure_ascii=False)


def _not_found() -> ServiceError:
    return ServiceError(Reason.GAME_NOT_FOUND, "Game not found")


def blocked() -> ServiceError:
    """Two members of whom one blocked the other never sit at one game (lobby.relations)."""
    return ServiceError(Reason.BLOCKED, "Blocked")


def _request(method: str, member_id: str, request_id: str) -> Request | None:
    """The call's request (None without an id); ``member_id`` already checked."""
    checked = inputs.request_id(request_id)
    return Request(method, member_id, checked) if checked else None


class Lobby:
    """The lobby's use cases, one method per LobbyService call."""

    def __init__(self, store: LobbyStore, games: GameService, bots: BotsService | None = None, *,
                 members: MemberDirectory | None = None,
                 relations: RelationStore | None = None,
                 invitations: InvitationStore | None = None,
                 push_subscriptions: PushSubscriptionStore | None = None,
                 new_code: Callable[[], str] = generate_code,
                 new_game_id: Callable[[], str] = new_game_id,
                 new_member_id: Callable[[], str] = new_member_id,
                 clock: Callable[[], int] = now_ms,
                 code_attempts: int = CODE_ATTEMPTS):
        self.store = store
        self.games = games
        # The member directory (lobby.members): beside the store, on its database when it has one.
        self.members = members if members is not None else directory_for(store)
        # Follows, blocks, settings and invitations (lobby.relations, lobby.invitations): beside
        # the store too. Seating reads the blocks; lobby.players serves the rest.
        self.relations = relations if relations is not None else relations_for(store)
        self.invitations = invitations if invitations is not None else invitations_for(store)
        # Web Push subscriptions (lobby.push_subscriptions): member data, beside the store.
        self.push_subscriptions = (push_subscriptions if push_subscriptions is not None
                                   else push_subscriptions_for(store))
        self.bots = bots
        # Telling the bots service who plays which seat is retried in the background until it
        # is heard: a table whose bots are not driven only auto-plays on timeouts meanwhile.
        self.background = Background()
        self.retry = Retry(0.2, 30.0)
        self._bot_seats: dict[str, tuple[tuple[int, str], ...]] = {}  # waiting to be told
        self.new_code = new_code
        self.new_game_id = new_game_id
        self.new_member_id = new_member_id
        self.clock = clock
        self.code_attempts = code_attempts

    async def list_game_types(self) -> list[GameType]:
        return list(await self.games.list_game_types())

    async def create_game(self, member_id: str, display_name: str, game_type: str,
                          options_json: str, open: bool = False, rating: int = 0,
                          request_id: str = "", spectators: bool = True) -> Game:
        """A new game with its creator at seat 0 and a join code no live game has; ``open``
        lists it for anyone (TOO_MANY_OPEN_GAMES beyond MAX_OPEN_GAMES); ``spectators`` false
        forbids watching it."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        request = _request("CreateGame", member_id, request_id)
        kind, normalized = await self._kind_and_options(game_type, options_json)
        try:
            game = await self._create(self.new_game_id(), member_id, display_name, kind.id,
                                      normalized, kind.players, open=open,
                                      rating=inputs.rating(rating), request=request,
                                      spectators=spectators)
        except AlreadyDone as already:
            return await self._done_again(already.done)
        assert game is not None  # a fresh uuid is nobody's
        return game

    async def _again(self, done: Done) -> Game | None:
        """The game a request made or changed, as it is now (started if it waited only for its
        table): what a call made again answers. None when the request deleted it."""
        if done.game_id is None:
            return None
        game = await self.store.touch(done.game_id)
        if game is None:
            raise _not_found()
        return await self._retry_start(game)

    async def _done_again(self, done: Done) -> Game:
        game = await self._again(done)
        assert game is not None  # only a LeaveGame deletes a game
        return game

    async def _kind_and_options(self, game_type: str, options_json: str) -> tuple[GameType, str]:
        """The game type (UNKNOWN_GAME_TYPE) and the options as the game service normalizes them."""
        game_type = inputs.game_type(game_type)
        options_json = inputs.options_json(options_json)
        kind = next((t for t in await self.games.list_game_types() if t.id == game_type), None)
        if kind is None:
            raise ServiceError(Reason.UNKNOWN_GAME_TYPE, f"Unknown game type: {game_type}",
                               field="game_type", game_type=game_type)
        return kind, _json_text(await self.games.normalize_options(game_type, options_json))

    def _new_game(self, game_id: str, member_id: str, display_name: str, game_type: str,
                  options_json: str, seats_total: int, seat_index: int = 0,
                  bots: Sequence[Seat] = (), open: bool = False, rating: int = 0,
                  spectators: bool = True) -> Game:
        """A game not stored yet, with a fresh join code."""
        created_at_ms = self.clock()
        return Game(id=game_id, game_type=game_type, join_code=self.new_code(),
                    options_json=options_json, seats_total=seats_total,
                    created_at_ms=created_at_ms, updated_at_ms=created_at_ms, open=open,
                    spectators=spectators,
                    seats=_sorted((Seat(seat_index, member_id, display_name, rating=rating), *bots)))

    async def _create(self, game_id: str, member_id: str, display_name: str, game_type: str,
                      options_json: str, seats_total: int, seat_index: int = 0,
                      bots: Sequence[Seat] = (), open: bool = False,
                      rating: int = 0, request: Request | None = None,
                      spectators: bool = True) -> Game | None:
        """A new game ``game_id`` with the member at ``seat_index`` (and ``bots`` at theirs) and
        a free join code; None when a live game has that id already."""
        for _ in range(self.code_attempts):
            game = self._new_game(game_id, member_id, display_name, game_type, options_json,
                                  seats_total, seat_index, bots, open, rating, spectators)
            if await self.store.create(game, request):
                log.info("game %s created (%s), code %s", game.id, game_type, game.join_code)
                return await self._retry_start(game)  # a one-seat game type starts at once
            if await self.store.get(game_id) is not None:
                return None
            log.info("join code %s is taken by a live game; drawing another", game.join_code)
        raise ServiceError(
            Reason.UNAVAILABLE,
            f"Could not find a free join code in {self.code_attempts} attempts; try again")

    async def rematch(self, member_id: str, display_name: str, game_id: str,
                      request_id: str = "") -> RematchResult:
        """Seat the member at the rematch of a finished game they sat at, at the seat they had
        there (partners stay partners), creating it when nobody asked before; the bots that sat
        at the finished game from its start sit at the rematch too."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        request = _request("Rematch", member_id, request_id)
        try:
            return await self._rematch(member_id, display_name, game_id, request)
        except AlreadyDone as already:
            return RematchResult(await self._done_again(already.done),
                                 created=already.done.created, started=already.done.filled)

    async def _rematch(self, member_id: str, display_name: str, game_id: str,
                       request: Request | None) -> RematchResult:
        finished = await self._game(game_id, "game_id")
        own = finished.seat_of(member_id)
        if own is None:
            raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=finished.id)
        if not finished.started:
            raise ServiceError(Reason.MATCH_NOT_FINISHED, "The game is not finished",
                               table_id=finished.id)
        await self.games.get_result(finished.id)  # MATCH_NOT_FINISHED while it is played
        # The same options, normalized as a new game's (one finished before the first dealer was
        # drawn has no first_dealer; its rematch draws it).
        _, options_json = await self._kind_and_options(finished.game_type, finished.options_json)
        new_id = rematch_id(finished.id)
        for _ in range(3):  # found, else created, else found (another asker created it)
            existing = await self.store.touch(new_id)
            if existing is not None:
                joined = await self._join_at(existing, member_id, display_name, own.index, request)
                return RematchResult(joined.game, created=False, started=joined.started)
            bots = tuple(replace(seat, took_over=False) for seat in finished.seats
                         if seat.bot and not seat.took_over)
            created = await self._create(new_id, member_id, display_name, finished.game_type,
                                         options_json, finished.seats_total,
                                         seat_index=own.index, bots=bots, request=request,
                                         spectators=finished.spectators)
            if created is not None:
                log.info("game %s is the rematch of %s", created.id, finished.id)
                return RematchResult(created, created=True, started=created.started)
        raise ServiceError(Reason.UNAVAILABLE, "The rematch could not be set up; try again",
                           game_id=new_id)

    async def join_game(self, member_id: str, display_name: str, join_code: str,
                        ratings: Mapping[str, int] | None = None) -> JoinResult:
        """Seat the member at the next free seat; the join that takes the last one starts the table."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        code = normalize_code(inputs.join_code(join_code))
        if code is None:
            raise _not_found()
        ratings = inputs.ratings(ratings or {})
        joined = await self.store.join(code, member_id, display_name, at_ms=self.clock(),
                                       ratings=ratings, apart=await self.relations.apart(member_id))
        if joined.outcome is JoinOutcome.NOT_FOUND or joined.game is None:
            raise _not_found()
        game = joined.game
        if joined.outcome is JoinOutcome.FULL:
            if not game.started:
                await self._retry_start(game)
            raise ServiceError(Reason.GAME_FULL, "Game is full", game_id=game.id)
        if joined.outcome is JoinOutcome.BLOCKED:
            raise blocked()
        if joined.outcome is JoinOutcome.SEATED and (seat := game.seat_of(member_id)) is not None:
            log.info("game %s: seat %d taken", game.id, seat.index)
        if game.full and not game.started:
            game = await self._start(game)
            return JoinResult(game, started=joined.took_last_seat)
        return JoinResult(game, started=False)

    # -- open games ----------------------------------------------------------------------------

    async def list_open_games(self, game_type: str = "", limit: int = OPEN_GAMES_LIMIT) -> list[Game]:
        """The open games waiting with a seat free (of ``game_type``; "": any), newest first."""
        game_type = inputs.optional_game_type(game_type)
        return await self.store.open_games(game_type, max(1, min(limit or OPEN_GAMES_LIMIT,
                                                                 OPEN_GAMES_LIMIT)))

    async def list_watchable_games(self, game_type: str = "", limit: int = 0) -> list[Game]:
        """The started games that allow spectators and are not marked finished (of
        ``game_type``; "": any), highest rating first. A table that finished a moment ago is
        listed until stats has recorded its match (mark_finished); the game service knows."""
        game_type = inputs.optional_game_type(game_type)
        if not 0 <= limit <= WATCHABLE_GAMES_LIMIT:
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               f"limit must be from 0 to {WATCHABLE_GAMES_LIMIT}", field="limit")
        return await self.store.watchable_games(game_type, limit or OPEN_GAMES_LIMIT)

    async def mark_finished(self, table_id: str) -> bool:
        """Record that the table finished (stats, when it records the match); idempotent.
        False, changing nothing, when no live game has this id (never one, or expired: stats
        may record a match long after); INVALID_ARGUMENT for an empty id."""
        canonical = inputs.game_id(table_id, "table_id")
        if canonical is None or not await self.store.mark_finished(canonical):
            log.info("game %s: marked finished, but no live game has this id", table_id)
            return False
        log.info("game %s: its table finished", canonical)
        return True

    async def watch_open_games(self, game_type: str = "") -> AsyncIterator[list[Game]]:
        """The open games now, then again whenever the list changed (signalled by the store;
        a burst of changes sends one list, OPEN_GAMES_COALESCE_SECONDS after the first), and
        every WATCH_BACKSTOP_SECONDS when expiry changed it."""
        game_type = inputs.optional_game_type(game_type)
        async with self.store.changes(OPEN_GAMES_KEY) as changes:
            sent: list[Game] | None = None
            while True:
                games = await self.list_open_games(game_type)
                if games != sent:
                    yield games
                    sent = games
                if await changes.wait(WATCH_BACKSTOP_SECONDS):
                    await asyncio.sleep(OPEN_GAMES_COALESCE_SECONDS)
                    changes.clear()

    async def quick_match(self, member_id: str, display_name: str, game_type: str,
                          options_json: str = "", rating: int = 0,
                          request_id: str = "") -> QuickMatchResult:
        """Seat the member at the open game (with these options, when given) whose rating is
        nearest theirs, or at a new open game; the seat that fills a game starts it."""
        member_id = inputs.member_id(member_id)
        display_name = inputs.display_name(display_name)
        rating = inputs.rating(rating)
        request = _request("QuickMatch", member_id, request_id)
        kind, normalized = await self._kind_and_options(game_type, options_json)
        try:
            return await self._quick_match(member_id, display_name, kind, normalized,
                                           options_json, rating, request)
        except AlreadyDone as already:
            done = already.done
            return QuickMatchResult(await self._done_again(done), created=done.created,
                                    started=done.filled and not done.created)

    async def _quick_match(self, member_id: str, display_name: str, kind: GameType,
                           normalized: str, options_json: str, rating: int,
                           request: Request | None) -> QuickMatchResult:
        wanted = normalized if options_json.strip() else None
        apart = await self.relations.apart(member_id)  # never seated with them: another game
        for _ in range(self.code_attempts):
            candidate = self._new_game(self.new_game_id(), member_id, display_name, kind.id,
                                       normalized, kind.players, open=True, rating=rating)
            quick = await self.store.quick_join(candidate, member_id, display_name, rating,
                                                wanted, self.clock(), request, apart=apart)
            if quick.outcome is QuickOutcome.CODE_TAKEN:
                continue
            game = quick.game
            assert game is not None  # only CODE_TAKEN comes without one
            if quick.outcome is QuickOutcome.CREATED:
                log.info("game %s opened by a quick match (%s)", game.id, kind.id)
                return QuickMatchResult(await self._retry_start(game), created=True, started=False)
            if quick.outcome is QuickOutcome.SEATED and game.full and not game.started:
                log.info("game %s: a quick match took the last seat", game.id)
                return QuickMatchResult(await self._start(game), created=False, started=True)
            return QuickMatchResult(game, created=False, started=False)
        raise ServiceError(
            Reason.UNAVAILABLE,
            f"Could not find a free join code in {self.code_attempts} attempts; try again")

    async def set_open(self, game_id: str, member_id: str, open: bool) -> Game:
        """The creator opens the waiting game to anyone, or closes it."""
        member_id = inputs.member_id(member_id)

        def set_open(game: Game) -> Game:
            _check_creator(game, member_id, "Only the creator can open or close the game")
            return replace(game, open=open)

        game = await self._modify(game_id, set_open)
        log.info("game %s %s", game.id, "opened to anyone" if open else "closed")
        return game

    async def _join_at(self, game: Game, member_id: str, display_name: str,
                       index: int, request: Request | None = None) -> JoinResult:
        """Seat the member at seat ``index`` of ``game`` (the lowest empty one if it is taken);
        the seat that fills the game starts it. Idempotent for a member seated there; BLOCKED
        when one of the members seated there and the member blocked the other."""
        at_ms = self.clock()
        took: list[bool] = []
        apart = await self.relations.apart(member_id)

        def seat_member(game: Game) -> Game:
            if game.seat_of(member_id) is not None:
                return game
            free = index if game.at(index) is None else game.free_index
            if free is None or game.started:
                raise ServiceError(Reason.GAME_FULL, "Game is full", game_id=game.id)
            if seats_any(game, apart):
                raise blocked()
            took.append(True)
            return replace(game, seats=_sorted((*game.seats, Seat(free, member_id, display_name))),
                           updated_at_ms=at_ms)

        seated = await self._modify(game.id, seat_member, request)
        if seated.full and not seated.started:
            return JoinResult(await self._start(seated), started=bool(took))
        return JoinResult(seated, started=False)

    async def change_seat(self, game_id: str, member_id: str, seat_index: int) -> Game:
        """A seated member moves to an empty seat of a game still in the lobby."""
        member_id = inputs.member_id(member_id)
        at_ms = self.clock()

        def move(game: Game) -> Game:
            if game.started:
                raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
            seat = game.seat_of(member_id)
            if seat is None:
                raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
            if seat.index == seat_index:
                return game
            if not 0 <= seat_index < game.seats_total or game.at(seat_index) is not None:
                raise ServiceError(Reason.SEAT_TAKEN, "Seat taken", game_id=game.id)
            return _with_seats(game, seat, replace(seat, index=seat_index), at_ms)

        return await self._modify(game_id, move)

    async def preview_game(self, join_code: str) -> Game:
        code = normalize_code(inputs.join_code(join_code))
        game_id = await self.store.game_id_for_code(code) if code is not None else None
        game = await self.store.get(game_id) if game_id is not None else None
        if game is None:
            raise _not_found()
        return await self._retry_start(game)

    async def get_game(self, game_id: str) -> Game:
        return await self._retry_start(await self._game(game_id, "game_id"))

    async def watch_game(self, game_id: str) -> AsyncIterator[Game]:
        """The game now, then again after every change (a seat taken, an erasure), until and
        including its start; GAME_NOT_FOUND when it is gone (an unstarted game that expired).

        Changes are signalled by the store (pub/sub in Redis), so nothing polls; a quiet game is
        still read every WATCH_BACKSTOP_SECONDS, so a watcher learns that it expired.
        """
        canonical = inputs.game_id(game_id, "game_id")
        if canonical is None:
            raise _not_found()
        async with self.store.changes(canonical) as changes:
            sent: Game | None = None
            while True:
                game = await self.get_game(canonical)
                if game != sent:
                    yield game
                    sent = game
                if game.started:
                    return
                await changes.wait(WATCH_BACKSTOP_SECONDS)

    async def list_member_games(self, member_id: str, limit: int = MEMBER_GAMES_LIMIT) -> list[Game]:
        """The live games the member sits at, most recently changed first, at most ``limit``."""
        games = await self.store.member_games(inputs.member_id(member_id))
        games.sort(key=lambda game: (game.changed_at_ms, game.id), reverse=True)
        return games[:max(1, min(limit, MEMBER_GAMES_LIMIT))]

    async def get_seating(self, table_id: str) -> tuple[Seat, ...]:
        return (await self._game(table_id, "table_id")).seats

    async def find_seat(self, table_id: str, member_id: str) -> Seat:
        game = await self._game(table_id, "table_id")
        seat = game.seat_of(inputs.member_id(member_id))
        if seat is None:
            raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
        return seat

    async def erase_member(self, member_id: str) -> list[str]:
        """Anonymize every seating of the member and forget their player id, follows, blocks,
        settings, invitations (of them and about them) and push subscriptions; the ids of the
        games touched."""
        member_id = inputs.member_id(member_id)
        touched = await self.store.erase_member(member_id, self.new_member_id)
        # Relations and invitations of and about the member: explicit in memory; in Postgres
        # forgetting the directory entry cascades to them (lobby/migrations/0008_relations.sql).
        await self.relations.forget(member_id)
        await self.invitations.forget(member_id)
        await self.push_subscriptions.forget(member_id)
        # After the seatings: a retry after a failure in between finds the entry still there.
        await self.members.forget(member_id)
        if touched:
            log.info("member erased from %d game(s)", len(touched))
        return touched

    # -- the member directory (lobby.members) ----------------------------------------------

    async def ensure_member(self, member_id: str, display_name: str) -> str:
        """The member's public player id (made on the first call); the name is kept current."""
        return await self.members.ensure(*checked_member(member_id, display_name))

    async def get_players(self, players: Sequence[str]) -> list[PlayerName]:
        """The names of the known ones of ``players``, in the order asked."""
        wanted = player_ids(players)
        return await self.members.names(wanted) if wanted else []

    async def with_players(self, games: Sequence[Game]) -> list[Game]:
        """``games`` with each person's seat carrying their player id (one look-up for all)."""
        seats = await self.with_seat_players(tuple(seat for game in games for seat in game.seats))
        named, at = [], 0
        for game in games:
            named.append(replace(game, seats=seats[at:at + len(game.seats)]))
            at += len(game.seats)
        return named

    async def with_seat_players(self, seats: Sequence[Seat]) -> tuple[Seat, ...]:
        """``seats``, each person's with their player id: a bot's own seat and an erased
        member's have none (the erased seat's member id is nobody's)."""
        people = {seat.member_id for seat in seats if seat.is_person and not seat.erased}
        players = await self.members.players_of(people) if people else {}
        return tuple(replace(seat, player=players.get(seat.member_id, "")
                             if seat.is_person and not seat.erased else "") for seat in seats)

    # -- bots and leaving --------------------------------------------------------------------

    async def add_bot(self, game_id: str, member_id: str, seat_index: int, level: str,
                      request_id: str = "") -> JoinResult:
        """The creator seats a bot of ``level`` at an empty seat; the bot that fills the last
        seat starts the table."""
        member_id = inputs.member_id(member_id)
        request = _request("AddBot", member_id, request_id)
        if level not in LEVEL_IDS:
            raise ServiceError(Reason.UNKNOWN_BOT_LEVEL, f"Unknown bot level: {level}",
                               field="level", level=level)
        at_ms = self.clock()

        def seat_bot(game: Game) -> Game:
            _check_creator(game, member_id)
            if not 0 <= seat_index < game.seats_total or game.at(seat_index) is not None:
                raise ServiceError(Reason.SEAT_TAKEN, "Seat taken", game_id=game.id)
            name = bot_name(game.id, seat_index, [s.display_name for s in game.seats])
            bot = Seat(seat_index, bot_member_id(seat_index), name, bot=level)
            return replace(game, seats=_sorted((*game.seats, bot)), updated_at_ms=at_ms)

        try:
            game = await self._modify(game_id, seat_bot, request)
        except AlreadyDone as already:
            return JoinResult(await self._done_again(already.done), started=already.done.filled)
        log.info("game %s: a bot (%s) sits at seat %d", game.id, level, seat_index)
        if game.full and not game.started:
            return JoinResult(await self._start(game), started=True)
        return JoinResult(game, started=False)

    async def remove_bot(self, game_id: str, member_id: str, seat_index: int,
                         request_id: str = "") -> Game:
        """The creator takes a bot off a game still in the lobby."""
        member_id = inputs.member_id(member_id)
        request = _request("RemoveBot", member_id, request_id)
        at_ms = self.clock()

        def unseat_bot(game: Game) -> Game:
            _check_creator(game, member_id)
            seat = game.at(seat_index)
            if seat is None or seat.is_person:
                raise ServiceError(Reason.NO_BOT, "No bot at that seat", game_id=game.id)
            return replace(game, seats=tuple(s for s in game.seats if s.index != seat_index),
                           updated_at_ms=at_ms)

        try:
            game = await self._modify(game_id, unseat_bot, request)
        except AlreadyDone as already:
            return await self._done_again(already.done)
        assert game is not None  # a game with a creator is never deleted here
        return game

    async def leave_game(self, game_id: str, member_id: str, request_id: str = "") -> Game | None:
        """In the lobby the member's seat is freed (the game is gone with its last person);
        once started a bot takes the seat over. None when the game is gone."""
        member_id = inputs.member_id(member_id)
        request = _request("LeaveGame", member_id, request_id)
        try:
            return await self._leave(game_id, member_id, request)
        except AlreadyDone as already:
            game = await self._again(already.done)
            if game is not None:
                self._drive(game)  # a started game's bots: told again (idempotent)
            return game

    async def _leave(self, game_id: str, member_id: str, request: Request | None) -> Game | None:
        if request is not None and (done := await self.store.done(request)) is not None:
            raise AlreadyDone(done)  # made already: the game may be gone since
        game = await self._game(game_id, "game_id")
        if game.started:
            seat = game.seat_of(member_id)
            if seat is None:
                raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
            await self._check_not_finished(game)
            return await self.take_over_seat(game.id, seat.index, request)
        at_ms = self.clock()

        def free_seat(game: Game) -> Game | None:
            if game.started:  # started meanwhile: the next call takes the seat over
                raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
            if game.seat_of(member_id) is None:
                raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
            seats = tuple(s for s in game.seats if s.member_id != member_id or not s.is_person)
            if not any(s.is_person for s in seats):
                return None
            return replace(game, seats=seats, updated_at_ms=at_ms)

        left = await self._modify(game_id, free_seat, request)
        log.info("game %s: a member left the lobby%s", game.id, "" if left else "; the game is gone")
        return left

    async def take_over_seat(self, game_id: str, seat_index: int,
                             request: Request | None = None) -> Game:
        """A bot plays the person's seat of a started game from now on (idempotent);
        ``request``: the LeaveGame this is made for."""
        def take_over(game: Game) -> Game:
            seat = game.at(seat_index)
            if not game.started or seat is None:
                raise ServiceError(Reason.INVALID_ARGUMENT, "Only a person's seat of a started "
                                   "game can be taken over", field="seat_index")
            if seat.bot:
                return game
            taken.append(seat_index)
            return _with_seat(game, replace(seat, bot=TAKEOVER_LEVEL, took_over=True))

        taken: list[int] = []
        game = await self._modify(game_id, take_over, request)
        if taken:
            metrics.bot_took_over()
            log.info("game %s: a bot took seat %d over", game.id, seat_index)
        self._drive(game)
        return game

    async def return_seat(self, game_id: str, member_id: str, request_id: str = "") -> Game:
        """The member takes back the seat a bot took over from them."""
        member_id = inputs.member_id(member_id)
        request = _request("ReturnSeat", member_id, request_id)
        try:
            game = await self._return_seat(game_id, member_id, request)
        except AlreadyDone as already:
            game = await self._done_again(already.done)
        self._drive(game)
        return game

    async def _return_seat(self, game_id: str, member_id: str, request: Request | None) -> Game:
        game = await self._game(game_id, "game_id")
        if game.started:
            await self._check_not_finished(game)

        def take_back(game: Game) -> Game:
            seat = game.seat_of(member_id)
            if seat is None:
                raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
            if not seat.took_over:
                raise ServiceError(Reason.SEAT_NOT_TAKEN_OVER, "Seat not taken over",
                                   game_id=game.id)
            return _with_seat(game, replace(seat, bot="", took_over=False))

        game = await self._modify(game_id, take_back, request)
        log.info("game %s: a member took their seat back", game.id)
        return game

    async def _modify(self, game_id: str, change: Callable[[Game], Game | None],
                      request: Request | None = None) -> Game:
        canonical = inputs.game_id(game_id, "game_id")
        if canonical is None:
            raise _not_found()
        return await self.store.modify(canonical, change, request)  # type: ignore[return-value]

    async def _check_not_finished(self, game: Game) -> None:
        try:
            await self.games.get_result(game.id)
        except ServiceError as error:
            if error.reason is Reason.MATCH_NOT_FINISHED:
                return
            raise
        raise ServiceError(Reason.GAME_FINISHED, "Game is finished", table_id=game.id)

    def _drive(self, game: Game) -> None:
        """Tell the bots service which seats of the started table bots play, in the background
        and until it hears; a newer seating sent meanwhile goes after it, never before."""
        if self.bots is None or not game.started:
            return
        self._bot_seats[game.id] = tuple((seat.index, seat.bot) for seat in game.bot_seats)
        self.background.start(self._tell_bots(self.bots, game.id), key=f"bots {game.id}")

    async def _tell_bots(self, bots: BotsService, table_id: str) -> None:
        while True:
            seats = self._bot_seats[table_id]
            await self.retry(f"telling the bots service of table {table_id}",
                             functools.partial(bots.drive_table, table_id, seats))
            if self._bot_seats[table_id] == seats:
                del self._bot_seats[table_id]
                return

    async def close(self) -> None:
        await self.background.cancel()

    async def _game(self, game_id: str, field: str) -> Game:
        """The game with this id; looking it up keeps it alive (its TTL restarts)."""
        canonical = inputs.game_id(game_id, field)
        game = await self.store.touch(canonical) if canonical is not None else None
        if game is None:
            raise _not_found()
        return game

    async def _start(self, game: Game) -> Game:
        """Create the table of a game whose seats are all taken; UNAVAILABLE when that fails."""
        seats = [seat_id(index) for index in range(game.seats_total)]
        try:
            await self.games.create_table(game.game_type, seats, game.options_json,
                                          table_id=game.id)
        except ServiceError as error:
            log.warning("game %s: CreateTable failed (%s: %s); the next join or read retries",
                        game.id, error.reason.name, error.message)
            raise ServiceError(
                Reason.UNAVAILABLE,
                f"The game could not be started yet ({error.message}); join again to retry",
                game_id=game.id) from None
        started = await self.store.mark_started(game.id, at_ms=self.clock())
        log.info("game %s started", game.id)
        started = started if started is not None else replace(game, started=True)
        if started.bot_seats:
            self._drive(started)
        return started

    async def _retry_start(self, game: Game) -> Game:
        """The game, started if it was waiting only for its table; unchanged if that fails again."""
        if game.started or not game.full:
            return game
        try:
            return await self._start(game)
        except ServiceError:
            return game


def _check_creator(game: Game, member_id: str,
                   refusal: str = "Only the creator can seat a bot") -> None:
    """Refuse a change of a started game, or by anyone but its creator (``refusal``)."""
    if game.started:
        raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
    if game.seat_of(member_id) is None:
        raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
    creator = game.creator
    if creator is None or creator.member_id != member_id:
        raise ServiceError(Reason.NOT_CREATOR, refusal, game_id=game.id)


def _sorted(seats: Sequence[Seat]) -> tuple[Seat, ...]:
    return tuple(sorted(seats, key=lambda seat: seat.index))


def _with_seats(game: Game, old: Seat, new: Seat, at_ms: int) -> Game:
    """``game`` with ``old`` replaced by ``new`` (which may sit elsewhere)."""
    return replace(game, seats=_sorted((*(s for s in game.seats if s != old), new)),
                   updated_at_ms=at_ms)


def _with_seat(game: Game, seat: Seat) -> Game:
    return replace(game, seats=tuple(seat if s.index == seat.index else s for s in game.seats))
