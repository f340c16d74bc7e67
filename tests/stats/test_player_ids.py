"""The public player id in stats, on both stores: kept from the lobby's seating with each match
player and with the leaderboard entry; none for a bot, cleared by erasure, kept by a backfill."""

from __future__ import annotations

from dataclasses import replace

from tests.stats.helpers import BASE_MS, SCOPONE, result_of, team_match, team_seats

FOUR = ("alice", "bob", "carol", "dave")
IDS = {"alice": "q3Zr8YkV0bT1mWc9LxPa2g", "bob": "Hn4bXw7Qe2LsKd0uYt5RjA",
       "carol": "c9VmP1zGf8NaWq3ErT6oIu"}  # dave's matches predate player ids: none


async def _record(stack, table_id, finished_ms=BASE_MS, winner="A"):
    return (await stack.client.record_match(table_id, SCOPONE, finished_ms - 60_000, finished_ms,
                                            result_of(winner), team_seats(winner))).match


async def test_a_match_and_the_leaderboard_carry_the_lobbys_player_ids(stack):
    stack.lobby.players.update(IDS)
    match = await _record(stack, stack.table(*FOUR))
    assert [p.player for p in match.players] == [IDS["alice"], IDS["bob"], IDS["carol"], ""]
    (listed,) = (await stack.client.list_matches("bob")).matches
    assert [p.player for p in listed.players] == [p.player for p in match.players]
    board = await stack.client.leaderboard(SCOPONE)
    assert {e.member_id: e.player for e in board.entries} == {**IDS, "dave": ""}


async def test_a_bot_has_no_player_id_and_a_malformed_one_is_not_kept(stack):
    stack.lobby.players.update({**IDS, "bot:1": "Lk2jH7gF5dS3aQ9wE1rTyU", "dave": "not an id!"})
    table = stack.table("alice", "bot:1", "carol", "dave", names={"bot:1": "Bruno"},
                        bots={1: "esperto"})
    match = await _record(stack, table)
    assert [(p.bot_level, p.player) for p in match.players] == [
        (None, IDS["alice"]), ("esperto", ""), (None, IDS["carol"]), (None, "")]


async def test_an_abandoner_keeps_their_player_id(stack):
    stack.lobby.players.update(IDS)
    match = await _record(stack, stack.table(*FOUR, took_over={1}))
    assert (match.players[1].abandoned, match.players[1].player) == (True, IDS["bob"])


async def test_erasure_clears_the_player_id_everywhere(stack):
    stack.lobby.players.update(IDS)
    await _record(stack, stack.table(*FOUR))
    await stack.client.erase_member("alice")
    (listed,) = (await stack.client.list_matches("bob")).matches
    assert [(p.display_name, p.player) for p in listed.players] == [
        ("deleted player", ""), ("Bob", IDS["bob"]), ("Carol", IDS["carol"]), ("Dave", "")]
    board = await stack.client.leaderboard(SCOPONE)
    assert IDS["alice"] not in {e.player for e in board.entries}


async def test_the_leaderboard_keeps_the_newest_id_it_was_given(repository):
    first = team_match(FOUR, finished_ms=BASE_MS)
    first = replace(first, players=tuple(replace(p, player=IDS.get(p.member_id, ""))
                                         for p in first.players))
    await repository.record_match(first)
    # A later match recorded without ids (a lobby that had none for them) forgets none.
    await repository.record_match(team_match(FOUR, finished_ms=BASE_MS + 1))
    rows = {row.member_id: row.player for row in await repository.leaderboard(SCOPONE, 10)}
    assert rows == {**IDS, "dave": ""}
    # The backfill rebuilds the ratings from the history, ids included.
    await repository.recalculate()
    rows = {row.member_id: row.player for row in await repository.leaderboard(SCOPONE, 10)}
    assert rows == {**IDS, "dave": ""}
    stored = await repository.get_match(first.id)
    assert [p.player for p in stored.players] == [IDS["alice"], IDS["bob"], IDS["carol"], ""]
