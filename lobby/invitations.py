"""Invitations to a game in the lobby: one per game and invitee, the first invitation's time and
the latest inviter.

An invitation holds for INVITATION_HOURS from when it was first made; one older no longer
counts and is written over when the invitee is invited again. At most MAX_INVITATIONS members
hold an invitation to one game at a time: in Postgres the invitations of a game are made one
after the other (a transaction-level advisory lock on the game, which leaves its seating free),
so the count is exact; in memory no method awaits between its read and its write.

Whether an invitation is still worth showing (the game in the lobby with a seat open, the
invitee not seated there, the inviter not blocked) is the reader's question (lobby.players):
the store keeps the rows. In Postgres they go with their game (deleted when its last person
leaves, purged a week after it expired) and with either member (ON DELETE CASCADE from the
directory: erasure); in memory :meth:`InvitationStore.forget` erases, and rows past their time
are swept.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass

import asyncpg

from lobby.postgres_store import PostgresLobbyStore
from lobby.store import LobbyStore
from services.rpc.errors import Reason, ServiceError
from services.stores import POSTGRES_DOWN, unavailable_when

MAX_INVITATIONS = 50  # members invited to one game
INVITATION_HOURS = 24
INVITATION_MS = INVITATION_HOURS * 3600 * 1000


@dataclass(frozen=True)
class Invitation:
    game_id: str
    invitee_id: str
    inviter_id: str  # the latest inviter
    at_ms: int  # when the invitation was first made (epoch ms)


class Invited(enum.Enum):
    """What an invitation did."""

    CREATED = "created"   # a new invitation (or one past its time, made anew)
    RENEWED = "renewed"   # it held already: its time kept, its inviter now this one
    GONE = "gone"         # the game or a member is gone (deleted, erased): nothing stored


def too_many_invitations() -> ServiceError:
    return ServiceError(Reason.TOO_MANY_RELATIONS, "Too many players invited to this game",
                        limit=str(MAX_INVITATIONS))


class InvitationStore(ABC):
    """Every method takes checked arguments (lobby.players); an invitation made at ``since_ms``
    or before no longer holds."""

    @abstractmethod
    async def invite(self, game_id: str, inviter_id: str, invitee_id: str, at_ms: int,
                     since_ms: int) -> Invited:
        """The inviter invites the invitee to the game at ``at_ms``; TOO_MANY_RELATIONS when
        MAX_INVITATIONS other members hold an invitation to it."""

    @abstractmethod
    async def of_invitee(self, invitee_id: str, since_ms: int, limit: int) -> list[Invitation]:
        """The invitee's invitations that hold still, newest first, at most ``limit``."""

    @abstractmethod
    async def forget(self, member_id: str) -> None:
        """Delete every invitation of and by the member (erasure)."""


class MemoryInvitationStore(InvitationStore):
    """The invitations in this process (no database: one lobby replica)."""

    def __init__(self) -> None:
        self._by_game: dict[str, dict[str, Invitation]] = {}
        self._games_of: dict[str, set[str]] = {}  # invitee -> the games they are invited to
        self._next_sweep_ms = 0

    async def invite(self, game_id: str, inviter_id: str, invitee_id: str, at_ms: int,
                     since_ms: int) -> Invited:
        self._sweep(at_ms, since_ms)
        invited = self._by_game.setdefault(game_id, {})
        for invitation in list(invited.values()):
            if invitation.at_ms <= since_ms:
                self._drop(invitation)
        invited = self._by_game.setdefault(game_id, {})  # (dropping the last one removed it)
        held = invited.get(invitee_id)
        if held is not None:
            invited[invitee_id] = Invitation(game_id, invitee_id, inviter_id, held.at_ms)
            return Invited.RENEWED
        if len(invited) >= MAX_INVITATIONS:
            raise too_many_invitations()
        invited[invitee_id] = Invitation(game_id, invitee_id, inviter_id, at_ms)
        self._games_of.setdefault(invitee_id, set()).add(game_id)
        return Invited.CREATED

    async def of_invitee(self, invitee_id: str, since_ms: int, limit: int) -> list[Invitation]:
        held = [invitation for game_id in self._games_of.get(invitee_id, ())
                if (invitation := self._by_game.get(game_id, {}).get(invitee_id)) is not None
                and invitation.at_ms > since_ms]
        held.sort(key=lambda invitation: (-invitation.at_ms, invitation.game_id))
        return held[:limit]

    async def forget(self, member_id: str) -> None:
        for invited in list(self._by_game.values()):
            for invitation in list(invited.values()):
                if member_id in (invitation.invitee_id, invitation.inviter_id):
                    self._drop(invitation)

    def _drop(self, invitation: Invitation) -> None:
        invited = self._by_game.get(invitation.game_id, {})
        invited.pop(invitation.invitee_id, None)
        if not invited:
            self._by_game.pop(invitation.game_id, None)
        games = self._games_of.get(invitation.invitee_id, set())
        games.discard(invitation.game_id)
        if not games:
            self._games_of.pop(invitation.invitee_id, None)

    def _sweep(self, now_ms: int, since_ms: int) -> None:
        """Forget the invitations past their time, at most once an hour (of the clock given)."""
        if now_ms < self._next_sweep_ms:
            return
        self._next_sweep_ms = now_ms + 3600 * 1000
        for invited in list(self._by_game.values()):
            for invitation in list(invited.values()):
                if invitation.at_ms <= since_ms:
                    self._drop(invitation)


_unavailable = unavailable_when(POSTGRES_DOWN, "invitations store")


class PostgresInvitationStore(InvitationStore):
    """``lobby_invitation`` on the lobby store's pool (which closes it)."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def invite(self, game_id: str, inviter_id: str, invitee_id: str, at_ms: int,
                     since_ms: int) -> Invited:
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                # The game's invitations one after the other (not its row: seating goes on).
                await connection.execute(
                    "SELECT pg_advisory_xact_lock(hashtext('lobby-invite:' || $1))", game_id)
                await connection.execute(
                    "DELETE FROM lobby_invitation WHERE game_id = $1 AND invited_at_ms <= $2",
                    game_id, since_ms)
                if await connection.fetchval(
                        "UPDATE lobby_invitation SET inviter_id = $3 "
                        "WHERE game_id = $1 AND invitee_id = $2 RETURNING true",
                        game_id, invitee_id, inviter_id):
                    return Invited.RENEWED
                if await connection.fetchval(
                        "SELECT count(*) FROM lobby_invitation WHERE game_id = $1",
                        game_id) >= MAX_INVITATIONS:
                    raise too_many_invitations()
                await connection.execute(
                    "INSERT INTO lobby_invitation (game_id, invitee_id, inviter_id, invited_at_ms) "
                    "VALUES ($1, $2, $3, $4)", game_id, invitee_id, inviter_id, at_ms)
        except asyncpg.ForeignKeyViolationError:  # the game or a member went meanwhile
            return Invited.GONE
        return Invited.CREATED

    @_unavailable
    async def of_invitee(self, invitee_id: str, since_ms: int, limit: int) -> list[Invitation]:
        rows = await self.pool.fetch(
            "SELECT game_id::text AS game_id, inviter_id, invited_at_ms FROM lobby_invitation "
            "WHERE invitee_id = $1 AND invited_at_ms > $2 "
            "ORDER BY invited_at_ms DESC, game_id LIMIT $3", invitee_id, since_ms, limit)
        return [Invitation(row["game_id"], invitee_id, row["inviter_id"], row["invited_at_ms"])
                for row in rows]

    async def forget(self, member_id: str) -> None:
        """Nothing to do: deleting the member's directory entry cascades to every row."""


def invitations_for(store: LobbyStore) -> InvitationStore:
    """The invitations beside a lobby store: on its Postgres pool when it has one, else in memory."""
    if isinstance(store, PostgresLobbyStore):
        return PostgresInvitationStore(store.pool)
    return MemoryInvitationStore()
