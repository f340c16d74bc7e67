"""``db.client.operation.duration`` and ``db.client.connection.count``: Postgres statements and
asyncpg pools, as OpenTelemetry's database semantic conventions name them.

OpenTelemetry's asyncpg instrumentation makes spans only (0.66b1 records no metric), so the
durations are taken here, from asyncpg's own query logger: each connection of a pool made by
services.stores.postgres_pool gets one when it opens, and asyncpg reports every statement it ran
(``execute``, ``executemany``, the ``fetch`` family, the transactions' BEGIN and COMMIT) with
its duration and error: one histogram record per statement, none for the pool's own reset on
release. Attributes: ``db.system.name`` (``postgresql``), ``db.operation.name`` (the statement's
first SQL command: ``SELECT``, ``INSERT``, ``BEGIN``...) and, when it failed, ``error.type`` (the
SQLSTATE, also in ``db.response.status_code``, or the exception's class). Cursors, prepared
statements and COPY are not measured (only the rating backfill uses them).

The connection gauge reads every watched pool when metrics are collected (a scrape, an
export): ``db.client.connection.state`` ``used`` or ``idle`` per ``db.client.connection.pool.name``,
the pool's purpose (``game_log``, ``lobby``...).

With telemetry off none of this is imported, and the pools have no query logger.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import asyncpg

if TYPE_CHECKING:
    from asyncpg.connection import LoggedQuery
    from opentelemetry.metrics import CallbackOptions, Observation

OPERATION_DURATION = "db.client.operation.duration"
CONNECTION_COUNT = "db.client.connection.count"
POOL_NAME = "db.client.connection.pool.name"
STATE = "db.client.connection.state"
# The conventions' advisory boundaries (seconds, 1 ms to 10 s) with 0.5, 2.5 and 25 ms between:
# a statement on a near Postgres takes well under a millisecond to a few, where the advisory
# ones are 4 to 5 times apart.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0)
_COMMANDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|MERGE)\b", re.I)
_COMMENTS = re.compile(r"^\s*(?:(?:--[^\n]*\n|/\*.*?\*/)\s*)*", re.S)
_SYSTEM = "postgresql"

_Init = Callable[[asyncpg.Connection], Awaitable[None]]


@functools.lru_cache(maxsize=512)
def operation_name(query: str) -> str:
    """A statement's ``db.operation.name``, upper case: its first word (``SELECT``, ``BEGIN``...),
    or for a ``WITH`` the first command in it (the conventions' rule for a name parsed from the
    text: ``WITH x AS (UPDATE ...) INSERT ...`` is an ``UPDATE``)."""
    text = _COMMENTS.sub("", query, count=1)
    words = text.split(maxsplit=1)
    first = words[0].rstrip(";").upper() if words else ""
    if first == "WITH":
        found = _COMMANDS.search(text)
        return found.group(1).upper() if found is not None else first
    return first


@functools.lru_cache(maxsize=512)
def _attributes(query: str) -> dict[str, str]:
    """A successful statement's attributes, made once per statement text (never changed after)."""
    return {"db.system.name": _SYSTEM, "db.operation.name": operation_name(query)}


def _failed(query: str, error: BaseException) -> dict[str, str]:
    attributes = dict(_attributes(query))
    state = getattr(error, "sqlstate", None) if isinstance(error, asyncpg.PostgresError) else None
    if state:
        attributes["db.response.status_code"] = attributes["error.type"] = state
    else:
        attributes["error.type"] = type(error).__qualname__
    return attributes


class DatabaseMetrics:
    """The Postgres instruments of one telemetry, and the pools it watches."""

    def __init__(self, meter: Any) -> None:
        self.duration = meter.create_histogram(
            OPERATION_DURATION, unit="s", description="Duration of database client operations.",
            explicit_bucket_boundaries_advisory=_BUCKETS)
        self._pools: list[tuple[str, asyncpg.Pool]] = []
        self._pools_lock = threading.Lock()  # collected from another thread (a scrape's)
        meter.create_observable_up_down_counter(
            CONNECTION_COUNT, callbacks=[self._observe_pools], unit="{connection}",
            description="Connections of each asyncpg pool, used (lent out) or idle")

    # -- statements ---------------------------------------------------------------------------

    def timing(self, init: _Init | None = None) -> _Init:
        """A pool's ``init``: each new connection reports its statements (then runs ``init``)."""

        async def timed(connection: asyncpg.Connection) -> None:
            connection.add_query_logger(functools.partial(self._logged,
                                                          connection.get_reset_query()))
            if init is not None:
                await init(connection)

        return timed

    def _logged(self, reset_query: str, record: LoggedQuery) -> None:
        query = record.query
        if query == reset_query:  # the pool's housekeeping on release, not the application's
            return
        error = record.exception
        self.duration.record(record.elapsed, _attributes(query) if error is None
                             else _failed(query, error))

    # -- pools --------------------------------------------------------------------------------

    def watch(self, pool: asyncpg.Pool, name: str) -> None:
        """Report ``pool``'s connections as ``name`` until it is closed."""
        with self._pools_lock:
            self._pools.append((name, pool))

    def _observe_pools(self, options: CallbackOptions) -> Iterable[Observation]:
        from opentelemetry.metrics import Observation

        # Called from the thread that collects (a scrape's, the exporter's): the pools are only
        # read there, so used and idle may be a moment apart.
        with self._pools_lock:
            self._pools = [(name, pool) for name, pool in self._pools if not pool.is_closing()]
            pools = list(self._pools)
        observations = []
        for name, pool in pools:
            idle = pool.get_idle_size()
            observations += [Observation(pool.get_size() - idle, {POOL_NAME: name, STATE: "used"}),
                             Observation(idle, {POOL_NAME: name, STATE: "idle"})]
        return observations
