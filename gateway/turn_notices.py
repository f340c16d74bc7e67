"""Telling a member that a daily game waits for them (CONTRACT.md, Turn-based games): `your_turn`
on /ws/me and, at most once a game an hour, a Web Push.

The game service announces the seats its daily tables wait for on the Redis stream
``<prefix>:turns`` (game.turn_notices). Each gateway process runs one :class:`TurnNoticeWorker`,
a consumer of the group ``gateways``: each entry is handled by one gateway. An entry is
acknowledged once handled; one a gateway took and never acknowledged (it died) is claimed by
another after CLAIM_IDLE_SECONDS. Handling (:class:`TurnNotices`):

1. the lobby's game (its seating) names the member at the seat; a bot's seat, a seat a bot took over and
   an erased member's get nothing;
2. a member with a socket open at that game's seat, in any gateway (the presence leases,
   gateway.presence), is at the table: nothing;
3. otherwise the event ``YourTurn`` goes to every gateway, whose member feed tells the member's
   /ws/me sockets (gateway.member_feed), and the member is pushed `your_turn` if no push of that
   game went to them within the hour (a Redis ``SET NX EX`` key per member and game: a lost Redis
   may let one more through).

An entry that could not be handled because a store or a service did not answer stays pending and
is claimed again later; one that names nothing (a table or a seat that is gone) is acknowledged.
Without Redis there is no stream, and no worker (game.turn_notices).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from redis.exceptions import RedisError, ResponseError

from game.turn_notices import TurnNotice, stream_name
from gateway.events import Event, YourTurn
from lobby.models import Game
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError
from services.stores import REDIS_DOWN, Keys, RedisClient, unavailable_on

log = logging.getLogger(__name__)

GROUP = "gateways"
READ_COUNT = 50  # entries a read
# A read waits this long for entries, then claims and reads again; under the Redis client's
# socket timeout (5 s), which would cut a longer wait.
BLOCK_MS = 2_000
CLAIM_IDLE_SECONDS = 60.0  # an entry pending this long was left by a gateway that died
RETRY_SECONDS = 2.0  # after the stream could not be read
PUSH_EVERY_SECONDS = 3600  # at most one push a game an hour per member (CONTRACT)

Push = Callable[[str, dict], Awaitable[None]]  # (member, payload): queued, returns at once


class Seating(Protocol):
    async def get_game(self, game_id: str) -> Game: ...


class SeatPresence(Protocol):
    async def seats(self, table_id: str) -> set[int]: ...


class Throttle(Protocol):
    async def first(self, sub: str, game_id: str) -> bool:
        """Whether this is the member's first push of the game within the hour (and mark it)."""


class MemoryThrottle:
    """One process's memory of the pushes sent (tests, and a gateway without Redis)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._sent: dict[tuple[str, str], float] = {}

    async def first(self, sub: str, game_id: str) -> bool:
        now = self._clock()
        last = self._sent.get((sub, game_id))
        if last is not None and now - last < PUSH_EVERY_SECONDS:
            return False
        self._sent = {key: at for key, at in self._sent.items() if now - at < PUSH_EVERY_SECONDS}
        self._sent[(sub, game_id)] = now
        return True


class RedisThrottle:
    def __init__(self, client: RedisClient, keys: Keys):
        self._client = client
        self._keys = keys

    async def first(self, sub: str, game_id: str) -> bool:
        with unavailable_on(REDIS_DOWN, "turn notices"):
            return bool(await self._client.set(self._keys("pushed", game_id, sub), "1", nx=True,
                                               ex=PUSH_EVERY_SECONDS))


@dataclass(frozen=True)
class Outcome:
    """What was done with a notice (the tests read it)."""

    told: str = ""  # the member told, "" when nobody
    pushed: bool = False
    why: str = ""  # why nobody was told: "gone", "bot", "present"


class TurnNotices:
    """The decisions about one notice, on the stores given (memory or Redis)."""

    def __init__(self, lobby: Seating, presence: SeatPresence, publish: Callable[[Event], Awaitable[None]],
                 throttle: Throttle, push: Push | None = None,
                 game_names: Callable[[], Awaitable[dict[str, str]]] | None = None,
                 clock: Callable[[], float] = time.time):
        self.lobby = lobby
        self.presence = presence
        self.publish = publish
        self.throttle = throttle
        self.push = push
        self.game_names = game_names
        self.clock = clock

    async def handle(self, notice: TurnNotice) -> Outcome:
        """Tell the member the table waits for; ServiceError UNAVAILABLE when a store or service
        did not answer (the entry is handled again later)."""
        try:
            seating = (await self.lobby.get_game(notice.table)).seats
        except ServiceError as error:
            if error.reason in (Reason.GAME_NOT_FOUND, Reason.TABLE_NOT_FOUND):
                return Outcome(why="gone")
            raise
        seat = next((seat for seat in seating if seat.index == notice.seat), None)
        if seat is None or seat.erased:
            return Outcome(why="gone")
        if seat.bot:  # a bot's seat, or one a bot took over: nobody waits to be told
            return Outcome(why="bot")
        if notice.seat in await self.presence.seats(notice.table):
            return Outcome(why="present")
        await self.publish(YourTurn(sub=seat.member_id, game_id=notice.table))
        pushed = False
        if self.push is not None and await self.throttle.first(seat.member_id, notice.table):
            await self.push(seat.member_id, await self._payload(notice))
            pushed = True
        return Outcome(told=seat.member_id, pushed=pushed)

    async def _payload(self, notice: TurnNotice) -> dict:
        """CONTRACT's push payload: the game's name and the time left in the body, its table's
        route of the app (web/src/router.ts) as the url."""
        name = "Your game"
        if self.game_names is not None:
            with contextlib.suppress(ServiceError):
                name = (await self.game_names()).get(notice.game_type, name)
        body = f"{name}: it is your turn"
        left = left_text(notice.deadline_ms, self.clock())
        if left:
            body += f" — {left} left"
        return {"type": "your_turn", "game": notice.table, "title": "Your turn", "body": body,
                "url": f"/games/{notice.table}"}


def left_text(deadline_ms: int, now: float) -> str:
    """The time left before ``deadline_ms``, as a push body says it ("23 h", "40 min"); "" for
    no deadline."""
    if deadline_ms <= 0:
        return ""
    left_ms = max(0, deadline_ms - int(now * 1000))
    if left_ms >= 3_600_000:
        return f"{left_ms // 3_600_000} h"
    return f"{max(1, left_ms // 60_000)} min"


class TurnStream:
    """The stream of notices, read by this process as one consumer of the gateways' group."""

    def __init__(self, client: RedisClient, keys: Keys, consumer: str | None = None):
        self._client = client
        self.name = stream_name(keys)
        self.consumer = consumer or uuid.uuid4().hex

    async def join(self) -> None:
        """Make the group if it is not there (from the stream's start: entries announced before
        any gateway came are handled too)."""
        with unavailable_on(REDIS_DOWN, "turn notices"):
            try:
                await self._client.xgroup_create(self.name, GROUP, id="0", mkstream=True)
            except ResponseError as error:
                if "BUSYGROUP" not in str(error):
                    raise

    async def read(self, block_ms: int = BLOCK_MS) -> list[tuple[str, dict]]:
        """New entries for this consumer, waiting up to ``block_ms`` for some."""
        with unavailable_on(REDIS_DOWN, "turn notices"):
            answer: Any = await self._client.xreadgroup(GROUP, self.consumer, {self.name: ">"},
                                                        count=READ_COUNT, block=block_ms)
        return [(str(entry_id), fields) for _, entries in answer or [] for entry_id, fields in entries]

    async def claim(self, idle_seconds: float = CLAIM_IDLE_SECONDS) -> list[tuple[str, dict]]:
        """Entries another consumer took and left pending ``idle_seconds``: now this one's."""
        with unavailable_on(REDIS_DOWN, "turn notices"):
            answer: Any = await self._client.xautoclaim(self.name, GROUP, self.consumer,
                                                   min_idle_time=int(idle_seconds * 1000),
                                                   start_id="0-0", count=READ_COUNT)
        return [(str(entry_id), fields) for entry_id, fields in answer[1] if fields is not None]

    async def ack(self, entry_ids: list[str]) -> None:
        if entry_ids:
            with unavailable_on(REDIS_DOWN, "turn notices"):
                await self._client.xack(self.name, GROUP, *entry_ids)


class TurnNoticeWorker:
    """This process's consumer: reads, handles, acknowledges; claims what a dead gateway left."""

    def __init__(self, stream: TurnStream, notices: TurnNotices,
                 claim_idle_seconds: float = CLAIM_IDLE_SECONDS, block_ms: int = BLOCK_MS):
        self.stream = stream
        self.notices = notices
        self.claim_idle_seconds = claim_idle_seconds
        self.block_ms = block_ms
        self._task: asyncio.Task | None = None
        self._closed = False

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name="turn notices")

    async def run(self) -> None:
        joined = False
        while not self._closed:
            try:
                if not joined:
                    await self.stream.join()
                    joined = True
                await self._handle(await self.stream.claim(self.claim_idle_seconds))
                await self._handle(await self.stream.read(self.block_ms))
            except (ServiceError, RedisError) as error:  # Redis is away: try again soon
                log.warning("turn notices: the stream not read: %s", error)
                joined = False  # a Redis that lost its keys lost the group too
                await asyncio.sleep(RETRY_SECONDS)
            except Exception:  # a bug must not stop the process's only reader; the entries stay pending
                log.exception("turn notices: handling failed")
                await asyncio.sleep(RETRY_SECONDS)

    async def _handle(self, entries: list[tuple[str, dict]]) -> None:
        done = []
        for entry_id, fields in entries:
            notice = TurnNotice.from_fields(fields)
            if notice is None:
                log.warning("turn notices: entry %s is not a notice; dropped", entry_id)
                done.append(entry_id)
                continue
            try:
                outcome = await self.notices.handle(notice)
            except ServiceError as error:  # left pending: claimed and handled again later
                log.warning("turn notices: table %s seat %d not handled now: %s", notice.table,
                            notice.seat, error.message)
                metrics.turn_notice("failed")
                continue
            metrics.turn_notice(outcome.why or "told")
            done.append(entry_id)
        await self.stream.ack(done)

    async def aclose(self) -> None:
        self._closed = True
        task, self._task = self._task, None
        # A cancel that lands inside the Redis client's blocking read may be swallowed by it: the
        # loop then ends at its next turn (within block_ms), or the next cancel lands.
        while task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=1.0)
        if task is not None and not task.cancelled():
            with contextlib.suppress(Exception):
                task.result()
