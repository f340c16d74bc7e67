"""What one gateway process tells every other: a session ended, a member's sessions ended, the
names at some tables changed, a finished game's rematch was created, who is connected at a
table changed, something was said at a table, a member's mutes or blocks changed, a member was
invited, someone's follows, blocks or settings changed, a player came online or went offline, a
daily game waits for a member.

An open game socket must stop acting for a seat once its session ends (a logout, DELETE
/api/me), and the other players' views must name an erased member "deleted player". Instead of
every socket re-reading its session and seating now and then, whoever makes such a change
publishes it once here, and every gateway process (one subscription each) reacts for its own
sockets (gateway.socket_registry).

Two buses with one interface: :class:`MemoryEventBus` within one process (in-memory sessions:
one gateway replica) and :class:`RedisEventBus` over Redis (sharded) pub/sub, channel
``<prefix>:gateway:events``.
Pub/sub delivers to whoever listens at the time: a listener that lost its connection gets a
:class:`Missed` when it is back (something may have happened meanwhile), and re-reads what it
keeps.

An event names a session by its digest, never by its id: the id is the cookie's bearer secret,
and the channel is readable by anything that may subscribe.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from services import redis_channels
from services.rpc.errors import Reason, ServiceError
from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_when

log = logging.getLogger(__name__)

SUBSCRIBE_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class SessionEnded:
    """One session ended (a logout): ``session`` is its :func:`session_digest`."""

    session: str


@dataclass(frozen=True)
class MemberEnded:
    """Every session of the member ``sub`` ended (DELETE /api/me)."""

    sub: str


@dataclass(frozen=True)
class SeatingChanged:
    """The names at these tables changed (a seated member was erased)."""

    tables: tuple[str, ...]


@dataclass(frozen=True)
class RematchOffered:
    """A player of the finished game ``table`` (named ``by``) created its rematch ``game_id``:
    the sockets still open at ``table`` are told, so the others can join with one click."""

    table: str
    game_id: str
    join_code: str
    by: str


@dataclass(frozen=True)
class PresenceChanged:
    """A seat of ``table`` got its first socket in some gateway process, or lost its last one
    there: the others re-read who is connected (gateway.presence)."""

    table: str


@dataclass(frozen=True)
class Said:
    """Something was said at ``table`` (gateway.table_talk): ``text`` is the `said` message as
    sent; its author is a spectator or not, with the public id ``player`` (mutes are by it)."""

    table: str
    text: str
    spectator: bool
    player: str


@dataclass(frozen=True)
class MutesChanged:
    """The member ``sub`` muted or unmuted a player: ``players`` are all they mute now (public
    player ids), for their open sockets."""

    sub: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class Invited:
    """The member ``sub`` was invited to the lobby game ``game_id`` by the player ``by_player``
    (named ``by_name``): their member sockets (/ws/me) are told."""

    sub: str
    game_id: str
    by_player: str
    by_name: str


@dataclass(frozen=True)
class RelationsChanged:
    """Whom these players follow or block, or their settings (show_online), changed: the member
    sockets of these players re-read their follow lists, and so do those of the players' followers
    when ``seen`` (what the players show to others changed: a setting, a block), not for a mere
    follow or unfollow."""

    players: tuple[str, ...]
    seen: bool


@dataclass(frozen=True)
class BlocksChanged:
    """The member ``sub`` blocked or unblocked a player: ``players`` are all they block now
    (public player ids), for the table talk their open sockets deliver."""

    sub: str
    players: tuple[str, ...]


@dataclass(frozen=True)
class OnlineChanged:
    """The player got their first socket in some gateway process, or lost their last one there:
    the member sockets that follow them re-read whether they are online."""

    player: str


@dataclass(frozen=True)
class YourTurn:
    """The daily game ``game_id`` waits for the member ``sub``, who has no socket open at it
    (gateway.turn_notices): their member sockets (/ws/me) are told."""

    sub: str
    game_id: str


@dataclass(frozen=True)
class Missed:
    """The listener was deaf for a while (its connection was lost): anything may have changed."""


Event = (SessionEnded | MemberEnded | SeatingChanged | RematchOffered | PresenceChanged | Said | MutesChanged
         | Invited | RelationsChanged | BlocksChanged | OnlineChanged | YourTurn | Missed)
Handler = Callable[[Event], None]

# The name each event travels under on the channel; its fields travel as they are (a tuple as a
# JSON list). A name never changes: a rolling update has old and new gateways on one channel.
_KINDS: dict[str, type[Event]] = {
    "session": SessionEnded, "member": MemberEnded, "seating": SeatingChanged, "rematch": RematchOffered,
    "presence": PresenceChanged, "said": Said, "mutes": MutesChanged, "invited": Invited,
    "relations": RelationsChanged, "blocks": BlocksChanged, "online": OnlineChanged, "your_turn": YourTurn,
    "missed": Missed,
}
_KIND_OF = {cls: kind for kind, cls in _KINDS.items()}


def session_digest(session_id: str) -> str:
    """How events name a session: enough to match it, useless as a cookie."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]


def encode(event: Event) -> str:
    body = {"kind": _KIND_OF[type(event)], **dataclasses.asdict(event)}
    return json.dumps(body, separators=(",", ":"))


def _field_value(value: object, annotation: str) -> object:
    """A field read back from JSON, checked against its declared type (an event from a newer or
    broken writer must not reach a handler half-typed)."""
    if annotation == "str" and isinstance(value, str):
        return value
    if annotation == "bool" and isinstance(value, bool):
        return value
    if annotation.startswith("tuple[str") and isinstance(value, list) and all(
            isinstance(item, str) for item in value):
        return tuple(value)
    raise TypeError(f"not a {annotation}: {value!r}")


def decode(text: str | bytes) -> Event | None:
    """The event ``text`` carries, or None when it is not one (logged, then ignored)."""
    try:
        body = json.loads(text)
        cls = _KINDS[body["kind"]]
        fields: dict[str, Any] = {field.name: _field_value(body[field.name], str(field.type))
                                  for field in dataclasses.fields(cls)}
        return cls(**fields)
    except (ValueError, TypeError, KeyError):
        pass
    log.warning("an event on the gateway channel is not readable; it is ignored")
    return None


class EventBus(ABC):
    """Publish to every gateway process; ``listen`` once per process."""

    @abstractmethod
    async def publish(self, event: Event) -> None:
        """Tell every process (this one included); ServiceError UNAVAILABLE if the bus is down."""

    @abstractmethod
    async def listen(self, handler: Handler) -> None:
        """Call ``handler`` with every event from now on (once listening, this returns).

        Repeated calls return at once while listening. ServiceError UNAVAILABLE when the bus
        cannot be reached; the next call tries again."""

    async def aclose(self) -> None:
        """Stop listening."""


class MemoryEventBus(EventBus):
    """Within this process: a publication is handled before ``publish`` returns."""

    def __init__(self) -> None:
        self._handler: Handler | None = None

    async def publish(self, event: Event) -> None:
        if self._handler is not None:
            self._handler(event)

    async def listen(self, handler: Handler) -> None:
        self._handler = handler

    async def aclose(self) -> None:
        self._handler = None


_unavailable = unavailable_when(REDIS_DOWN, "gateway events")


class RedisEventBus(EventBus):
    """Redis pub/sub on ``<prefix>:gateway:events``, one connection per listening process."""

    def __init__(self, client: RedisClient, keys: Keys):
        self._client = client
        self.channel = keys.plain("gateway", "events")
        self._handler: Handler | None = None
        self._pubsub: redis_channels.Subscription | None = None
        self._reader: asyncio.Task | None = None
        self._subscribed = asyncio.Event()
        self._starting = asyncio.Lock()

    @_unavailable
    async def publish(self, event: Event) -> None:
        await redis_channels.publish(self._client, self.channel, encode(event))

    async def listen(self, handler: Handler) -> None:
        self._handler = handler
        if self._reader is not None and not self._reader.done() and self._subscribed.is_set():
            return
        async with self._starting:
            if self._reader is None or self._reader.done():
                self._subscribed.clear()
                try:
                    self._pubsub = redis_channels.Subscription(self._client)
                    await self._pubsub.subscribe(self.channel)
                except (*REDIS_DOWN, RedisError) as error:
                    await self._drop_pubsub()
                    raise ServiceError(Reason.UNAVAILABLE,
                                       f"gateway events: cannot subscribe: {error}") from None
                self._reader = asyncio.create_task(self._read(), name="gateway events")
            try:
                await asyncio.wait_for(self._subscribed.wait(), SUBSCRIBE_TIMEOUT_SECONDS)
            except TimeoutError:
                raise ServiceError(Reason.UNAVAILABLE,
                                   "gateway events: the subscription was not confirmed") from None

    async def _read(self) -> None:
        assert self._pubsub is not None
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                # redis-py reconnects and subscribes again on the next read; the confirmation
                # (below) then says that events may have been missed meanwhile.
                log.warning("gateway events: connection lost (%s); reconnecting", error)
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            if message["type"] == "subscribe":
                if self._subscribed.is_set():
                    self._deliver(Missed())
                self._subscribed.set()
            elif message["type"] == "message":
                event = decode(message["data"])
                if event is not None:
                    self._deliver(event)

    def _deliver(self, event: Event) -> None:
        if self._handler is None:
            return
        try:
            self._handler(event)
        except Exception:  # one bad handling must not stop the process's only listener
            log.exception("gateway events: handling %r failed", event)

    async def _drop_pubsub(self) -> None:
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.aclose()
            self._pubsub = None

    async def aclose(self) -> None:
        self._handler = None
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
            self._reader = None
        await self._drop_pubsub()
