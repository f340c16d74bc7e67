"""Members: their public player ids and names (lobby.members) joined into the seats the lobby
answers, and erasing a member from every seating and every store of member data."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace

from lobby import inputs
from lobby.invitations import InvitationStore
from lobby.members import MemberDirectory, checked_member, player_ids
from lobby.models import Game, PlayerName, Seat
from lobby.push_subscriptions import PushSubscriptionStore
from lobby.relations import RelationStore
from lobby.store import LobbyStore

log = logging.getLogger(__name__)


def new_member_id() -> str:
    """The id an erased seating gets: random, and recognisably not anybody's login."""
    return f"deleted-{secrets.token_hex(16)}"


class Membership:
    """EnsureMember, GetPlayers, EraseMember, and the player ids of seats."""

    def __init__(self, store: LobbyStore, members: MemberDirectory, relations: RelationStore,
                 invitations: InvitationStore, push_subscriptions: PushSubscriptionStore,
                 new_member_id: Callable[[], str] = new_member_id):
        self.store = store
        self.members = members
        self.relations = relations
        self.invitations = invitations
        self.push_subscriptions = push_subscriptions
        self.new_member_id = new_member_id

    async def erase_member(self, member_id: str) -> list[str]:
        """Anonymize every seating of the member and forget their player id, follows, blocks,
        settings, invitations (of them and about them) and push subscriptions; the ids of the
        games touched."""
        member_id = inputs.member_id(member_id)
        touched = await self.store.erase_member(member_id, self.new_member_id)
        # Relations and invitations of and about the member: explicit in memory; in Postgres
        # forgetting the directory entry cascades to them (lobby/migrations/0008_relations.sql).
        await self.relations.forget(member_id)
        await self.invitations.forget(member_id)
        await self.push_subscriptions.forget(member_id)
        # After the seatings: a retry after a failure in between finds the entry still there.
        await self.members.forget(member_id)
        if touched:
            log.info("member erased from %d game(s)", len(touched))
        return touched

    async def ensure_member(self, member_id: str, display_name: str) -> str:
        """The member's public player id (made on the first call); the name is kept current."""
        return await self.members.ensure(*checked_member(member_id, display_name))

    async def get_players(self, players: Sequence[str]) -> list[PlayerName]:
        """The names of the known ones of ``players``, in the order asked."""
        wanted = player_ids(players)
        return await self.members.names(wanted) if wanted else []

    async def with_players(self, games: Sequence[Game]) -> list[Game]:
        """``games`` with each person's seat carrying their player id (one look-up for all)."""
        seats = await self.with_seat_players(tuple(seat for game in games for seat in game.seats))
        named, at = [], 0
        for game in games:
            named.append(replace(game, seats=seats[at:at + len(game.seats)]))
            at += len(game.seats)
        return named

    async def with_seat_players(self, seats: Sequence[Seat]) -> tuple[Seat, ...]:
        """``seats``, each person's with their player id: a bot's own seat and an erased
        member's have none (the erased seat's member id is nobody's)."""
        people = {seat.member_id for seat in seats if seat.is_person and not seat.erased}
        players = await self.members.players_of(people) if people else {}
        return tuple(replace(seat, player=players.get(seat.member_id, "")
                             if seat.is_person and not seat.erased else "") for seat in seats)
