"""The member directory: each member's public player id (CONTRACT.md "Players, following,
invitations, blocking": opaque, stable, at least 16 characters of ``[A-Za-z0-9_-]``, never the
OIDC subject) and the name they last logged in with.

The lobby owns it because it owns the member ids already (lobby_seat.member_id): a seat's
player id is joined in from here when a game is answered (LobbyService's SeatAssignment.player),
so the directory and the seatings never disagree. The gateway asks for a member's id once per
session (EnsureMember); the others turn ids into names with GetPlayers.

A player id is drawn at random (``secrets.token_urlsafe(16)``: 22 characters, 128 bits), never
derived from the member id, so it reveals nothing of the login. Erasing a member (EraseMember)
deletes their entry: the id then names nobody, and is never given to anyone else; in Postgres
the deletion takes every relation of and about the member with it (lobby.relations,
lobby.invitations: their rows reference the entry ON DELETE CASCADE).

Two stores: Postgres (``lobby_member``, lobby/migrations/0005_members.sql) beside the lobby's
own, and memory beside the memory lobby store.
"""

from __future__ import annotations

import re
import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

import asyncpg

from lobby import inputs
from lobby.models import PlayerName
from lobby.postgres_store import PostgresLobbyStore
from lobby.store import LobbyStore
from services.rpc.errors import Reason, ServiceError
from services.stores import POSTGRES_DOWN, unavailable_when

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
MAX_PLAYERS_ASKED = 1000  # GetPlayers' most ids in one call
_DRAWS = 5  # a drawn id that is taken already (never, in practice) is drawn again


def new_player_id() -> str:
    """A fresh player id: 22 URL-safe characters (128 random bits)."""
    return secrets.token_urlsafe(16)


def is_player_id(value: str) -> bool:
    """Whether ``value`` has the shape of a player id (whether it names anyone is another
    question)."""
    return PLAYER_ID.fullmatch(value) is not None


def player_ids(values: Sequence[str]) -> list[str]:
    """GetPlayers' ids: at most MAX_PLAYERS_ASKED; the ones that cannot be a player id are left
    out (they name nobody), as are repeats."""
    if len(values) > MAX_PLAYERS_ASKED:
        raise ServiceError(Reason.INVALID_ARGUMENT,
                           f"players holds more than {MAX_PLAYERS_ASKED} ids", field="players")
    return list(dict.fromkeys(value for value in values if is_player_id(value)))


class MemberDirectory(ABC):
    """Where the player ids live. Every method takes checked arguments (lobby.inputs)."""

    @abstractmethod
    async def ensure(self, member_id: str, name: str) -> str:
        """The member's player id, made on the first call; ``name`` is kept as their name."""

    @abstractmethod
    async def names(self, players: Sequence[str]) -> list[PlayerName]:
        """The known ones of ``players``, in the order asked."""

    @abstractmethod
    async def players_of(self, member_ids: Iterable[str]) -> dict[str, str]:
        """Member id to player id, for the members of ``member_ids`` that have one."""

    @abstractmethod
    async def find(self, player: str) -> tuple[str, PlayerName] | None:
        """The member id and name of the player id ``player``; None when it names nobody."""

    @abstractmethod
    async def named(self, member_ids: Iterable[str]) -> dict[str, PlayerName]:
        """Member id to player id and name, for the members of ``member_ids`` that have one."""

    @abstractmethod
    async def forget(self, member_id: str) -> bool:
        """Delete the member's entry (erasure); whether there was one."""


class MemoryMemberDirectory(MemberDirectory):
    """The directory in this process (no database: one lobby replica)."""

    def __init__(self) -> None:
        self._by_member: dict[str, PlayerName] = {}
        self._members: dict[str, str] = {}  # player id -> member id

    async def ensure(self, member_id: str, name: str) -> str:
        known = self._by_member.get(member_id)
        player = known.player if known is not None else self._draw()
        self._by_member[member_id] = PlayerName(player, name)
        self._members[player] = member_id
        return player

    def _draw(self) -> str:
        for _ in range(_DRAWS):
            player = new_player_id()
            if player not in self._members:
                return player
        raise RuntimeError("no free player id was drawn")

    async def names(self, players: Sequence[str]) -> list[PlayerName]:
        found = (self._members.get(player) for player in players)
        return [self._by_member[member] for member in found if member is not None]

    async def players_of(self, member_ids: Iterable[str]) -> dict[str, str]:
        return {member: self._by_member[member].player for member in set(member_ids)
                if member in self._by_member}

    async def find(self, player: str) -> tuple[str, PlayerName] | None:
        member = self._members.get(player)
        return (member, self._by_member[member]) if member is not None else None

    async def named(self, member_ids: Iterable[str]) -> dict[str, PlayerName]:
        return {member: self._by_member[member] for member in set(member_ids)
                if member in self._by_member}

    async def forget(self, member_id: str) -> bool:
        known = self._by_member.pop(member_id, None)
        if known is None:
            return False
        del self._members[known.player]
        return True


_unavailable = unavailable_when(POSTGRES_DOWN, "member directory")

_ENSURE = """
INSERT INTO lobby_member (member_id, player_id, display_name) VALUES ($1, $2, $3)
ON CONFLICT (member_id) DO UPDATE SET display_name = EXCLUDED.display_name
    WHERE lobby_member.display_name IS DISTINCT FROM EXCLUDED.display_name
RETURNING player_id
"""


class PostgresMemberDirectory(MemberDirectory):
    """``lobby_member`` on the lobby store's pool (which closes it)."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def ensure(self, member_id: str, name: str) -> str:
        for _ in range(_DRAWS):
            try:
                player = await self.pool.fetchval(_ENSURE, member_id, new_player_id(), name)
            except asyncpg.UniqueViolationError:  # the drawn id is someone's: draw again
                continue
            if player is None:  # known, with this name already: nothing was written
                player = await self.pool.fetchval(
                    "SELECT player_id FROM lobby_member WHERE member_id = $1", member_id)
            if player is not None:  # else erased in between: make a new entry
                return str(player)
        raise RuntimeError("no free player id was drawn")

    @_unavailable
    async def names(self, players: Sequence[str]) -> list[PlayerName]:
        rows = await self.pool.fetch(
            "SELECT player_id, display_name FROM lobby_member WHERE player_id = ANY($1::text[])",
            list(players))
        found = {row["player_id"]: PlayerName(row["player_id"], row["display_name"]) for row in rows}
        return [found[player] for player in players if player in found]

    @_unavailable
    async def players_of(self, member_ids: Iterable[str]) -> dict[str, str]:
        wanted = sorted(set(member_ids))
        if not wanted:
            return {}
        rows = await self.pool.fetch(
            "SELECT member_id, player_id FROM lobby_member WHERE member_id = ANY($1::text[])", wanted)
        return {row["member_id"]: row["player_id"] for row in rows}

    @_unavailable
    async def find(self, player: str) -> tuple[str, PlayerName] | None:
        row = await self.pool.fetchrow(
            "SELECT member_id, display_name FROM lobby_member WHERE player_id = $1", player)
        return (row["member_id"], PlayerName(player, row["display_name"])) if row else None

    @_unavailable
    async def named(self, member_ids: Iterable[str]) -> dict[str, PlayerName]:
        wanted = sorted(set(member_ids))
        if not wanted:
            return {}
        rows = await self.pool.fetch(
            "SELECT member_id, player_id, display_name FROM lobby_member "
            "WHERE member_id = ANY($1::text[])", wanted)
        return {row["member_id"]: PlayerName(row["player_id"], row["display_name"]) for row in rows}

    @_unavailable
    async def forget(self, member_id: str) -> bool:
        deleted = await self.pool.fetchval(
            "DELETE FROM lobby_member WHERE member_id = $1 RETURNING true", member_id)
        return bool(deleted)


def directory_for(store: LobbyStore) -> MemberDirectory:
    """The directory beside a lobby store: on its Postgres pool when it has one, else in memory."""
    if isinstance(store, PostgresLobbyStore):
        return PostgresMemberDirectory(store.pool)
    return MemoryMemberDirectory()


def checked_member(member_id: str, name: str) -> tuple[str, str]:
    """EnsureMember's arguments, checked as the seatings' are."""
    return inputs.member_id(member_id), inputs.display_name(name)
