"""Table talk in this process's memory (DATABASE_URL unset): one replica only; the rules are
talk.store's."""

from __future__ import annotations

from dataclasses import replace

from talk.models import Message, Muted, Report
from talk.store import TalkStore


class MemoryTalkStore(TalkStore):
    def __init__(self) -> None:
        self._tables: dict[str, list[Message]] = {}
        self._requests: dict[tuple[str, str], Message] = {}
        self._mutes: dict[str, dict[str, Muted]] = {}
        self._reports: dict[str, Report] = {}

    async def add_message(self, message: Message, request_id: str) -> Message:
        key = (message.member_id, request_id)
        if request_id and key in self._requests:
            return self._requests[key]
        said = self._tables.setdefault(message.table_id, [])
        said.append(message)
        if len(said) > 1 and said[-2].at_ms > message.at_ms:  # timed before one stored earlier
            said.sort(key=lambda m: m.at_ms)  # stable: as stored among equal times
        if request_id:
            self._requests[key] = message
        return message

    async def messages(self, table_id: str, reader: str, include_spectators: bool,
                       limit: int) -> list[Message]:
        muted = self._mutes.get(reader, {})
        seen = [m for m in self._tables.get(table_id, ())
                if (include_spectators or not m.spectator) and (not m.player or m.player not in muted)]
        return seen[-limit:] if limit > 0 else []

    async def message(self, table_id: str, message_id: str) -> Message | None:
        return next((m for m in self._tables.get(table_id, ()) if m.id == message_id), None)

    async def mute(self, member_id: str, player: str, name: str, at_ms: int) -> None:
        mutes = self._mutes.setdefault(member_id, {})
        before = mutes.get(player)
        mutes[player] = Muted(player, name, before.at_ms if before is not None else at_ms)

    async def unmute(self, member_id: str, player: str) -> None:
        self._mutes.get(member_id, {}).pop(player, None)

    async def mutes(self, member_id: str) -> list[Muted]:
        return sorted(self._mutes.get(member_id, {}).values(), key=lambda m: m.at_ms, reverse=True)

    async def add_report(self, report: Report) -> None:
        self._reports[report.id] = report

    async def reports(self, include_closed: bool, limit: int) -> list[Report]:
        found = [r for r in self._reports.values() if include_closed or r.closed_at_ms is None]
        return sorted(found, key=lambda r: (r.at_ms, r.id))[:limit]

    async def close_report(self, report_id: str, note: str, at_ms: int) -> Report | None:
        report = self._reports.get(report_id)
        if report is not None and report.closed_at_ms is None:
            report = self._reports[report_id] = replace(report, closed_at_ms=at_ms, note=note)
        return report

    async def erase_member(self, member_id: str, player: str = "") -> int:
        deleted = 0
        for table_id, messages in list(self._tables.items()):
            kept = [m for m in messages if m.member_id != member_id]
            deleted += len(messages) - len(kept)
            self._tables[table_id] = kept
        self._requests = {key: m for key, m in self._requests.items() if key[0] != member_id}
        self._mutes.pop(member_id, None)
        if player:
            for mutes in self._mutes.values():
                mutes.pop(player, None)
        for report_id, report in list(self._reports.items()):
            if report.message.member_id == member_id:
                self._reports[report_id] = replace(report, message=_erased(report.message))
        return deleted

    async def purge(self, before_ms: int, tables: int) -> int:
        old = [table_id for table_id, messages in self._tables.items()
               if not messages or max(m.at_ms for m in messages) < before_ms][:tables]
        for table_id in old:
            gone = {m.id for m in self._tables.pop(table_id)}
            self._requests = {key: m for key, m in self._requests.items() if m.id not in gone}
        return len(old)


def _erased(message: Message) -> Message:
    return replace(message, member_id="", text="")
