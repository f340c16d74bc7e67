"""Table talk's domain, behind TalkService (talk.servicer): checks what it is given, names the
messages and reports, and keeps the store's rules (talk.store). Who may talk and when is the
gateway's decision (gateway.table_talk); this holds its own integrity whoever calls.

:class:`ChatRetention` is the background job of CHAT_RETENTION_DAYS.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import grpc

from services.background import every
from services.rpc.errors import Reason, ServiceError
from services.timeutil import now_ms
from talk.catalogue import known
from talk.models import (
    HISTORY_LIMIT,
    MAX_NOTE_CHARS,
    MAX_REASON_CHARS,
    REPORTS_LIMIT,
    BadText,
    Message,
    Muted,
    Report,
    clean_text,
    new_id,
)
from talk.store import TalkStore

log = logging.getLogger(__name__)

DAY_MS = 86_400_000
RETENTION_INTERVAL_SECONDS = 3600.0
FIRST_PASS_SECONDS = 60.0  # after start: off the start-up's own work
BATCH_TABLES = 200  # tables per statement: a few dozen messages each


def _required(value: str, field: str) -> None:
    if not value:
        raise ServiceError(Reason.INVALID_ARGUMENT, f"{field} is required", field=field)


class Talk:
    def __init__(self, store: TalkStore, clock: Callable[[], int] = now_ms):
        self.store = store
        self._clock = clock

    async def say(self, table_id: str, member_id: str, player: str, name: str, *,
                  spectator: bool, seat: int, phrase: str, text: str,
                  request_id: str = "") -> tuple[Message, bool]:
        """The message stored, and whether ``request_id`` was used before (nothing new stored)."""
        _required(table_id, "table_id")
        _required(member_id, "member_id")
        _required(name, "display_name")
        if bool(phrase) == bool(text):
            raise ServiceError(Reason.INVALID_ARGUMENT, "Say a phrase or a text, one of the two",
                               field="phrase")
        if phrase and not known(phrase):
            raise ServiceError(Reason.INVALID_ARGUMENT, f"Unknown phrase: {phrase}", field="phrase")
        if text:
            try:
                text = clean_text(text)
            except BadText as error:
                raise ServiceError(Reason.INVALID_ARGUMENT, str(error), field="text") from None
        if not spectator and not 0 <= seat <= 3:
            raise ServiceError(Reason.INVALID_ARGUMENT, "seat_index must be 0..3", field="seat_index")
        message = Message(id=new_id(), table_id=table_id, member_id=member_id, player=player,
                          name=name, spectator=spectator, seat=-1 if spectator else seat,
                          phrase=phrase, text=text, at_ms=self._clock())
        stored = await self.store.add_message(message, request_id)
        return stored, stored.id != message.id

    async def messages(self, table_id: str, reader: str, include_spectators: bool,
                       limit: int = 0) -> list[Message]:
        _required(table_id, "table_id")
        if not 0 <= limit <= HISTORY_LIMIT:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"limit must be 0..{HISTORY_LIMIT}", field="limit")
        return await self.store.messages(table_id, reader, include_spectators, limit or HISTORY_LIMIT)

    async def mute(self, member_id: str, player: str, name: str) -> None:
        _required(member_id, "member_id")
        _required(player, "player")
        _required(name, "display_name")
        await self.store.mute(member_id, player, name, self._clock())

    async def unmute(self, member_id: str, player: str) -> None:
        _required(member_id, "member_id")
        _required(player, "player")
        await self.store.unmute(member_id, player)

    async def mutes(self, member_id: str) -> list[Muted]:
        _required(member_id, "member_id")
        return await self.store.mutes(member_id)

    async def report(self, table_id: str, message_id: str, member_id: str, reason: str,
                     include_spectators: bool) -> bool:
        _required(member_id, "member_id")
        if len(reason) > MAX_REASON_CHARS:
            raise ServiceError(Reason.INVALID_ARGUMENT,
                               f"reason is over {MAX_REASON_CHARS} characters", field="reason")
        if not table_id or not message_id:
            return False
        message = await self.store.message(table_id, message_id)
        if message is None or (message.spectator and not include_spectators):
            return False
        await self.store.add_report(Report(id=new_id(), message=message, reporter=member_id,
                                           reason=reason, at_ms=self._clock()))
        log.info("talk: message %s at table %s reported", message_id, table_id)
        return True

    async def erase_member(self, member_id: str, player: str = "") -> int:
        _required(member_id, "member_id")
        return await self.store.erase_member(member_id, player)

    async def reports(self, include_closed: bool, limit: int = 0) -> list[Report]:
        if not 0 <= limit <= REPORTS_LIMIT:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"limit must be 0..{REPORTS_LIMIT}", field="limit")
        return await self.store.reports(include_closed, limit or HISTORY_LIMIT)

    async def close_report(self, report_id: str, note: str) -> Report:
        _required(report_id, "report_id")
        if len(note) > MAX_NOTE_CHARS:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"note is over {MAX_NOTE_CHARS} characters",
                               field="note")
        report = await self.store.close_report(report_id, note, self._clock())
        if report is None:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"Report not found: {report_id}",
                               field="report_id", status_code=grpc.StatusCode.NOT_FOUND)
        return report


class ChatRetention:
    """Deletes the talk of tables whose newest message is older than CHAT_RETENTION_DAYS, every
    RETENTION_INTERVAL_SECONDS, a batch of tables per statement. A table talked at last that long
    ago is finished: a game waiting for players expires after GAME_TTL_SECONDS (a day by
    default) and a match lasts hours. Reports keep their own copies until closed."""

    def __init__(self, store: TalkStore, retention_days: int, *, clock: Callable[[], int] = now_ms,
                 interval_seconds: float = RETENTION_INTERVAL_SECONDS,
                 first_pass_seconds: float = FIRST_PASS_SECONDS, batch_tables: int = BATCH_TABLES):
        self.store = store
        self.retention_ms = retention_days * DAY_MS
        self._clock = clock
        self.interval_seconds = interval_seconds
        self.first_pass_seconds = first_pass_seconds
        self.batch_tables = batch_tables

    async def run(self) -> None:
        log.info("chat retention: the talk of tables quiet for %d day(s) is deleted every %g s",
                 self.retention_ms // DAY_MS, self.interval_seconds)
        await every(self.interval_seconds, self.first_pass_seconds, self.run_once, "chat retention")

    async def run_once(self) -> int:
        """Delete every quiet table's talk, batch after batch; how many tables."""
        cutoff = self._clock() - self.retention_ms
        purged = 0
        while (batch := await self.store.purge(cutoff, self.batch_tables)) > 0:
            purged += batch
        if purged:
            log.info("chat retention: the talk of %d table(s) was deleted", purged)
        return purged
