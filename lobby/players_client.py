"""``PlayersClient``: PlayersService (player pages, following, blocking, settings,
invitations, push subscriptions) for the gateway, proto messages in and out.

The lobby's process serves PlayersService beside LobbyService, so the client is built from the
same address (LOBBY_ADDR). Every method raises :class:`~services.rpc.errors.ServiceError` with
the service's reason (PLAYER_NOT_FOUND, BLOCKED, SELF_RELATION, TOO_MANY_RELATIONS, ...), never
a raw ``grpc.RpcError``. Every call is idempotent by its arguments, so the channel retries each
while the lobby is briefly unreachable; an Invite retried after its first attempt landed answers
``created`` false (the invitation is listed all the same).
"""

from __future__ import annotations

from services.components import PLAYERS_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.lobby.v1 import lobby_pb2, players_pb2, players_pb2_grpc

IDEMPOTENT = ("GetPlayer", "GetSettings", "UpdateSettings", "Follow", "Unfollow", "ListFollowing",
              "Block", "Unblock", "ListBlocked", "Invite", "ListInvitations", "AddPushSubscription",
              "RemovePushSubscription", "RemoveEndpoint", "ListPushSubscriptions")


class PlayersClient(RpcClient):
    """An async client of PlayersService at ``address`` (the lobby's). Close it, or use
    ``async with``; ``policy`` as for LobbyClient."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        super().__init__(address, PLAYERS_SERVICE, idempotent=IDEMPOTENT,
                         timeout_seconds=timeout_seconds, policy=policy, credentials=credentials)
        self._stub = players_pb2_grpc.PlayersServiceStub(self._channel)

    async def get_player(self, viewer_member_id: str, player: str) -> players_pb2.GetPlayerResponse:
        """``player`` (a public player id) as the member ``viewer_member_id`` sees them."""
        response: players_pb2.GetPlayerResponse = await self._call(
            self._stub.GetPlayer, players_pb2.GetPlayerRequest(
                viewer_member_id=viewer_member_id, player=player), read=True)
        return response

    async def get_settings(self, member_id: str) -> players_pb2.Settings:
        response = await self._call(self._stub.GetSettings,
                                    players_pb2.GetSettingsRequest(member_id=member_id), read=True)
        return response.settings

    async def update_settings(self, member_id: str, *,
                              show_online: bool | None = None) -> players_pb2.Settings:
        """Change the settings given (None: unchanged); all of them after the change."""
        request = players_pb2.UpdateSettingsRequest(member_id=member_id)
        if show_online is not None:
            request.show_online = show_online
        response = await self._call(self._stub.UpdateSettings, request)
        return response.settings

    async def follow(self, member_id: str, player: str) -> None:
        await self._call(self._stub.Follow, players_pb2.FollowRequest(member_id=member_id,
                                                                      player=player))

    async def unfollow(self, member_id: str, player: str) -> None:
        await self._call(self._stub.Unfollow, players_pb2.UnfollowRequest(member_id=member_id,
                                                                          player=player))

    async def list_following(self, member_id: str) -> list[players_pb2.FollowedPlayer]:
        """The players the member follows, most recently followed first."""
        response = await self._call(self._stub.ListFollowing,
                                    players_pb2.ListFollowingRequest(member_id=member_id), read=True)
        return list(response.players)

    async def block(self, member_id: str, player: str) -> None:
        await self._call(self._stub.Block, players_pb2.BlockRequest(member_id=member_id,
                                                                    player=player))

    async def unblock(self, member_id: str, player: str) -> None:
        await self._call(self._stub.Unblock, players_pb2.UnblockRequest(member_id=member_id,
                                                                        player=player))

    async def list_blocked(self, member_id: str) -> list[lobby_pb2.PlayerName]:
        """The players the member blocked, most recently blocked first."""
        response = await self._call(self._stub.ListBlocked,
                                    players_pb2.ListBlockedRequest(member_id=member_id), read=True)
        return list(response.players)

    async def invite(self, game_id: str, member_id: str, player: str) -> players_pb2.InviteResponse:
        """The member, seated at the game in the lobby, invites ``player``; ``created`` says
        whether this call made the invitation, ``listed`` whether the invitee could take it up
        now (tell the invitee only when both hold)."""
        response: players_pb2.InviteResponse = await self._call(
            self._stub.Invite, players_pb2.InviteRequest(game_id=game_id, member_id=member_id,
                                                         player=player))
        return response

    async def list_invitations(self, member_id: str) -> list[players_pb2.Invitation]:
        """The member's invitations that still hold, newest first (at most 50)."""
        response = await self._call(self._stub.ListInvitations,
                                    players_pb2.ListInvitationsRequest(member_id=member_id),
                                    read=True)
        return list(response.invitations)

    async def add_push_subscription(self, member_id: str, endpoint: str, p256dh: str,
                                    auth: str) -> None:
        """Store a Web Push subscription of the member (one more than 10 replaces the oldest)."""
        await self._call(self._stub.AddPushSubscription, players_pb2.AddPushSubscriptionRequest(
            member_id=member_id, endpoint=endpoint, p256dh=p256dh, auth=auth))

    async def remove_push_subscription(self, member_id: str, endpoint: str) -> None:
        await self._call(self._stub.RemovePushSubscription,
                         players_pb2.RemovePushSubscriptionRequest(member_id=member_id,
                                                                   endpoint=endpoint))

    async def remove_endpoint(self, endpoint: str) -> None:
        """Forget the endpoint, whoever's it is (the push service answered 404 or 410)."""
        await self._call(self._stub.RemoveEndpoint,
                         players_pb2.RemoveEndpointRequest(endpoint=endpoint))

    async def list_push_subscriptions(self, member_id: str) -> list[players_pb2.PushSubscription]:
        """The member's subscriptions, newest first."""
        response = await self._call(self._stub.ListPushSubscriptions,
                                    players_pb2.ListPushSubscriptionsRequest(member_id=member_id),
                                    read=True)
        return list(response.subscriptions)
