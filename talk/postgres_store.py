"""Table talk in Postgres (talk/migrations): every replica of the lobby's process shares it.

The same rules as talk.store (its docstring), kept by Postgres: a retried Say meets the unique
(member, request id) index and reads the first message back; a listing is one indexed query per
table; retention deletes a batch of quiet tables per statement.
"""

from __future__ import annotations

import asyncpg

from services.stores import POSTGRES_DOWN, unavailable_when
from talk.models import Message, Muted, Report
from talk.store import TalkStore

_unavailable = unavailable_when(POSTGRES_DOWN, "talk store")

_MESSAGE = ("id, table_id, member_id, player, display_name, spectator, seat_index, phrase, body, "
            "said_at_ms")
_INSERT = f"""
INSERT INTO talk_message ({_MESSAGE}, request_id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (member_id, request_id) WHERE request_id <> '' DO NOTHING
RETURNING true
"""
# Oldest first by the time said (the `at` each item shows), then as stored: two says at once are
# timed before either is stored, so the order of storing alone could list a later `at` first.
_LIST = f"""
SELECT {_MESSAGE} FROM (
    SELECT seq, {_MESSAGE} FROM talk_message m
    WHERE m.table_id = $1 AND ($3 OR NOT m.spectator)
      AND (m.player = '' OR NOT EXISTS (
          SELECT 1 FROM talk_mute u WHERE u.member_id = $2 AND u.player = m.player))
    ORDER BY m.said_at_ms DESC, m.seq DESC
    LIMIT $4
) newest ORDER BY said_at_ms, seq
"""
_MUTE = """
INSERT INTO talk_mute (member_id, player, display_name, muted_at_ms) VALUES ($1, $2, $3, $4)
ON CONFLICT (member_id, player) DO UPDATE SET display_name = EXCLUDED.display_name
"""
_REPORT = ("id, message_id, table_id, author_member_id, player, display_name, spectator, "
           "seat_index, phrase, body, said_at_ms, reporter_member_id, reason, reported_at_ms, "
           "closed_at_ms, note")
_PURGE = """
WITH quiet AS (
    SELECT table_id FROM talk_message GROUP BY table_id HAVING max(said_at_ms) < $1 LIMIT $2
), gone AS (
    DELETE FROM talk_message WHERE table_id IN (SELECT table_id FROM quiet) RETURNING table_id
)
SELECT count(DISTINCT table_id) FROM gone
"""


def _message(row: asyncpg.Record) -> Message:
    return Message(id=row["id"], table_id=row["table_id"], member_id=row["member_id"],
                   player=row["player"], name=row["display_name"], spectator=row["spectator"],
                   seat=row["seat_index"], phrase=row["phrase"], text=row["body"],
                   at_ms=row["said_at_ms"])


def _report(row: asyncpg.Record) -> Report:
    message = Message(id=row["message_id"], table_id=row["table_id"],
                      member_id=row["author_member_id"], player=row["player"],
                      name=row["display_name"], spectator=row["spectator"], seat=row["seat_index"],
                      phrase=row["phrase"], text=row["body"], at_ms=row["said_at_ms"])
    return Report(id=row["id"], message=message, reporter=row["reporter_member_id"],
                  reason=row["reason"], at_ms=row["reported_at_ms"],
                  closed_at_ms=row["closed_at_ms"], note=row["note"])


class PostgresTalkStore(TalkStore):
    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def add_message(self, message: Message, request_id: str) -> Message:
        m = message
        async with self.pool.acquire() as connection:
            stored = await connection.fetchval(
                _INSERT, m.id, m.table_id, m.member_id, m.player, m.name, m.spectator, m.seat,
                m.phrase, m.text, m.at_ms, request_id)
            if stored:
                return message
            row = await connection.fetchrow(
                f"SELECT {_MESSAGE} FROM talk_message WHERE member_id = $1 AND request_id = $2",
                m.member_id, request_id)
        return _message(row) if row is not None else message

    @_unavailable
    async def messages(self, table_id: str, reader: str, include_spectators: bool,
                       limit: int) -> list[Message]:
        rows = await self.pool.fetch(_LIST, table_id, reader, include_spectators, limit)
        return [_message(row) for row in rows]

    @_unavailable
    async def message(self, table_id: str, message_id: str) -> Message | None:
        row = await self.pool.fetchrow(
            f"SELECT {_MESSAGE} FROM talk_message WHERE id = $1 AND table_id = $2",
            message_id, table_id)
        return _message(row) if row is not None else None

    @_unavailable
    async def mute(self, member_id: str, player: str, name: str, at_ms: int) -> None:
        await self.pool.execute(_MUTE, member_id, player, name, at_ms)

    @_unavailable
    async def unmute(self, member_id: str, player: str) -> None:
        await self.pool.execute("DELETE FROM talk_mute WHERE member_id = $1 AND player = $2",
                                member_id, player)

    @_unavailable
    async def mutes(self, member_id: str) -> list[Muted]:
        rows = await self.pool.fetch(
            "SELECT player, display_name, muted_at_ms FROM talk_mute WHERE member_id = $1 "
            "ORDER BY muted_at_ms DESC, player", member_id)
        return [Muted(row["player"], row["display_name"], row["muted_at_ms"]) for row in rows]

    @_unavailable
    async def add_report(self, report: Report) -> None:
        m = report.message
        await self.pool.execute(
            f"INSERT INTO talk_report ({_REPORT}) VALUES "
            "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            report.id, m.id, m.table_id, m.member_id, m.player, m.name, m.spectator, m.seat,
            m.phrase, m.text, m.at_ms, report.reporter, report.reason, report.at_ms,
            report.closed_at_ms, report.note)

    @_unavailable
    async def reports(self, include_closed: bool, limit: int) -> list[Report]:
        rows = await self.pool.fetch(
            f"SELECT {_REPORT} FROM talk_report WHERE $1 OR closed_at_ms IS NULL "
            "ORDER BY reported_at_ms, id LIMIT $2", include_closed, limit)
        return [_report(row) for row in rows]

    @_unavailable
    async def close_report(self, report_id: str, note: str, at_ms: int) -> Report | None:
        async with self.pool.acquire() as connection:
            await connection.execute(
                "UPDATE talk_report SET closed_at_ms = $2, note = $3 "
                "WHERE id = $1 AND closed_at_ms IS NULL", report_id, at_ms, note)
            row = await connection.fetchrow(f"SELECT {_REPORT} FROM talk_report WHERE id = $1",
                                            report_id)
        return _report(row) if row is not None else None

    @_unavailable
    async def erase_member(self, member_id: str, player: str = "") -> int:
        async with self.pool.acquire() as connection, connection.transaction():
            deleted = await connection.fetchval(
                "WITH gone AS (DELETE FROM talk_message WHERE member_id = $1 RETURNING 1) "
                "SELECT count(*) FROM gone", member_id)
            await connection.execute("DELETE FROM talk_mute WHERE member_id = $1 OR player = $2",
                                     member_id, player or None)
            await connection.execute(
                "UPDATE talk_report SET author_member_id = '', body = '' "
                "WHERE author_member_id = $1", member_id)
        return int(deleted)

    @_unavailable
    async def purge(self, before_ms: int, tables: int) -> int:
        return int(await self.pool.fetchval(_PURGE, before_ms, tables))

    @_unavailable
    async def ping(self) -> None:
        await self.pool.fetchval("SELECT 1")

    async def close(self) -> None:
        await self.pool.close()
