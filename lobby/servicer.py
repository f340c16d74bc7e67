"""LobbyService over gRPC: messages in, :class:`~lobby.service.Lobby` calls, messages out.

Errors are ServiceErrors raised by the domain; the shared server's interceptor sends them with
their ErrorInfo. The one exception is FindSeat's NOT_SEATED, which the proto sends with
NOT_FOUND (a look-up) rather than the reason's usual PERMISSION_DENIED.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
from google.protobuf import timestamp_pb2

from lobby import practice
from lobby.models import Game, GameType, Seat
from lobby.service import MEMBER_GAMES_LIMIT, OPEN_GAMES_LIMIT, Lobby
from services.rpc.errors import Reason, ServiceError
from services.rpc.server import Context
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc


class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def _game(self, game: Game, member_ids: bool = True) -> lobby_pb2.Game:
        """The game's message, each person's seat with their player id (lobby.members)."""
        return game_message((await self.lobby.with_players([game]))[0], member_ids=member_ids)

    async def _games(self, games: list[Game]) -> list[lobby_pb2.Game]:
        return [game_message(game) for game in await self.lobby.with_players(games)]

    async def _seats(self, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
        return await self.lobby.with_seat_players(seats)

    async def ListGameTypes(self, request: lobby_pb2.ListGameTypesRequest,
                            context: Context) -> lobby_pb2.ListGameTypesResponse:
        types = await self.lobby.list_game_types()
        return lobby_pb2.ListGameTypesResponse(game_types=[game_type_message(t) for t in types])

    async def CreateGame(self, request: lobby_pb2.CreateGameRequest,
                         context: Context) -> lobby_pb2.CreateGameResponse:
        game = await self.lobby.create_game(request.member_id, request.display_name,
                                            request.game_type, request.options_json,
                                            open=request.open, rating=request.rating,
                                            request_id=request.request_id,
                                            spectators=not request.no_spectators)
        return lobby_pb2.CreateGameResponse(game=await self._game(game))

    async def JoinGame(self, request: lobby_pb2.JoinGameRequest,
                       context: Context) -> lobby_pb2.JoinGameResponse:
        result = await self.lobby.join_game(request.member_id, request.display_name,
                                            request.join_code, ratings=dict(request.ratings))
        return lobby_pb2.JoinGameResponse(game=await self._game(result.game), started=result.started)

    async def PreviewGame(self, request: lobby_pb2.PreviewGameRequest,
                          context: Context) -> lobby_pb2.PreviewGameResponse:
        game = await self.lobby.preview_game(request.join_code)
        # Public (anyone with the code): the seats without the members' ids.
        return lobby_pb2.PreviewGameResponse(game=await self._game(game, member_ids=False))

    async def GetGame(self, request: lobby_pb2.GetGameRequest,
                      context: Context) -> lobby_pb2.GetGameResponse:
        game = await self.lobby.get_game(request.game_id)
        return lobby_pb2.GetGameResponse(game=await self._game(game))

    async def WatchGame(self, request: lobby_pb2.WatchGameRequest,
                        context: Context) -> AsyncIterator[lobby_pb2.WatchGameResponse]:
        async for game in self.lobby.watch_game(request.game_id):
            yield lobby_pb2.WatchGameResponse(game=await self._game(game))

    async def ListMemberGames(self, request: lobby_pb2.ListMemberGamesRequest,
                              context: Context) -> lobby_pb2.ListMemberGamesResponse:
        if request.page_size < 0:
            raise ServiceError(Reason.INVALID_ARGUMENT, "page_size must be 0 or more",
                               field="page_size")
        games = await self.lobby.list_member_games(request.member_id,
                                                   request.page_size or MEMBER_GAMES_LIMIT)
        return lobby_pb2.ListMemberGamesResponse(games=await self._games(games))

    async def GetSeating(self, request: lobby_pb2.GetSeatingRequest,
                         context: Context) -> lobby_pb2.GetSeatingResponse:
        seats = await self.lobby.get_seating(request.table_id)
        return lobby_pb2.GetSeatingResponse(seats=[seat_message(s) for s in await self._seats(seats)])

    async def FindSeat(self, request: lobby_pb2.FindSeatRequest,
                       context: Context) -> lobby_pb2.FindSeatResponse:
        try:
            seat = await self.lobby.find_seat(request.table_id, request.member_id)
        except ServiceError as error:
            if error.reason is not Reason.NOT_SEATED:
                raise
            not_found = ServiceError(error.reason, error.message,
                                     status_code=grpc.StatusCode.NOT_FOUND)
            not_found.metadata.update(error.metadata)
            raise not_found from None
        return lobby_pb2.FindSeatResponse(seat=seat_message((await self._seats((seat,)))[0]))

    async def EraseMember(self, request: lobby_pb2.EraseMemberRequest,
                          context: Context) -> lobby_pb2.EraseMemberResponse:
        table_ids = await self.lobby.erase_member(request.member_id)
        return lobby_pb2.EraseMemberResponse(table_ids=table_ids)

    async def Rematch(self, request: lobby_pb2.RematchRequest,
                      context: Context) -> lobby_pb2.RematchResponse:
        result = await self.lobby.rematch(request.member_id, request.display_name,
                                          request.game_id, request_id=request.request_id)
        return lobby_pb2.RematchResponse(game=await self._game(result.game), created=result.created,
                                         started=result.started)

    async def ListOpenGames(self, request: lobby_pb2.ListOpenGamesRequest,
                            context: Context) -> lobby_pb2.ListOpenGamesResponse:
        if not 0 <= request.limit <= OPEN_GAMES_LIMIT:
            raise ServiceError(Reason.INVALID_ARGUMENT, f"limit must be from 0 to {OPEN_GAMES_LIMIT}",
                               field="limit")
        games = await self.lobby.list_open_games(request.game_type, request.limit)
        return lobby_pb2.ListOpenGamesResponse(games=await self._games(games))

    async def ListWatchableGames(self, request: lobby_pb2.ListWatchableGamesRequest,
                                 context: Context) -> lobby_pb2.ListWatchableGamesResponse:
        games = await self.lobby.list_watchable_games(request.game_type, request.limit)
        return lobby_pb2.ListWatchableGamesResponse(games=await self._games(games))

    async def MarkFinished(self, request: lobby_pb2.MarkFinishedRequest,
                           context: Context) -> lobby_pb2.MarkFinishedResponse:
        return lobby_pb2.MarkFinishedResponse(found=await self.lobby.mark_finished(request.table_id))

    async def WatchOpenGames(self, request: lobby_pb2.WatchOpenGamesRequest,
                             context: Context) -> AsyncIterator[lobby_pb2.WatchOpenGamesResponse]:
        async for games in self.lobby.watch_open_games(request.game_type):
            yield lobby_pb2.WatchOpenGamesResponse(games=await self._games(games))

    async def QuickMatch(self, request: lobby_pb2.QuickMatchRequest,
                         context: Context) -> lobby_pb2.QuickMatchResponse:
        result = await self.lobby.quick_match(request.member_id, request.display_name,
                                              request.game_type, request.options_json,
                                              request.rating, request_id=request.request_id)
        return lobby_pb2.QuickMatchResponse(game=await self._game(result.game), created=result.created,
                                            started=result.started)

    async def SetGameOpen(self, request: lobby_pb2.SetGameOpenRequest,
                          context: Context) -> lobby_pb2.SetGameOpenResponse:
        game = await self.lobby.set_open(request.game_id, request.member_id, request.open)
        return lobby_pb2.SetGameOpenResponse(game=await self._game(game))

    async def AddBot(self, request: lobby_pb2.AddBotRequest,
                     context: Context) -> lobby_pb2.AddBotResponse:
        result = await self.lobby.add_bot(request.game_id, request.member_id, request.seat_index,
                                          request.level, request_id=request.request_id)
        return lobby_pb2.AddBotResponse(game=await self._game(result.game), started=result.started)

    async def ChangeSeat(self, request: lobby_pb2.ChangeSeatRequest,
                         context: Context) -> lobby_pb2.ChangeSeatResponse:
        game = await self.lobby.change_seat(request.game_id, request.member_id, request.seat_index)
        return lobby_pb2.ChangeSeatResponse(game=await self._game(game))

    async def RemoveBot(self, request: lobby_pb2.RemoveBotRequest,
                        context: Context) -> lobby_pb2.RemoveBotResponse:
        game = await self.lobby.remove_bot(request.game_id, request.member_id, request.seat_index,
                                           request_id=request.request_id)
        return lobby_pb2.RemoveBotResponse(game=await self._game(game))

    async def LeaveGame(self, request: lobby_pb2.LeaveGameRequest,
                        context: Context) -> lobby_pb2.LeaveGameResponse:
        game = await self.lobby.leave_game(request.game_id, request.member_id,
                                           request_id=request.request_id)
        return lobby_pb2.LeaveGameResponse(game=await self._game(game) if game is not None else None)

    async def ReturnSeat(self, request: lobby_pb2.ReturnSeatRequest,
                         context: Context) -> lobby_pb2.ReturnSeatResponse:
        game = await self.lobby.return_seat(request.game_id, request.member_id,
                                            request_id=request.request_id)
        return lobby_pb2.ReturnSeatResponse(game=await self._game(game))

    async def TakeOverSeat(self, request: lobby_pb2.TakeOverSeatRequest,
                           context: Context) -> lobby_pb2.TakeOverSeatResponse:
        game = await self.lobby.take_over_seat(request.game_id, request.seat_index)
        return lobby_pb2.TakeOverSeatResponse(game=await self._game(game))

    async def TakeBack(self, request: lobby_pb2.TakeBackRequest,
                       context: Context) -> lobby_pb2.TakeBackResponse:
        revision = await practice.take_back(self.lobby, request.game_id, request.member_id)
        return lobby_pb2.TakeBackResponse(revision=revision)


    async def EnsureMember(self, request: lobby_pb2.EnsureMemberRequest,
                           context: Context) -> lobby_pb2.EnsureMemberResponse:
        player = await self.lobby.ensure_member(request.member_id, request.display_name)
        return lobby_pb2.EnsureMemberResponse(player=player)

    async def GetPlayers(self, request: lobby_pb2.GetPlayersRequest,
                         context: Context) -> lobby_pb2.GetPlayersResponse:
        found = await self.lobby.get_players(list(request.players))
        return lobby_pb2.GetPlayersResponse(players=[
            lobby_pb2.PlayerName(player=p.player, display_name=p.name) for p in found])


def register(server: grpc.aio.Server, lobby: Lobby) -> None:
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(LobbyServicer(lobby), server)


def game_type_message(game_type: GameType) -> lobby_pb2.GameType:
    return lobby_pb2.GameType(id=game_type.id, name=game_type.name,
                              description=game_type.description, players=game_type.players,
                              options_schema_json=game_type.options_schema_json)


def seat_message(seat: Seat, member_id: bool = True) -> lobby_pb2.SeatAssignment:
    """The seat; without its member id (left empty) when ``member_id`` is false."""
    return lobby_pb2.SeatAssignment(seat=seat.seat, seat_index=seat.index,
                                    member_id=seat.member_id if member_id else "",
                                    display_name=seat.display_name, erased=seat.erased,
                                    bot_level=seat.bot, took_over=seat.took_over,
                                    rating=seat.rating, player=seat.player)


def game_message(game: Game, member_ids: bool = True) -> lobby_pb2.Game:
    created_at, updated_at = timestamp_pb2.Timestamp(), timestamp_pb2.Timestamp()
    created_at.FromMilliseconds(game.created_at_ms)
    updated_at.FromMilliseconds(game.changed_at_ms)
    status = lobby_pb2.GAME_STATUS_STARTED if game.started else lobby_pb2.GAME_STATUS_LOBBY
    return lobby_pb2.Game(
        id=game.id, game_type=game.game_type, join_code=game.join_code, status=status,
        options_json=game.options_json,
        players=[seat_message(s, member_id=member_ids) for s in game.seats],
        seats_total=game.seats_total, created_at=created_at, updated_at=updated_at,
        open=game.open, rating=game.rating, no_spectators=not game.spectators)

