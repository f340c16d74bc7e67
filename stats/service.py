"""The stats service's domain flow: check what callers send, join the lobby's seating, page.

No gRPC here: the servicer turns messages into these calls, and the stores and the lobby come
in through small interfaces (a :class:`~stats.repository.StatsRepository` and a
:class:`SeatingSource`, which lobby.client.LobbyClient satisfies).
"""

from __future__ import annotations

import json
import math
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from game.client import DEFAULT_GAME_TYPE
from services.rpc.errors import Reason, ServiceError
from stats.cursor import CursorCodec, CursorError
from stats.model import (
    LeaderboardRow,
    Match,
    Player,
    Position,
    Rating,
    SeatHolder,
    erased_member_id,
)
from stats.repository import StatsRepository

DEFAULT_PAGE_SIZE = 20
DEFAULT_LEADERBOARD_SIZE = 10
MAX_PAGE_SIZE = 100
MAX_ID_CHARS = 1024
MAX_TEAM_CHARS = 64
# A match's engine data (result_json and every seat's details_json): a scopone match to 121
# points holds about 16 KB. Bounded so that any match fits a history page.
MAX_MATCH_JSON_BYTES = 256 * 1024
# A history page stops early (with a token) once its matches hold this much JSON: a page of
# 100 large matches must not overrun gRPC's 4 MiB message cap.
PAGE_JSON_BYTES = 1024 * 1024
_GAME_TYPE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_BOT_LEVEL = _GAME_TYPE  # "esperto": an id of the same shape
_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")  # a public player id (lobby.members); else none
_SEAT = re.compile(r"seat:(0|[1-9][0-9]{0,2})")
_LATEST_MS = 253402300800000  # 10000-01-01: beyond every timestamp Postgres and Python share


class LobbySeat(Protocol):
    """One seat of the lobby's seating (lobby.models.Seat)."""

    @property
    def index(self) -> int: ...

    @property
    def seat(self) -> str: ...  # "seat:<index>"; "" read as that

    @property
    def member_id(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def erased(self) -> bool: ...  # the lobby erased the member: the id stands for nobody

    @property
    def bot(self) -> str: ...  # the level of the bot playing the seat; "" for a person

    @property
    def took_over(self) -> bool: ...  # that bot replaced the person named here

    @property
    def player(self) -> str: ...  # the person's public player id; "" for none


class SeatingSource(Protocol):
    """The lobby as stats uses it: who sat where at a table (raises
    ServiceError(GAME_NOT_FOUND)), and telling it that the table finished (idempotent; False
    when it has no such game any more)."""

    async def get_seating(self, table_id: str) -> Sequence[LobbySeat]: ...

    async def mark_finished(self, table_id: str) -> bool: ...


@dataclass(frozen=True)
class RecordedSeat:
    """One seat's outcome as the game service reports it (the wire's SeatResult)."""

    seat: str
    seat_index: int
    team: str  # "" when the game has no teams
    won: bool
    points: int
    details_json: str = ""


@dataclass(frozen=True)
class MatchReport:
    """A finished match as the game service reports it (the wire's RecordMatchRequest)."""

    table_id: str
    game_type: str
    started_ms: int | None  # None: the caller left it unset
    finished_ms: int | None
    result_json: str
    seats: Sequence[RecordedSeat]


@dataclass(frozen=True)
class HistoryPage:
    matches: list[Match]
    next_page_token: str  # "" on the last page


class StatsService:
    def __init__(self, repository: StatsRepository, seating: SeatingSource,
                 cursors: CursorCodec, new_member_id: Callable[[], str] = erased_member_id):
        self.repository = repository
        self.seating = seating
        self.cursors = cursors
        self.new_member_id = new_member_id

    async def record_match(self, report: MatchReport) -> tuple[Match, bool]:
        """Record a finished match once; a repeat returns the stored one with False.

        Either way the lobby is then told that the table finished (so its live list leaves it
        out), and only then is the match answered: when the lobby does not hear it, this is
        UNAVAILABLE, the game service tries again, and the repeat tells the lobby again. Every
        finished match comes here, rated or not (a practice match, bots only), so every
        finished table is marked."""
        table_id, outcomes, match_fields = _checked_report(report)
        existing = await self.repository.get_match(table_id)
        if existing is not None:
            # No seating needed: the lobby may have forgotten the table by now (then the mark
            # changes nothing).
            await self._mark_finished(table_id)
            return existing, False
        # The mark first, then the seating: an erasure after the mark is caught in the write
        # even when the seating still showed the member (stats/repository.py).
        mark = await self.repository.erasure_mark()
        holders = _holders(table_id, await self.seating.get_seating(table_id))
        players = _join_seating(table_id, outcomes, holders, self.new_member_id)
        match = Match(id=table_id, players=players, **match_fields)
        recorded = await self.repository.record_match(match, erasures_after=mark)
        await self._mark_finished(table_id)
        return recorded

    async def _mark_finished(self, table_id: str) -> None:
        """Tell the lobby the table finished; UNAVAILABLE (so the match is handed over again)
        when it does not hear it, whatever it answered."""
        try:
            await self.seating.mark_finished(table_id)
        except ServiceError as error:
            raise ServiceError(
                Reason.UNAVAILABLE,
                f"The match is recorded, but the lobby did not learn that the table finished "
                f"({error.reason.name}: {error.message}); send it again",
                table_id=table_id) from None

    async def list_matches(self, member_id: str, game_type: str, page_size: int,
                           page_token: str) -> HistoryPage:
        member_id = _checked_member(member_id)
        kind = _checked_game_type(game_type) if game_type else None
        size = _checked_size("page_size", page_size, DEFAULT_PAGE_SIZE)
        scope = (member_id, kind or "")
        after = None
        if page_token:
            try:
                after = self.cursors.decode(page_token, scope)
            except CursorError as error:
                raise ServiceError(Reason.INVALID_PAGE_TOKEN, f"Invalid page token: {error}",
                                   field="page_token") from None
        matches = await self.repository.list_matches(member_id, kind, size + 1, after)
        token = ""
        fitting = _fitting_a_page(matches[:size])
        if len(matches) > len(fitting):
            matches = fitting
            last = matches[-1]
            token = self.cursors.encode(Position(last.finished_ms, last.id), scope)
        return HistoryPage(matches, token)

    async def ratings(self, member_id: str) -> list[Rating]:
        return await self.repository.ratings(_checked_member(member_id))

    async def totals(self, member_id: str) -> tuple[int, int]:
        """(matches, wins) of the member over every recorded match (practice ones too)."""
        return await self.repository.totals(_checked_member(member_id))

    async def leaderboard(self, game_type: str, limit: int) -> tuple[str, list[LeaderboardRow]]:
        kind = _checked_game_type(game_type) if game_type else DEFAULT_GAME_TYPE
        size = _checked_size("limit", limit, DEFAULT_LEADERBOARD_SIZE)
        return kind, await self.repository.leaderboard(kind, size)

    async def erase_member(self, member_id: str) -> int:
        return await self.repository.erase_member(_checked_member(member_id))


# -- checks --------------------------------------------------------------------------------


def _invalid(field: str, message: str, **metadata: str) -> ServiceError:
    """INVALID_ARGUMENT about the request's ``field`` (its path: ``seats[1].team``)."""
    error = ServiceError(Reason.INVALID_ARGUMENT, message, field=field)
    error.metadata.update(metadata)
    return error


def _checked_text(field: str, value: str, limit: int, name: str | None = None) -> str:
    """``value`` of the request's ``field``; ``name`` is how messages call it (the field)."""
    name = name or field
    if "\x00" in value:
        raise _invalid(field, f"{name} must not contain NUL characters")
    if len(value) > limit:
        raise _invalid(field, f"{name} is longer than {limit} characters")
    return value


def _checked_member(member_id: str) -> str:
    if not member_id:
        raise _invalid("member_id", "member_id is required")
    return _checked_text("member_id", member_id, MAX_ID_CHARS)


def _checked_game_type(game_type: str) -> str:
    if not _GAME_TYPE.fullmatch(game_type):
        raise _invalid("game_type", "game_type must be a lower_snake_case game type id",
                       game_type=game_type[:64])
    return game_type


def _checked_size(field: str, value: int, default: int) -> int:
    if value == 0:
        return default
    if not 1 <= value <= MAX_PAGE_SIZE:
        raise _invalid(field, f"{field} must be between 1 and {MAX_PAGE_SIZE}, got {value}")
    return value


def _checked_time(field: str, value: int | None) -> int:
    if value is None:
        raise _invalid(field, f"{field} is required")
    if not 0 <= value < _LATEST_MS:
        raise _invalid(field, f"{field} must lie between 1970 and 9999")
    return value


def _checked_uuid(field: str, value: str) -> str:
    if not value:
        raise _invalid(field, f"{field} is required")
    try:
        canonical = str(uuid.UUID(value))
    except ValueError:
        canonical = None
    if canonical != value.lower():
        raise _invalid(field, f"{field} must be a uuid")
    return canonical


def _json_object(field: str, text: str, name: str | None = None) -> dict[str, Any]:
    """A JSON object as Postgres jsonb can keep it: finite numbers, text without NUL characters
    or unpaired surrogates (both are valid JSON escapes, neither fits jsonb)."""
    if not text.strip():
        return {}

    def reject_constant(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    def finite(number: str) -> float:
        value = float(number)
        if not math.isfinite(value):
            raise ValueError(f"number out of range: {number}")
        return value

    name = name or field
    try:
        value = json.loads(text, parse_constant=reject_constant, parse_float=finite)
    except (ValueError, RecursionError) as error:
        raise _invalid(field, f"{name} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise _invalid(field, f"{name} must be a JSON object")
    if not _storable(value):
        raise _invalid(field, f"{name} must not contain NUL characters or unpaired surrogates")
    return value


def _storable(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item or not _is_utf8(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class _Outcome:
    seat: str
    seat_index: int
    team: str | None
    won: bool
    points: int
    details: dict[str, Any]


def _fitting_a_page(matches: list[Match]) -> list[Match]:
    """The first of ``matches`` whose engine data stays within PAGE_JSON_BYTES (one at least)."""
    total = 0
    for count, match in enumerate(matches):
        total += len(json.dumps(match.result)) + sum(len(json.dumps(p.details))
                                                     for p in match.players)
        if total > PAGE_JSON_BYTES and count > 0:
            return matches[:count]
    return matches


def _checked_report(report: MatchReport) -> tuple[str, list[_Outcome], dict[str, Any]]:
    table_id = _checked_uuid("table_id", report.table_id)
    if not report.game_type:
        raise _invalid("game_type", "game_type is required")
    game_type = _checked_game_type(report.game_type)
    started_ms = _checked_time("started_at", report.started_ms)
    finished_ms = _checked_time("finished_at", report.finished_ms)
    if finished_ms < started_ms:
        raise _invalid("finished_at", "finished_at is before started_at")
    engine_bytes = len(report.result_json.encode("utf-8", "surrogatepass")) + sum(
        len(seat.details_json.encode("utf-8", "surrogatepass")) for seat in report.seats)
    if engine_bytes > MAX_MATCH_JSON_BYTES:
        raise _invalid("result_json",
                       f"result_json and details_json hold {engine_bytes} bytes together; "
                       f"at most {MAX_MATCH_JSON_BYTES}")
    result = _json_object("result_json", report.result_json)
    if not report.seats:
        raise _invalid("seats", "seats must name at least one seat")
    outcomes: list[_Outcome] = []
    seen: set[str] = set()
    for index, seat in enumerate(report.seats):
        at = f"seats[{index}]"
        parsed = _SEAT.fullmatch(seat.seat)
        if parsed is None:
            raise _invalid(f"{at}.seat",
                           f"seat must be an opaque seat like 'seat:0', got {seat.seat[:40]!r}")
        if int(parsed.group(1)) != seat.seat_index:
            raise _invalid(f"{at}.seat_index",
                           f"seat_index {seat.seat_index} does not match seat {seat.seat}")
        if seat.seat in seen:
            raise _invalid(f"{at}.seat", f"{seat.seat} is reported twice")
        seen.add(seat.seat)
        team = _checked_text(f"{at}.team", seat.team, MAX_TEAM_CHARS, "team") or None
        details = _json_object(f"{at}.details_json", seat.details_json,
                               f"details_json of {seat.seat}")
        outcomes.append(_Outcome(seat.seat, seat.seat_index, team, seat.won, seat.points, details))
    team_won: dict[str, bool] = {}
    for outcome in outcomes:
        if outcome.team is not None and team_won.setdefault(outcome.team, outcome.won) != outcome.won:
            raise _invalid("seats", f"the seats of team {outcome.team} disagree on whether it won")
    outcomes.sort(key=lambda o: o.seat_index)
    fields = {"game_type": game_type, "started_ms": started_ms, "finished_ms": finished_ms,
              "result": result}
    return table_id, outcomes, fields


def _holders(table_id: str, seats: Sequence[LobbySeat]) -> list[SeatHolder]:
    """The lobby's seating as stats keeps it (names without NUL characters); a seating that
    names nobody is GAME_NOT_FOUND."""
    holders = [SeatHolder(seat=s.seat or f"seat:{s.index}", seat_index=s.index,
                          member_id=s.member_id, display_name=s.display_name.replace("\x00", ""),
                          erased=s.erased, bot_level=s.bot, took_over=s.took_over,
                          player=s.player if _PLAYER_ID.fullmatch(s.player) else "")
               for s in seats]
    if not holders:
        raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found", table_id=table_id)
    return holders


def _join_seating(table_id: str, outcomes: list[_Outcome], holders: Sequence[SeatHolder],
                  new_member_id: Callable[[], str]) -> tuple[Player, ...]:
    """Every reported seat with the member the lobby seated there; both must cover the same seats.

    The lobby's seating is the one truth of who played: a seat where a bot sat from the start
    (a bot, not taken over) is a bot's, with the lobby's name and no member id, so no member,
    rating or history is ever made for it; a seat a bot took over from a person who did not
    take it back is that person's abandonment. A seat the lobby says is erased becomes an erased
    player (stats' own fresh id, "deleted player"), never rated: see stats.standings."""
    by_seat = {holder.seat: holder for holder in holders}
    missing = [o.seat for o in outcomes if o.seat not in by_seat]
    if missing:
        raise _invalid("seats",
                       f"{', '.join(missing)} has no player in the lobby's seating of this table",
                       table_id=table_id)
    unreported = sorted(set(by_seat) - {o.seat for o in outcomes})
    if unreported:
        raise _invalid("seats", f"the report lacks {', '.join(unreported)} of the lobby's seating",
                       table_id=table_id)
    bot_seats = {seat for seat, holder in by_seat.items() if holder.bot_level and not holder.took_over}
    for seat in bot_seats:
        if not _BOT_LEVEL.fullmatch(by_seat[seat].bot_level):
            raise _invalid("table_id", "The lobby's seating of this table names a malformed bot "
                           "level", table_id=table_id)
    people = [o for o in outcomes if o.seat not in bot_seats]
    for o in people:
        member_id = by_seat[o.seat].member_id
        if not member_id or "\x00" in member_id:
            # A permanent fault of the lobby's data: retrying cannot help, so not UNAVAILABLE.
            raise _invalid("table_id",
                           "The lobby's seating of this table names a malformed member id",
                           table_id=table_id)
    members = [by_seat[o.seat].member_id for o in people]
    if len(set(members)) != len(members):
        raise _invalid("seats", "one member holds two seats of this table", table_id=table_id)
    players = []
    for o in outcomes:
        holder = by_seat[o.seat]
        if o.seat in bot_seats:
            players.append(Player(seat_index=o.seat_index, member_id="",
                                  display_name=holder.display_name, team=o.team, won=o.won,
                                  points=o.points, details=o.details, bot_level=holder.bot_level))
            continue
        player = Player(seat_index=o.seat_index, member_id=holder.member_id,
                        display_name=holder.display_name, team=o.team, won=o.won,
                        points=o.points, details=o.details, abandoned=holder.took_over,
                        player=holder.player)
        players.append(player.anonymized(new_member_id()) if holder.erased else player)
    return tuple(players)
