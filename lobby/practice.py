"""The practice take-back (CONTRACT, Bots): the one person at a table of bots takes back their
last play, as long as nobody played after it.

Two rules, each checked by the owner of what it reads: that everyone else at the table is a bot
from the start is the seating's (the lobby's, here); that the member's play is still the last
move is the log's (the game service's TakeBack with the seat, under the table's lock).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lobby import inputs
from services.rpc.errors import Reason, ServiceError

if TYPE_CHECKING:
    from lobby.service import Lobby

ONLY_PRACTICE_TEXT = "Only a practice match against bots allows a take-back"


async def take_back(lobby: Lobby, game_id: str, member_id: str) -> int:
    """The table's revision after the member's last play was taken back."""
    member_id = inputs.member_id(member_id)
    game = await lobby.get_game(game_id)
    seat = game.seat_of(member_id)
    if seat is None:
        raise ServiceError(Reason.NOT_SEATED, "Not seated at this game", game_id=game.id)
    if not all(other.bot and not other.took_over for other in game.seats if other.index != seat.index):
        raise ServiceError(Reason.ILLEGAL_MOVE, ONLY_PRACTICE_TEXT, game_id=game.id)
    return await lobby.games.take_back(game.id, seat=seat.seat)
