"""Fakes of the lobby and the game service for the gateway's live path (table_feed, the socket):
table streams the test feeds, a log the test writes, a lobby that knows a few games."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import replace

from game.client import TableViews
from game.live_link import Acted
from game.view_parts import cut, facts
from lobby.models import Game, Seat

NAMES = ("alice", "bob", "carol", "dave")

def lobby_game(id: str = "t1", started: bool = True, names=NAMES) -> Game:
    """A game of the four (member ids are the names they logged in with)."""
    return Game(id=id, game_type="scopone_scientifico", join_code="K7QX2M", options_json="{}",
                seats_total=4, created_at_ms=0, started=started,
                seats=tuple(Seat(i, member, name) for i, (member, name) in
                            enumerate(zip(NAMES, names, strict=False))))

def seat_view(index: int, revision: int, status: str = "playing") -> dict:
    """A seat's view as the game service renders it (the fields the gateway touches)."""
    return {"status": status, "options": {}, "id": "t1", "game_type": "scopone_scientifico",
            "seed_commitment": "0" * 64, "revision": revision, "you": index,
            "players": [{"seat": i, "team": "AB"[i % 2], "is_you": i == index} for i in range(4)],
            **({"scores": {"A": 11, "B": 3}, "winner": "A"} if status == "finished" else {})}

def public_view(revision: int, status: str = "playing") -> dict:
    """The public view as the game service renders it: no ``you``, nobody is you."""
    view = seat_view(0, revision, status)
    del view["you"]
    return {**view, "players": [{**player, "is_you": False} for player in view["players"]]}

def table_views(revision: int, status: str = "playing") -> TableViews:
    """A WatchTable message as the gateway asks for it: every view cut (game.view_parts)."""
    views = [seat_view(i, revision, status) for i in range(4)]
    return TableViews(revision, status, 0, (),
                      parts=tuple((f"seat:{i}", cut(view)) for i, view in enumerate(views)),
                      facts=facts(views[0], status == "finished"))

class FakeGame:
    """WatchTable streams fed by the test (``push``), counting the streams opened and open;
    GetView answers the seat's view at ``revision``; Act changes nothing."""

    def __init__(self) -> None:
        self.opened: Counter[str] = Counter()
        self.open: Counter[str] = Counter()
        self._streams: dict[str, list[asyncio.Queue]] = {}
        self.public: dict[str, list[bool]] = {}  # each stream's public flag, in opening order
        self.revision = 0

    async def watch_table(self, table_id: str, public: bool = False,
                          parts: bool = False) -> AsyncIterator[TableViews]:
        queue: asyncio.Queue = asyncio.Queue()
        self._streams.setdefault(table_id, []).append(queue)
        self.opened[table_id] += 1
        self.open[table_id] += 1
        self.public.setdefault(table_id, []).append(public)
        try:
            while True:
                item = await queue.get()
                if isinstance(item, Exception):
                    raise item
                if public and item.public_parts is None:  # the public view only to a watch that asks
                    item = replace(item, public_parts=cut(public_view(item.revision, item.status), public=True))
                yield item
                if item.status == "finished":
                    return
        finally:
            self.open[table_id] -= 1
            self._streams[table_id].remove(queue)

    def push(self, table_id: str, item: TableViews | Exception) -> None:
        for queue in self._streams.get(table_id, ()):
            queue.put_nowait(item)

    async def get_view(self, table_id: str, seat: str) -> dict:
        return seat_view(int(seat.split(":")[1]), self.revision)

    async def act(self, table_id: str, seat: str, action: dict, revision: int | None,
                  request_id: str = "") -> Acted:
        return Acted(self.revision, "playing", replayed=False)

class FakeLobby:
    def __init__(self) -> None:
        self.games = {"t1": lobby_game("t1"), "t2": lobby_game("t2")}
        self.reads = 0
        self.watches = 0
        self.watching: asyncio.Queue = asyncio.Queue()

    async def get_game(self, game_id: str) -> Game:
        self.reads += 1
        return self.games[game_id]

    async def watch_game(self, game_id: str) -> AsyncIterator[Game]:
        self.watches += 1
        while True:
            item = await self.watching.get()
            if isinstance(item, Exception):
                raise item
            yield item
            if item.started:
                return

