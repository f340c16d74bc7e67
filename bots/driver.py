"""One table's bots at play: each bot seat watches its own view and acts through the game API.

A bot is a player (DESIGN): it reads only its seat's view and the table's public log (every
play is public), never another seat's cards or the seed. Like a gateway, it watches and plays
at the table's owner over the live link (game.live_link): its watch is a WatchTable of its own
seat alone, and it plays with Act at the revision it saw, so a move that raced another (a
person, an auto-play, a second replica driving the same table for a moment) is refused and
decided again on the next view. A watch that breaks (the owner died, restarted or was cut) is
opened again at the table's owner then. It waits ``think_ms`` before each play and
acknowledgement, so people can follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bots import levels
from bots.knowledge import knowledge_from_view
from game.client import GameClient, LogEntry, TableViews
from game.live_link import LiveLink
from game.status import TableStatus
from services.observability import metrics
from services.rpc.errors import Reason, ServiceError

log = logging.getLogger(__name__)

LOG_TAIL = 64  # moves re-read before a decision: a hand's 40 plays and its acks, with room
FIRST_BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 5.0


class GameApi(Protocol):
    """What a bot uses of the game service (:class:`GameLinks` is one)."""

    def watch_seat(self, table_id: str, seat: str) -> AsyncGenerator[dict[str, Any], None]: ...

    async def act(self, table_id: str, seat: str, action: dict | str,
                  expected_revision: int | None = None) -> object: ...

    async def get_log(self, table_id: str, after_number: int = 0,
                      page_size: int = 0) -> tuple[Any, list[LogEntry], int]: ...


@dataclass(frozen=True)
class GameLinks:
    """The game API as a bot uses it, as a gateway does: its watch and its moves at the
    table's owner (game.live_link), the log from any replica (game.client)."""

    client: GameClient
    link: LiveLink

    async def watch_seat(self, table_id: str, seat: str) -> AsyncGenerator[dict[str, Any], None]:
        """The seat's view now, then after every change, until the finished view: a WatchTable
        of this seat alone, at the owner. UNAVAILABLE when the watch broke: watch again."""
        async with contextlib.aclosing(self.link.watch_table(table_id, seat=seat)) as watch:
            async for views in watch:
                yield _own_view(views, seat)

    async def act(self, table_id: str, seat: str, action: dict | str,
                  expected_revision: int | None = None) -> object:
        return await self.link.act(table_id, seat, action, expected_revision)

    async def get_log(self, table_id: str, after_number: int = 0,
                      page_size: int = 0) -> tuple[Any, list[LogEntry], int]:
        return await self.client.get_log(table_id, after_number, page_size)

    async def close(self) -> None:
        await self.link.close()
        await self.client.close()


def _own_view(views: TableViews, seat: str) -> dict[str, Any]:
    """The seat's view of a message that must hold it alone. A game replica that sent more (one
    older than the seat filter, during an upgrade that deployed the bots first) is refused: the
    bot never reads another seat's view, and watches again."""
    if [name for name, _ in views.views] != [seat]:
        log.error("a watch of %s got the views of %s; it is dropped", seat,
                  ", ".join(name for name, _ in views.views) or "no seat")
        raise ServiceError(Reason.UNAVAILABLE, "The game service sent another seat's view")
    return views.views[0][1]


class SeatBot:
    """The bot of one seat of one table. ``still_plays()`` is asked before each move: the seat's
    person may have taken it back meanwhile (the replica hears of it at its next claim)."""

    def __init__(self, game: GameApi, table_id: str, seat_index: int, level: str, think_ms: int,
                 still_plays: Callable[[], Awaitable[bool]],
                 decide: Callable[[Callable[[], tuple[str, list[str]]]], Awaitable] | None = None):
        self.game = game
        self.still_plays = still_plays
        self.table_id = table_id
        self.seat_index = seat_index
        self.seat = f"seat:{seat_index}"
        self.level = levels.level(level)
        self.think_seconds = think_ms / 1000
        # Decisions run off the event loop (a maestro thinks for up to a second).
        self._decide = decide or asyncio.to_thread
        self._turn: asyncio.Task | None = None
        self._turn_revision: int | None = None  # the revision the move under way answers
        # Player entropy: the bot's own 32 bytes, drawn like a person's browser draws them and
        # kept in this process until revealed (a bot moved to another replica withholds).
        self._entropy = secrets.token_bytes(32)

    async def run(self) -> None:
        """Play until the match is finished; a lost stream is watched again."""
        backoff = FIRST_BACKOFF_SECONDS
        try:
            while True:
                try:
                    async with contextlib.aclosing(self.game.watch_seat(self.table_id,
                                                                        self.seat)) as views:
                        async for view in views:
                            backoff = FIRST_BACKOFF_SECONDS
                            if self._turn is not None and not self._turn.done() \
                                    and view.get("revision") == self._turn_revision:
                                continue  # a resumed watch starts with it: the move stands
                            self._cancel_turn()
                            if view.get("status") == TableStatus.FINISHED:
                                return
                            if self._owes_move(view):
                                self._turn_revision = view.get("revision")
                                self._turn = asyncio.create_task(
                                    self._move(view), name=f"bot {self.table_id} {self.seat}")
                except ServiceError as error:
                    if error.reason in (Reason.TABLE_NOT_FOUND, Reason.NOT_SEATED):
                        log.warning("table %s: %s's bot stops: %s", self.table_id, self.seat,
                                    error.message)
                        return
                    log.info("table %s: %s's view stream broke (%s); watching again",
                             self.table_id, self.seat, error.message)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
        finally:
            self._cancel_turn()

    def _owes_move(self, view: dict) -> bool:
        if view.get("your_turn"):
            return True
        if view.get("status") == TableStatus.SEEDING:
            return self._entropy_action(view) is not None
        return (view.get("status") == "hand_end"
                and self.seat_index not in view.get("acknowledged", ()))

    def _entropy_action(self, view: dict) -> dict | None:
        """The commit or reveal the seat owes in the seeding phase, if any."""
        entropy = view.get("entropy") or {}
        if entropy.get("phase") == "commit" and self.seat_index not in entropy.get("committed", ()):
            return {"action": "commit", "hash": hashlib.sha256(self._entropy).hexdigest()}
        if (entropy.get("phase") == "reveal" and self.seat_index in entropy.get("committed", ())
                and self.seat_index not in entropy.get("revealed", ())):
            return {"action": "reveal", "value": self._entropy.hex()}
        return None

    def _cancel_turn(self) -> None:
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
        self._turn = None

    async def _move(self, view: dict) -> None:
        started = time.monotonic()
        try:
            if view.get("your_turn"):
                moves = await self._public_log()
                knowledge = knowledge_from_view(view, moves)
                card, capture = await self._decide(lambda: _timed(self.level, knowledge))
                action: dict = {"action": "play", "card": card, "capture": capture}
            elif view.get("status") == TableStatus.SEEDING:
                action = self._entropy_action(view) or {}
            else:
                action = {"action": "ack"}
            if action.get("action") not in ("commit", "reveal"):  # entropy needs no thinking
                await asyncio.sleep(max(0.0, self.think_seconds - (time.monotonic() - started)))
            if not await self.still_plays():
                log.info("table %s: %s was taken back; its bot stops", self.table_id, self.seat)
                return
            await self.game.act(self.table_id, self.seat, action,
                                expected_revision=view.get("revision"))
        except asyncio.CancelledError:
            raise
        except ServiceError as error:
            # Somebody moved first (the next view decides again), or the table went on.
            report = log.debug if error.reason is Reason.CONCURRENT_MOVE else log.warning
            report("table %s: %s's bot could not move: %s", self.table_id, self.seat, error.message)
        except Exception:
            log.exception("table %s: %s's bot failed to decide", self.table_id, self.seat)

    async def _public_log(self) -> list[dict]:
        """The table's latest moves as GET /api/games/{id}/log shows them: every play of the
        current hand is among them."""
        header, _, _ = await self.game.get_log(self.table_id, page_size=1)
        after = max(0, header.move_count - LOG_TAIL)
        moves: list[dict] = []
        while True:
            _, page, after = await self.game.get_log(self.table_id, after_number=after)
            moves.extend({"number": m.number, "type": m.type, "seat": m.seat or None,
                          "payload": m.payload, "auto": m.auto} for m in page)
            if not after:
                return moves


def _timed(level: levels.Level, knowledge) -> tuple[str, list[str]]:
    """The level's decision, its CPU time recorded: the thread's own (other tables' decisions
    run in other threads of the same process)."""
    started = time.thread_time()
    choice = level.choose(knowledge)
    metrics.bot_decided(level.id, time.thread_time() - started)
    return choice


class TableBots:
    """Every bot of one table, started together and stopped together."""

    def __init__(self, game: GameApi, table_id: str, seats: tuple[tuple[int, str], ...],
                 think_ms: int, on_finished: Callable[[str], Awaitable[None]],
                 seats_now: Callable[[str], Awaitable[tuple[tuple[int, str], ...]]]):
        self.table_id = table_id
        self.seats = seats

        def still_plays(index: int, level: str) -> Callable[[], Awaitable[bool]]:
            async def ask() -> bool:
                return (index, level) in await seats_now(table_id)
            return ask

        self._bots = [SeatBot(game, table_id, index, level, think_ms, still_plays(index, level))
                      for index, level in seats]
        self._on_finished = on_finished
        self.task = asyncio.create_task(self._run(), name=f"bots of table {table_id}")

    async def _run(self) -> None:
        await asyncio.gather(*(bot.run() for bot in self._bots))
        await self._on_finished(self.table_id)

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
