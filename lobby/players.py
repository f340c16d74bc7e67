"""PlayersService's use cases: player pages, following, blocking, settings and invitations.

It knows no gRPC: it works on the lobby's stores, which :class:`~lobby.service.Lobby` holds
(the games, the member directory, lobby.relations and lobby.invitations), so that seating and
relations read the same blocks. The caller is always a member id (the gateway's), any other
player their public player id; a text that cannot be a player id names nobody, as an unknown
or erased one does (PLAYER_NOT_FOUND).

A member who blocked another hides from them what a page shows of being around: to the blocked
one their show_online reads false and they play nowhere. Whether a member is online is not
here at all: it is the gateways' soft state (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from lobby import inputs
from lobby.invitations import INVITATION_MS, Invited
from lobby.members import is_player_id
from lobby.models import Game, PlayerName
from lobby.push_subscriptions import PushSubscription
from lobby.relations import Added, Kind
from lobby.service import Lobby, blocked
from lobby.store import seats_any
from services.rpc.errors import Reason, ServiceError

INVITATIONS_LISTED = 50  # ListInvitations' most
INVITATION_CANDIDATES = 200  # the newest rows read to find them (most hold, in practice)
MAX_ENDPOINT = 1024  # a push endpoint's characters (browsers' are a few hundred)
MAX_PUSH_KEY = 128  # a subscription key's characters (p256dh is 87 in base64url, auth 22)


@dataclass(frozen=True)
class PlayerPage:
    """A player as a viewer sees them (GetPlayer)."""

    player: PlayerName
    member_id: str
    show_online: bool
    playing: tuple[str, ...]
    following: bool
    blocked: bool


@dataclass(frozen=True)
class Followed:
    """A player a member follows (ListFollowing); ``playing`` "" when none."""

    player: PlayerName
    show_online: bool
    playing: str
    followed_at_ms: int


@dataclass(frozen=True)
class Invitation:
    """An invitation that holds, as the invitee reads it."""

    game: Game
    by: PlayerName
    at_ms: int


@dataclass(frozen=True)
class InviteResult:
    created: bool
    invitee_member_id: str
    game: Game
    by: PlayerName
    listed: bool  # ListInvitations holds it now: only then is the invitee told


def player_not_found(player: str) -> ServiceError:
    return ServiceError(Reason.PLAYER_NOT_FOUND, "Player not found", player=player)


def unknown_member(field: str = "member_id") -> ServiceError:
    """A caller the directory does not know (never made by EnsureMember, or erased): their
    relations would reference nobody."""
    return ServiceError(Reason.INVALID_ARGUMENT,
                        f"{field} names no member (LobbyService.EnsureMember makes one)",
                        field=field)


def _player_text(value: str) -> str:
    """The ``player`` field: required; its shape is checked where it is looked up."""
    if not value:
        raise ServiceError(Reason.INVALID_ARGUMENT, "player is required", field="player")
    return value


def _push_text(value: str, field: str, limit: int) -> str:
    """A subscription's field: required, bounded, printable ASCII (the gateway checked its
    meaning: an https URL, base64url keys)."""
    if not value:
        raise ServiceError(Reason.INVALID_ARGUMENT, f"{field} is required", field=field)
    if len(value) > limit:
        raise ServiceError(Reason.INVALID_ARGUMENT, f"{field} is longer than {limit} characters",
                           field=field)
    if not (value.isascii() and value.isprintable()):
        raise ServiceError(Reason.INVALID_ARGUMENT, f"{field} must be printable ASCII", field=field)
    return value


_SELF = {Kind.FOLLOW: "Cannot follow yourself", Kind.BLOCK: "Cannot block yourself"}


class Players:
    """The use cases, one method per PlayersService call."""

    def __init__(self, lobby: Lobby):
        self.lobby = lobby
        self.store = lobby.store
        self.members = lobby.members
        self.relations = lobby.relations
        self.invitations = lobby.invitations

    async def _find(self, player: str) -> tuple[str, PlayerName]:
        """The member id and name of ``player``; PLAYER_NOT_FOUND when it names nobody."""
        found = await self.members.find(player) if is_player_id(player) else None
        if found is None:
            raise player_not_found(player)
        return found

    async def _known(self, member_id: str) -> PlayerName:
        """The caller's own entry; INVALID_ARGUMENT when they have none."""
        named = await self.members.named([member_id])
        if member_id not in named:
            raise unknown_member()
        return named[member_id]

    # -- pages and settings ---------------------------------------------------------------

    async def get_player(self, viewer_member_id: str, player: str) -> PlayerPage:
        viewer = inputs.member_id(viewer_member_id, "viewer_member_id")
        member_id, name = await self._find(_player_text(player))
        between = await self.relations.between(viewer, member_id)
        shown = (await self.relations.shown_online([member_id]))[member_id]
        hidden = between.blocked_by  # the player blocked the viewer: as if they hid it all
        playing = () if hidden else tuple((await self.store.playing([member_id])).get(member_id, ()))
        return PlayerPage(name, member_id, show_online=shown and not hidden, playing=playing,
                          following=between.following, blocked=between.blocked)

    async def get_settings(self, member_id: str) -> bool:
        """The member's show_online (true for one who never changed it)."""
        member_id = inputs.member_id(member_id)
        return (await self.relations.shown_online([member_id]))[member_id]

    async def update_settings(self, member_id: str, show_online: bool | None) -> bool:
        """Change the settings given (None: unchanged); show_online after the change."""
        member_id = inputs.member_id(member_id)
        if show_online is None:
            return (await self.relations.shown_online([member_id]))[member_id]
        await self._known(member_id)
        if not await self.relations.set_show_online(member_id, show_online):
            raise unknown_member()  # erased since the look-up
        return show_online

    # -- following and blocking -----------------------------------------------------------

    async def add(self, kind: Kind, member_id: str, player: str) -> None:
        """Follow or block ``player`` (idempotent)."""
        member_id = inputs.member_id(member_id)
        other, _ = await self._find(_player_text(player))
        if other == member_id:
            raise ServiceError(Reason.SELF_RELATION, _SELF[kind], player=player)
        await self._known(member_id)
        added = await self.relations.add(kind, member_id, other, self.lobby.clock())
        if added is Added.NO_MEMBER:
            raise unknown_member()
        if added is Added.NO_OTHER:
            raise player_not_found(player)

    async def remove(self, kind: Kind, member_id: str, player: str) -> None:
        """Unfollow or unblock ``player`` (idempotent: a player who names nobody too)."""
        member_id = inputs.member_id(member_id)
        player = _player_text(player)
        found = await self.members.find(player) if is_player_id(player) else None
        if found is not None:
            await self.relations.remove(kind, member_id, found[0])

    async def list_following(self, member_id: str) -> list[Followed]:
        """Most recently followed first; erased players left out."""
        member_id = inputs.member_id(member_id)
        follows = await self.relations.listed(Kind.FOLLOW, member_id)
        others = [relation.member_id for relation in follows]
        named = await self.members.named(others)
        shown = await self.relations.shown_online(named)
        hiding = await self.relations.blockers(member_id, named)
        playing = await self.store.playing(set(named) - hiding)
        return [Followed(named[other], show_online=shown[other] and other not in hiding,
                         playing=(playing.get(other) or [""])[0], followed_at_ms=relation.at_ms)
                for relation in follows if (other := relation.member_id) in named]

    async def list_blocked(self, member_id: str) -> list[PlayerName]:
        """Most recently blocked first; erased players left out."""
        member_id = inputs.member_id(member_id)
        blocks = await self.relations.listed(Kind.BLOCK, member_id)
        named = await self.members.named(relation.member_id for relation in blocks)
        return [named[relation.member_id] for relation in blocks if relation.member_id in named]

    # -- invitations ----------------------------------------------------------------------

    async def invite(self, game_id: str, member_id: str, player: str) -> InviteResult:
        """The member, seated at the game in the lobby, invites ``player`` (see the proto for
        the order of the refusals)."""
        member_id = inputs.member_id(member_id)
        player = _player_text(player)
        game = await self._game(game_id)
        if game.seat_of(member_id) is None:
            raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", table_id=game.id)
        if game.started:
            raise ServiceError(Reason.GAME_STARTED, "Game already started", game_id=game.id)
        if game.full:
            raise ServiceError(Reason.GAME_FULL, "Game is full", game_id=game.id)
        invitee, _ = await self._find(player)
        if invitee == member_id:
            raise ServiceError(Reason.SELF_RELATION, "Cannot invite yourself", player=player)
        between = await self.relations.between(member_id, invitee)
        if between.blocked or between.blocked_by:
            raise blocked()
        by = await self._known(member_id)
        created = listed = False
        if game.seat_of(invitee) is None:
            now = self.lobby.clock()
            invited = await self.invitations.invite(game.id, member_id, invitee, now,
                                                    now - INVITATION_MS)
            if invited is Invited.GONE:  # the game went, or the invitee was erased, meanwhile
                await self._game(game.id)
                raise player_not_found(player)
            created = invited is Invited.CREATED
            # As list_invitations: not while someone sits there apart from the invitee.
            listed = not seats_any(game, await self.relations.apart(invitee))
        return InviteResult(created, invitee, (await self.lobby.with_players([game]))[0], by, listed)

    async def _game(self, game_id: str) -> Game:
        canonical = inputs.game_id(game_id, "game_id")
        game = await self.store.get(canonical) if canonical is not None else None
        if game is None:
            raise ServiceError(Reason.GAME_NOT_FOUND, "Game not found")
        return game

    async def list_invitations(self, member_id: str) -> list[Invitation]:
        """The invitations that hold: the game in the lobby with a seat open, the member not
        seated there, younger than INVITATION_HOURS, and nobody at it (nor the inviter) one of
        the members the invitee blocked or who blocked them (they could not join); newest
        first, at most INVITATIONS_LISTED."""
        member_id = inputs.member_id(member_id)
        now = self.lobby.clock()
        rows = await self.invitations.of_invitee(member_id, now - INVITATION_MS,
                                                 INVITATION_CANDIDATES)
        games = {game.id: game for game in await self.store.get_many([r.game_id for r in rows])}
        apart = await self.relations.apart(member_id)
        holding = [(row, game) for row in rows
                   if (game := games.get(row.game_id)) is not None and not game.started
                   and not game.full and game.seat_of(member_id) is None
                   and row.inviter_id not in apart and not seats_any(game, apart)]
        named = await self.members.named(row.inviter_id for row, _ in holding)
        holding = [(row, game) for row, game in holding if row.inviter_id in named]
        holding = holding[:INVITATIONS_LISTED]
        shown = await self.lobby.with_players([game for _, game in holding])
        return [Invitation(game, named[row.inviter_id], row.at_ms)
                for (row, _), game in zip(holding, shown, strict=True)]

    # -- push subscriptions ---------------------------------------------------------------

    async def add_push_subscription(self, member_id: str, endpoint: str, p256dh: str,
                                    auth: str) -> None:
        """Store the member's subscription (see the proto: an endpoint is one browser's)."""
        member_id = inputs.member_id(member_id)
        subscription = PushSubscription(_push_text(endpoint, "endpoint", MAX_ENDPOINT),
                                         _push_text(p256dh, "p256dh", MAX_PUSH_KEY),
                                         _push_text(auth, "auth", MAX_PUSH_KEY), self.lobby.clock())
        await self._known(member_id)
        if not await self.lobby.push_subscriptions.add(member_id, subscription):
            raise unknown_member()  # erased since the look-up

    async def remove_push_subscription(self, member_id: str, endpoint: str) -> None:
        await self.lobby.push_subscriptions.remove(
            inputs.member_id(member_id), _push_text(endpoint, "endpoint", MAX_ENDPOINT))

    async def remove_endpoint(self, endpoint: str) -> None:
        await self.lobby.push_subscriptions.remove_endpoint(
            _push_text(endpoint, "endpoint", MAX_ENDPOINT))

    async def list_push_subscriptions(self, member_id: str) -> list[PushSubscription]:
        return await self.lobby.push_subscriptions.listed(inputs.member_id(member_id))
