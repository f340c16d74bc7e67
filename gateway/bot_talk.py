"""The bots' table talk (issue 42, item 4): after each revision a table's feed asks, for each seat a
bot plays, whether it says something (talk.bot_phrases decides, from what the views show: the
revision's facts the game sends beside them, the same in every seat's view), and
says it through the talk service like a socket's `say` would, then publishes the `said`.

Every gateway process that follows the table decides the same: the request id names the table,
the revision and the seat, so the talk service keeps one message and answers the others
``replayed``, and only the first publishes it. A seat a bot took over from a person says nothing
(the name there is the person's). Nothing here delays the feed: the calls run as tasks, and a
talk service that is down costs the phrase, with a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from game.view_parts import Facts
from gateway.events import Event, Said
from gateway.table_talk import said_text
from lobby.models import Game
from services.rpc.errors import ServiceError
from talk.bot_phrases import Pace, bot_phrase
from talk.client import TalkClient

log = logging.getLogger(__name__)


class BotTalk:
    def __init__(self, talk: TalkClient | None, publish: Callable[[Event], Awaitable[None]] | None):
        self._talk = talk
        self._publish = publish
        self._tasks: set[asyncio.Task] = set()

    def revision(self, game: Game, revision: int, status: str, facts: Facts, pace: Pace) -> None:
        """A table's feed fanned ``revision`` out (its ``status``, and the ``facts`` its views
        show, the same in every seat's): its bots may talk, at the ``pace`` the feed keeps for
        the table."""
        if self._talk is None or self._publish is None:
            return
        # What talk.bot_phrases reads of a view.
        view = {"status": status, "hand_number": facts.hand_number,
                "last_play": None if facts.last_play_seat is None else
                {"seat": facts.last_play_seat, "scopa": facts.last_play_scopa, "auto": facts.last_play_auto}}
        for seat in game.bot_seats:
            if seat.took_over:
                continue
            phrase = bot_phrase(view, seat.index, game.id, revision)
            if phrase is not None and pace.allows(seat.index, view, phrase):
                task = asyncio.create_task(self._say(game.id, seat.index, seat.member_id,
                                                     seat.display_name, phrase, revision),
                                           name=f"bot talk {game.id}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _say(self, table_id: str, index: int, member_id: str, name: str, phrase: str,
                   revision: int) -> None:
        assert self._talk is not None and self._publish is not None
        try:
            message, replayed = await self._talk.say(
                table_id, member_id, "", name, spectator=False, seat=index, phrase=phrase,
                request_id=f"{table_id}/bot/{revision}/{index}")
            if not replayed:
                await self._publish(Said(table_id, said_text(message), False, ""))
        except ServiceError as error:
            log.info("game %s: a bot's phrase was not said: %s", table_id, error.message)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
