"""Where table talk is kept: :class:`TalkStore`, and talk.memory_store for one replica without
Postgres (talk.postgres_store is the durable one). Both keep the same rules, held to the same
tests (tests/talk/test_store.py):

- a message is stored once per (author, request id): a retried Say gets the first one back;
- a listing is the newest ``limit`` messages a reader may see, oldest first: without the
  players the reader muted, and without spectators' messages unless asked;
- a mute is by public player id, with the name the caller gave (muting again renames, keeps
  the time);
- a report holds a copy of its message, so retention does not take it away;
- erasing a member deletes their messages, their mutes and the mutes of them, and blanks the
  copies of their messages in the reports;
- retention deletes the messages of every table whose newest message is older than the cutoff.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from talk.models import Message, Muted, Report


class TalkStore(ABC):
    @abstractmethod
    async def add_message(self, message: Message, request_id: str) -> Message:
        """Store ``message``; with a request id already used by its author, the message stored
        then (and nothing new)."""

    @abstractmethod
    async def messages(self, table_id: str, reader: str, include_spectators: bool,
                       limit: int) -> list[Message]:
        """The newest ``limit`` messages of the table that ``reader`` may see, oldest first."""

    @abstractmethod
    async def message(self, table_id: str, message_id: str) -> Message | None:
        """One message of the table, or None."""

    @abstractmethod
    async def mute(self, member_id: str, player: str, name: str, at_ms: int) -> None:
        """``member_id`` mutes ``player`` (named ``name``)."""

    @abstractmethod
    async def unmute(self, member_id: str, player: str) -> None: ...

    @abstractmethod
    async def mutes(self, member_id: str) -> list[Muted]:
        """The players ``member_id`` muted, most recently muted first."""

    @abstractmethod
    async def add_report(self, report: Report) -> None: ...

    @abstractmethod
    async def reports(self, include_closed: bool, limit: int) -> list[Report]:
        """Reports (open ones only, unless ``include_closed``), oldest first."""

    @abstractmethod
    async def close_report(self, report_id: str, note: str, at_ms: int) -> Report | None:
        """Close a report (a closed one keeps its first note); None when there is none."""

    @abstractmethod
    async def erase_member(self, member_id: str, player: str = "") -> int:
        """Delete the member's messages and mutes (and, with their ``player`` id, the mutes of
        them), blank their reported copies; how many messages were deleted."""

    @abstractmethod
    async def purge(self, before_ms: int, tables: int) -> int:
        """Delete the messages of up to ``tables`` tables whose newest message is older than
        ``before_ms``; how many tables were purged."""

    async def ping(self) -> None:
        """Raise if the store cannot be reached."""

    async def close(self) -> None: ...
