"""The `state` and `game_over` messages of the live path, joined from the game's cut views.

The game renders each view in the order of the contract's models and cuts it where the gateway's
fields go (game.view_parts); here the gateway joins in what it owns: each seat's ``name``,
``player``, ``bot``, ``took_over`` (from the lobby's seating, encoded once per change of it:
:class:`Seating`), ``connected``, the ``join_code`` and the number of ``spectators``. No view
is parsed or validated: the texts are concatenated. The bytes are those gateway.views'
models dump (tests/gateway/test_forwarded_views.py checks them over whole matches).
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic_core import to_json

from game.view_parts import Facts, ViewParts
from gateway.views import public_id
from lobby.models import Game, Seat

_STATE = '{"type":"state","game":'
_CONNECTED = (',"connected":false', ',"connected":true')


def _json(value: object) -> str:
    """A value as the contract's models dump it."""
    return to_json(value).decode()


def _marks(seat: Seat | None) -> str:
    """The members of a players item that the lobby knows, as gateway.views joins them in."""
    if seat is None:
        return ',"name":""'
    text = ',"name":' + _json(seat.display_name)
    player = public_id(seat.player, seat.member_id, seat.erased)
    if player:
        text += ',"player":' + _json(player)
    if seat.bot:
        text += ',"bot":' + _json(seat.bot)
    if seat.took_over:
        text += ',"took_over":true'
    return text


class Seating:
    """A game's seating as text: encoded once, used for every view until the seating changes."""

    def __init__(self, game: Game):
        self.game = game
        seats = {seat.index: seat for seat in game.seats}
        self._marks = {index: _marks(seat) for index, seat in seats.items()}
        self._bots = frozenset(index for index, seat in seats.items() if seat.bot)
        self._join_code = ',"join_code":' + _json(game.join_code)

    def _players(self, parts: ViewParts, connected: Collection[int]) -> str:
        marks, bots = self._marks, self._bots
        return ",".join([
            player.head + marks.get(player.seat, ',"name":""')
            + _CONNECTED[player.seat in bots or player.seat in connected] + player.tail + "}"
            for player in parts.players])

    def state(self, parts: ViewParts, connected: Collection[int], spectators: int) -> str:
        """A seat's ``state`` message (gateway.views.game_view in WsState)."""
        return (_STATE + parts.head + self._players(parts, connected) + parts.middle + self._join_code
                + ',"spectators":' + str(spectators) + parts.tail + "}}")

    def public_state(self, parts: ViewParts, connected: Collection[int], spectators: int) -> str:
        """A spectator's ``state`` message (gateway.views.public_view in WsWatchState): the game
        cut the public view without a seat's fields, every ``is_you`` false."""
        return (_STATE + parts.head + self._players(parts, connected) + parts.middle
                + ',"spectators":' + str(spectators) + parts.tail + "}}")


def game_over(facts: Facts) -> str:
    """The ``game_over`` message: the final scores and winner as the final views show them."""
    return ('{"type":"game_over","scores":' + (facts.scores_json or "null")
            + ',"winner":' + (_json(facts.winner) if facts.winner else "null") + "}")
