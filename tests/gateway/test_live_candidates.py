"""GET /api/games/live's search (gateway.spectating.live_games) over the lobby's real in-memory
store: games the lobby knows finished cost no view; finished tables not marked yet (stats has not
recorded them: a moment, or while stats is down) are read and dropped, and when they fill the
first candidates the lobby is asked again for more, each view still read once."""

from __future__ import annotations

import itertools
import uuid

from game.status import TableStatus
from gateway.spectating import LIVE_MARGIN, live_games
from lobby.memory_store import MemoryLobbyStore
from lobby.models import Game, Seat
from lobby.service import Lobby
from services.rpc.errors import Reason, ServiceError

_codes = (f"{a}{b}{c}LIV" for a, b, c in itertools.product("ABCDEFGHJK", repeat=3))


class Tables:
    """The game service's public views as the live list reads them: each table's status,
    every read counted; a table not here is TABLE_NOT_FOUND."""

    def __init__(self) -> None:
        self.status: dict[str, str] = {}
        self.reads: list[str] = []

    async def get_public_view_at(self, table_id: str) -> tuple[dict, int]:
        self.reads.append(table_id)
        if table_id not in self.status:
            raise ServiceError(Reason.TABLE_NOT_FOUND, "Table not found")
        return {"status": self.status[table_id]}, 1764669600000


async def _started(store: MemoryLobbyStore, tables: Tables, rating: int, status: str) -> str:
    game = Game(id=str(uuid.uuid4()), game_type="scopone_scientifico", join_code=next(_codes),
                options_json="{}", seats_total=4, created_at_ms=1764669600000, started=True,
                seats=tuple(Seat(i, f"m{uuid.uuid4().hex[:8]}", f"P{i}", rating=rating) for i in range(4)))
    assert await store.create(game)
    tables.status[game.id] = status
    return game.id


async def _setup(finished: int) -> tuple[MemoryLobbyStore, Lobby, Tables, list[str], list[str]]:
    store, tables = MemoryLobbyStore(ttl_seconds=3600), Tables()
    lobby = Lobby(store, games=None)  # type: ignore[arg-type]  # listing never creates a table
    done = [await _started(store, tables, 2000 - n, TableStatus.FINISHED) for n in range(finished)]
    playing = [await _started(store, tables, 1500 - n, TableStatus.PLAYING) for n in range(2)]
    return store, lobby, tables, done, playing


async def test_finished_games_the_lobby_knows_of_cost_no_view():
    store, lobby, tables, done, playing = await _setup(finished=60)
    for game_id in done:
        assert await store.mark_finished(game_id)
    found = await live_games(lobby, tables, "", 2)
    assert [game.id for game, _, _ in found] == playing
    assert sorted(tables.reads) == sorted(playing)  # only the live games' views were read


async def test_finished_tables_not_marked_yet_are_dropped_and_more_asked_for():
    _, lobby, tables, done, playing = await _setup(finished=LIVE_MARGIN + 20)
    found = await live_games(lobby, tables, "", 2)
    assert [game.id for game, _, _ in found] == playing
    assert sorted(tables.reads) == sorted(done + playing)  # each view read once, in two asks
    tables.reads.clear()
    one = await live_games(lobby, tables, "", 1)
    assert [game.id for game, _, _ in one] == playing[:1]
    assert sorted(tables.reads) == sorted(done + playing)  # the batch read holds both live ones


async def test_a_table_the_game_service_does_not_have_is_left_out():
    _, lobby, tables, _, playing = await _setup(finished=0)
    del tables.status[playing[0]]
    found = await live_games(lobby, tables, "", 5)
    assert [game.id for game, _, _ in found] == playing[1:]
    assert len(tables.reads) == 2  # fewer candidates than asked: no second ask
