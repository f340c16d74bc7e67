"""HTTP sessions: the random id in the ``tavolo_session`` cookie, everything else on the server.

A session holds at most one identity (the member: OIDC ``sub``, display name, provider, and the
public player id the lobby gave them) and the pending login state of each provider it is logging
in with (state, nonce, PKCE verifier). The browser only ever sees the id: 32 random bytes,
URL-safe base64 (256 bits).

Lifetimes are absolute, counted from ``created_ms``: a logged-in session lives ``ttl_seconds``; one
that only carries a pending login lives ``pending_ttl_seconds`` (a login abandoned at the provider's
page leaves nothing behind for long). Saving again never extends a session.

A store announces the end of logged-in sessions on its ``events`` bus (gateway.events): one
session deleted (a logout) is a SessionEnded, every session of a member (DELETE /api/me) a
MemberEnded, so that every gateway process closes the sockets of those sessions at once. An
expiry is not announced: a socket knows when its session expires.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

from starlette.requests import HTTPConnection
from starlette.responses import Response

from gateway.events import (
    EventBus,
    MemberEnded,
    MemoryEventBus,
    RedisEventBus,
    SessionEnded,
    encode,
    session_digest,
)
from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_when
from services.timeutil import now_ms

log = logging.getLogger(__name__)

COOKIE_NAME = "tavolo_session"
SESSION_TTL_SECONDS = 7 * 24 * 3600
PENDING_TTL_SECONDS = 600

# secrets.token_urlsafe(32): 43 characters of the URL-safe alphabet. Anything else in the cookie
# is not one of ours and is not even looked up.
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}")


def new_session_id() -> str:
    return secrets.token_urlsafe(32)


@dataclass
class Session:
    """One browser's session. ``pending`` maps a provider name to its login in progress."""

    id: str
    sub: str | None = None
    name: str | None = None
    provider: str | None = None
    created_ms: int = field(default_factory=now_ms)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Kept server-side for the provider's logout (id_token_hint); never sent to the browser.
    id_token: str | None = None
    # The member's public player id (the lobby's EnsureMember), learnt at login; None in a
    # session made before there were player ids (gateway.auth asks once, then keeps it).
    player: str | None = None

    @property
    def logged_in(self) -> bool:
        return self.sub is not None

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Session | None:
        """The session stored as ``text``, or None when it is not a session record."""
        try:
            data = json.loads(text)
            session = cls(
                id=data["id"],
                sub=data.get("sub"),
                name=data.get("name"),
                provider=data.get("provider"),
                created_ms=int(data["created_ms"]),
                pending=dict(data.get("pending") or {}),
                id_token=data.get("id_token"),
                player=data.get("player"),
            )
        except (ValueError, TypeError, KeyError):
            return None
        if not isinstance(session.id, str) or not all(
            value is None or isinstance(value, str)
            for value in (session.sub, session.name, session.provider, session.id_token,
                          session.player)
        ):
            return None
        return session


class SessionStore(ABC):
    """Where sessions live. ``count()`` counts logged-in sessions (the active-users gauge).

    A store that does not answer raises ServiceError UNAVAILABLE (the kit's mapping): routes
    answer 503, and callers need not know that the store is Redis."""

    ttl_seconds: float
    pending_ttl_seconds: float
    events: EventBus  # where the ends of logged-in sessions are announced

    @abstractmethod
    async def get(self, id: str) -> Session | None: ...

    @abstractmethod
    async def save(self, session: Session) -> None: ...

    @abstractmethod
    async def save_existing(self, session: Session) -> bool:
        """Write ``session`` again only while it still exists, keeping its expiry and its
        member: a change learnt during a request (the player id) never brings back a session
        that a logout or an erasure ended meanwhile. Whether it was written."""

    @abstractmethod
    async def delete(self, id: str) -> None: ...

    @abstractmethod
    async def delete_member(self, sub: str) -> int:
        """End every session of the member ``sub``; the number of sessions ended."""

    @abstractmethod
    async def count(self) -> int: ...

    def expires_ms(self, session: Session) -> int:
        lifetime = self.ttl_seconds if session.logged_in else self.pending_ttl_seconds
        return session.created_ms + int(lifetime * 1000)


class MemorySessionStore(SessionStore):
    """Sessions in this process (REDIS_URL unset: one gateway replica)."""

    def __init__(self, ttl_seconds: float = SESSION_TTL_SECONDS,
                 pending_ttl_seconds: float = PENDING_TTL_SECONDS,
                 events: MemoryEventBus | None = None):
        self.ttl_seconds = ttl_seconds
        self.pending_ttl_seconds = min(pending_ttl_seconds, ttl_seconds)
        self.events = events or MemoryEventBus()
        self._sessions: dict[str, tuple[str, int]] = {}   # id -> (JSON, expiry ms)
        self._members: dict[str, set[str]] = {}

    async def get(self, id: str) -> Session | None:
        entry = self._sessions.get(id)
        if entry is None:
            return None
        if entry[1] <= now_ms():
            self._drop(id)
            return None
        return Session.from_json(entry[0])

    async def save(self, session: Session) -> None:
        expires = self.expires_ms(session)
        previous = await self.get(session.id)
        if previous is not None and previous.sub != session.sub:
            self._drop(session.id)
        if expires <= now_ms():
            self._drop(session.id)
            return
        # Stored as JSON, like Redis: a caller mutating its Session afterwards changes nothing.
        self._sessions[session.id] = (session.to_json(), expires)
        if session.sub is not None:
            self._members.setdefault(session.sub, set()).add(session.id)

    async def save_existing(self, session: Session) -> bool:
        entry = self._sessions.get(session.id)
        current = await self.get(session.id)
        if entry is None or current is None or current.sub != session.sub:
            return False
        self._sessions[session.id] = (session.to_json(), entry[1])
        return True

    async def delete(self, id: str) -> None:
        session = await self.get(id)
        self._drop(id)
        if session is not None and session.logged_in:
            await self.events.publish(SessionEnded(session_digest(id)))

    async def delete_member(self, sub: str) -> int:
        ended = 0
        for id in list(self._members.get(sub, ())):
            session = await self.get(id)
            if session is not None and session.sub == sub:
                self._drop(id)
                ended += 1
        self._members.pop(sub, None)
        await self.events.publish(MemberEnded(sub))
        return ended

    async def count(self) -> int:
        now = now_ms()
        for id in [id for id, (_, expires) in self._sessions.items() if expires <= now]:
            self._drop(id)
        return sum(1 for ids in self._members.values() for id in ids if id in self._sessions)

    def _drop(self, id: str) -> None:
        entry = self._sessions.pop(id, None)
        if entry is None:
            return
        session = Session.from_json(entry[0])
        if session is not None and session.sub is not None:
            ids = self._members.get(session.sub)
            if ids is not None:
                ids.discard(id)
                if not ids:
                    del self._members[session.sub]


# KEYS: a session record; ARGV: sub. Deletes the record if it is still ``sub``'s (an index
# entry may be stale): 1 when it did.
_END_IF_MEMBERS = """#!lua
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local ok, record = pcall(cjson.decode, raw)
if ok and type(record) == 'table' and record['sub'] == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""


_unavailable = unavailable_when(REDIS_DOWN, "session store")


class RedisSessionStore(SessionStore):
    """Sessions as JSON under ``<prefix>:session:<id>`` (CONTRACT.md names it), shared by every
    gateway replica.

    Beside them: ``<prefix>:sessions:member:<sub>`` (the ids of a member's sessions, for
    ``delete_member``) and ``<prefix>:sessions:live`` (logged-in ids scored by expiry, for
    ``count``). No command, script or transaction uses two of these keys, so each may live in a
    slot of its own on a Redis Cluster, and their names stay those of before the hash tags
    (services.stores.Keys.plain). Their order keeps them safe instead: a save indexes the session
    before it writes the record (a save cut in between leaves an index entry that nothing
    trusts: an end checks the record's member), and an end deletes the record before it
    unindexes it and announces it on ``events``' channel, so no process can see a session gone
    and miss the event.
    """

    def __init__(self, redis: RedisClient, keys: Keys, ttl_seconds: float = SESSION_TTL_SECONDS,
                 pending_ttl_seconds: float = PENDING_TTL_SECONDS,
                 events: RedisEventBus | None = None):
        self.redis = redis
        self.keys = keys
        self.ttl_seconds = ttl_seconds
        self.pending_ttl_seconds = min(pending_ttl_seconds, ttl_seconds)
        self.events: RedisEventBus = events or RedisEventBus(redis, keys)
        self._end_if_members = redis.register_script(_END_IF_MEMBERS)

    def _session_key(self, id: str) -> str:
        return self.keys.plain("session", id)

    def _member_key(self, sub: str) -> str:
        return self.keys.plain("sessions", "member", sub)

    @property
    def _live_key(self) -> str:
        return self.keys.plain("sessions", "live")

    @_unavailable
    async def get(self, id: str) -> Session | None:
        raw = await self.redis.get(self._session_key(id))
        if raw is None:
            return None
        session = Session.from_json(raw)
        if session is None or session.id != id:
            log.warning("a session record is not readable; it is ignored")
            return None
        return session

    @_unavailable
    async def save(self, session: Session) -> None:
        previous = await self.get(session.id)
        expires = self.expires_ms(session)
        ttl_ms = expires - now_ms()
        async with self.redis.pipeline(transaction=False) as pipe:
            if previous is not None and previous.sub is not None and previous.sub != session.sub:
                pipe.srem(self._member_key(previous.sub), session.id)
            if ttl_ms <= 0 or session.sub is None:
                pipe.zrem(self._live_key, session.id)
            else:
                index = self._member_key(session.sub)
                pipe.zadd(self._live_key, {session.id: expires})
                pipe.sadd(index, session.id)
                # The index never expires before the newest of its sessions.
                pipe.pexpire(index, ttl_ms, nx=True)
                pipe.pexpire(index, ttl_ms, gt=True)
            await pipe.execute()
        if ttl_ms <= 0:
            await self.redis.delete(self._session_key(session.id))
        else:
            await self.redis.set(self._session_key(session.id), session.to_json(), px=ttl_ms)

    @_unavailable
    async def save_existing(self, session: Session) -> bool:
        current = await self.get(session.id)
        if current is None or current.sub != session.sub:
            return False
        # XX: never recreate a record deleted since; KEEPTTL: never extend it.
        written = await self.redis.set(self._session_key(session.id), session.to_json(),
                                       xx=True, keepttl=True)
        return bool(written)

    @_unavailable
    async def delete(self, id: str) -> None:
        session = await self.get(id)
        await self.redis.delete(self._session_key(id))
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self._live_key, id)
            if session is not None and session.sub is not None:
                pipe.srem(self._member_key(session.sub), id)
                pipe.spublish(self.events.channel, encode(SessionEnded(session_digest(id))))
            await pipe.execute()

    @_unavailable
    async def delete_member(self, sub: str) -> int:
        index = self._member_key(sub)
        ids = sorted(str(id) for id in await self.redis.smembers(index))
        ended = [id for id, done in zip(ids, await asyncio.gather(*(
            self._end_if_members(keys=[self._session_key(id)], args=[sub]) for id in ids)),
            strict=True) if done]
        async with self.redis.pipeline(transaction=False) as pipe:
            if ended:
                pipe.zrem(self._live_key, *ended)
            pipe.delete(index)
            pipe.spublish(self.events.channel, encode(MemberEnded(sub)))
            await pipe.execute()
        return len(ended)

    @_unavailable
    async def count(self) -> int:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zremrangebyscore(self._live_key, "-inf", now_ms())
            pipe.zcard(self._live_key)
            _, live = await pipe.execute()
        return int(live)


def session_id(connection: HTTPConnection) -> str | None:
    """The session id the request's cookie carries, or None (no cookie, or not one of ours)."""
    value = connection.cookies.get(COOKIE_NAME)
    if value is None or not _SESSION_ID.fullmatch(value):
        return None
    return value


def _is_https(connection: HTTPConnection) -> bool:
    # The request's own scheme. Behind a TLS-terminating proxy the server maps the proxy's
    # X-Forwarded-Proto onto it (uvicorn proxy_headers / forwarded_allow_ips): that is where the
    # decision whom to trust belongs, so this module never reads the header itself.
    return connection.url.scheme in ("https", "wss")


def set_cookie(response: Response, connection: HTTPConnection, session_id: str,
               max_age: int = SESSION_TTL_SECONDS) -> None:
    """CONTRACT's session cookie: HttpOnly, SameSite=Lax, Path=/, Secure over https."""
    response.set_cookie(
        COOKIE_NAME,
        session_id,
        max_age=max_age,
        path="/",
        httponly=True,
        samesite="Lax",  # type: ignore[arg-type]  # written as the contract spells it
        secure=_is_https(connection),
    )


def clear_cookie(response: Response, connection: HTTPConnection) -> None:
    response.delete_cookie(
        COOKIE_NAME,
        path="/",
        httponly=True,
        samesite="Lax",  # type: ignore[arg-type]
        secure=_is_https(connection),
    )
