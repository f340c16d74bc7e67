"""Practice matches (a bot from the start) and abandonments, the same for both stores.

CONTRACT.md, Bots: a match where a bot sat from the start moves nobody; a match someone
abandoned moves nobody but each abandoner, who loses what a lost match would have cost them.
"""

from __future__ import annotations

from dataclasses import replace

from stats import elo
from stats.model import ERASED_NAME, Rating, erased_member_id
from tests.stats.helpers import BASE_MS, SCOPONE, abandoned_at, team_match, with_bots

ALICE_TEAM = ("alice", "bob", "carol", "dave")


async def _after_one_rated_match(repository):
    """alice and carol at 1516 (one win, 11 points), bob and dave at 1484 (one loss, 7)."""
    stored, _ = await repository.record_match(team_match(ALICE_TEAM, finished_ms=BASE_MS))
    assert stored.rated
    return stored


async def _board(repository):
    return [(r.member_id, r.rating, r.wins, r.matches, r.points)
            for r in await repository.leaderboard(SCOPONE, 100)]


# -- practice matches ---------------------------------------------------------------------------


async def test_a_practice_match_moves_nobody_and_is_listed_unrated_with_its_bots(repository):
    first = await _after_one_rated_match(repository)
    board = await _board(repository)
    practice = with_bots(team_match(ALICE_TEAM, winner="B", finished_ms=BASE_MS + 1), 1, 3)
    stored, created = await repository.record_match(practice)
    assert created and not stored.rated
    assert [(p.member_id, p.display_name, p.bot_level, p.elo_delta) for p in stored.players] == [
        ("alice", "Alice", None, 0), ("", "Expert", "esperto", 0),
        ("carol", "Carol", None, 0), ("", "Expert", "esperto", 0)]
    assert [(p.won, p.points) for p in stored.players] == [(False, 7), (True, 11)] * 2
    assert stored == await repository.get_match(practice.id)
    # Nobody's rating, matches, wins or points moved; no bot anywhere in the standings.
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1516, 1)]
    assert await _board(repository) == board
    # Listed like any match, newest first.
    listed = await repository.list_matches("alice", None, 10, None)
    assert [(m.id, m.rated) for m in listed] == [(practice.id, False), (first.id, True)]
    assert listed[0] == stored
    assert await repository.list_matches("", None, 10, None) == []  # a bot has no history


async def test_a_member_who_only_practised_has_no_rating_and_no_leaderboard_row(repository):
    practice = with_bots(team_match(("erin", "x", "gina", "y")), 1, 3, level="maestro")
    stored, _ = await repository.record_match(practice)
    assert [p.bot_level for p in stored.players] == [None, "maestro", None, "maestro"]
    assert await repository.ratings("erin") == []
    assert await repository.leaderboard(SCOPONE, 100) == []
    assert [m.id for m in await repository.list_matches("erin", None, 10, None)] == [practice.id]


async def test_a_practice_match_against_bots_alone_is_kept(repository):
    solo = with_bots(team_match(("alice", "b1", "b2", "b3")), 1, 2, 3)
    stored, _ = await repository.record_match(solo)
    assert [p.member_id for p in stored.players] == ["alice", "", "", ""]
    assert not stored.rated and await repository.ratings("alice") == []


async def test_recording_a_practice_match_again_changes_nothing(repository):
    practice = with_bots(team_match(ALICE_TEAM), 1)
    stored, _ = await repository.record_match(practice)
    again, created = await repository.record_match(with_bots(team_match(
        ALICE_TEAM, match_id=practice.id)))  # a repeat is answered from what is stored
    assert not created and again == stored
    assert await repository.ratings("alice") == []


async def test_abandoning_a_practice_match_costs_nothing(repository):
    await _after_one_rated_match(repository)
    board = await _board(repository)
    practice = abandoned_at(with_bots(team_match(ALICE_TEAM, finished_ms=BASE_MS + 1), 3), 1)
    stored, _ = await repository.record_match(practice)
    assert not stored.rated
    assert [(p.abandoned, p.elo_delta) for p in stored.players] == [
        (False, 0), (True, 0), (False, 0), (False, 0)]
    assert await _board(repository) == board


async def test_erasing_a_member_leaves_the_bots_of_their_practice_matches(repository):
    practice = with_bots(team_match(ALICE_TEAM), 1, 3)
    await repository.record_match(practice)
    assert await repository.erase_member("alice") == 1
    stored = await repository.get_match(practice.id)
    assert [(p.display_name, p.bot_level, p.erased) for p in stored.players] == [
        (ERASED_NAME, None, True), ("Expert", "esperto", False),
        ("Carol", None, False), ("Expert", "esperto", False)]
    assert stored.players[1].member_id == stored.players[3].member_id == ""


# -- abandonment ----------------------------------------------------------------------------------


async def test_an_abandonment_costs_only_the_leaver_what_a_loss_would_have(repository):
    await _after_one_rated_match(repository)
    # bob left, a bot took his seat over and his team went on to win: the match is unrated,
    # and bob pays what losing it would have cost B (1484) against A (1516):
    # E(B) = 1 / (1 + 10^(32/400)) = 0.45407, 32 * -0.45407 = -14.53 -> -15.
    loss = elo.match_deltas([elo.Participant(m, "AB"[i % 2], i % 2 == 0)
                             for i, m in enumerate(ALICE_TEAM)],
                            {"alice": 1516, "bob": 1484, "carol": 1516, "dave": 1484})["bob"]
    assert loss == -15
    left = abandoned_at(team_match(ALICE_TEAM, winner="B", finished_ms=BASE_MS + 1), 1)
    stored, created = await repository.record_match(left)
    assert created and not stored.rated
    assert [(p.won, p.abandoned, p.elo_delta) for p in stored.players] == [
        (False, False, 0), (True, True, loss), (False, False, 0), (True, False, 0)]
    assert stored == await repository.get_match(left.id)
    # bob's rating moved and counts the match, as a loss with no points (his bot's win is not
    # his); nobody else's standing changed.
    assert await repository.ratings("bob") == [Rating(SCOPONE, 1484 + loss, 2)]
    assert await _board(repository) == [
        ("alice", 1516, 1, 1, 11), ("carol", 1516, 1, 1, 11),
        ("dave", 1484, 0, 1, 7), ("bob", 1469, 0, 2, 7)]
    listed = await repository.list_matches("dave", None, 10, None)
    assert [m.rated for m in listed] == [False, True]


async def test_each_abandoner_pays_their_own_teams_loss(repository):
    await _after_one_rated_match(repository)
    left = abandoned_at(team_match(ALICE_TEAM, finished_ms=BASE_MS + 1), 0, 1)
    stored, _ = await repository.record_match(left)
    # alice: A (1516) losing to B (1484): E(A) = 0.54593, 32 * -0.54593 = -17.47 -> -17.
    # bob: B losing to A: -15 (above). The sum is not zero: nobody gains what they lose.
    assert [p.elo_delta for p in stored.players] == [-17, -15, 0, 0]
    assert await repository.ratings("alice") == [Rating(SCOPONE, 1499, 2)]
    assert await repository.ratings("bob") == [Rating(SCOPONE, 1469, 2)]
    assert await repository.ratings("carol") == [Rating(SCOPONE, 1516, 1)]


async def test_an_abandonment_between_newcomers_costs_half_of_k(repository):
    left = abandoned_at(team_match(("erin", "frank", "gina", "hal")), 3)
    stored, _ = await repository.record_match(left)
    assert [p.elo_delta for p in stored.players] == [0, 0, 0, -16]
    # Only the leaver has a standing: the others played no match that counts.
    assert await _board(repository) == [("hal", 1484, 0, 1, 0)]
    assert await repository.ratings("erin") == []


async def test_an_abandoner_erased_before_recording_pays_nothing(repository):
    match = abandoned_at(team_match(ALICE_TEAM), 1)
    match = replace(match, players=tuple(p.anonymized(erased_member_id()) if p.seat_index == 1
                                         else p for p in match.players))
    stored, _ = await repository.record_match(match)
    assert not stored.rated
    assert [(p.erased, p.abandoned, p.elo_delta) for p in stored.players] == [
        (False, False, 0), (True, True, 0), (False, False, 0), (False, False, 0)]
    assert await repository.leaderboard(SCOPONE, 100) == []


async def test_recording_an_abandoned_match_again_changes_nothing(repository):
    left = abandoned_at(team_match(ALICE_TEAM), 2)
    stored, _ = await repository.record_match(left)
    again, created = await repository.record_match(team_match(ALICE_TEAM, match_id=left.id))
    assert not created and again == stored
    assert await repository.ratings("carol") == [Rating(SCOPONE, 1484, 1)]


async def test_a_match_everyone_finished_is_rated_as_before(repository):
    stored, _ = await repository.record_match(team_match(ALICE_TEAM))
    assert stored.rated
    assert [(p.bot_level, p.abandoned, p.elo_delta) for p in stored.players] == [
        (None, False, 16), (None, False, -16), (None, False, 16), (None, False, -16)]


# -- the backfill ------------------------------------------------------------------------------------


async def test_backfill_keeps_practice_and_abandoned_matches_as_recorded(repository):
    members = ["m0", "m1", "m2", "m3", "m4", "m5"]
    for i in range(9):
        match = team_match(tuple(members[(i + j) % 6] for j in range(4)), winner="AB"[i % 3 == 0],
                           finished_ms=BASE_MS + i)
        if i in (1, 6):
            match = with_bots(match, i % 4)
        if i in (3, 4, 7):
            match = abandoned_at(match, (i + 1) % 4)
        await repository.record_match(match)
    board = await _board(repository)
    history = {}
    for member in members:
        for match in await repository.list_matches(member, None, 100, None):
            history[match.id] = match
    summary = await repository.recalculate()
    assert (summary.matches, summary.changed_deltas) == (9, 0)
    assert summary.ratings == len(board)
    assert await _board(repository) == board
    for match_id, match in history.items():
        assert await repository.get_match(match_id) == match
    assert sorted(m.rated for m in history.values()) == [False] * 5 + [True] * 4
