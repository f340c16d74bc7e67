"""The `state` and `game_over` messages of the live path, joined from the game's cut views.

The game renders each view in the order of the contract's models and says where the gateway's
fields go in it (game.view_parts); here the gateway puts in what it owns: each seat's ``name``,
``player``, ``bot``, ``took_over`` (from the lobby's seating, encoded once per change of it:
:class:`Seating`), ``connected``, the ``join_code`` and the number of ``spectators``. No view
is parsed or validated: the text is copied with them put in. The bytes are those gateway.views'
models dump (tests/gateway/test_forwarded_views.py checks them over whole matches).
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic_core import to_json

from game.view_parts import Facts, ViewCut
from gateway.views import public_id
from lobby.models import Game, Seat

_STATE = '{"type":"state","game":'
_CONNECTED = (',"connected":false', ',"connected":true')
_NO_NAME = ',"name":""'  # a seat the lobby does not know


def _json(value: object) -> str:
    """A value as the contract's models dump it."""
    return to_json(value).decode()


def _marks(seat: Seat | None) -> str:
    """The members of a players item that the lobby knows, as gateway.views joins them in."""
    if seat is None:
        return _NO_NAME
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

    def _join(self, cut: ViewCut, connected: Collection[int], last: str) -> str:
        """The cut view's text with each item's marks and ``connected`` put in, then ``last``."""
        text, at = cut.text, cut.at
        marks, bots = self._marks, self._bots
        pieces, start = [_STATE], 0
        for seat, end in zip(cut.seats, at, strict=False):  # the last offset is the view's own
            pieces += (text[start:end], marks.get(seat, _NO_NAME), _CONNECTED[seat in bots or seat in connected])
            start = end
        end = at[-1]
        pieces += (text[start:end], last, text[end:], "}")
        return "".join(pieces)

    def state(self, cut: ViewCut, connected: Collection[int], spectators: int) -> str:
        """A seat's ``state`` message (gateway.views.game_view in WsState)."""
        return self._join(cut, connected, self._join_code + ',"spectators":' + str(spectators))

    def public_state(self, cut: ViewCut, connected: Collection[int], spectators: int) -> str:
        """A spectator's ``state`` message (gateway.views.public_view in WsWatchState): the game
        cut the public view without a seat's fields, every ``is_you`` false."""
        return self._join(cut, connected, ',"spectators":' + str(spectators))


def game_over(facts: Facts) -> str:
    """The ``game_over`` message: the final scores and winner as the final views show them."""
    return ('{"type":"game_over","scores":' + (facts.scores_json or "null")
            + ',"winner":' + (_json(facts.winner) if facts.winner else "null") + "}")
