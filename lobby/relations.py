"""Players' relations: whom a member follows, whom they block, and their settings.

The lobby keeps them because blocking is a rule of seating (JoinGame, QuickMatch and Rematch
never seat two members of whom one blocked the other: lobby.service reads :meth:`apart`), and
because they are about members of its directory (lobby.members). Members are named by their
member id here; the public player ids are the directory's.

Limits: a member follows at most MAX_FOLLOWING players and blocks at most MAX_BLOCKED. They
hold under concurrent calls: in Postgres the member's directory row is locked (FOR NO KEY
UPDATE, which leaves the foreign keys of other members' rows free) while the count and the
insert are made, so a member's changes count one after the other; in memory no method awaits
between its read and its write.

Erasure: in Postgres every row references the directory ON DELETE CASCADE, so deleting the
member's entry (LobbyService.EraseMember) deletes every follow, block and setting of and about
them; in memory :meth:`RelationStore.forget` does the same.

Two stores, one interface: Postgres (lobby/migrations/0008_relations.sql) on the lobby store's
pool, and memory beside the memory lobby store.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass

import asyncpg

from lobby.postgres_store import PostgresLobbyStore
from lobby.store import LobbyStore
from services.rpc.errors import Reason, ServiceError
from services.stores import POSTGRES_DOWN, unavailable_when

MAX_FOLLOWING = 500
MAX_BLOCKED = 1000


class Kind(enum.Enum):
    """A relation from one member to another: its table, the other member's column, its limit,
    and the message past the limit (CONTRACT.md's for following)."""

    FOLLOW = ("lobby_follow", "followed_id", "followed_at_ms", MAX_FOLLOWING,
              "Following too many players")
    BLOCK = ("lobby_block", "blocked_id", "blocked_at_ms", MAX_BLOCKED,
             "Blocking too many players")

    def __init__(self, table: str, other: str, at: str, limit: int, too_many: str):
        self.table = table
        self.other = other
        self.at = at
        self.limit = limit
        self.too_many = too_many

    def too_many_error(self) -> ServiceError:
        return ServiceError(Reason.TOO_MANY_RELATIONS, self.too_many, limit=str(self.limit))


class Added(enum.Enum):
    """What adding a relation did."""

    ADDED = "added"
    ALREADY = "already"          # it held already: nothing changed (the first time is kept)
    NO_MEMBER = "no member"      # the member has no directory entry (never made, or erased)
    NO_OTHER = "no other"        # the other member's entry is gone (erased meanwhile)


@dataclass(frozen=True)
class Relation:
    """The other member of a relation, and since when it holds (epoch ms)."""

    member_id: str
    at_ms: int


@dataclass(frozen=True)
class Between:
    """How member a stands to member b."""

    following: bool = False   # a follows b
    blocked: bool = False     # a blocked b
    blocked_by: bool = False  # b blocked a


class RelationStore(ABC):
    """Follows, blocks and settings. Every method takes checked arguments (lobby.players)."""

    @abstractmethod
    async def add(self, kind: Kind, member_id: str, other_id: str, at_ms: int) -> Added:
        """The member follows (or blocks) the other from ``at_ms``; TOO_MANY_RELATIONS when they
        have ``kind.limit`` such relations already."""

    @abstractmethod
    async def remove(self, kind: Kind, member_id: str, other_id: str) -> None:
        """The relation no longer holds (idempotent)."""

    @abstractmethod
    async def listed(self, kind: Kind, member_id: str) -> list[Relation]:
        """The member's relations of ``kind``, the newest first."""

    @abstractmethod
    async def between(self, member_id: str, other_id: str) -> Between:
        """How the member stands to the other."""

    @abstractmethod
    async def apart(self, member_id: str) -> frozenset[str]:
        """The members the member blocked and those who blocked them: whom they never sit with."""

    @abstractmethod
    async def blockers(self, member_id: str, among: Iterable[str]) -> set[str]:
        """The members of ``among`` who blocked the member."""

    @abstractmethod
    async def shown_online(self, member_ids: Iterable[str]) -> dict[str, bool]:
        """Each member's show_online setting (true for a member who never changed it)."""

    @abstractmethod
    async def set_show_online(self, member_id: str, show_online: bool) -> bool:
        """Store the setting; False when the member has no directory entry (nothing stored)."""

    @abstractmethod
    async def forget(self, member_id: str) -> None:
        """Delete every relation and setting of and about the member (erasure)."""


class MemoryRelationStore(RelationStore):
    """The relations in this process (no database: one lobby replica). Whether a member has a
    directory entry is the caller's check (lobby.players): nothing awaits in between."""

    def __init__(self) -> None:
        # kind -> member -> other -> since (dicts keep insertion order: oldest first)
        self._relations: dict[Kind, dict[str, dict[str, int]]] = {kind: {} for kind in Kind}
        # kind -> member -> the members related to them (who follow, who blocked them)
        self._reverse: dict[Kind, dict[str, set[str]]] = {kind: {} for kind in Kind}
        self._show_online: dict[str, bool] = {}

    async def add(self, kind: Kind, member_id: str, other_id: str, at_ms: int) -> Added:
        mine = self._relations[kind].setdefault(member_id, {})
        if other_id in mine:
            return Added.ALREADY
        if len(mine) >= kind.limit:
            raise kind.too_many_error()
        mine[other_id] = at_ms
        self._reverse[kind].setdefault(other_id, set()).add(member_id)
        return Added.ADDED

    async def remove(self, kind: Kind, member_id: str, other_id: str) -> None:
        self._relations[kind].get(member_id, {}).pop(other_id, None)
        self._reverse[kind].get(other_id, set()).discard(member_id)

    async def listed(self, kind: Kind, member_id: str) -> list[Relation]:
        mine = self._relations[kind].get(member_id, {})
        return sorted((Relation(other, at) for other, at in mine.items()),
                      key=lambda relation: (-relation.at_ms, relation.member_id))

    async def between(self, member_id: str, other_id: str) -> Between:
        follows, blocks = self._relations[Kind.FOLLOW], self._relations[Kind.BLOCK]
        return Between(following=other_id in follows.get(member_id, {}),
                       blocked=other_id in blocks.get(member_id, {}),
                       blocked_by=member_id in blocks.get(other_id, {}))

    async def apart(self, member_id: str) -> frozenset[str]:
        blocked_by = self._reverse[Kind.BLOCK].get(member_id, set())
        return frozenset(self._relations[Kind.BLOCK].get(member_id, {})) | blocked_by

    async def blockers(self, member_id: str, among: Iterable[str]) -> set[str]:
        blocks = self._relations[Kind.BLOCK]
        return {other for other in among if member_id in blocks.get(other, {})}

    async def shown_online(self, member_ids: Iterable[str]) -> dict[str, bool]:
        return {member: self._show_online.get(member, True) for member in member_ids}

    async def set_show_online(self, member_id: str, show_online: bool) -> bool:
        self._show_online[member_id] = show_online
        return True

    async def forget(self, member_id: str) -> None:
        self._show_online.pop(member_id, None)
        for kind in Kind:
            for other in self._relations[kind].pop(member_id, {}):
                self._reverse[kind].get(other, set()).discard(member_id)
            for other in self._reverse[kind].pop(member_id, set()):
                self._relations[kind].get(other, {}).pop(member_id, None)


_unavailable = unavailable_when(POSTGRES_DOWN, "relations store")

# The member's directory row, locked for the transaction: their relation changes count one
# after the other (exact limits), and an erasure of them waits for the change (or came first,
# and nothing is returned). NO KEY UPDATE leaves the row's key free, so other members' relations
# to this member (foreign keys: KEY SHARE) are not held up.
_LOCK_MEMBER = "SELECT true FROM lobby_member WHERE member_id = $1 FOR NO KEY UPDATE"


class PostgresRelationStore(RelationStore):
    """``lobby_follow``, ``lobby_block`` and ``lobby_settings`` on the lobby store's pool (which
    closes it)."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def add(self, kind: Kind, member_id: str, other_id: str, at_ms: int) -> Added:
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                if not await connection.fetchval(_LOCK_MEMBER, member_id):
                    return Added.NO_MEMBER
                if await connection.fetchval(
                        f"SELECT true FROM {kind.table} WHERE member_id = $1 AND {kind.other} = $2",
                        member_id, other_id):
                    return Added.ALREADY
                count = await connection.fetchval(
                    f"SELECT count(*) FROM {kind.table} WHERE member_id = $1", member_id)
                if count >= kind.limit:
                    raise kind.too_many_error()
                await connection.execute(
                    f"INSERT INTO {kind.table} (member_id, {kind.other}, {kind.at}) "
                    "VALUES ($1, $2, $3)", member_id, other_id, at_ms)
        except asyncpg.ForeignKeyViolationError:  # the other was erased since the look-up
            return Added.NO_OTHER
        return Added.ADDED

    @_unavailable
    async def remove(self, kind: Kind, member_id: str, other_id: str) -> None:
        await self.pool.execute(
            f"DELETE FROM {kind.table} WHERE member_id = $1 AND {kind.other} = $2",
            member_id, other_id)

    @_unavailable
    async def listed(self, kind: Kind, member_id: str) -> list[Relation]:
        rows = await self.pool.fetch(
            f"SELECT {kind.other} AS other, {kind.at} AS at_ms FROM {kind.table} "
            f"WHERE member_id = $1 ORDER BY {kind.at} DESC, {kind.other}", member_id)
        return [Relation(row["other"], row["at_ms"]) for row in rows]

    @_unavailable
    async def between(self, member_id: str, other_id: str) -> Between:
        row = await self.pool.fetchrow(
            "SELECT EXISTS (SELECT 1 FROM lobby_follow WHERE member_id = $1 AND followed_id = $2) "
            "         AS following, "
            "       EXISTS (SELECT 1 FROM lobby_block WHERE member_id = $1 AND blocked_id = $2) "
            "         AS blocked, "
            "       EXISTS (SELECT 1 FROM lobby_block WHERE member_id = $2 AND blocked_id = $1) "
            "         AS blocked_by", member_id, other_id)
        assert row is not None  # a SELECT without FROM answers one row
        return Between(following=row["following"], blocked=row["blocked"],
                       blocked_by=row["blocked_by"])

    @_unavailable
    async def apart(self, member_id: str) -> frozenset[str]:
        rows = await self.pool.fetch(
            "SELECT blocked_id AS other FROM lobby_block WHERE member_id = $1 "
            "UNION SELECT member_id FROM lobby_block WHERE blocked_id = $1", member_id)
        return frozenset(row["other"] for row in rows)

    @_unavailable
    async def blockers(self, member_id: str, among: Iterable[str]) -> set[str]:
        wanted = sorted(set(among))
        if not wanted:
            return set()
        rows = await self.pool.fetch(
            "SELECT member_id FROM lobby_block WHERE blocked_id = $1 AND member_id = ANY($2::text[])",
            member_id, wanted)
        return {row["member_id"] for row in rows}

    @_unavailable
    async def shown_online(self, member_ids: Iterable[str]) -> dict[str, bool]:
        wanted = sorted(set(member_ids))
        rows = await self.pool.fetch(
            "SELECT member_id, show_online FROM lobby_settings WHERE member_id = ANY($1::text[])",
            wanted) if wanted else []
        stored = {row["member_id"]: row["show_online"] for row in rows}
        return {member: stored.get(member, True) for member in wanted}

    @_unavailable
    async def set_show_online(self, member_id: str, show_online: bool) -> bool:
        # From the directory row: a member without one (never made, or erased) gets no row.
        try:
            stored = await self.pool.fetchval(
                "INSERT INTO lobby_settings (member_id, show_online) "
                "SELECT member_id, $2 FROM lobby_member WHERE member_id = $1 "
                "ON CONFLICT (member_id) DO UPDATE SET show_online = EXCLUDED.show_online "
                "RETURNING true", member_id, show_online)
        except asyncpg.ForeignKeyViolationError:  # erased while this was written
            return False
        return bool(stored)

    async def forget(self, member_id: str) -> None:
        """Nothing to do: deleting the member's directory entry cascades to every row."""


def relations_for(store: LobbyStore) -> RelationStore:
    """The relations beside a lobby store: on its Postgres pool when it has one, else in memory."""
    if isinstance(store, PostgresLobbyStore):
        return PostgresRelationStore(store.pool)
    return MemoryRelationStore()
