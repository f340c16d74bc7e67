"""The contract's JSON shapes (docs/CONTRACT.md), built from the services' answers; the one place
that builds them, through the contract's models (gateway.contract), so what is served is what
docs/openapi.json says.

The services answer with their clients' dataclasses: the lobby's games and game types
(lobby.models), the game service's seat-only views and logs (game.client), the matches and
standings of stats (stats.model, stats.client). The game service knows seats, the lobby the
names behind them: the views join the two here, so nowhere else needs to know both.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Collection, Sequence
from typing import Any

from bots.catalogue import LEVELS
from game.client import GameType, LogEntry, LogHeader
from game.pace import pace_of
from game.status import TableStatus
from gateway.contract.games import BotLevel, Lobby, LobbyPlayer, MyGame, OpenGame, Preview, PreviewPlayer
from gateway.contract.games import GameType as GameTypeItem
from gateway.contract.records import (
    Leaderboard,
    LeaderboardEntry,
    LoggedMove,
    Match,
    MatchPage,
    MatchPlayer,
    MoveLog,
    Rating,
    Ratings,
)
from gateway.contract.spectators import LiveGame, LivePlayer, PublicGameView, PublicLobby
from gateway.contract.table import GameView, Scores
from lobby.models import Game, Seat, seat_id
from services.timeutil import iso_from_ms
from stats.client import Leaderboard as Standings
from stats.model import Match as FinishedMatch
from stats.model import Player
from stats.model import Rating as MemberRating


def public_id(player: str, member_id: str, erased: bool) -> str | None:
    """The ``player`` of a person's item. CONTRACT puts one in every person's item, but an erased
    member's id is gone (the directory forgot it, and its page must be 404): their item gets one
    made from the row's member id, which erasure replaced with a fresh random one, so it is
    nobody's, unknown to the directory, and never links two erased rows. None for a bot's seat,
    and for a match row recorded before there were player ids (that member id is a real one)."""
    if player:
        return player
    if erased and member_id:
        digest = hashlib.sha256(f"erased-player:{member_id}".encode()).digest()
        return base64.urlsafe_b64encode(digest).decode()[:22]
    return None


def _who_plays(seat: Seat) -> dict[str, Any]:
    """CONTRACT's ``player`` (the person's public id), ``bot`` and ``took_over`` of a players
    item: present only when set (a bot's own seat has no player id)."""
    marks: dict[str, Any] = {}
    player = public_id(seat.player, seat.member_id, seat.erased)
    if player:
        marks["player"] = player
    if seat.bot:
        marks["bot"] = seat.bot
    if seat.took_over:
        marks["took_over"] = True
    return marks


def _seated(game: Game, member_id: str | None) -> list[LobbyPlayer]:
    return [
        LobbyPlayer(seat=seat.index, name=seat.display_name, team=seat.team,
                    is_you=seat.is_person and seat.member_id == member_id, **_who_plays(seat))
        for seat in game.seats
    ]


def lobby_view(game: Game, member_id: str | None) -> Lobby:
    """CONTRACT's lobby: a game still waiting for players."""
    return Lobby(id=game.id, game_type=game.game_type, join_code=game.join_code, options=game.options,
                 players=_seated(game, member_id), seats_open=game.seats_open,
                 created_at=iso_from_ms(game.created_at_ms), open=game.open)


def open_game_item(game: Game, member_id: str) -> OpenGame:
    """One game of GET /api/games/open: a waiting game anyone may join."""
    return OpenGame(id=game.id, game_type=game.game_type, join_code=game.join_code,
                    status=TableStatus.LOBBY, players=_seated(game, member_id),
                    seats_open=game.seats_open, your_turn=False,
                    updated_at=iso_from_ms(game.changed_at_ms), pace=pace_of(game.options),
                    options=game.options, rating=game.rating)


def my_game_item(game: Game, member_id: str, status: str, your_turn: bool,
                 updated_ms: int, view: dict | None = None) -> MyGame:
    """One game of GET /api/me/games; ``view``, the caller's view of a started game, gives its
    current deadline."""
    return MyGame(id=game.id, game_type=game.game_type, join_code=game.join_code, status=status,
                  players=_seated(game, member_id), seats_open=game.seats_open, your_turn=your_turn,
                  updated_at=iso_from_ms(updated_ms), pace=pace_of(game.options),
                  deadline=current_deadline(view) if view is not None else None)


def current_deadline(view: dict) -> str | None:
    """The deadline a seat's view shows now (CONTRACT: the turn's, the hand end's or the seeding
    phase's), or None when it shows none (finished, or an engine without deadlines)."""
    entropy = view.get("entropy")
    for deadline in (view.get("turn_deadline"), view.get("hand_end_deadline"),
                     entropy.get("deadline") if isinstance(entropy, dict) else None):
        if isinstance(deadline, str):
            return deadline
    return None


def _named_players(view: dict, game: Game, connected: Collection[int]) -> list[dict[str, Any]]:
    seats = {seat.index: seat for seat in game.seats}
    players = []
    for player in view.get("players", []):
        seat = seats.get(player["seat"])
        item = {**player, "name": seat.display_name if seat else ""}
        if seat is not None:
            item.update(_who_plays(seat))
        item["connected"] = bool(seat is not None and seat.bot) or player["seat"] in connected
        players.append(item)
    return players


def game_view(view: dict, game: Game, connected: Collection[int] = (), spectators: int = 0) -> GameView:
    """The game service's view of one seat, with the join code, every player's name, who plays
    each seat (``bot``, ``took_over``) and whether they are ``connected``: a bot always is, a
    person while a socket of theirs is open at the table (``connected``: those seats); and how
    many members watch (``spectators``). The engine's fields pass through as it rendered them."""
    return GameView.model_validate({**view, "id": game.id, "game_type": game.game_type,
                                    "join_code": game.join_code,
                                    "players": _named_players(view, game, connected),
                                    "spectators": spectators})


# What a seat's view has and the public view never shows (CONTRACT, Spectators). The engine's
# public view leaves them out already; the gateway drops them too, whatever an engine renders.
_PRIVATE_FIELDS = ("you", "hand", "legal", "your_turn", "join_code")


def public_view(view: dict, game: Game, connected: Collection[int] = (), spectators: int = 0) -> PublicGameView:
    """The public view (the engine's for no seat, GetView/WatchTable ``public``) with the names,
    who plays each seat and who is connected joined in, every ``is_you`` false, the number of
    members watching, and never the join code."""
    players = [{**player, "is_you": False} for player in _named_players(view, game, connected)]
    fields = {key: value for key, value in view.items() if key not in _PRIVATE_FIELDS}
    return PublicGameView.model_validate({**fields, "id": game.id, "game_type": game.game_type,
                                          "players": players, "spectators": spectators})


def public_lobby_view(game: Game) -> PublicLobby:
    """A waiting game as a spectator sees it: the lobby without its join code, nobody is you."""
    return PublicLobby(id=game.id, game_type=game.game_type, options=game.options,
                       players=_seated(game, None), seats_open=game.seats_open,
                       created_at=iso_from_ms(game.created_at_ms), open=game.open)


def live_game_item(game: Game, view: dict, spectators: int, updated_ms: int) -> LiveGame:
    """One game of GET /api/games/live, from its lobby entry and its public view."""
    return LiveGame(
        id=game.id, game_type=game.game_type, status=view["status"],
        players=[LivePlayer(seat=seat.index, name=seat.display_name, team=seat.team,
                            player=public_id(seat.player, seat.member_id, seat.erased),
                            bot=seat.bot or None)
                 for seat in game.seats],
        rating=game.rating, spectators=spectators,
        hand_number=view.get("hand_number") if view.get("status") != "seeding" else None,
        scores=Scores.model_validate(view.get("scores") or {"A": 0, "B": 0}),
        updated_at=iso_from_ms(max(updated_ms, game.changed_at_ms)))


def preview_view(game: Game, game_type: GameType | None, status: str) -> Preview:
    """What anyone with the code may see before joining: no member ids, no is_you."""
    return Preview(
        id=game.id, game_type=game.game_type,
        name=game_type.name if game_type else game.game_type,
        description=game_type.description if game_type else "",
        status=status,
        players=[PreviewPlayer(seat=seat.index, name=seat.display_name, team=seat.team, **_who_plays(seat))
                 for seat in game.seats],
        seats_open=game.seats_open, options=game.options,
    )


def game_type_item(game_type: GameType) -> GameTypeItem:
    """One game type of GET /api/game-types."""
    return GameTypeItem(id=game_type.id, name=game_type.name, description=game_type.description,
                        players=game_type.players, options_schema=game_type.options_schema,
                        bot_levels=[BotLevel(id=level.id, name=level.name) for level in LEVELS])


def lobby_log(game: Game) -> MoveLog:
    """GET /api/games/{id}/log of a game still in the lobby: no table, no seed, no moves yet."""
    return MoveLog(id=game.id, game_type=game.game_type, options=json.loads(game.options_json or "{}"),
                   seats=[seat_id(index) for index in range(game.seats_total)], seed_commitment=None,
                   moves=[], revision=0, status=TableStatus.LOBBY)


def table_log(game_id: str, header: LogHeader, moves: Sequence[LogEntry]) -> MoveLog:
    """GET /api/games/{id}/log of a table: its moves, and its seed once it is finished."""
    return MoveLog(
        id=game_id, game_type=header.game_type, options=header.options, seats=list(header.seats),
        seed_commitment=header.seed_commitment,
        moves=[LoggedMove(number=m.number, type=m.type, seat=m.seat or None, payload=m.payload, auto=m.auto)
               for m in moves],
        revision=header.revision, status=header.status,
        seed=header.seed_hex if header.status == TableStatus.FINISHED else None,
    )


def match_item(match: FinishedMatch) -> Match:
    """One match of GET /api/me/matches: ``rated`` false for a practice or an abandoned match;
    a bot's seat carries ``bot`` (its level), an abandoner ``abandoned``, each only then."""
    return Match(id=match.id, game_type=match.game_type, started_at=iso_from_ms(match.started_ms),
                 finished_at=iso_from_ms(match.finished_ms), rated=match.rated, result=match.result,
                 players=[_match_player(p) for p in match.players])


def _match_player(player: Player) -> MatchPlayer:
    return MatchPlayer(seat=player.seat_index, name=player.display_name, team=player.team, won=player.won,
                       points=player.points, elo_delta=player.elo_delta,
                       player=public_id(player.player, player.member_id, player.erased),
                       bot=player.bot_level,
                       abandoned=player.abandoned or None)


def match_page(matches: Sequence[FinishedMatch], next_cursor: str | None) -> MatchPage:
    """GET /api/me/matches."""
    return MatchPage(items=[match_item(m) for m in matches], next_cursor=next_cursor)


def ratings_body(ratings: Sequence[MemberRating]) -> Ratings:
    """GET /api/me/ratings."""
    return Ratings(ratings=[Rating(game_type=r.game_type, rating=r.rating, matches=r.matches)
                            for r in ratings])


def leaderboard_body(board: Standings) -> Leaderboard:
    """GET /api/leaderboard."""
    return Leaderboard(game_type=board.game_type,
                       entries=[LeaderboardEntry(rank=rank, name=e.display_name, player=e.player or None,
                                                 rating=e.rating, wins=e.wins,
                                                 matches=e.matches, points=e.points)
                                for rank, e in enumerate(board.entries, 1)])
