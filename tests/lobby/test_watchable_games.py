"""Spectators in the lobby (issue 42): the option kept with a game, and the started games that
allow spectators, highest rating first; the same in memory and in Postgres (``store``), and
through the service."""

from __future__ import annotations

import itertools
import uuid
from dataclasses import replace

import pytest

from lobby.models import Game, Seat
from services.rpc.errors import Reason, ServiceError
from tests.lobby.helpers import full_game

_codes = (f"{a}{b}{c}WXY" for a, b, c in itertools.product("ABCDEFGHJK", repeat=3))


def _game(ratings: tuple[int, ...], started: bool = True, spectators: bool = True,
          game_type: str = "scopone_scientifico", bots: int = 0) -> Game:
    people = [Seat(index, f"m{uuid.uuid4().hex[:8]}", f"P{index}", rating=rating)
              for index, rating in enumerate(ratings)]
    robots = [Seat(len(people) + n, f"bot:{len(people) + n}", "Bot", bot="esperto") for n in range(bots)]
    return Game(id=str(uuid.uuid4()), game_type=game_type, join_code=next(_codes), options_json="{}",
                seats_total=4, created_at_ms=1764669600000, seats=(*people, *robots), started=started,
                spectators=spectators)


async def test_the_spectators_option_is_kept(store):
    allowed, forbidden = _game((1500,), started=False), _game((1500,), started=False, spectators=False)
    for game in (allowed, forbidden):
        assert await store.create(game)
    assert (await store.get(allowed.id)).spectators is True
    assert (await store.get(forbidden.id)).spectators is False


async def test_started_games_that_allow_spectators_highest_rating_first(store):
    strong = _game((1800, 1700, 1600, 1700))  # 1700
    weak = _game((1400, 1400, 1400, 1400))
    bots_only_count_not = _game((1900,), bots=3)  # the one person's rating: 1900
    unrated = _game((0, 0, 0, 0))  # new players count 1500
    waiting = _game((2000,), started=False)
    forbidden = _game((2100, 2100, 2100, 2100), spectators=False)
    other_type = _game((2200, 2200, 2200, 2200), game_type="dummy")
    for game in (strong, weak, bots_only_count_not, unrated, waiting, forbidden, other_type):
        assert await store.create(game)
    listed = await store.watchable_games("scopone_scientifico", 10)
    mine = [game.id for game in listed if game.id in {strong.id, weak.id, bots_only_count_not.id, unrated.id}]
    assert mine == [bots_only_count_not.id, strong.id, unrated.id, weak.id]
    assert not {waiting.id, forbidden.id, other_type.id} & {game.id for game in listed}
    assert other_type.id in {game.id for game in await store.watchable_games("", 50)}
    assert len(await store.watchable_games("scopone_scientifico", 1)) == 1


async def test_the_option_crosses_the_api_and_a_bad_limit_is_refused(client):
    forbidden = await client.create_game("alice", "Alice", "scopone_scientifico", "", spectators=False)
    allowed = await client.create_game("bob", "Bob", "scopone_scientifico", "")
    assert (forbidden.spectators, allowed.spectators) == (False, True)
    assert (await client.get_game(forbidden.id)).spectators is False
    for limit in (-1, 201):
        with pytest.raises(ServiceError) as refused:
            await client.list_watchable_games("", limit)
        assert refused.value.reason is Reason.INVALID_ARGUMENT
    assert await client.list_watchable_games("chess") == []  # unknown: finds nothing
    assert await client.list_watchable_games() == []  # neither game has started


async def test_a_finished_game_is_not_watchable_and_marking_is_idempotent(store):
    playing, finished = _game((1500, 1500, 1500, 1500)), _game((1600, 1600, 1600, 1600))
    for game in (playing, finished):
        assert await store.create(game)
    assert await store.mark_finished(finished.id) is True
    assert await store.mark_finished(finished.id) is True  # again: nothing changes
    listed = {game.id for game in await store.watchable_games("", 200)}
    assert playing.id in listed and finished.id not in listed
    marked = await store.get(finished.id)
    assert marked is not None and (marked.finished, marked.started) == (True, True)
    assert (await store.get(playing.id)).finished is False


async def test_marking_a_game_the_lobby_does_not_have_changes_nothing(store):
    assert await store.mark_finished(str(uuid.uuid4())) is False


async def test_a_seating_change_keeps_the_mark(store):
    game = _game((1500,), bots=3)
    assert await store.create(game)
    assert await store.mark_finished(game.id)
    changed = await store.modify(game.id, lambda g: replace(g, updated_at_ms=g.created_at_ms + 1))
    assert changed is not None and changed.finished
    assert (await store.get(game.id)).finished
    assert game.id not in {g.id for g in await store.watchable_games("", 200)}


async def test_mark_finished_crosses_the_api(client):
    with pytest.raises(ServiceError) as refused:
        await client.mark_finished("")
    assert refused.value.reason is Reason.INVALID_ARGUMENT
    assert await client.mark_finished("not a game id") is False
    assert await client.mark_finished(str(uuid.uuid4())) is False
    game = await full_game(client)
    assert [g.id for g in await client.list_watchable_games()] == [game.id]
    assert await client.mark_finished(game.id.upper()) is True  # a game id in any case
    assert await client.mark_finished(game.id) is True
    assert await client.list_watchable_games() == []
    assert (await client.get_game(game.id)).started  # still there: seatings outlive the play
