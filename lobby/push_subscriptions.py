"""Members' Web Push subscriptions: where the gateway pushes `your_turn` and `invited`.

A subscription is a browser's (its endpoint names it, unique across members): adding an
endpoint that exists makes it the adding member's, with the new keys (a browser that changed
hands, or a member who subscribed again). A member keeps at most MAX_PUSH_SUBSCRIPTIONS: one
more replaces their oldest (a browser they no longer use, most likely). The limit holds under
concurrent calls: in Postgres the member's directory row is locked while the count and the
insert are made (as lobby.relations does); in memory no method awaits between its read and its
write.

Erasure: in Postgres every row references the member directory ON DELETE CASCADE
(lobby/migrations/0009_push.sql); in memory :meth:`PushSubscriptionStore.forget` erases.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import asyncpg

from lobby.postgres_store import PostgresLobbyStore
from lobby.store import LobbyStore
from services.stores import POSTGRES_DOWN, unavailable_when

MAX_PUSH_SUBSCRIPTIONS = 10


@dataclass(frozen=True)
class PushSubscription:
    endpoint: str
    p256dh: str
    auth: str
    created_at_ms: int


class PushSubscriptionStore(ABC):
    """The subscriptions; every method takes checked arguments (lobby.players)."""

    @abstractmethod
    async def add(self, member_id: str, subscription: PushSubscription) -> bool:
        """Store it as the member's (replacing the endpoint's row, whoever's, and past the limit
        the member's oldest); False when the member has no directory entry (nothing stored)."""

    @abstractmethod
    async def remove(self, member_id: str, endpoint: str) -> None:
        """Forget the member's subscription with this endpoint (idempotent)."""

    @abstractmethod
    async def remove_endpoint(self, endpoint: str) -> None:
        """Forget the subscription with this endpoint, whoever's (idempotent)."""

    @abstractmethod
    async def listed(self, member_id: str) -> list[PushSubscription]:
        """The member's subscriptions, newest first."""

    @abstractmethod
    async def forget(self, member_id: str) -> None:
        """Delete every subscription of the member (erasure)."""


class MemoryPushSubscriptionStore(PushSubscriptionStore):
    """The subscriptions in this process (no database: one lobby replica). Whether a member has
    a directory entry is the caller's check (lobby.players)."""

    def __init__(self) -> None:
        self._owner: dict[str, str] = {}  # endpoint -> member
        self._of: dict[str, dict[str, PushSubscription]] = {}  # member -> endpoint -> it (oldest first)

    async def add(self, member_id: str, subscription: PushSubscription) -> bool:
        await self.remove_endpoint(subscription.endpoint)
        mine = self._of.setdefault(member_id, {})
        while len(mine) >= MAX_PUSH_SUBSCRIPTIONS:
            oldest = min(mine.values(), key=lambda s: (s.created_at_ms, s.endpoint))
            del mine[oldest.endpoint]
            del self._owner[oldest.endpoint]
        mine[subscription.endpoint] = subscription
        self._owner[subscription.endpoint] = member_id
        return True

    async def remove(self, member_id: str, endpoint: str) -> None:
        if self._owner.get(endpoint) == member_id:
            await self.remove_endpoint(endpoint)

    async def remove_endpoint(self, endpoint: str) -> None:
        owner = self._owner.pop(endpoint, None)
        if owner is not None:
            self._of[owner].pop(endpoint, None)

    async def listed(self, member_id: str) -> list[PushSubscription]:
        return sorted(self._of.get(member_id, {}).values(),
                      key=lambda s: (-s.created_at_ms, s.endpoint))

    async def forget(self, member_id: str) -> None:
        for endpoint in self._of.pop(member_id, {}):
            self._owner.pop(endpoint, None)


_unavailable = unavailable_when(POSTGRES_DOWN, "push subscriptions store")

# The member's directory row, locked for the transaction (see lobby.relations): their
# subscriptions change one after the other, so the limit is exact.
_LOCK_MEMBER = "SELECT true FROM lobby_member WHERE member_id = $1 FOR NO KEY UPDATE"


class PostgresPushSubscriptionStore(PushSubscriptionStore):
    """``lobby_push_subscription`` on the lobby store's pool (which closes it)."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @_unavailable
    async def add(self, member_id: str, subscription: PushSubscription) -> bool:
        async with self.pool.acquire() as connection, connection.transaction():
            if not await connection.fetchval(_LOCK_MEMBER, member_id):
                return False
            await connection.execute(
                "DELETE FROM lobby_push_subscription WHERE endpoint = $1", subscription.endpoint)
            # Past the limit, the member's oldest go (keeping MAX - 1 for the new one).
            await connection.execute(
                "DELETE FROM lobby_push_subscription WHERE endpoint IN ("
                "  SELECT endpoint FROM lobby_push_subscription WHERE member_id = $1"
                "  ORDER BY created_at_ms DESC, endpoint DESC OFFSET $2)",
                member_id, MAX_PUSH_SUBSCRIPTIONS - 1)
            await connection.execute(
                "INSERT INTO lobby_push_subscription (endpoint, member_id, p256dh, auth, created_at_ms) "
                "VALUES ($1, $2, $3, $4, $5)", subscription.endpoint, member_id, subscription.p256dh,
                subscription.auth, subscription.created_at_ms)
        return True

    @_unavailable
    async def remove(self, member_id: str, endpoint: str) -> None:
        await self.pool.execute(
            "DELETE FROM lobby_push_subscription WHERE endpoint = $1 AND member_id = $2",
            endpoint, member_id)

    @_unavailable
    async def remove_endpoint(self, endpoint: str) -> None:
        await self.pool.execute("DELETE FROM lobby_push_subscription WHERE endpoint = $1", endpoint)

    @_unavailable
    async def listed(self, member_id: str) -> list[PushSubscription]:
        rows = await self.pool.fetch(
            "SELECT endpoint, p256dh, auth, created_at_ms FROM lobby_push_subscription "
            "WHERE member_id = $1 ORDER BY created_at_ms DESC, endpoint", member_id)
        return [PushSubscription(row["endpoint"], row["p256dh"], row["auth"], row["created_at_ms"])
                for row in rows]

    async def forget(self, member_id: str) -> None:
        """Nothing to do: deleting the member's directory entry cascades to their rows."""


def push_subscriptions_for(store: LobbyStore) -> PushSubscriptionStore:
    """The subscriptions beside a lobby store: on its Postgres pool when it has one, else in memory."""
    if isinstance(store, PostgresLobbyStore):
        return PostgresPushSubscriptionStore(store.pool)
    return MemoryPushSubscriptionStore()
