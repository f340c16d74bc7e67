"""Bots seated by the creator, leaving in the lobby and while playing, taking a seat back:
over a socket on every store, with the bots service told each change of who plays a seat."""

from __future__ import annotations

import asyncio

import pytest

from bots.catalogue import bot_name
from lobby.client import LobbyClient
from lobby.practice import ONLY_PRACTICE_TEXT
from lobby.service import Lobby
from lobby.servicer import register
from services.components import LOBBY_SERVICE
from services.rpc.errors import Reason
from services.rpc.server import ServiceSpec, serve
from testing.processes import free_address
from tests.lobby.helpers import fails, full_game


class BotsHeard:
    """What the lobby told the bots service, per table: the last seats, in order of calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[tuple[int, str], ...]]] = []
        self.changed = asyncio.Event()

    async def drive_table(self, table_id, seats) -> None:
        self.calls.append((table_id, tuple(seats)))
        self.changed.set()

    async def last(self, table_id: str, seats) -> None:
        """Wait until the last call for ``table_id`` says ``seats``."""
        async def heard() -> None:
            while not any(t == table_id for t, _ in self.calls) or \
                    [s for t, s in self.calls if t == table_id][-1] != tuple(seats):
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(heard(), 10)


@pytest.fixture
async def bots():
    return BotsHeard()


@pytest.fixture
async def client(store, game_service, game_client, bots):
    lobby = Lobby(store, game_client, bots)

    async def up() -> None:
        return None

    spec = ServiceSpec(name="lobby", full_names=(LOBBY_SERVICE,),
                       register=lambda server: register(server, lobby), probe=up)
    address, started, stop = free_address(), asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(spec, address, grace_seconds=1, started=started, stop=stop))
    await asyncio.wait_for(started.wait(), 5)
    async with LobbyClient(address) as client:
        yield client
    await lobby.close()
    stop.set()
    await asyncio.wait_for(task, 10)


async def test_the_creator_seats_bots_and_the_last_one_starts_the_table(client, game_service, bots):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    first = await client.add_bot(game.id, "alice", 2, "esperto")
    assert not first.started
    assert [(s.index, s.bot, s.display_name) for s in first.game.seats] == [
        (0, "", "Alice"), (2, "esperto", bot_name(game.id, 2, ["Alice"]))]
    await client.add_bot(game.id, "alice", 1, "principiante")
    done = await client.add_bot(game.id, "alice", 3, "maestro")
    assert done.started and done.game.started and game.id in game_service[0].tables
    await bots.last(game.id, ((1, "principiante"), (2, "esperto"), (3, "maestro")))


async def test_a_joiner_takes_the_lowest_seat_a_bot_left_free(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.add_bot(game.id, "alice", 1, "esperto")
    joined = await client.join_game("bob", "Bob", game.join_code)
    assert [(s.index, s.member_id) for s in joined.game.seats] == [(0, "alice"), (1, "bot:1"),
                                                                   (2, "bob")]


async def test_seating_a_bot_is_refused_with_the_contracts_reasons(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    await fails(client.add_bot(game.id, "bob", 2, "esperto"), Reason.NOT_CREATOR,
                "Only the creator can seat a bot")
    await fails(client.add_bot(game.id, "carol", 2, "esperto"), Reason.NOT_SEATED)
    await fails(client.add_bot(game.id, "alice", 1, "esperto"), Reason.SEAT_TAKEN)
    await fails(client.add_bot(game.id, "alice", 4, "esperto"), Reason.SEAT_TAKEN)
    await fails(client.add_bot(game.id, "alice", -1, "esperto"), Reason.SEAT_TAKEN)
    await fails(client.add_bot(game.id, "alice", 2, "grandmaster"), Reason.UNKNOWN_BOT_LEVEL)
    await fails(client.remove_bot(game.id, "alice", 1), Reason.NO_BOT)
    await fails(client.remove_bot(game.id, "alice", 3), Reason.NO_BOT)
    unknown = "00000000-0000-4000-8000-000000000000"
    await fails(client.add_bot(unknown, "alice", 2, "esperto"), Reason.GAME_NOT_FOUND)


async def test_a_started_game_refuses_seating_changes(client):
    game = await full_game(client)
    await fails(client.add_bot(game.id, "alice", 1, "esperto"), Reason.GAME_STARTED,
                "Game already started")
    await fails(client.remove_bot(game.id, "alice", 1), Reason.GAME_STARTED)


async def test_the_creator_removes_a_bot_in_the_lobby(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.add_bot(game.id, "alice", 3, "esperto")
    after = await client.remove_bot(game.id, "alice", 3)
    assert [s.index for s in after.seats] == [0] and after.seats_open == 3


async def test_leaving_the_lobby_frees_the_seat_and_passes_the_creator_on(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    await client.add_bot(game.id, "alice", 2, "esperto")
    after = await client.leave_game(game.id, "alice")
    assert after is not None and [(s.index, s.member_id) for s in after.seats] == [
        (1, "bob"), (2, "bot:2")]
    assert after.creator is not None and after.creator.member_id == "bob"
    await client.add_bot(game.id, "bob", 0, "principiante")  # bob may now seat bots
    assert await client.list_member_games("alice") == []
    await fails(client.leave_game(game.id, "alice"), Reason.NOT_SEATED)


async def test_the_last_person_leaving_the_lobby_ends_the_game(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.add_bot(game.id, "alice", 1, "esperto")
    assert await client.leave_game(game.id, "alice") is None
    await fails(client.get_game(game.id), Reason.GAME_NOT_FOUND)


async def test_leaving_a_started_game_hands_the_seat_to_a_bot_until_taken_back(client, bots):
    game = await full_game(client)
    left = await client.leave_game(game.id, "bob")
    assert left is not None
    seat = left.at(1)
    assert seat is not None and (seat.member_id, seat.bot, seat.took_over) == ("bob", "esperto", True)
    await bots.last(game.id, ((1, "esperto"),))
    again = await client.leave_game(game.id, "bob")  # idempotent
    assert again is not None and again.at(1) == seat
    assert [g.id for g in await client.list_member_games("bob")] == [game.id]  # a way back
    back = await client.return_seat(game.id, "bob")
    assert back.at(1) is not None and (back.at(1).bot, back.at(1).took_over) == ("", False)
    await bots.last(game.id, ())
    await fails(client.return_seat(game.id, "bob"), Reason.SEAT_NOT_TAKEN_OVER,
                "Seat not taken over")
    await fails(client.return_seat(game.id, "erin"), Reason.NOT_SEATED)


async def test_a_finished_game_cannot_be_left(client, game_service):
    game = await full_game(client)
    game_service[0].finished.add(game.id)
    await fails(client.leave_game(game.id, "carol"), Reason.GAME_FINISHED)


async def test_an_abandoned_seat_is_taken_over_once(client, bots):
    game = await full_game(client)
    first = await client.take_over_seat(game.id, 3)
    second = await client.take_over_seat(game.id, 3)
    assert first.at(3) == second.at(3) and first.at(3).took_over
    await bots.last(game.id, ((3, "esperto"),))
    lobby_game = await client.create_game("erin", "Erin", "scopone_scientifico")
    await fails(client.take_over_seat(lobby_game.id, 0), Reason.INVALID_ARGUMENT)


async def test_a_take_back_reaches_the_game_only_from_the_one_person_among_bots(client, game_service):
    """lobby.practice: the seating is checked here; the last play, by the game, with the seat."""
    practice = await client.create_game("alice", "Alice", "scopone_scientifico")
    for seat in (1, 2, 3):
        await client.add_bot(practice.id, "alice", seat, "esperto")
    assert await client.take_back(practice.id, "alice") == 1
    assert game_service[0].taken_back == [(practice.id, "seat:0")]
    await fails(client.take_back(practice.id, "erin"), Reason.NOT_SEATED)
    people = await full_game(client)
    await fails(client.take_back(people.id, "alice"), Reason.ILLEGAL_MOVE, ONLY_PRACTICE_TEXT)
    await client.take_over_seat(people.id, 1)  # a bot that took over is someone's seat still
    await fails(client.take_back(people.id, "alice"), Reason.ILLEGAL_MOVE, ONLY_PRACTICE_TEXT)
    assert len(game_service[0].taken_back) == 1


async def test_a_seated_member_moves_to_an_empty_seat_in_the_lobby(client):
    game = await client.create_game("alice", "Alice", "scopone_scientifico")
    await client.join_game("bob", "Bob", game.join_code)
    moved = await client.change_seat(game.id, "bob", 3)
    assert [(s.index, s.member_id) for s in moved.seats] == [(0, "alice"), (3, "bob")]
    assert await client.change_seat(game.id, "bob", 3) == moved  # its own seat: nothing changes
    await fails(client.change_seat(game.id, "bob", 0), Reason.SEAT_TAKEN, "Seat taken")
    await fails(client.change_seat(game.id, "bob", 4), Reason.SEAT_TAKEN)
    await fails(client.change_seat(game.id, "carol", 2), Reason.NOT_SEATED)
    joined = await client.join_game("carol", "Carol", game.join_code)
    assert [s.index for s in joined.game.seats] == [0, 1, 3]  # the lowest empty seat
    started = await full_game(client)
    await fails(client.change_seat(started.id, "bob", 1), Reason.GAME_STARTED,
                "Game already started")


async def test_erasing_a_member_whose_seat_a_bot_plays_keeps_the_bot(client):
    game = await full_game(client)
    await client.leave_game(game.id, "bob")
    await client.erase_member("bob")
    seat = (await client.get_game(game.id)).at(1)
    assert seat is not None and (seat.erased, seat.bot, seat.took_over) == (True, "esperto", True)
