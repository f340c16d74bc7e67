"""``LobbyClient``: the lobby's API for the gateway and stats, as plain dataclasses.

Every method raises :class:`~services.rpc.errors.ServiceError` with the lobby's reason
(GAME_NOT_FOUND, GAME_FULL, NOT_SEATED, ...), never a raw ``grpc.RpcError``. Look-ups and the
calls idempotent by their arguments or by their request id that are cheap (EraseMember,
LeaveGame, ReturnSeat, ...) are retried by the channel while the lobby is briefly unreachable;
a retry sends the same message, and so the same request id, which the caller gives (the gateway:
one per HTTP request) or this client draws. CreateGame, QuickMatch, Rematch, AddBot, RemoveBot
and JoinGame are sent once: the lobby that answers them UNAVAILABLE has retried the game
service behind it already, and retrying that again would keep a person waiting seconds for the
same 503 (tests/gateway/test_outages.py). Their request ids make the retries of other callers
safe.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping, Sequence

from lobby.models import Game, GameType, JoinResult, PlayerName, QuickMatchResult, RematchResult, Seat
from services.components import LOBBY_SERVICE
from services.rpc.channels import SERVICE_CALLS, CallPolicy
from services.rpc.client import RpcClient
from services.rpc.transport_security import ClientCredentials
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc

IDEMPOTENT = ("ListGameTypes", "PreviewGame", "GetGame", "GetSeating", "FindSeat", "EraseMember",
              "ListMemberGames", "LeaveGame", "ReturnSeat", "TakeOverSeat", "ChangeSeat",
              "ListOpenGames", "SetGameOpen", "EnsureMember", "GetPlayers",
              "ListWatchableGames", "MarkFinished")


def new_request_id() -> str:
    """A request id of a call that changes something, for its retries to carry."""
    return uuid.uuid4().hex


class LobbyClient(RpcClient):
    """An async client of LobbyService at ``address`` (host:port). Close it, or use ``async with``.

    ``policy`` says how long a call waits for a lobby that does not answer
    (services.rpc.channels: SERVICE_CALLS between services, PEOPLE_CALLS in the gateway)."""

    def __init__(self, address: str, timeout_seconds: float = 10.0,
                 policy: CallPolicy = SERVICE_CALLS, credentials: ClientCredentials | None = None):
        super().__init__(address, LOBBY_SERVICE, idempotent=IDEMPOTENT, streams=("WatchGame", "WatchOpenGames"),
                         timeout_seconds=timeout_seconds, policy=policy, credentials=credentials)
        self._stub = lobby_pb2_grpc.LobbyServiceStub(self._channel)

    async def list_game_types(self) -> list[GameType]:
        response = await self._call(self._stub.ListGameTypes, lobby_pb2.ListGameTypesRequest(),
                                    read=True)
        return [GameType(id=t.id, name=t.name, description=t.description, players=t.players,
                         options_schema_json=t.options_schema_json) for t in response.game_types]

    async def create_game(self, member_id: str, display_name: str, game_type: str,
                          options_json: str = "", open: bool = False, rating: int = 0,
                          request_id: str = "", spectators: bool = True) -> Game:
        """``request_id``: this call's, which its retries carry (empty: a fresh one);
        ``spectators`` false forbids watching the game."""
        response = await self._call(self._stub.CreateGame, lobby_pb2.CreateGameRequest(
            member_id=member_id, display_name=display_name, game_type=game_type,
            options_json=options_json, open=open, rating=rating, no_spectators=not spectators,
            request_id=request_id or new_request_id()))
        return game_from_message(response.game)

    async def join_game(self, member_id: str, display_name: str, join_code: str,
                        ratings: Mapping[str, int] | None = None) -> JoinResult:
        """``ratings``: the member's rating by game type, kept with the seat for matching."""
        response = await self._call(self._stub.JoinGame, lobby_pb2.JoinGameRequest(
            member_id=member_id, display_name=display_name, join_code=join_code,
            ratings=ratings or {}))
        return JoinResult(game_from_message(response.game), started=response.started)

    async def list_open_games(self, game_type: str = "", limit: int = 0) -> list[Game]:
        """Open games waiting with a seat free, newest first (``limit`` 0: up to 50)."""
        response = await self._call(self._stub.ListOpenGames, lobby_pb2.ListOpenGamesRequest(
            game_type=game_type, limit=limit), read=True)
        return [game_from_message(g) for g in response.games]

    async def mark_finished(self, table_id: str) -> bool:
        """Tell the lobby the table finished (stats does, recording its match); idempotent.
        False when no live game has this id (nothing was marked)."""
        response = await self._call(self._stub.MarkFinished,
                                    lobby_pb2.MarkFinishedRequest(table_id=table_id))
        return response.found

    async def list_watchable_games(self, game_type: str = "", limit: int = 0) -> list[Game]:
        """Started games that allow spectators and are not marked finished, highest rating
        first (``limit`` 0: up to 50); a table that finished a moment ago may be among them."""
        response = await self._call(self._stub.ListWatchableGames, lobby_pb2.ListWatchableGamesRequest(
            game_type=game_type, limit=limit), read=True)
        return [game_from_message(g) for g in response.games]

    def watch_open_games(self, game_type: str = "") -> AsyncIterator[list[Game]]:
        """The open games now, then whenever the list changed."""
        return self._stream(self._stub.WatchOpenGames,
                            lobby_pb2.WatchOpenGamesRequest(game_type=game_type),
                            lambda response: [game_from_message(g) for g in response.games])

    async def quick_match(self, member_id: str, display_name: str, game_type: str,
                          options_json: str = "", rating: int = 0,
                          request_id: str = "") -> QuickMatchResult:
        response = await self._call(self._stub.QuickMatch, lobby_pb2.QuickMatchRequest(
            member_id=member_id, display_name=display_name, game_type=game_type,
            options_json=options_json, rating=rating, request_id=request_id or new_request_id()))
        return QuickMatchResult(game_from_message(response.game), created=response.created,
                                started=response.started)

    async def set_open(self, game_id: str, member_id: str, open: bool) -> Game:
        response = await self._call(self._stub.SetGameOpen, lobby_pb2.SetGameOpenRequest(
            game_id=game_id, member_id=member_id, open=open))
        return game_from_message(response.game)

    async def preview_game(self, join_code: str) -> Game:
        """The game behind a code; its seats' member ids are empty (the preview is public)."""
        response = await self._call(self._stub.PreviewGame,
                                    lobby_pb2.PreviewGameRequest(join_code=join_code), read=True)
        return game_from_message(response.game)

    async def get_game(self, game_id: str) -> Game:
        response = await self._call(self._stub.GetGame, lobby_pb2.GetGameRequest(game_id=game_id),
                                    read=True)
        return game_from_message(response.game)

    def watch_game(self, game_id: str) -> AsyncIterator[Game]:
        """The game now, then after every change of its seating, until and including its start."""
        request = lobby_pb2.WatchGameRequest(game_id=game_id)
        return self._stream(self._stub.WatchGame, request,
                            lambda response: game_from_message(response.game))

    async def list_member_games(self, member_id: str, page_size: int = 0) -> list[Game]:
        """The member's live games, most recently changed first (``page_size`` 0: up to 200)."""
        response = await self._call(self._stub.ListMemberGames, lobby_pb2.ListMemberGamesRequest(
            member_id=member_id, page_size=page_size), read=True)
        return [game_from_message(g) for g in response.games]

    async def get_seating(self, table_id: str) -> list[Seat]:
        response = await self._call(self._stub.GetSeating,
                                    lobby_pb2.GetSeatingRequest(table_id=table_id), read=True)
        return [seat_from_message(s) for s in response.seats]

    async def find_seat(self, table_id: str, member_id: str) -> Seat:
        response = await self._call(self._stub.FindSeat, lobby_pb2.FindSeatRequest(
            table_id=table_id, member_id=member_id), read=True)
        return seat_from_message(response.seat)

    async def erase_member(self, member_id: str) -> list[str]:
        response = await self._call(self._stub.EraseMember,
                                    lobby_pb2.EraseMemberRequest(member_id=member_id))
        return list(response.table_ids)

    async def ensure_member(self, member_id: str, display_name: str) -> str:
        """The member's public player id (drawn on the first call); the name is kept current."""
        response = await self._call(self._stub.EnsureMember, lobby_pb2.EnsureMemberRequest(
            member_id=member_id, display_name=display_name))
        return response.player

    async def get_players(self, players: Sequence[str]) -> list[PlayerName]:
        """The names of the known ones of ``players`` (public player ids), in the order asked;
        unknown and erased ids are left out."""
        response = await self._call(self._stub.GetPlayers,
                                    lobby_pb2.GetPlayersRequest(players=list(players)), read=True)
        return [PlayerName(player=p.player, name=p.display_name) for p in response.players]

    async def rematch(self, member_id: str, display_name: str, game_id: str,
                      request_id: str = "") -> RematchResult:
        """Seat the member at the rematch of the finished game ``game_id`` (made if need be)."""
        response = await self._call(self._stub.Rematch, lobby_pb2.RematchRequest(
            game_id=game_id, member_id=member_id, display_name=display_name,
            request_id=request_id or new_request_id()))
        return RematchResult(game_from_message(response.game), created=response.created,
                             started=response.started)

    async def add_bot(self, game_id: str, member_id: str, seat_index: int, level: str,
                      request_id: str = "") -> JoinResult:
        response = await self._call(self._stub.AddBot, lobby_pb2.AddBotRequest(
            game_id=game_id, member_id=member_id, seat_index=seat_index, level=level,
            request_id=request_id or new_request_id()))
        return JoinResult(game_from_message(response.game), started=response.started)

    async def change_seat(self, game_id: str, member_id: str, seat_index: int) -> Game:
        response = await self._call(self._stub.ChangeSeat, lobby_pb2.ChangeSeatRequest(
            game_id=game_id, member_id=member_id, seat_index=seat_index))
        return game_from_message(response.game)

    async def remove_bot(self, game_id: str, member_id: str, seat_index: int,
                         request_id: str = "") -> Game:
        response = await self._call(self._stub.RemoveBot, lobby_pb2.RemoveBotRequest(
            game_id=game_id, member_id=member_id, seat_index=seat_index,
            request_id=request_id or new_request_id()))
        return game_from_message(response.game)

    async def leave_game(self, game_id: str, member_id: str, request_id: str = "") -> Game | None:
        """The game after the member left it; None when it is gone (its last person left)."""
        response = await self._call(self._stub.LeaveGame, lobby_pb2.LeaveGameRequest(
            game_id=game_id, member_id=member_id, request_id=request_id or new_request_id()))
        return game_from_message(response.game) if response.HasField("game") else None

    async def return_seat(self, game_id: str, member_id: str, request_id: str = "") -> Game:
        response = await self._call(self._stub.ReturnSeat, lobby_pb2.ReturnSeatRequest(
            game_id=game_id, member_id=member_id, request_id=request_id or new_request_id()))
        return game_from_message(response.game)

    async def take_over_seat(self, game_id: str, seat_index: int) -> Game:
        response = await self._call(self._stub.TakeOverSeat, lobby_pb2.TakeOverSeatRequest(
            game_id=game_id, seat_index=seat_index))
        return game_from_message(response.game)

    async def take_back(self, game_id: str, member_id: str) -> int:
        """The practice take-back of the member's last play (lobby.practice); the revision after."""
        response = await self._call(self._stub.TakeBack, lobby_pb2.TakeBackRequest(
            game_id=game_id, member_id=member_id))
        return response.revision


def seat_from_message(message: lobby_pb2.SeatAssignment) -> Seat:
    return Seat(index=message.seat_index, member_id=message.member_id,
                display_name=message.display_name, erased=message.erased,
                bot=message.bot_level, took_over=message.took_over, rating=message.rating,
                player=message.player)


def game_from_message(message: lobby_pb2.Game) -> Game:
    return Game(
        id=message.id, game_type=message.game_type, join_code=message.join_code,
        options_json=message.options_json, seats_total=message.seats_total,
        created_at_ms=message.created_at.ToMilliseconds(),
        updated_at_ms=message.updated_at.ToMilliseconds(),
        seats=tuple(seat_from_message(s) for s in message.players),
        started=message.status == lobby_pb2.GAME_STATUS_STARTED, open=message.open,
        spectators=not message.no_spectators)
