"""The behaviour of a stats store, the same for the in-memory one and Postgres."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace

from stats.model import ERASED_NAME, Position, Rating, erased_member_id
from stats.repository import MemoryStatsRepository
from tests.stats.helpers import BASE_MS, SCOPONE, team_match

ALICE_TEAM = ("alice", "bob", "carol", "dave")


async def test_recording_returns_the_match_with_deltas(repository):
    match = team_match(ALICE_TEAM)
    stored, created = await repository.record_match(match)
    assert created
    assert [p.elo_delta for p in stored.players] == [16, -16, 16, -16]
    assert stored.result == match.result
    assert [p.member_id for p in stored.players] == list(ALICE_TEAM)
    assert stored == await repository.get_match(match.id)


async def test_recording_twice_changes_nothing(repository):
    first = team_match(ALICE_TEAM)
    stored, _ = await repository.record_match(first)
    again, created = await repository.record_match(replace(first, result={"other": True}))
    assert not created
    assert again == stored
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1516, 1)]


async def test_an_unknown_match_is_none(repository):
    assert await repository.get_match(str(uuid.uuid4())) is None


async def test_ratings_accumulate_per_game_type(repository):
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS))
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS + 1))
    await repository.record_match(team_match(ALICE_TEAM, winner="B", game_type="dummy",
                                             finished_ms=BASE_MS + 2))
    # Second scopone win: A 1516 vs B 1484, E = 1 / (1 + 10^(-32/400)) = 0.54593, 32 * 0.45407 = 14.5 -> 15.
    assert await repository.ratings("alice") == [Rating("dummy", 1484, 1),
                                                 Rating(SCOPONE, 1531, 2)]
    assert await repository.ratings("bob") == [Rating("dummy", 1516, 1), Rating(SCOPONE, 1469, 2)]
    assert await repository.ratings("nobody") == []


async def test_history_is_newest_first_and_paged_across_equal_times(repository):
    # Five matches finish at the same millisecond: the id breaks the tie, never a row twice.
    same = [team_match(ALICE_TEAM, finished_ms=BASE_MS + 10) for _ in range(5)]
    older = team_match(ALICE_TEAM, finished_ms=BASE_MS)
    newer = team_match(ALICE_TEAM, finished_ms=BASE_MS + 20)
    for match in [older, *same, newer]:
        await repository.record_match(match)
    expected = [newer.id, *sorted((m.id for m in same), reverse=True), older.id]
    seen, after = [], None
    while True:
        page = await repository.list_matches("alice", None, 2, after)
        if not page:
            break
        seen += [m.id for m in page]
        after = Position(page[-1].finished_ms, page[-1].id)
    assert seen == expected


async def test_history_filters_by_game_type_and_member(repository):
    scopone = team_match(ALICE_TEAM, finished_ms=BASE_MS)
    dummy = team_match(ALICE_TEAM, game_type="dummy", finished_ms=BASE_MS + 1)
    others = team_match(("erin", "frank", "gina", "hal"), finished_ms=BASE_MS + 2)
    for match in (scopone, dummy, others):
        await repository.record_match(match)
    assert [m.id for m in await repository.list_matches("alice", SCOPONE, 10, None)] == [scopone.id]
    assert [m.id for m in await repository.list_matches("alice", None, 10, None)] == [dummy.id, scopone.id]
    assert await repository.list_matches("alice", "poker", 10, None) == []
    listed = (await repository.list_matches("erin", None, 10, None))[0]
    assert [p.display_name for p in listed.players] == ["Erin", "Frank", "Gina", "Hal"]


async def test_the_leaderboard_orders_by_rating_then_wins_then_member(repository):
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS))
    await repository.record_match(team_match(("erin", "frank", "gina", "hal"), finished_ms=BASE_MS + 1))
    await repository.record_match(team_match(("erin", "frank", "gina", "hal"), winner="B",
                                             finished_ms=BASE_MS + 2))
    await repository.record_match(team_match(("zed", "yan", "xia", "wim"), winner="A",
                                             game_type="dummy", finished_ms=BASE_MS + 3))
    board = await repository.leaderboard(SCOPONE, 100)
    # erin/gina: 1516 then lose to 1484: E = 0.54593, 32 * -0.54593 = -17.47 -> -17: 1499, 1 win.
    # frank/hal: 1484 + 17 = 1501, 1 win. bob/dave: 1484, 0 wins.
    assert [(r.member_id, r.rating, r.wins, r.matches) for r in board] == [
        ("alice", 1516, 1, 1), ("carol", 1516, 1, 1),
        ("frank", 1501, 1, 2), ("hal", 1501, 1, 2),
        ("erin", 1499, 1, 2), ("gina", 1499, 1, 2),
        ("bob", 1484, 0, 1), ("dave", 1484, 0, 1),
    ]
    assert board[0].points == 11 and board[2].points == 7 + 11
    assert [r.member_id for r in await repository.leaderboard(SCOPONE, 3)] == ["alice", "carol", "frank"]
    assert await repository.leaderboard("poker", 10) == []


async def test_equal_ratings_rank_by_wins_then_member_id(repository):
    def draw(match):
        return replace(match, players=tuple(replace(p, won=False) for p in match.players))

    await repository.record_match(team_match(("j1", "h1", "j2", "h2"), finished_ms=BASE_MS))
    await repository.record_match(team_match(("z1", "k1", "z2", "k2"), finished_ms=BASE_MS + 1))
    # z (1516) lose to j (1516): -16, back to 1500 with one win.
    await repository.record_match(team_match(("z1", "j1", "z2", "j2"), winner="B",
                                             finished_ms=BASE_MS + 2))
    # a and b draw at 1500: no change, no win.
    await repository.record_match(draw(team_match(("a1", "b1", "a2", "b2"), finished_ms=BASE_MS + 3)))
    board = await repository.leaderboard(SCOPONE, 100)
    assert [(r.member_id, r.rating, r.wins) for r in board] == [
        ("j1", 1532, 2), ("j2", 1532, 2),
        ("z1", 1500, 1), ("z2", 1500, 1),
        ("a1", 1500, 0), ("a2", 1500, 0), ("b1", 1500, 0), ("b2", 1500, 0),
        ("h1", 1484, 0), ("h2", 1484, 0), ("k1", 1484, 0), ("k2", 1484, 0),
    ]


async def test_the_leaderboard_name_is_the_latest_one(repository):
    first = team_match(ALICE_TEAM, finished_ms=BASE_MS)
    renamed = team_match(ALICE_TEAM, finished_ms=BASE_MS + 1)
    renamed = replace(renamed, players=(replace(renamed.players[0], display_name="Alice B."),
                                        *renamed.players[1:]))
    await repository.record_match(first)
    await repository.record_match(renamed)
    board = await repository.leaderboard(SCOPONE, 1)
    assert (board[0].member_id, board[0].display_name) == ("alice", "Alice B.")


async def test_erasure_anonymizes_rows_and_drops_ratings(repository):
    first = team_match(ALICE_TEAM, finished_ms=BASE_MS)
    second = team_match(("alice", "erin", "frank", "gina"), finished_ms=BASE_MS + 1)
    await repository.record_match(first)
    await repository.record_match(second)
    assert await repository.erase_member("alice") == 2
    assert await repository.ratings("alice") == []
    assert await repository.list_matches("alice", None, 10, None) == []
    assert "alice" not in {r.member_id for r in await repository.leaderboard(SCOPONE, 100)}
    replacements = set()
    for match_id in (first.id, second.id):
        seat0 = (await repository.get_match(match_id)).players[0]
        assert (seat0.display_name, seat0.elo_delta, seat0.erased) == (ERASED_NAME, 16, True)
        assert seat0.member_id.startswith("deleted-")
        replacements.add(seat0.member_id)
    # A fresh id per row: the erased rows cannot be linked into one pseudonymous history.
    assert len(replacements) == 2
    for replacement in replacements:
        assert len(await repository.list_matches(replacement, None, 10, None)) == 1
        assert await repository.ratings(replacement) == []
    # The others keep their history and ratings untouched.
    bob = await repository.list_matches("bob", None, 10, None)
    assert [m.id for m in bob] == [first.id] and bob[0].players[0].display_name == ERASED_NAME
    assert await repository.ratings("carol") == [Rating(SCOPONE, 1516, 1)]
    assert await repository.erase_member("alice") == 0


async def test_backfill_of_a_history_recorded_in_order_changes_nothing(repository):
    members = ["m0", "m1", "m2", "m3", "m4", "m5"]
    matches = [team_match(tuple(members[(i + j) % 6] for j in range(4)),
                          winner="AB"[i % 3 == 0], finished_ms=BASE_MS + i) for i in range(8)]
    for match in matches:
        await repository.record_match(match)
    before = await _snapshot(repository, members)
    summary = await repository.recalculate()
    assert (summary.matches, summary.ratings, summary.changed_deltas) == (8, 6, 0)
    assert await _snapshot(repository, members) == before


async def test_backfill_replays_in_finished_order(repository):
    """Recorded out of order, then backfilled: as if recorded in finished order."""
    early = team_match(ALICE_TEAM, finished_ms=BASE_MS)
    late = team_match(("alice", "erin", "carol", "frank"), winner="B", finished_ms=BASE_MS + 5)
    await repository.record_match(late)
    await repository.record_match(early)
    summary = await repository.recalculate()
    assert summary.changed_deltas > 0
    # In finished order: early gives alice 1516; late (A 1516 vs B 1500) B wins:
    # E(B) = 1 / (1 + 10^(16/400)) = 0.47699, 32 * 0.52301 = 16.74 -> 17.
    assert (await repository.get_match(late.id)).players[0].elo_delta == -17
    assert (await repository.get_match(early.id)).players[0].elo_delta == 16
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1499, 2)]
    assert await repository.ratings("erin") == [Rating(SCOPONE, 1517, 1)]


async def test_backfill_keeps_erased_members_unrated(repository):
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS))
    await repository.record_match(team_match(ALICE_TEAM, winner="B", finished_ms=BASE_MS + 1))
    await repository.erase_member("alice")
    before = await _snapshot(repository, ["bob", "carol", "dave"])
    summary = await repository.recalculate()
    assert summary.ratings == 3 and summary.changed_deltas == 0
    assert await _snapshot(repository, ["bob", "carol", "dave"]) == before
    assert len(await repository.leaderboard(SCOPONE, 100)) == 3


# -- erased players ----------------------------------------------------------------------------


def _erased_at(match, *seats):
    """The match with the players at ``seats`` erased before it is recorded (as the lobby's
    seating or a racing erasure makes them)."""
    return replace(match, players=tuple(p.anonymized(erased_member_id()) if p.seat_index in seats
                                        else p for p in match.players))


async def test_a_player_erased_before_recording_is_never_rated(repository):
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS))
    await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS + 1))
    # alice, carol 1531; bob, dave 1469. Seat 2 was erased while the match was played.
    match = _erased_at(team_match(("alice", "bob", "gone", "dave"), winner="B",
                                  finished_ms=BASE_MS + 2), 2)
    stored, created = await repository.record_match(match)
    assert created and stored == await repository.get_match(match.id)
    # A's rating is alice's alone (1531) vs B 1469: E(A) = 0.58829, 32 * -0.58829 = -18.8 -> -19.
    # (Counting the erased seat at 1500 would have given A 1515.5 and -18.)
    assert [p.elo_delta for p in stored.players] == [-19, 19, 0, 19]
    erased = stored.players[2]
    assert (erased.erased, erased.display_name) == (True, ERASED_NAME)
    assert erased.member_id.startswith("deleted-")
    assert await repository.ratings(erased.member_id) == []
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1512, 3)]
    assert await repository.ratings("bob") == [Rating(SCOPONE, 1488, 3)]
    board = await repository.leaderboard(SCOPONE, 100)
    assert sorted(r.member_id for r in board) == sorted(ALICE_TEAM)
    assert ERASED_NAME not in {r.display_name for r in board}


async def test_a_side_with_nobody_left_moves_nobody(repository):
    stored, _ = await repository.record_match(_erased_at(team_match(ALICE_TEAM), 1, 3))
    assert [p.elo_delta for p in stored.players] == [0, 0, 0, 0]
    assert [p.erased for p in stored.players] == [False, True, False, True]
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1500, 1)]
    board = await repository.leaderboard(SCOPONE, 100)
    assert [(r.member_id, r.wins, r.matches) for r in board] == [("alice", 1, 1), ("carol", 1, 1)]


async def test_an_erasure_after_the_mark_is_written_as_erased(repository):
    """RecordMatch takes the mark, reads the seating (bob still in it), bob is erased, then
    the write: bob must land erased, unrated."""
    mark = await repository.erasure_mark()
    assert await repository.erase_member("bob") == 0  # no rows yet: the race's blind spot
    stored, _ = await repository.record_match(team_match(ALICE_TEAM), erasures_after=mark)
    bob = stored.players[1]
    assert (bob.erased, bob.display_name, bob.elo_delta) == (True, ERASED_NAME, 0)
    assert bob.member_id != "bob"
    # A 1500 vs B = dave alone at 1500: 16.
    assert [p.elo_delta for p in stored.players] == [16, 0, 16, -16]
    assert await repository.ratings("bob") == []
    assert await repository.list_matches("bob", None, 10, None) == []
    assert "bob" not in {r.member_id for r in await repository.leaderboard(SCOPONE, 100)}
    # An erasure before the mark was already in the seating the recording read: bob, logging
    # in again after deleting his account, plays and is rated like anyone.
    mark = await repository.erasure_mark()
    again, _ = await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS + 1),
                                             erasures_after=mark)
    assert not any(p.erased for p in again.players)
    assert (await repository.ratings("bob"))[0].matches == 1
    # Without a mark (a caller that read no seating) nothing is looked up.
    plain, _ = await repository.record_match(team_match(("erin", "bob", "gina", "hal")))
    assert not plain.players[1].erased


async def test_erasure_marks_are_forgotten_after_their_retention(repository):
    await repository.erase_member("bob")
    await _age_erasure_marks(repository)
    mark_before = 0  # as old as can be: only the aged mark could match
    await repository.erasure_mark()  # prunes
    stored, _ = await repository.record_match(team_match(ALICE_TEAM), erasures_after=mark_before)
    assert not stored.players[1].erased


async def _age_erasure_marks(repository):
    if isinstance(repository, MemoryStatsRepository):
        repository._erasures = [(n, h, t - 7200) for n, h, t in repository._erasures]
        return
    async with repository._pool.acquire() as connection:
        await connection.execute("UPDATE erased_member SET erased_at = erased_at - interval '2 hours'")


async def test_backfill_takes_matches_with_erased_players_as_recorded(repository):
    """Erased before recording (unrated) and erased after (rated, then anonymized): the
    backfill lands where live recording did."""
    members = ["m0", "m1", "m2", "m3", "m4", "m5"]
    for i in range(8):
        match = team_match(tuple(members[(i + j) % 6] for j in range(4)), winner="AB"[i % 3 == 0],
                           finished_ms=BASE_MS + i)
        if i in (2, 5):
            match = _erased_at(match, i % 4)
        await repository.record_match(match)
        if i == 3:
            # Erased after matches 0..3, which rated m1; m1 then comes back (the same login)
            # and plays 4..7 afresh from 1500.
            await repository.erase_member("m1")
    before = await _snapshot(repository, members)
    m1_before = await repository.ratings("m1")
    assert m1_before[0].matches == sum(1 for i in range(4, 8) if 1 in {(i + j) % 6 for j in range(4)})
    summary = await repository.recalculate()
    assert summary.changed_deltas == 0
    assert summary.ratings == len(members)
    assert await _snapshot(repository, members) == before
    assert await repository.ratings("m1") == m1_before


async def test_concurrent_records_of_one_match_store_it_once(repository):
    match = team_match(ALICE_TEAM)
    outcomes = await asyncio.gather(*(repository.record_match(match) for _ in range(6)))
    assert sorted(created for _, created in outcomes) == [False] * 5 + [True]
    assert all(stored == outcomes[0][0] for stored, _ in outcomes)
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1516, 1)]


async def test_concurrent_matches_of_shared_members_all_count(repository):
    # Every match shares members with the others, in crossing orders: no deadlock, no lost update.
    members = ["a", "b", "c", "d", "e"]
    matches = [team_match(tuple(members[(i * 2 + j) % 5] for j in range(4)),
                          finished_ms=BASE_MS + i) for i in range(10)]
    await asyncio.gather(*(repository.record_match(m) for m in matches))
    ratings = {m: (await repository.ratings(m))[0] for m in members}
    assert sum(r.matches for r in ratings.values()) == 40
    deltas = dict.fromkeys(members, 0)
    for match in matches:
        for player in (await repository.get_match(match.id)).players:
            deltas[player.member_id] += player.elo_delta
    assert {m: r.rating - 1500 for m, r in ratings.items()} == deltas


async def _snapshot(repository, members):
    board = await repository.leaderboard(SCOPONE, 100)
    history = {}
    for member in members:
        for match in await repository.list_matches(member, None, 100, None):
            history[match.id] = [(p.member_id, p.elo_delta) for p in match.players]
    return board, history


async def test_results_keep_any_json_the_engine_sends(repository):
    result = {"name": "Scopa è 😀", "big": 2**70, "ratio": 0.1, "nested": [[], {}, [1, [2]]],
              "": None, "flag": False}
    match = replace(team_match(ALICE_TEAM), result=result)
    match = replace(match, players=(replace(match.players[0], details={"scope": [1, 2], "é": "ü"}),
                                    *match.players[1:]))
    await repository.record_match(match)
    stored = await repository.get_match(match.id)
    assert stored.result == result
    assert stored.players[0].details == {"scope": [1, 2], "é": "ü"}
