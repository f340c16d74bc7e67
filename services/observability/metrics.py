"""tavolo's own figures: sockets, moves, refusals, matches, deadlines, lock waits, store errors.

Domain code calls the functions below unconditionally. They record through the instruments of
the process's telemetry (services.observability.telemetry binds them when it is set up); with telemetry off
each call is one test of a module global, and nothing of OpenTelemetry is imported.

docs/operations.md lists every metric with its meaning; keep the two in step.
"""

from __future__ import annotations

import time
from typing import Any

# Histogram boundaries, in seconds: deadline lateness runs from milliseconds (on time) to the
# heartbeat (a lost wake-up) and beyond (an outage); a lock wait is short unless a table is hot.
_LATENESS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# A bot's decision: microseconds for a beginner, up to a second for a master.
_DECISION_BUCKETS = (0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_LOCK_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

# Attribute names (OpenTelemetry's where one exists).
GAME_TYPE = "tavolo.game.type"
MOVE_TYPE = "tavolo.move.type"
REFUSAL = "tavolo.refusal.reason"
DEADLINE_KIND = "tavolo.deadline.kind"
DEADLINE_OUTCOME = "tavolo.deadline.outcome"
DEADLINE_FIRED_BY = "tavolo.deadline.fired_by"
STORE = "tavolo.store"
ERROR_TYPE = "error.type"
DIRECTION = "tavolo.websocket.direction"
BOT_LEVEL = "tavolo.bot.level"
RATE_LIMIT_KIND = "tavolo.rate_limit.kind"
PUSH_OUTCOME = "tavolo.push.outcome"
TURN_NOTICE_OUTCOME = "tavolo.turn_notice.outcome"


class Instruments:
    """Every instrument of tavolo's own figures, made from one meter."""

    def __init__(self, meter: Any):
        self.sockets_open = meter.create_up_down_counter(
            "tavolo.websockets.open", unit="{connection}",
            description="Game WebSockets open on this gateway")
        self.socket_messages = meter.create_counter(
            "tavolo.websocket.messages", unit="{message}",
            description="WebSocket messages received from players (in) and sent to them (out)")
        self.rate_limited = meter.create_counter(
            "tavolo.rate_limited", unit="{request}",
            description="Requests and WebSocket messages the gateway refused for going over a rate "
                        "limit, by kind (login, write, ws_message)")
        self.moves = meter.create_counter(
            "tavolo.moves", unit="{move}",
            description="Moves appended to a table's log, by move type (play, auto_play, ack...)")
        self.refusals = meter.create_counter(
            "tavolo.moves.refused", unit="{move}",
            description="Actions refused by the game service, by reason (illegal_move, "
                        "concurrent_move...)")
        self.public_views = meter.create_counter(
            "tavolo.public_views.rendered", unit="{view}",
            description="Public views (spectators') rendered: once per revision of a watched table")
        self.matches_started = meter.create_counter(
            "tavolo.matches.started", unit="{match}", description="Tables created")
        self.matches_finished = meter.create_counter(
            "tavolo.matches.finished", unit="{match}", description="Matches that ended")
        self.matches_recorded = meter.create_counter(
            "tavolo.matches.recorded", unit="{match}",
            description="Finished matches that stats accepted")
        self.logs_compacted = meter.create_counter(
            "tavolo.logs.compacted", unit="{table}",
            description="Finished tables whose move logs log retention compacted into one "
                        "archived row")
        self.pushes = meter.create_counter(
            "tavolo.pushes", unit="{push}",
            description="Web Push sends to one subscription, by outcome (sent, gone, refused, "
                        "failed, dropped)")
        self.turn_notices = meter.create_counter(
            "tavolo.turn_notices", unit="{notice}",
            description="Turns of daily tables the gateways handled, by outcome (told, present, "
                        "bot, gone, failed)")
        self.deadline_lateness = meter.create_histogram(
            "tavolo.deadline.lateness", unit="s",
            description="How long after its due time a deadline was fired",
            explicit_bucket_boundaries_advisory=_LATENESS_BUCKETS)
        self.lock_wait = meter.create_histogram(
            "tavolo.table.lock.wait", unit="s",
            description="How long a mutation of a table waited for the table's lock",
            explicit_bucket_boundaries_advisory=_LOCK_BUCKETS)
        self.store_errors = meter.create_counter(
            "tavolo.store.errors", unit="{error}",
            description="Calls that failed because a store (Redis, Postgres) did not answer, by "
                        "store and error type")
        self.bot_decisions = meter.create_histogram(
            "tavolo.bot.decision.duration", unit="s",
            description="CPU time of a bot's decision of a play, by level",
            explicit_bucket_boundaries_advisory=_DECISION_BUCKETS)
        self.takeovers = meter.create_counter(
            "tavolo.bot.takeovers", unit="{seat}",
            description="Seats a bot took over from a person who left or abandoned them")


_current: Instruments | None = None


def bind(meter: Any) -> Instruments:
    """Record through ``meter`` from now on (services.observability.telemetry, when it is set up)."""
    global _current
    _current = Instruments(meter)
    return _current


def unbind(instruments: Instruments) -> None:
    global _current
    if _current is instruments:
        _current = None


# -- the gateway ---------------------------------------------------------------------------------

def socket_opened() -> None:
    if _current is not None:
        _current.sockets_open.add(1)


def socket_closed() -> None:
    if _current is not None:
        _current.sockets_open.add(-1)


def socket_message(direction: str) -> None:
    """One message ``in`` (from the player) or ``out`` (to the player)."""
    if _current is not None:
        _current.socket_messages.add(1, {DIRECTION: direction})


def push_sent(outcome: str) -> None:
    """A Web Push send to one subscription ended: ``sent``; ``gone`` (404/410: the subscription
    is removed); ``refused`` (another 4xx); ``failed`` (still 429/5xx/unreachable after the
    retries); ``dropped`` (the queue was full) and ``failed`` when the lobby did not give the
    member's subscriptions: once per push, not per subscription."""
    if _current is not None:
        _current.pushes.add(1, {PUSH_OUTCOME: outcome})


def turn_notice(outcome: str) -> None:
    """A gateway handled a turn of a daily table (gateway.turn_notices): the member was ``told``;
    nobody, because they are ``present`` at the table, a ``bot`` plays the seat, or the table or
    seat is ``gone``; or it ``failed`` for now (a store or service did not answer: handled again)."""
    if _current is not None:
        _current.turn_notices.add(1, {TURN_NOTICE_OUTCOME: outcome})


def rate_limited(kind: str) -> None:
    """A login request, REST write or WebSocket message refused by a rate limit."""
    if _current is not None:
        _current.rate_limited.add(1, {RATE_LIMIT_KIND: kind})


# -- the game service ----------------------------------------------------------------------------

def move_made(game_type: str, move_type: str) -> None:
    if _current is not None:
        _current.moves.add(1, {GAME_TYPE: game_type, MOVE_TYPE: move_type})


def move_refused(reason: str) -> None:
    if _current is not None:
        _current.refusals.add(1, {REFUSAL: reason})


def public_view_rendered() -> None:
    if _current is not None:
        _current.public_views.add(1)


def match_started(game_type: str) -> None:
    if _current is not None:
        _current.matches_started.add(1, {GAME_TYPE: game_type})


def match_finished(game_type: str) -> None:
    if _current is not None:
        _current.matches_finished.add(1, {GAME_TYPE: game_type})


def match_recorded() -> None:
    if _current is not None:
        _current.matches_recorded.add(1)


def logs_compacted(count: int) -> None:
    """A batch of log retention compacted ``count`` finished tables' logs (0 too: the series
    exists from the first pass)."""
    if _current is not None:
        _current.logs_compacted.add(count)


# -- bots ----------------------------------------------------------------------------------------

def bot_decided(level: str, cpu_seconds: float) -> None:
    """One decision of a play by a bot of ``level`` (every decision counts in the histogram)."""
    if _current is not None:
        _current.bot_decisions.record(cpu_seconds, {BOT_LEVEL: level})


def bot_took_over() -> None:
    if _current is not None:
        _current.takeovers.add(1)


class waited:  # lower case: used like a function, ``async with waited(lock):``
    """``lock`` held for the block, the wait for it recorded as ``tavolo.table.lock.wait``."""

    __slots__ = ("lock",)

    def __init__(self, lock: Any):
        self.lock = lock

    async def __aenter__(self) -> None:
        start = time.perf_counter()
        await self.lock.acquire()
        if _current is not None:
            _current.lock_wait.record(time.perf_counter() - start)

    async def __aexit__(self, *exc_info: object) -> None:
        self.lock.release()


# -- the deadline service ------------------------------------------------------------------------

def deadline_fired(kind: str, outcome: str, lateness_seconds: float,
                   fired_by: str = "backstop") -> None:
    """A deadline was fired ``lateness_seconds`` after it fell due, by the game replica's own
    timer (``replica``) or by the deadline service (``backstop``)."""
    if _current is not None:
        _current.deadline_lateness.record(max(0.0, lateness_seconds),
                                          {DEADLINE_KIND: kind, DEADLINE_OUTCOME: outcome,
                                           DEADLINE_FIRED_BY: fired_by})


# -- every service -------------------------------------------------------------------------------

def store_error(store: str, error: BaseException) -> None:
    """A call failed because ``store`` did not answer (services.stores.unavailable_on)."""
    if _current is not None:
        _current.store_errors.add(1, {STORE: store, ERROR_TYPE: type(error).__name__})
