"""PlayersService over gRPC: messages in, :class:`~lobby.players.Players` calls, messages out.

Served by the lobby's process beside LobbyService (lobby.server). Errors are ServiceErrors
raised by the domain; the shared server's interceptor sends them with their ErrorInfo.
"""

from __future__ import annotations

import grpc
from google.protobuf import timestamp_pb2

from lobby.models import PlayerName
from lobby.players import Players
from lobby.relations import Kind
from lobby.servicer import game_message
from services.rpc.server import Context
from tavolo.lobby.v1 import lobby_pb2, players_pb2, players_pb2_grpc


def _timestamp(ms: int) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(ms)
    return stamp


def _name(name: PlayerName) -> lobby_pb2.PlayerName:
    return lobby_pb2.PlayerName(player=name.player, display_name=name.name)


class PlayersServicer(players_pb2_grpc.PlayersServiceServicer):
    def __init__(self, players: Players) -> None:
        self.players = players

    async def GetPlayer(self, request: players_pb2.GetPlayerRequest,
                        context: Context) -> players_pb2.GetPlayerResponse:
        page = await self.players.get_player(request.viewer_member_id, request.player)
        return players_pb2.GetPlayerResponse(
            player=page.player.player, display_name=page.player.name, member_id=page.member_id,
            show_online=page.show_online, playing=page.playing, following=page.following,
            blocked=page.blocked)

    async def GetSettings(self, request: players_pb2.GetSettingsRequest,
                          context: Context) -> players_pb2.GetSettingsResponse:
        shown = await self.players.get_settings(request.member_id)
        return players_pb2.GetSettingsResponse(settings=players_pb2.Settings(show_online=shown))

    async def UpdateSettings(self, request: players_pb2.UpdateSettingsRequest,
                             context: Context) -> players_pb2.UpdateSettingsResponse:
        shown = await self.players.update_settings(
            request.member_id, request.show_online if request.HasField("show_online") else None)
        return players_pb2.UpdateSettingsResponse(settings=players_pb2.Settings(show_online=shown))

    async def Follow(self, request: players_pb2.FollowRequest,
                     context: Context) -> players_pb2.FollowResponse:
        await self.players.add(Kind.FOLLOW, request.member_id, request.player)
        return players_pb2.FollowResponse()

    async def Unfollow(self, request: players_pb2.UnfollowRequest,
                       context: Context) -> players_pb2.UnfollowResponse:
        await self.players.remove(Kind.FOLLOW, request.member_id, request.player)
        return players_pb2.UnfollowResponse()

    async def ListFollowing(self, request: players_pb2.ListFollowingRequest,
                            context: Context) -> players_pb2.ListFollowingResponse:
        followed = await self.players.list_following(request.member_id)
        return players_pb2.ListFollowingResponse(players=[
            players_pb2.FollowedPlayer(player=f.player.player, display_name=f.player.name,
                                       show_online=f.show_online, playing=f.playing,
                                       followed_at=_timestamp(f.followed_at_ms))
            for f in followed])

    async def Block(self, request: players_pb2.BlockRequest,
                    context: Context) -> players_pb2.BlockResponse:
        await self.players.add(Kind.BLOCK, request.member_id, request.player)
        return players_pb2.BlockResponse()

    async def Unblock(self, request: players_pb2.UnblockRequest,
                      context: Context) -> players_pb2.UnblockResponse:
        await self.players.remove(Kind.BLOCK, request.member_id, request.player)
        return players_pb2.UnblockResponse()

    async def ListBlocked(self, request: players_pb2.ListBlockedRequest,
                          context: Context) -> players_pb2.ListBlockedResponse:
        blocked = await self.players.list_blocked(request.member_id)
        return players_pb2.ListBlockedResponse(players=[_name(name) for name in blocked])

    async def Invite(self, request: players_pb2.InviteRequest,
                     context: Context) -> players_pb2.InviteResponse:
        result = await self.players.invite(request.game_id, request.member_id, request.player)
        return players_pb2.InviteResponse(created=result.created,
                                          invitee_member_id=result.invitee_member_id,
                                          game=game_message(result.game), by=_name(result.by),
                                          listed=result.listed)

    async def ListInvitations(self, request: players_pb2.ListInvitationsRequest,
                              context: Context) -> players_pb2.ListInvitationsResponse:
        invitations = await self.players.list_invitations(request.member_id)
        return players_pb2.ListInvitationsResponse(invitations=[
            players_pb2.Invitation(game=game_message(i.game), by=_name(i.by),
                                   invited_at=_timestamp(i.at_ms))
            for i in invitations])

    async def AddPushSubscription(self, request: players_pb2.AddPushSubscriptionRequest,
                                  context: Context) -> players_pb2.AddPushSubscriptionResponse:
        await self.players.add_push_subscription(request.member_id, request.endpoint,
                                                 request.p256dh, request.auth)
        return players_pb2.AddPushSubscriptionResponse()

    async def RemovePushSubscription(self, request: players_pb2.RemovePushSubscriptionRequest,
                                     context: Context) -> players_pb2.RemovePushSubscriptionResponse:
        await self.players.remove_push_subscription(request.member_id, request.endpoint)
        return players_pb2.RemovePushSubscriptionResponse()

    async def RemoveEndpoint(self, request: players_pb2.RemoveEndpointRequest,
                             context: Context) -> players_pb2.RemoveEndpointResponse:
        await self.players.remove_endpoint(request.endpoint)
        return players_pb2.RemoveEndpointResponse()

    async def ListPushSubscriptions(self, request: players_pb2.ListPushSubscriptionsRequest,
                                    context: Context) -> players_pb2.ListPushSubscriptionsResponse:
        subscriptions = await self.players.list_push_subscriptions(request.member_id)
        return players_pb2.ListPushSubscriptionsResponse(subscriptions=[
            players_pb2.PushSubscription(endpoint=s.endpoint, p256dh=s.p256dh, auth=s.auth,
                                         created_at=_timestamp(s.created_at_ms))
            for s in subscriptions])


def register(server: grpc.aio.Server, players: Players) -> None:
    players_pb2_grpc.add_PlayersServiceServicer_to_server(PlayersServicer(players), server)
