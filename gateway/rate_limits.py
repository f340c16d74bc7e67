"""Rate limits: logins, REST writes and WebSocket messages, each per session and per client address.

Every limit is a token bucket of ``burst`` tokens refilled at ``per_second``; a request takes one
token from its session's bucket and one from its address's, or none when either is empty, and is
then refused with the time until both would have one (CONTRACT's 429 with Retry-After, the
socket's ``rate_limited``). A bucket is kept as GCRA's one number, the time at which it will be
full again (its "theoretical arrival time"): in Redis under
``{<prefix>:ratelimit:<session|ip|member>:<id>}:<kind>``, expiring when the bucket is full, so idle
buckets vanish (a script on Redis's clock: every gateway replica shares the buckets); without
Redis, in this process. Each session and each address has a hash tag of its own, so a Redis
Cluster spreads the buckets over its slots rather than holding them all in one. A request whose
two buckets share a node's slot (any Redis but a Cluster) takes both in one atomic script; on a
Cluster, where they do not, one script a slot, sent together, each bucket deciding alone: a refused
request may then have taken a token from its other bucket, which only ever costs the flooding
client. A socket's messages are always counted in the process that holds the
socket (app.state.socket_limits): a move costs no store call, and a session's sockets spread over
several replicas get the limit once per replica, which still bounds a flood. The arithmetic is
:func:`_take` and its Lua twin ``_TAKE``, held to the same tests.

The session is the cookie's id (hashed, as the gateway events name it), when the request has one;
the address is ``client.host`` as uvicorn's proxy-headers handling leaves it (FORWARDED_ALLOW_IPS
decides whose X-Forwarded-For is believed): never a header read here.

A limiter never turns an outage into errors: a store that does not answer lets the request
through (a warning and ``tavolo.store.errors``).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisError
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.events import session_digest
from gateway.http_errors import problem
from gateway.sessions import session_id
from services.config import RateLimitSettings
from services.observability import metrics
from services.stores import REDIS_DOWN, Keys, RedisClient

log = logging.getLogger(__name__)

TOO_MANY_TEXT = "Too many requests"
RATE_LIMITED_TEXT = "Too many messages: nothing was done. Wait a moment, then send it again"
STORE = "rate limits"
# How long a request waits for the store's verdict before it goes ahead without one.
STORE_TIMEOUT_SECONDS = 0.5
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_LOGIN_PATHS = ("/auth/login",)
_LOGIN_ENDINGS = ("/login", "/callback")  # /auth/<provider>/login and .../callback


class Kind(enum.StrEnum):
    """What is limited (the ``tavolo.rate_limit.kind`` of the metric)."""

    LOGIN = "login"
    WRITE = "write"
    WS_MESSAGE = "ws_message"
    INVITATION = "invitation"


def kind_of(method: str, path: str) -> Kind | None:
    """The limit an HTTP request (or an OpenAPI path template) falls under: the login routes
    (not logout), and every write under /api; None for the rest."""
    if path.startswith("/auth/"):
        login = path in _LOGIN_PATHS or (path.count("/") == 3 and path.endswith(_LOGIN_ENDINGS))
        return Kind.LOGIN if login else None
    if method in _WRITES and (path == "/api" or path.startswith("/api/")):
        return Kind.WRITE
    return None


@dataclass(frozen=True)
class Rate:
    per_second: float
    burst: int

    @property
    def interval_ms(self) -> float:
        """The time one token takes to come back."""
        return 1000.0 / self.per_second

    def times(self, factor: int) -> Rate:
        return Rate(self.per_second * factor, self.burst * factor)


# One member's invitations (POST /api/games/{id}/invite), over all their sessions and addresses,
# besides the write limit: a person invites a few friends at a time; more would flood other
# people's /ws/me. 20 a minute, bursts of 10.
INVITATION_RATE = Rate(per_second=20 / 60, burst=10)


def rates_of(settings: RateLimitSettings) -> dict[Kind, Rate]:
    """The per-session rate of each kind (the per-address one is ``per_ip_factor`` times it)."""
    return {
        Kind.LOGIN: Rate(settings.login_per_minute / 60, settings.login_burst),
        Kind.WRITE: Rate(settings.writes_per_minute / 60, settings.writes_burst),
        Kind.WS_MESSAGE: Rate(settings.ws_messages_per_second, settings.ws_messages_burst),
        Kind.INVITATION: INVITATION_RATE,  # counted per member (RateLimits.member_refusal)
    }


# -- the buckets ---------------------------------------------------------------------------------

def _take(tats: Sequence[float | None], rates: Sequence[Rate], now_ms: float
          ) -> tuple[float, list[float]]:
    """GCRA over several buckets at once: (0, their new times) when each has a token, else (the
    milliseconds until all have one, []) and no bucket changes. ``tats`` are the times at which
    each bucket is full again (None: full)."""
    new, wait = [], 0.0
    for tat, rate in zip(tats, rates, strict=True):
        after = max(tat if tat is not None else now_ms, now_ms) + rate.interval_ms
        wait = max(wait, after - now_ms - rate.interval_ms * rate.burst)
        new.append(after)
    return (wait, []) if wait > 0 else (0.0, new)


# The same arithmetic in Redis, on its clock. KEYS: the buckets; ARGV: per bucket its interval
# (ms) and burst. Returns 0, or the whole milliseconds to wait (at least 1). A bucket is stored
# with "%.3f" (tostring would keep 14 digits) and expires when it is full again.
_TAKE = """#!lua
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local wait, after = 0, {}
for i, key in ipairs(KEYS) do
  local interval, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', key)) or now
  if tat < now then tat = now end
  after[i] = tat + interval
  wait = math.max(wait, after[i] - now - interval * burst)
end
if wait > 0 then
  return math.max(1, math.ceil(wait))
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, string.format('%.3f', after[i]), 'PX', math.max(1, math.ceil(after[i] - now)))
end
return 0
"""


class Buckets(ABC):
    @abstractmethod
    async def take(self, buckets: Sequence[tuple[str, Rate]]) -> float:
        """A token from each bucket, or none: 0 when taken, else the seconds until each has one."""


class MemoryBuckets(Buckets):
    """This process's buckets (REDIS_URL unset: one gateway replica). Full buckets are dropped
    every SWEEP_SECONDS, so memory follows the clients of the last minutes."""

    SWEEP_SECONDS = 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._tats: dict[str, float] = {}
        self._next_sweep = clock() + self.SWEEP_SECONDS

    async def take(self, buckets: Sequence[tuple[str, Rate]]) -> float:
        now = self._clock()
        if now >= self._next_sweep:
            self._tats = {key: tat for key, tat in self._tats.items() if tat > now * 1000}
            self._next_sweep = now + self.SWEEP_SECONDS
        keys = [key for key, _ in buckets]
        wait, after = _take([self._tats.get(key) for key in keys], [rate for _, rate in buckets],
                            now * 1000)
        self._tats.update(zip(keys, after))
        return wait / 1000

    def __len__(self) -> int:
        return len(self._tats)


class RedisBuckets(Buckets):
    """Buckets shared by every gateway replica, under ``{<prefix>:ratelimit:...}``."""

    def __init__(self, client: RedisClient, cluster: bool | None = None):
        """``cluster``: one script a slot, as on a Cluster (by default: when ``client`` is one)."""
        self._script = client.register_script(_TAKE)
        self._cluster = isinstance(client, RedisCluster) if cluster is None else cluster

    async def take(self, buckets: Sequence[tuple[str, Rate]]) -> float:
        async with asyncio.timeout(STORE_TIMEOUT_SECONDS):  # a hung Redis: no verdict
            waits = await asyncio.gather(*(self._take(group) for group in self.calls(buckets)))
        return max(waits) / 1000

    def calls(self, buckets: Sequence[tuple[str, Rate]]) -> list[list[tuple[str, Rate]]]:
        """The buckets of each script call: all at once, or on a Cluster one call a slot."""
        if not self._cluster:
            return [list(buckets)]
        slots: dict[int, list[tuple[str, Rate]]] = {}
        for key, rate in buckets:
            slots.setdefault(key_slot(key.encode()), []).append((key, rate))
        return list(slots.values())

    async def _take(self, buckets: Sequence[tuple[str, Rate]]) -> int:
        args: list[float | int] = []
        for _, rate in buckets:
            args += [rate.interval_ms, rate.burst]
        return int(await self._script(keys=[key for key, _ in buckets], args=args))


# -- the limiter ---------------------------------------------------------------------------------

class RateLimits:
    """The gateway's limits over one store of buckets."""

    def __init__(self, settings: RateLimitSettings, buckets: Buckets, keys: Keys | None = None):
        self.enabled = settings.enabled
        self._buckets = buckets
        self._keys = keys or Keys()
        self._per_session = rates_of(settings)
        self._per_ip = {kind: rate.times(settings.per_ip_factor)
                        for kind, rate in self._per_session.items()}

    async def refusal(self, kind: Kind, session: str | None, client: str | None) -> int | None:
        """None: go ahead (a token was taken). Else the whole seconds to wait (at least 1).
        ``session`` is the session's digest (gateway.events.session_digest), ``client`` the
        client's address; either may be unknown."""
        if not self.enabled:
            return None
        buckets = []
        if session is not None:
            buckets.append((self.key(kind, "session", session), self._per_session[kind]))
        if client is not None:
            buckets.append((self.key(kind, "ip", client), self._per_ip[kind]))
        return await self._refusal(kind, buckets)

    def key(self, kind: Kind, owner: str, owner_id: str) -> str:
        """A bucket's name: the owner's (a session's, an address's, a member's) own hash tag,
        so a Cluster spreads the buckets over its slots."""
        return f"{self._keys('ratelimit', owner, owner_id)}:{kind}"

    async def member_refusal(self, kind: Kind, member_id: str) -> int | None:
        """:meth:`refusal` of a limit counted per member (all their sessions and addresses
        together), at the kind's per-session rate."""
        if not self.enabled:
            return None
        digest = session_digest(member_id)  # a member's id is never written in clear
        return await self._refusal(kind, [(self.key(kind, "member", digest),
                                           self._per_session[kind])])

    async def _refusal(self, kind: Kind, buckets: list[tuple[str, Rate]]) -> int | None:
        if not buckets:
            return None
        try:
            wait = await self._buckets.take(buckets)
        except (*REDIS_DOWN, RedisError, TimeoutError) as error:
            log.warning("the %s store did not answer; the request goes ahead: %r", STORE, error)
            metrics.store_error(STORE, error)
            return None
        if wait <= 0:
            return None
        metrics.rate_limited(kind)
        log.debug("rate limit: a %s refused for %.3f s", kind, wait)
        return max(1, math.ceil(wait))

    async def http_refusal(self, connection: HTTPConnection, kind: Kind) -> int | None:
        """:meth:`refusal` for an HTTP request, by its cookie and address."""
        cookie = session_id(connection)
        return await self.refusal(kind, session_digest(cookie) if cookie is not None else None,
                                  connection.client.host if connection.client else None)


class RateLimiting:
    """ASGI middleware: the login routes and REST writes go through the limits; a refused one is
    CONTRACT's 429 ``Too many requests`` with Retry-After, and reaches no route."""

    def __init__(self, app: ASGIApp, limits: RateLimits):
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            kind = kind_of(scope["method"], scope["path"])
            if kind is not None:
                wait = await self.limits.http_refusal(HTTPConnection(scope), kind)
                if wait is not None:
                    response = problem(429, TOO_MANY_TEXT, {"Retry-After": str(wait)})
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def rate_limits(settings: RateLimitSettings, client: RedisClient | None,
                keys: Keys | None = None) -> RateLimits:
    """The limits over Redis when the gateway has one, else in memory."""
    buckets = RedisBuckets(client) if client is not None else MemoryBuckets()
    return RateLimits(settings, buckets, keys)
