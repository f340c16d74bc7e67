"""StatsService end to end: the client, the servicer on a socket, a store, the fake lobby."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import grpc
import pytest
from google.protobuf import timestamp_pb2

from services.rpc.errors import Reason, ServiceError, from_rpc_error
from stats.client import SeatOutcome, seat_outcomes
from stats.model import ERASED_NAME, Rating
from stats.repository import MemoryStatsRepository
from tavolo.stats.v1 import stats_pb2, stats_pb2_grpc
from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_seats
from tests.stats.servers import running_stack

FOUR = ("alice", "bob", "carol", "dave")


async def record(stack, table_id, winner="A", finished_ms=BASE_MS, game_type=SCOPONE, seats=None):
    return await stack.client.record_match(
        table_id, game_type, finished_ms - 60_000, finished_ms, result_of(winner),
        seats if seats is not None else team_seats(winner))


async def test_record_match_joins_the_lobby_seating(stack):
    table = stack.table(*FOUR, names={"alice": "Alice A."})
    recorded = await record(stack, table)
    assert recorded.created
    match = recorded.match
    assert (match.id, match.game_type, match.started_ms, match.finished_ms) == (
        table, SCOPONE, BASE_MS - 60_000, BASE_MS)
    assert match.result == result_of("A")
    assert [(p.seat_index, p.member_id, p.display_name, p.team, p.won, p.points, p.elo_delta)
            for p in match.players] == [
        (0, "alice", "Alice A.", "A", True, 11, 16), (1, "bob", "Bob", "B", False, 7, -16),
        (2, "carol", "Carol", "A", True, 11, 16), (3, "dave", "Dave", "B", False, 7, -16)]
    assert await stack.client.ratings("alice") == [Rating(SCOPONE, 1516, 1)]


async def test_recording_again_returns_the_same_match_without_asking_the_lobby(stack):
    table = stack.table(*FOUR)
    first = await record(stack, table)
    del stack.lobby.seatings[table]  # the lobby may forget a finished table
    again = await record(stack, table, winner="B")
    assert not again.created and again.match == first.match
    assert stack.lobby.calls == 1  # no seating asked the second time
    assert stack.lobby.marked == [table, table]  # the mark is sent again: it changes nothing
    assert await stack.client.ratings("bob") == [Rating(SCOPONE, 1484, 1)]


async def test_a_match_is_answered_once_the_lobby_knows_its_table_finished(stack):
    table = stack.table(*FOUR)
    stack.lobby.marks_fail = True
    with pytest.raises(ServiceError) as refused:
        await record(stack, table)
    assert refused.value.reason is Reason.UNAVAILABLE  # the game service sends it again
    assert "lobby did not learn that the table finished" in refused.value.message
    assert stack.lobby.marked == []
    stack.lobby.marks_fail = False
    again = await record(stack, table)  # the retry: recorded already, the lobby told now
    assert not again.created
    assert stack.lobby.marked == [table]
    assert await stack.client.ratings("alice") == [Rating(SCOPONE, 1516, 1)]  # rated once


async def test_a_practice_match_marks_its_table_finished_too(stack):
    table = stack.table("alice", "bot:1", "bot:2", "bot:3", bots={1: "esperto", 2: "esperto", 3: "esperto"})
    assert (await record(stack, table)).created
    assert stack.lobby.marked == [table]
    assert await stack.client.ratings("alice") == []  # not rated, yet marked


async def test_the_engine_result_seats_can_be_reported_as_they_are(stack):
    table = stack.table(*FOUR)
    engine_result = {**result_of("B"), "seats": [
        {"seat": s, "team": "AB"[s % 2], "won": s % 2 == 1, "points": 11 if s % 2 else 4}
        for s in range(4)]}
    recorded = await stack.client.record_match(table, SCOPONE, BASE_MS, BASE_MS + 1, engine_result,
                                               seat_outcomes(engine_result))
    assert [p.elo_delta for p in recorded.match.players] == [-16, 16, -16, 16]
    assert recorded.match.result == engine_result


async def test_a_game_without_teams_rates_each_seat(stack):
    table = stack.table("alice", "bob", "carol")
    seats = [SeatOutcome(0, True, 5), SeatOutcome(1, False, 3), SeatOutcome(2, False, 1)]
    recorded = await record(stack, table, game_type="dummy", seats=seats)
    assert [(p.team, p.elo_delta) for p in recorded.match.players] == [(None, 16), (None, -8), (None, -8)]


async def test_a_table_the_lobby_does_not_know_is_game_not_found(stack):
    with pytest.raises(ServiceError) as caught:
        await record(stack, str(uuid.uuid4()))
    assert caught.value.reason is Reason.GAME_NOT_FOUND


async def test_a_seating_that_names_nobody_is_game_not_found(stack):
    with pytest.raises(ServiceError) as caught:
        await record(stack, stack.table())
    assert caught.value.reason is Reason.GAME_NOT_FOUND


@pytest.mark.parametrize("member", ["", "al\x00ice"])
async def test_a_seating_with_a_malformed_member_id_is_invalid_argument(memory_stack, member):
    with pytest.raises(ServiceError, match="malformed member id") as caught:
        await record(memory_stack, memory_stack.table(member, "bob", "carol", "dave"))
    assert caught.value.reason is Reason.INVALID_ARGUMENT


async def test_nul_characters_are_left_out_of_the_names(memory_stack):
    table = memory_stack.table(*FOUR, names={"alice": "Al\x00ice"})
    assert (await record(memory_stack, table)).match.players[0].display_name == "Alice"


async def test_any_seat_report_will_do(memory_stack):
    """record_match takes any object with a SeatOutcome's attributes, e.g. the game service's."""
    @dataclass(frozen=True)
    class Reported:
        seat: str
        seat_index: int
        team: str
        won: bool
        points: int
        details: Mapping[str, int]

    seats = [Reported(f"seat:{i}", i, "", i == 0, 3 - i, MappingProxyType({"scope": i} if i else {}))
             for i in range(3)]
    table = memory_stack.table("alice", "bob", "carol")
    await record(memory_stack, table, game_type="dummy", seats=seats)
    match = await memory_stack.repository.get_match(table)  # details stay in the store
    assert [(p.team, p.won, p.points, p.details) for p in match.players] == [
        (None, True, 3, {}), (None, False, 2, {"scope": 1}), (None, False, 1, {"scope": 2})]


async def test_an_unreachable_lobby_is_unavailable(fake_lobby):
    # Nothing listens on port 9 (discard): the adapter's retries run out within its deadline.
    async with running_stack(MemoryStatsRepository(), fake_lobby, lobby_address="127.0.0.1:9",
                             lobby_timeout=0.5) as stack:
        table = stack.table(*FOUR)
        with pytest.raises(ServiceError) as caught:
            await _raw(stack, "RecordMatch", _request(table))
    assert caught.value.reason is Reason.UNAVAILABLE
    assert await stack.repository.get_match(table) is None


async def test_history_pages_with_cursors(stack):
    tables = [stack.table(*FOUR) for _ in range(5)]
    for index, table in enumerate(tables):
        await record(stack, table, finished_ms=BASE_MS + (index // 2))  # pairs share a time
    expected = sorted(tables, key=lambda t: (tables.index(t) // 2, t), reverse=True)
    seen, cursor, pages = [], None, 0
    while True:
        page = await stack.client.list_matches("carol", limit=2, cursor=cursor)
        pages += 1
        seen += [m.id for m in page.matches]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == expected and pages == 3
    first = await stack.client.list_matches("carol", game_type=SCOPONE)
    assert len(first.matches) == 5 and first.next_cursor is None
    assert (await stack.client.list_matches("zoe")).matches == []


async def test_a_page_of_large_matches_stops_early_and_the_next_one_goes_on(stack):
    """A page never outgrows gRPC's 4 MiB message cap: it stops at about 1 MiB of engine data."""
    tables = [stack.table(*FOUR) for _ in range(6)]
    for index, table in enumerate(tables):
        result = {**result_of("A"), "audit": "x" * 200_000}  # each near the 256 KiB cap
        await stack.client.record_match(table, SCOPONE, BASE_MS, BASE_MS + index, result,
                                        team_seats("A"))
    seen, cursor, sizes = [], None, []
    while True:
        page = await stack.client.list_matches("carol", limit=100, cursor=cursor)
        sizes.append(len(page.matches))
        seen += [m.id for m in page.matches]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == tables[::-1]  # newest first, none twice, none missed
    assert sizes == [5, 1]  # 5 x 200 KB fit in 1 MiB, a 6th would not


async def test_a_page_exactly_full_has_no_next_cursor(stack):
    for _ in range(2):
        await record(stack, stack.table(*FOUR))
    page = await stack.client.list_matches("alice", limit=2)
    assert len(page.matches) == 2 and page.next_cursor is None


@pytest.mark.parametrize("cursor_of", [
    lambda token: token + "A",
    lambda token: "A" + token[1:],
    lambda token: "not a cursor",
    lambda token: "e30.AAAAAAAAAAAAAAAAAAAAAA",
])
async def test_a_forged_or_malformed_cursor_is_invalid_page_token(stack, cursor_of):
    for _ in range(2):
        await record(stack, stack.table(*FOUR))
    token = (await stack.client.list_matches("alice", limit=1)).next_cursor
    with pytest.raises(ServiceError) as caught:
        await stack.client.list_matches("alice", limit=1, cursor=cursor_of(token))
    assert caught.value.reason is Reason.INVALID_PAGE_TOKEN


async def test_a_cursor_only_works_for_its_own_query(memory_stack):
    for _ in range(2):
        await record(memory_stack, memory_stack.table(*FOUR))
    token = (await memory_stack.client.list_matches("alice", limit=1)).next_cursor
    for member, game_type in (("bob", None), ("alice", SCOPONE)):
        with pytest.raises(ServiceError) as caught:
            await memory_stack.client.list_matches(member, game_type, limit=1, cursor=token)
        assert caught.value.reason is Reason.INVALID_PAGE_TOKEN
    assert len((await memory_stack.client.list_matches("alice", limit=1, cursor=token)).matches) == 1


async def test_the_leaderboard_defaults_and_ranks(stack):
    await record(stack, stack.table(*FOUR))
    await record(stack, stack.table("erin", "frank", "gina", "hal"), game_type="dummy")
    board = await stack.client.leaderboard()
    assert board.game_type == SCOPONE
    assert [(e.member_id, e.display_name, e.rating, e.wins, e.matches, e.points)
            for e in board.entries] == [
        ("alice", "Alice", 1516, 1, 1, 11), ("carol", "Carol", 1516, 1, 1, 11),
        ("bob", "Bob", 1484, 0, 1, 7), ("dave", "Dave", 1484, 0, 1, 7)]
    assert [e.member_id for e in (await stack.client.leaderboard("dummy", 1)).entries] == ["erin"]
    raw = await _raw(stack, "GetLeaderboard", stats_pb2.GetLeaderboardRequest(limit=2))
    assert [(e.rank, e.member_id) for e in raw.entries] == [(1, "alice"), (2, "carol")]


async def test_erase_member_anonymizes_and_drops_ratings(stack):
    table = stack.table(*FOUR)
    await record(stack, table)
    assert await stack.client.erase_member("bob") == 1
    assert await stack.client.ratings("bob") == []
    players = (await stack.client.list_matches("alice")).matches[0].players
    assert players[1].display_name == ERASED_NAME and players[1].member_id != "bob"
    assert players[1].elo_delta == -16
    assert await stack.client.erase_member("bob") == 0


async def test_a_seat_the_lobby_erased_is_recorded_anonymized_and_unrated(stack):
    """The member left (DELETE /api/me) while the match was played: the lobby's seat carries
    a fresh id and erased = true; stats must neither keep that id nor rate it."""
    table = stack.table(*FOUR)
    stack.lobby.erased.add("carol")  # the lobby's seat: "carol" stands for its fresh id here
    match = (await record(stack, table)).match
    carol = match.players[2]
    assert (carol.erased, carol.display_name, carol.elo_delta) == (True, ERASED_NAME, 0)
    assert carol.member_id not in ("carol", "") and carol.member_id.startswith("deleted-")
    assert [p.elo_delta for p in match.players] == [16, -16, 0, -16]  # A = alice alone, 1500
    assert [p.erased for p in match.players] == [False, False, True, False]
    assert await stack.client.ratings("carol") == []
    assert await stack.client.ratings(carol.member_id) == []
    board = await stack.client.leaderboard()
    assert [e.member_id for e in board.entries] == ["alice", "bob", "dave"]
    assert ERASED_NAME not in {e.display_name for e in board.entries}
    # As stored, as listed (the wire carries erased too).
    listed = (await stack.client.list_matches("alice")).matches[0]
    assert listed == match


async def test_an_erasure_racing_the_recording_is_not_undone(stack):
    """Bob is erased (lobby, then stats) after stats read the seating that still names him,
    before stats writes: his real id must not be written after his erasure."""
    table = stack.table(*FOUR)

    async def erase_bob_meanwhile():
        stack.lobby.on_seating = None
        stack.lobby.erased.add("bob")
        assert await stack.client.erase_member("bob") == 0  # nothing of his is stored yet

    stack.lobby.on_seating = erase_bob_meanwhile
    match = (await record(stack, table)).match
    bob = match.players[1]
    assert (bob.erased, bob.display_name, bob.elo_delta) == (True, ERASED_NAME, 0)
    assert bob.member_id != "bob"
    assert await stack.client.ratings("bob") == []
    assert (await stack.client.list_matches("bob")).matches == []
    assert "bob" not in {e.member_id for e in (await stack.client.leaderboard()).entries}
    # Bob comes back with the same login after his erasure: his next match is his.
    stack.lobby.erased.discard("bob")
    await record(stack, stack.table(*FOUR), finished_ms=BASE_MS + 1)
    assert (await stack.client.ratings("bob"))[0].matches == 1


# -- bots and abandonment ---------------------------------------------------------------------

BOT_NAMES = {"bot:1": "Expert", "bot:3": "Master"}


async def test_a_practice_match_records_the_bots_by_level_never_as_members(stack):
    """The lobby lists a bot's seat as "bot:<index>" with the bot's name and level; stats keeps
    no member id, rating or leaderboard row for it."""
    table = stack.table("alice", "bot:1", "carol", "bot:3", names=BOT_NAMES,
                        bots={1: "esperto", 3: "maestro"})
    seats = team_seats("B")
    recorded = await record(stack, table, winner="B", seats=seats)
    match = recorded.match
    assert recorded.created and not match.rated
    assert [(p.member_id, p.display_name, p.bot_level, p.won, p.elo_delta)
            for p in match.players] == [
        ("alice", "Alice", None, False, 0), ("", "Expert", "esperto", True, 0),
        ("carol", "Carol", None, False, 0), ("", "Master", "maestro", True, 0)]
    assert await stack.client.ratings("alice") == []
    for bot in ("bot:1", "bot:3"):
        assert await stack.client.ratings(bot) == []
        assert (await stack.client.list_matches(bot)).matches == []
    assert (await stack.client.leaderboard()).entries == []
    assert (await stack.client.list_matches("alice")).matches == [match]
    # The wire carries it all.
    raw = await _raw(stack, "ListMatches", stats_pb2.ListMatchesRequest(member_id="carol"))
    assert not raw.matches[0].rated
    assert [(p.member_id, p.bot_level) for p in raw.matches[0].players] == [
        ("alice", ""), ("", "esperto"), ("carol", ""), ("", "maestro")]
    # Recording it again is answered from the store.
    again = await record(stack, table, winner="B", seats=seats)
    assert not again.created and again.match == match


async def test_the_record_counts_every_match_practice_ones_too(stack):
    """GetRatings' matches and wins are over every recorded match of the member (a player page's
    totals), while a rating counts only the matches that moved it; an erased member has none."""
    await record(stack, stack.table(*FOUR))  # rated: alice's team A wins
    practice = stack.table("alice", "bot:1", "bot:2", "bot:3", bots={1: "esperto", 2: "esperto", 3: "esperto"})
    await record(stack, practice, winner="B", finished_ms=BASE_MS + 1)  # practice: alice's team loses
    alice = await stack.client.record("alice")
    assert (alice.ratings, alice.matches, alice.wins) == ([Rating(SCOPONE, 1516, 1)], 2, 1)
    bob = await stack.client.record("bob")
    assert (bob.matches, bob.wins) == (1, 0)
    assert (await stack.client.record("nobody")) == type(alice)([], 0, 0)
    await stack.client.erase_member("alice")
    assert (await stack.client.record("alice")).matches == 0


async def test_an_abandoned_match_charges_the_leaver_a_loss(stack):
    await record(stack, stack.table(*FOUR))  # alice, carol 1516; bob, dave 1484
    table = stack.table(*FOUR, took_over={3})
    recorded = await record(stack, table, winner="B", finished_ms=BASE_MS + 1,
                            seats=team_seats("B"))
    match = recorded.match
    # dave's side B (1484) losing to A (1516) would have cost 32 * -0.45407 = -14.53 -> -15.
    assert not match.rated
    assert [(p.member_id, p.abandoned, p.elo_delta) for p in match.players] == [
        ("alice", False, 0), ("bob", False, 0), ("carol", False, 0), ("dave", True, -15)]
    assert await stack.client.ratings("dave") == [Rating(SCOPONE, 1469, 2)]
    assert await stack.client.ratings("bob") == [Rating(SCOPONE, 1484, 1)]
    raw = await _raw(stack, "ListMatches", stats_pb2.ListMatchesRequest(member_id="bob"))
    assert [(m.rated, [p.abandoned for p in m.players]) for m in raw.matches] == [
        (False, [False, False, False, True]), (True, [False] * 4)]
    assert (await record(stack, table, seats=team_seats("A"))).match == match


async def test_a_bots_seat_is_the_bots_whatever_member_id_the_lobby_lists(memory_stack):
    table = memory_stack.table("alice", "", "carol", "bob", names={"": "Beginner"},
                               bots={1: "principiante", 3: "esperto"})
    match = (await record(memory_stack, table)).match
    assert [(p.member_id, p.display_name, p.bot_level) for p in match.players] == [
        ("alice", "Alice", None), ("", "Beginner", "principiante"), ("carol", "Carol", None),
        ("", "Bob", "esperto")]
    assert await memory_stack.client.ratings("bob") == []


async def test_a_seat_taken_over_and_given_back_is_the_persons(memory_stack):
    """A person who took their seat back finished the match: it is rated as usual."""
    table = memory_stack.table(*FOUR)  # the lobby's seating at the end: nobody taken over
    match = (await record(memory_stack, table)).match
    assert match.rated and not any(p.abandoned for p in match.players)


async def test_a_seating_with_a_malformed_bot_level_is_refused(memory_stack):
    table = memory_stack.table("alice", "bot:1", "carol", "dave", bots={1: "Esperto!"})
    with pytest.raises(ServiceError, match="malformed bot level") as caught:
        await record(memory_stack, table)
    assert caught.value.reason is Reason.INVALID_ARGUMENT
    assert await memory_stack.client.ratings("alice") == []


# -- bad input: every one a clear INVALID_ARGUMENT (or its reason), never INTERNAL --------


def _request(table: str, /, **changes) -> stats_pb2.RecordMatchRequest:
    seats = [stats_pb2.SeatResult(seat=f"seat:{i}", seat_index=i, team="AB"[i % 2], won=i % 2 == 0,
                                  points=11 if i % 2 == 0 else 7) for i in range(4)]
    fields = {"table_id": table, "game_type": SCOPONE,
              "started_at": timestamp_pb2.Timestamp(seconds=1_764_669_000),
              "finished_at": timestamp_pb2.Timestamp(seconds=1_764_669_600),
              "result_json": json.dumps(result_of("A")), "seats": seats}
    fields.update(changes)
    return stats_pb2.RecordMatchRequest(**{k: v for k, v in fields.items() if v is not None})


def _seat(i, **changes):
    fields = {"seat": f"seat:{i}", "seat_index": i, "team": "AB"[i % 2], "won": i % 2 == 0,
              "points": 3}
    fields.update(changes)
    return stats_pb2.SeatResult(**fields)


BAD_RECORDS = {
    "empty table id": ({"table_id": ""}, "table_id is required"),
    "table id not a uuid": ({"table_id": "table-1"}, "table_id must be a uuid"),
    "empty game type": ({"game_type": ""}, "game_type is required"),
    "game type not an id": ({"game_type": "Scopone!"}, "lower_snake_case"),
    "no seats": ({"seats": []}, "at least one seat"),
    "unset start": ({"started_at": None}, "started_at is required"),
    "unset finish": ({"finished_at": None}, "finished_at is required"),
    "finish before start": ({"finished_at": timestamp_pb2.Timestamp(seconds=1)}, "before started_at"),
    "time before 1970": ({"started_at": timestamp_pb2.Timestamp(seconds=-5)}, "between 1970"),
    "result not json": ({"result_json": '{"scores": '}, "result_json is not valid JSON"),
    "result not an object": ({"result_json": "[1, 2]"}, "must be a JSON object"),
    "result with NaN": ({"result_json": '{"x": NaN}'}, "not valid JSON"),
    "result out of range": ({"result_json": '{"x": 1e999}'}, "not valid JSON"),
    "result with NUL": ({"result_json": '{"x": "a\\u0000b"}'}, "NUL"),
    "result key with NUL": ({"result_json": '{"a\\u0000": 1}'}, "NUL"),
    "result with a lone surrogate": ({"result_json": '{"x": ["\\ud800"]}'}, "surrogates"),
    "result too deep": ({"result_json": "[" * 100000 + "]" * 100000}, "not valid JSON"),
    "result too large": ({"result_json": json.dumps({"x": "y" * 300_000})}, "at most 262144"),
    "details too large": ({"seats": [_seat(i, details_json=json.dumps({"x": "y" * 70_000}))
                                     for i in range(4)]}, "at most 262144"),
    "negative nanos": ({"started_at": timestamp_pb2.Timestamp(seconds=1_764_669_000, nanos=-5)},
                       "started_at.nanos must be in 0..999999999"),
    "nanos over a second": ({"finished_at": timestamp_pb2.Timestamp(seconds=1_764_669_600,
                                                                   nanos=2**31 - 1)},
                            "finished_at.nanos must be in 0..999999999"),
    "details not json": ({"seats": [_seat(0, details_json="nope"), *[_seat(i) for i in (1, 2, 3)]]},
                         "details_json of seat:0"),
    "identifying seat": ({"seats": [_seat(0, seat="alice@example.org")]}, "opaque seat"),
    "seat index mismatch": ({"seats": [_seat(0, seat_index=2)]}, "does not match"),
    "seat twice": ({"seats": [_seat(0), _seat(0)]}, "reported twice"),
    "team disagrees": ({"seats": [_seat(0, won=True), _seat(1), _seat(2, won=False), _seat(3)]},
                       "disagree"),
    "team with NUL": ({"seats": [_seat(0, team="A\x00")]}, "NUL"),
    "seat nobody holds": ({"seats": [*[_seat(i) for i in range(4)], _seat(4, team="")]},
                          "seat:4 has no player"),
    "seat left out": ({"seats": [_seat(i) for i in range(3)]}, "lacks seat:3"),
}


@pytest.mark.parametrize("case", BAD_RECORDS, ids=list(BAD_RECORDS))
async def test_a_bad_record_match_request_is_invalid_argument(memory_stack, case):
    changes, message = BAD_RECORDS[case]
    table = memory_stack.table(*FOUR)
    with pytest.raises(ServiceError) as caught:
        await _raw(memory_stack, "RecordMatch", _request(table, **changes))
    assert caught.value.reason is Reason.INVALID_ARGUMENT
    assert message in caught.value.message
    assert await memory_stack.client.ratings("alice") == []


async def test_a_seating_with_one_member_twice_is_refused(memory_stack):
    table = memory_stack.table("alice", "bob", "alice", "dave")
    with pytest.raises(ServiceError, match="two seats") as caught:
        await _raw(memory_stack, "RecordMatch", _request(table))
    assert caught.value.reason is Reason.INVALID_ARGUMENT


BAD_READS = {
    "history without member": ("ListMatches", stats_pb2.ListMatchesRequest(), Reason.INVALID_ARGUMENT),
    "history page too big": ("ListMatches", stats_pb2.ListMatchesRequest(member_id="a", page_size=101),
                             Reason.INVALID_ARGUMENT),
    "history page negative": ("ListMatches", stats_pb2.ListMatchesRequest(member_id="a", page_size=-1),
                              Reason.INVALID_ARGUMENT),
    "history bad game type": ("ListMatches", stats_pb2.ListMatchesRequest(member_id="a", game_type="x y"),
                              Reason.INVALID_ARGUMENT),
    "history member with NUL": ("ListMatches", stats_pb2.ListMatchesRequest(member_id="a\x00"),
                                Reason.INVALID_ARGUMENT),
    "history bad token": ("ListMatches", stats_pb2.ListMatchesRequest(member_id="a", page_token="x.y"),
                          Reason.INVALID_PAGE_TOKEN),
    "ratings without member": ("GetRatings", stats_pb2.GetRatingsRequest(), Reason.INVALID_ARGUMENT),
    "leaderboard too long": ("GetLeaderboard", stats_pb2.GetLeaderboardRequest(limit=101),
                             Reason.INVALID_ARGUMENT),
    "leaderboard negative": ("GetLeaderboard", stats_pb2.GetLeaderboardRequest(limit=-3),
                             Reason.INVALID_ARGUMENT),
    "erase without member": ("EraseMember", stats_pb2.EraseMemberRequest(), Reason.INVALID_ARGUMENT),
}


@pytest.mark.parametrize("case", BAD_READS, ids=list(BAD_READS))
async def test_a_bad_request_gets_its_reason(memory_stack, case):
    method, request, reason = BAD_READS[case]
    with pytest.raises(ServiceError) as caught:
        await _raw(memory_stack, method, request)
    assert caught.value.reason is reason


async def _raw(stack, method: str, request):
    """Call the servicer with a hand-made message (the client would not build a bad one)."""
    async with grpc.aio.insecure_channel(stack.address) as channel:
        try:
            return await getattr(stats_pb2_grpc.StatsServiceStub(channel), method)(request)
        except grpc.RpcError as error:
            assert error.code() != grpc.StatusCode.INTERNAL
            raise from_rpc_error(error) from None
