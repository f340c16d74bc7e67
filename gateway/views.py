"""The contract's JSON shapes, built from the services' answers.

The game service renders seat-only views; the lobby's seating supplies the names. This module
is where the two meet, so nowhere else needs to know both.
"""

from __future__ import annotations

from typing import Any

from services.timeutil import iso_from_ms


def team_of(seat: int) -> str:
    return "A" if seat % 2 == 0 else "B"


def _seated(game: Any, member_id: str | None) -> list[dict]:
    return [
        {"seat": seat.index, "name": seat.display_name, "team": team_of(seat.index),
         "is_you": seat.member_id == member_id}
        for seat in game.seats
    ]


def lobby_view(game: Any, member_id: str | None) -> dict:
    """CONTRACT's lobby: a game still waiting for players."""
    return {
        "id": game.id,
        "game_type": game.game_type,
        "join_code": game.join_code,
        "status": "lobby",
        "options": game.options,
        "players": _seated(game, member_id),
        "seats_open": game.seats_open,
        "created_at": iso_from_ms(game.created_at_ms),
    }


def my_game_item(game: Any, member_id: str, status: str, your_turn: bool, updated_ms: int) -> dict:
    """One game of GET /api/me/games."""
    return {
        "id": game.id,
        "game_type": game.game_type,
        "join_code": game.join_code,
        "status": status,
        "players": _seated(game, member_id),
        "seats_open": game.seats_open,
        "your_turn": your_turn,
        "updated_at": iso_from_ms(updated_ms),
    }


def game_view(view: dict, game: Any) -> dict:
    """The game service's view of one seat, with the join code and every player's name."""
    names = {seat.index: seat.display_name for seat in game.seats}
    joined = dict(view)
    joined["id"] = game.id
    joined["game_type"] = game.game_type
    joined["join_code"] = game.join_code
    joined["players"] = [
        {**player, "name": names.get(player["seat"], "")} for player in view.get("players", [])
    ]
    return joined


def preview_view(game: Any, game_type: Any | None, status: str) -> dict:
    """What anyone with the code may see before joining: no member ids, no is_you."""
    return {
        "id": game.id,
        "game_type": game.game_type,
        "name": game_type.name if game_type else game.game_type,
        "description": game_type.description if game_type else "",
        "status": status,
        "players": [
            {"seat": seat.index, "name": seat.display_name, "team": team_of(seat.index)}
            for seat in game.seats
        ],
        "seats_open": game.seats_open,
        "options": game.options,
    }
