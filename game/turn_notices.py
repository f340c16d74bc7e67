"""The turns of daily tables, announced to the gateways (docs/architecture.md, "Your turn").

A daily game (its options' ``"pace": "daily"``) waits hours for a player, who is told that the
table waits for them (CONTRACT.md, Turn-based games). The game service never sees a person, so
it announces seats: after a change of a daily table is in the log, each seat the change made the
table wait for (the seat to play changed, a new hand was dealt, a phase of player entropy needs
the seat) is one entry ``{table, seat, revision, deadline_ms, game_type}`` of the Redis stream
``<prefix>:turns``; a gateway (gateway.turn_notices) reads it in a consumer group and finds the
member. Live tables never announce.

The entries are written in the background once the change is committed, off the move's path:
a failure is logged and counted (``tavolo.store.errors``, store ``turn notices``) and the notice
is lost, never the move. The stream is capped (MAXLEN ~ STREAM_MAXLEN): the gateways read it
within seconds, so only a long outage of every gateway drops notices. Without Redis nothing is
announced (the game service and the gateway are separate processes: there is no bus between
them).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from redis.exceptions import RedisError

from game.engine import Engine
from game.live import Live
from game.pace import DAILY, pace_of
from services.background import Background
from services.observability import metrics
from services.stores import REDIS_DOWN, Keys, RedisClient

log = logging.getLogger(__name__)

# Entries kept (handled ones too, until trimmed: about 1.5 MB): far more than the turns of every
# daily table in the minutes the gateways may all be away; after a longer outage the oldest are
# lost (approximate trimming: cheap for Redis).
STREAM_MAXLEN = 10_000
STORE = "turn notices"


@dataclass(frozen=True)
class TurnNotice:
    """The daily ``table`` (of ``game_type``) waits for ``seat`` since ``revision``, until
    ``deadline_ms`` (0: none)."""

    table: str
    seat: int
    revision: int
    deadline_ms: int
    game_type: str = ""

    def fields(self) -> dict[Any, Any]:
        return {"table": self.table, "seat": str(self.seat), "revision": str(self.revision),
                "deadline_ms": str(self.deadline_ms), "game_type": self.game_type}

    @classmethod
    def from_fields(cls, fields: dict[Any, Any]) -> TurnNotice | None:
        """The notice a stream entry holds; None when it is not one."""
        try:
            text = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
                    for k, v in fields.items()}
            notice = cls(table=text["table"], seat=int(text["seat"]), revision=int(text["revision"]),
                         deadline_ms=int(text["deadline_ms"]), game_type=text.get("game_type", ""))
        except (KeyError, ValueError, TypeError, UnicodeDecodeError):
            return None
        return notice if notice.table and notice.seat >= 0 else None


def is_daily(live: Live) -> bool:
    return pace_of(live.state.get("options")) == DAILY


def notices(engine: Engine, before: Live | None, after: Live) -> list[TurnNotice]:
    """The seats ``after`` waits for that ``before`` did not (every one after a take-back or
    for a new table); none for a live table."""
    if not is_daily(after):
        return []
    waiting = engine.awaited_seats(after.state)
    if before is not None and after.revision > before.revision:
        waiting = waiting - engine.awaited_seats(before.state)
    if not waiting:
        return []
    due = [deadline.due_ms for deadline in engine.deadlines(after.state)]
    deadline_ms = min(due) if due else 0
    return [TurnNotice(after.table_id, seat, after.revision, deadline_ms, after.game_type) for seat in sorted(waiting)]


class TurnAnnouncer:
    """Appends the notices to the stream in the background."""

    def __init__(self, client: RedisClient, keys: Keys, background: Background,
                 maxlen: int = STREAM_MAXLEN):
        self._client = client
        self.stream = stream_name(keys)
        self._background = background
        self._maxlen = maxlen

    def changed(self, engine: Engine, before: Live | None, after: Live) -> None:
        found = notices(engine, before, after)
        if found:
            self._background.start(self._append(found))

    async def _append(self, found: list[TurnNotice]) -> None:
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for notice in found:
                    pipe.xadd(self.stream, notice.fields(), maxlen=self._maxlen, approximate=True)
                await pipe.execute()
        except (*REDIS_DOWN, RedisError) as error:
            metrics.store_error(STORE, error)
            log.warning("table %s: turn notices lost (%s)", found[0].table, error)


def stream_name(keys: Keys) -> str:
    """The stream of turn notices: one key, its own slot."""
    return keys("turns")
