"""Request ids through the gRPC API, on both stores: each call that makes or changes a seating
and is not idempotent by its arguments acts once per request id. Sent again with the same id it
answers what the first call did and changes nothing; two sent at once act once; another id acts
again. And the client's own retries carry the id."""

from __future__ import annotations

import asyncio
import contextlib

import grpc
import pytest

from lobby.client import LobbyClient
from lobby.models import Game
from lobby.postgres_store import PostgresLobbyStore
from lobby.servicer import game_message
from lobby.store import REQUEST_TTL_SECONDS
from services.rpc.channels import PEOPLE_CALLS
from services.rpc.errors import Reason
from tavolo.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from testing.processes import free_address
from tests.lobby.helpers import fails, full_game
from tests.lobby.test_rematch import finished_game

SCOPONE = "scopone_scientifico"


async def _at_once(*calls):
    """The calls made together (each its own task), their results in order."""
    return await asyncio.gather(*(asyncio.ensure_future(call) for call in calls))


async def test_create_game_makes_one_game_per_request_id(client):
    first = await client.create_game("alice", "Alice", SCOPONE, request_id="create-1")
    again = await client.create_game("alice", "Alice", SCOPONE, request_id="create-1")
    assert again == first
    assert [g.id for g in await client.list_member_games("alice")] == [first.id]

    other = await client.create_game("alice", "Alice", SCOPONE, request_id="create-2")
    assert other.id != first.id
    assert len(await client.list_member_games("alice")) == 2


async def test_create_game_sent_twice_at_once_makes_one_game(client):
    answers = await _at_once(*(client.create_game("bob", "Bob", SCOPONE, '{"target_score": 21}',
                                                  request_id="create-race") for _ in range(4)))
    assert len({game.id for game in answers}) == 1
    assert [g.id for g in await client.list_member_games("bob")] == [answers[0].id]


async def test_a_request_id_is_the_members_own(client):
    alice = await client.create_game("alice", "Alice", SCOPONE, request_id="same")
    bob = await client.create_game("bob", "Bob", SCOPONE, request_id="same")
    assert alice.id != bob.id and bob.seats[0].member_id == "bob"


@pytest.mark.parametrize("bad", ["has space", "x" * 129, "è", "tab\t"])
async def test_a_malformed_request_id_is_refused_and_makes_nothing(client, bad):
    error = await fails(client.create_game("alice", "Alice", SCOPONE, request_id=bad),
                        Reason.INVALID_ARGUMENT)
    assert error.metadata["field"] == "request_id"
    assert await client.list_member_games("alice") == []


async def test_quick_match_that_filled_a_game_seats_nobody_again(client):
    """The retry of the call that took the last seat: without the request id it would seat
    the member at a new open game."""
    opened = await client.quick_match("alice", "Alice", SCOPONE, request_id="q-a")
    for member in ("bob", "carol"):
        await client.quick_match(member, member.title(), SCOPONE, request_id=f"q-{member}")

    first = await client.quick_match("dave", "Dave", SCOPONE, request_id="q-dave")
    again = await client.quick_match("dave", "Dave", SCOPONE, request_id="q-dave")
    assert first.game.id == again.game.id == opened.game.id
    assert (first.created, first.started) == (again.created, again.started) == (False, True)
    assert again.game == first.game and again.game.started
    assert [g.id for g in await client.list_member_games("dave")] == [opened.game.id]

    other = await client.quick_match("dave", "Dave", SCOPONE, request_id="q-dave-2")
    assert other.created and other.game.id != opened.game.id  # another id: another call


async def test_quick_match_sent_twice_at_once_seats_once(client):
    answers = await _at_once(*(client.quick_match("erin", "Erin", SCOPONE, request_id="q-race")
                               for _ in range(3)))
    assert len({answer.game.id for answer in answers}) == 1
    assert [answer.created for answer in answers] == [True] * 3
    assert len(await client.list_member_games("erin")) == 1


async def test_rematch_answers_the_first_call_again(harness):
    finished = await finished_game(harness)
    first = await harness.client.rematch("bob", "Bob", finished.id, request_id="re-1")
    again = await harness.client.rematch("bob", "Bob", finished.id, request_id="re-1")
    assert first.created and again.created  # the first call's answer, not "seated already"
    assert again.game == first.game
    other = await harness.client.rematch("bob", "Bob", finished.id, request_id="re-2")
    assert other.game.id == first.game.id and not other.created  # idempotent by its arguments


async def test_rematch_sent_twice_at_once_creates_one_game(harness):
    finished = await finished_game(harness)
    answers = await _at_once(*(harness.client.rematch("carol", "Carol", finished.id,
                                                      request_id="re-race") for _ in range(3)))
    assert len({answer.game.id for answer in answers}) == 1
    assert [answer.created for answer in answers] == [True] * 3
    assert len(answers[0].game.seats) == 1


async def test_add_bot_seats_one_bot_and_answers_again(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    for member in ("bob", "carol"):
        await client.join_game(member, member.title(), game.join_code)
    first = await client.add_bot(game.id, "alice", 3, "esperto", request_id="bot-1")
    again = await client.add_bot(game.id, "alice", 3, "esperto", request_id="bot-1")
    assert first.started and again.started  # the call that filled the game, both times
    assert again.game == first.game and again.game.started
    await fails(client.add_bot(game.id, "alice", 3, "esperto", request_id="bot-2"),
                Reason.GAME_STARTED)  # another id: another call, refused


async def test_add_bot_sent_twice_at_once_seats_one_bot(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    answers = await _at_once(*(client.add_bot(game.id, "alice", 2, "maestro", request_id="bot-race")
                               for _ in range(3)))
    assert all(answer.game == answers[0].game for answer in answers)
    assert [seat.bot for seat in answers[0].game.seats] == ["", "maestro"]
    await fails(client.add_bot(game.id, "alice", 2, "maestro", request_id="bot-other"),
                Reason.SEAT_TAKEN)


async def test_remove_bot_answers_again_instead_of_no_bot(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    await client.add_bot(game.id, "alice", 1, "esperto")
    await client.add_bot(game.id, "alice", 2, "esperto")
    first = await client.remove_bot(game.id, "alice", 1, request_id="rm-1")
    again = await client.remove_bot(game.id, "alice", 1, request_id="rm-1")
    assert again == first and first.at(1) is None and first.at(2) is not None
    await fails(client.remove_bot(game.id, "alice", 1, request_id="rm-2"), Reason.NO_BOT)
    answers = await _at_once(*(client.remove_bot(game.id, "alice", 2, request_id="rm-race")
                               for _ in range(3)))
    assert all(answer == answers[0] for answer in answers) and answers[0].at(2) is None


async def test_leave_game_answers_again_instead_of_not_seated(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    await client.join_game("bob", "Bob", game.join_code)
    first = await client.leave_game(game.id, "bob", request_id="leave-1")
    again = await client.leave_game(game.id, "bob", request_id="leave-1")
    assert first is not None and again == first and first.seat_of("bob") is None
    await fails(client.leave_game(game.id, "bob", request_id="leave-2"), Reason.NOT_SEATED)

    # The last person leaving ends the game: answered again as gone, not GAME_NOT_FOUND.
    assert await client.leave_game(game.id, "alice", request_id="leave-3") is None
    assert await client.leave_game(game.id, "alice", request_id="leave-3") is None
    await fails(client.leave_game(game.id, "alice", request_id="leave-4"), Reason.GAME_NOT_FOUND)


async def test_leave_game_sent_twice_at_once_frees_one_seat(client):
    game = await client.create_game("alice", "Alice", SCOPONE)
    await client.join_game("bob", "Bob", game.join_code)
    answers = await _at_once(*(client.leave_game(game.id, "bob", request_id="leave-race")
                               for _ in range(3)))
    assert all(answer == answers[0] for answer in answers)
    assert [seat.member_id for seat in answers[0].seats] == ["alice"]


async def test_return_seat_answers_again_instead_of_not_taken_over(client):
    game = await full_game(client)
    await client.leave_game(game.id, "bob")
    first = await client.return_seat(game.id, "bob", request_id="back-1")
    again = await client.return_seat(game.id, "bob", request_id="back-1")
    assert again == first and (first.at(1).bot, first.at(1).took_over) == ("", False)
    await fails(client.return_seat(game.id, "bob", request_id="back-2"), Reason.SEAT_NOT_TAKEN_OVER)

    await client.leave_game(game.id, "carol")
    answers = await _at_once(*(client.return_seat(game.id, "carol", request_id="back-race")
                               for _ in range(3)))
    assert all(answer == answers[0] for answer in answers) and not answers[0].at(2).took_over


async def _lapse_requests(harness, clock) -> None:
    """Make every remembered request id older than REQUEST_TTL_SECONDS."""
    if isinstance(harness.store, PostgresLobbyStore):
        await harness.store.pool.execute(
            "UPDATE lobby_request SET expires_at = now() - interval '1 second'")
    else:
        clock.now += REQUEST_TTL_SECONDS + 1


async def test_a_request_id_is_forgotten_after_its_time(harness, clock):
    first = await harness.client.create_game("alice", "Alice", SCOPONE, request_id="old")
    await _lapse_requests(harness, clock)
    later = await harness.client.create_game("alice", "Alice", SCOPONE, request_id="old")
    assert later.id != first.id


async def test_an_erased_member_leaves_no_request_ids(harness):
    first = await harness.client.create_game("alice", "Alice", SCOPONE, request_id="mine")
    await harness.client.erase_member("alice")
    later = await harness.client.create_game("alice", "Alice", SCOPONE, request_id="mine")
    assert later.id != first.id
    if isinstance(harness.store, PostgresLobbyStore):
        assert await harness.store.pool.fetchval("SELECT count(*) FROM lobby_request") == 1


class _LosesFirstAnswers(lobby_pb2_grpc.LobbyServiceServicer):
    """A lobby that answers each call's first attempt UNAVAILABLE (as if the lobby had gone
    away with its answer), and keeps the request ids it was sent."""

    def __init__(self) -> None:
        self.request_ids: dict[str, list[str]] = {}

    async def _answer(self, method: str, request, context, response):
        sent = self.request_ids.setdefault(method, [])
        sent.append(request.request_id)
        if len(sent) == 1:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the answer was lost")
        return response

    async def CreateGame(self, request, context):
        game = Game(id=GAME_ID, game_type=SCOPONE, join_code="ABCDEF", options_json="{}",
                    seats_total=4, created_at_ms=1, updated_at_ms=1)
        return await self._answer("CreateGame", request, context,
                                  lobby_pb2.CreateGameResponse(game=game_message(game)))

    async def LeaveGame(self, request, context):
        return await self._answer("LeaveGame", request, context, lobby_pb2.LeaveGameResponse())

    async def ReturnSeat(self, request, context):
        game = Game(id=GAME_ID, game_type=SCOPONE, join_code="ABCDEF", options_json="{}",
                    seats_total=4, created_at_ms=1, updated_at_ms=1)
        return await self._answer("ReturnSeat", request, context,
                                  lobby_pb2.ReturnSeatResponse(game=game_message(game)))


GAME_ID = "00000000-0000-4000-8000-000000000001"


@contextlib.asynccontextmanager
async def _served(servicer):
    server = grpc.aio.server()
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, server)
    address = free_address()
    server.add_insecure_port(address)
    await server.start()
    try:
        yield address
    finally:
        await server.stop(None)


@pytest.mark.parametrize("given", ["", "http-request-7"])
async def test_the_gateways_retries_carry_the_request_id(given):
    """LeaveGame and ReturnSeat are retried by the channel (as the gateway's client is set up),
    with the same request id: the caller's, or one the client drew for the call."""
    lobby = _LosesFirstAnswers()
    async with _served(lobby) as address, LobbyClient(address, policy=PEOPLE_CALLS) as client:
        assert await client.leave_game(GAME_ID, "alice", request_id=given) is None
        assert (await client.return_seat(GAME_ID, "alice", request_id=given)).id == GAME_ID
    (leave, leave_again), (back, back_again) = lobby.request_ids["LeaveGame"], lobby.request_ids["ReturnSeat"]
    assert leave == leave_again != "" and back == back_again != ""
    if given:
        assert leave == back == given
    else:
        assert leave != back  # the client draws one per call


async def test_a_create_game_is_not_retried_behind_the_lobbys_own_retries():
    """The lobby answers UNAVAILABLE only after its own retries of the game service: the
    gateway's channel sends CreateGame once, so a person waits for that alone."""
    lobby = _LosesFirstAnswers()
    async with _served(lobby) as address, LobbyClient(address, policy=PEOPLE_CALLS) as client:
        await fails(client.create_game("alice", "Alice", SCOPONE, request_id="once"), Reason.UNAVAILABLE)
    assert lobby.request_ids["CreateGame"] == ["once"]
