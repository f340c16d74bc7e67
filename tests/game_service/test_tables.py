"""The tables' flow, in memory and on Postgres + Redis: create, view, act, races, take-backs, rebuilds."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import uuid

import grpc
import pytest

from game import tables as game_tables
from game.cache import SnapshotWrite
from game.live import Live
from game.log_store import LoggedMove
from game.snapshots import STORE_EVERY
from services.rpc.errors import Reason, ServiceError
from testing.waiting import eventually
from tests.game_service.conftest import SEATS, play


async def _dummy(tables, target: int = 20, table_id: str = "") -> str:
    created = await tables.create_table(table_id, "dummy", json.dumps({"target": target}), SEATS)
    return created.table_id


def _add(n: int = 1, **extra) -> str:
    return json.dumps({"action": "add", "n": n, **extra})


async def _refused(reason: Reason, call) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        await call
    assert refused.value.reason is reason, refused.value
    return refused.value


async def _fresh_state(replicas, table_id: str) -> Live:
    """The state as a replica with nothing cached rebuilds it from the log alone."""
    other = await replicas.open()
    other.states.cache = _NoCache()
    return await other.current(table_id)


class _NoCache:
    async def load(self, table_id):
        return None

    async def save(self, *args, **kwargs):
        return False


# -- creating and reading -------------------------------------------------------------------

async def test_a_new_table_is_at_revision_zero_and_commits_to_its_seed(tables):
    created = await tables.create_table("", "dummy", "", SEATS)
    assert created.revision == 0 and uuid.UUID(created.table_id).version == 4
    header = await tables.log.header(created.table_id)
    assert created.seed_commitment == hashlib.sha256(header.seed).hexdigest() and len(header.seed) == 32
    view = await tables.get_view(created.table_id, "seat:0")
    body = json.loads(view.view_json)
    assert (view.revision, view.status) == (0, "playing")
    assert body["id"] == created.table_id and body["game_type"] == "dummy"
    assert body["seed_commitment"] == created.seed_commitment and body["revision"] == 0
    assert body["you"] == 0 and body["your_turn"] is True and body["options"] == {"target": 20}


async def test_creating_with_an_existing_id_returns_that_table_unchanged(tables):
    table_id = str(uuid.uuid4())
    first = await tables.create_table(table_id, "dummy", "", SEATS)
    await tables.act(table_id, "seat:0", _add())
    again = await tables.create_table(table_id, "dummy", '{"target": 20}', SEATS)  # the defaults
    assert (again.table_id, again.seed_commitment, again.revision) == (table_id, first.seed_commitment, 1)


@pytest.mark.parametrize("game_type, options, seats", [
    ("dummy", '{"target": 5}', SEATS),
    ("dummy", "", ["seat:0", "seat:1", "seat:3", "seat:2"]),
    ("scopone_scientifico", "", SEATS),
])
async def test_creating_with_a_taken_id_but_other_settings_is_table_exists(
        tables, game_type, options, seats):
    """Not a silent success: the caller would think its settings were used."""
    table_id = str(uuid.uuid4())
    await tables.create_table(table_id, "dummy", "", SEATS)
    error = await _refused(Reason.TABLE_EXISTS, tables.create_table(table_id, game_type, options, seats))
    assert error.code == grpc.StatusCode.ALREADY_EXISTS and error.metadata["table_id"] == table_id
    assert (await tables.log.header(table_id)).game_type == "dummy"


@pytest.mark.parametrize("table_id, game_type, options, seats, reason", [
    ("not-a-uuid", "dummy", "", SEATS, Reason.INVALID_ARGUMENT),
    ("804730CF-AF3A-44B5-9B44-F9A49B7DD911", "dummy", "", SEATS, Reason.INVALID_ARGUMENT),
    ("", "chess", "", SEATS, Reason.UNKNOWN_GAME_TYPE),
    ("", "dummy", "{target: 3", SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", "[1]", SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", '{"target": 0}', SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", '{"speed": 2}', SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", '{"target": NaN}', SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", '{"target": 3, "x": ' + "[" * 5000 + "]" * 5000 + "}", SEATS, Reason.INVALID_OPTIONS),
    ("", "dummy", "", SEATS[:3], Reason.INVALID_ARGUMENT),
    ("", "dummy", "", ["seat:0", "seat:0", "seat:2", "seat:3"], Reason.INVALID_ARGUMENT),
    ("", "dummy", "", ["seat:0", "bob@example.org", "seat:2", "seat:3"], Reason.IDENTIFYING_SEAT),
    ("", "dummy", "", ["seat:0", "member:17", "seat:2", "seat:3"], Reason.IDENTIFYING_SEAT),
])
async def test_a_bad_creation_is_refused_with_its_reason(tables, table_id, game_type, options, seats, reason):
    error = await _refused(reason, tables.create_table(table_id, game_type, options, seats))
    assert error.message
    if reason is Reason.UNKNOWN_GAME_TYPE:
        assert error.message == "Unknown game type: chess" and error.metadata["game_type"] == "chess"
    if reason is Reason.INVALID_OPTIONS:
        assert error.message.startswith("Invalid options: ")


async def test_normalize_options_fills_the_defaults(tables):
    assert json.loads(tables.normalize_options("dummy", "")) == {"target": 20}
    assert json.loads(tables.normalize_options("scopone_scientifico", '{"target_score": 21}')) == {
        "target_score": 21, "napola": True, "asso_pigliatutto": False, "player_entropy": False,
        "first_dealer": "drawn", "pace": "live"}


async def test_reading_an_unknown_table_or_seat_is_refused(tables):
    table_id = await _dummy(tables)
    await _refused(Reason.TABLE_NOT_FOUND, tables.get_view(str(uuid.uuid4()), "seat:0"))
    await _refused(Reason.NOT_SEATED, tables.get_view(table_id, "seat:9"))
    await _refused(Reason.IDENTIFYING_SEAT, tables.get_view(table_id, "user:1"))
    await _refused(Reason.INVALID_ARGUMENT, tables.get_view("", "seat:0"))


# -- acting ---------------------------------------------------------------------------------

async def test_a_move_lands_in_the_log_and_returns_the_actors_new_view(tables):
    table_id = await _dummy(tables)
    view = await tables.act(table_id, "seat:0", _add(3))
    body = json.loads(view.view_json)
    assert view.revision == 1 and body["totals"] == [3, 0, 0, 0] and body["turn"] == 1
    (move,) = await tables.log.moves(table_id, 0)
    assert (move.number, move.type, move.seat, json.loads(move.payload_json)) == (1, "add", 0, {"n": 3})
    assert not move.auto and not move.random


@pytest.mark.parametrize("action, reason", [
    ("{oops", Reason.BAD_REQUEST),
    ("[1, 2]", Reason.BAD_REQUEST),
    ('{"n": 1}', Reason.BAD_REQUEST),
    ('{"action": 5}', Reason.BAD_REQUEST),
    ('{"action": "jump"}', Reason.UNKNOWN_ACTION),
    ('{"action": "add", "n": 7}', Reason.ILLEGAL_MOVE),
    ('{"action": "add", "n": "two"}', Reason.BAD_REQUEST),
    ('{"action": "add", "n": 1, "note": "\\ud800"}', Reason.BAD_REQUEST),  # no UTF-8 holds it
    ('{"action": "add", "n": 1, "x": ' + "[" * 5000 + "]" * 5000 + "}", Reason.BAD_REQUEST),
])
async def test_a_bad_action_is_refused_and_changes_nothing(tables, action, reason):
    table_id = await _dummy(tables)
    await _refused(reason, tables.act(table_id, "seat:0", action))
    header = await tables.log.header(table_id)
    assert (header.move_count, header.revision) == (0, 0)


async def test_acting_out_of_turn_unseated_or_on_a_finished_table_is_refused(tables):
    table_id = await _dummy(tables, target=2)
    await _refused(Reason.NOT_YOUR_TURN, tables.act(table_id, "seat:1", _add()))
    await _refused(Reason.NOT_SEATED, tables.act(table_id, "seat:7", _add()))
    await _refused(Reason.INVALID_ARGUMENT, tables.act(table_id, "seat:0", _add(), expected_revision=-1))
    finished = await tables.act(table_id, "seat:0", _add(2))
    assert finished.status == "finished" and json.loads(finished.view_json)["winner"] == "A"
    await _refused(Reason.GAME_FINISHED, tables.act(table_id, "seat:1", _add()))


async def test_a_move_with_the_revision_it_saw_lands_only_at_that_revision(tables):
    table_id = await _dummy(tables)
    await tables.act(table_id, "seat:0", _add(), expected_revision=0)
    error = await _refused(Reason.CONCURRENT_MOVE, tables.act(table_id, "seat:1", _add(), expected_revision=0))
    assert error.metadata["revision"] == "1"
    assert (await tables.act(table_id, "seat:1", _add(), expected_revision=1)).revision == 2


async def test_of_two_moves_at_once_the_second_waits_and_plays_against_the_new_state(tables):
    table_id = await _dummy(tables)
    first, second = await asyncio.gather(
        tables.act(table_id, "seat:0", _add()), tables.act(table_id, "seat:0", _add()),
        return_exceptions=True)
    assert first.revision == 1
    assert isinstance(second, ServiceError) and second.reason is Reason.NOT_YOUR_TURN
    both = await asyncio.gather(tables.act(table_id, "seat:1", _add()), tables.act(table_id, "seat:2", _add()))
    assert sorted(v.revision for v in both) == [2, 3]  # seat 1 then seat 2, whatever the order of arrival


async def test_two_replicas_moving_at_once_the_second_plays_against_the_new_state(replicas):
    """Without a revision, of two replicas moving one seat at once exactly one lands; the other
    finds its append refused by the log's revision check, reloads, and refuses its move against
    the state the first left (which it had not seen): never two moves for one turn."""
    first, second = await replicas.open(), await replicas.open()
    table_id = await _dummy(first, target=1000)
    await second.get_view(table_id, "seat:0")  # the second has revision 0 cached
    for round_number in range(5):
        moved = await asyncio.gather(first.act(table_id, "seat:0", _add()),
                                     second.act(table_id, "seat:0", _add()),
                                     return_exceptions=True)
        landed = [o for o in moved if not isinstance(o, Exception)]
        refused = [o for o in moved if isinstance(o, Exception)]
        assert [v.revision for v in landed] == [round_number * 4 + 1]
        assert [e.reason for e in refused] == [Reason.NOT_YOUR_TURN]
        for replica, seat in ((second, "seat:1"), (first, "seat:2"), (second, "seat:3")):
            await replica.act(table_id, seat, _add())
    header = await first.log.header(table_id)
    assert (header.move_count, header.revision) == (20, 20)


@pytest.mark.parametrize("same_replica", [True, False], ids=["one replica", "two replicas"])
async def test_of_moves_made_at_once_with_one_revision_exactly_one_lands(replicas, same_replica):
    first = await replicas.open()
    second = first if same_replica else await replicas.open()
    table_id = await _dummy(first)
    await second.get_view(table_id, "seat:0")  # both replicas have the table cached
    outcomes = await asyncio.gather(
        *(replica.act(table_id, "seat:0", _add(n), expected_revision=0)
          for replica, n in ((first, 1), (second, 2), (first, 3), (second, 1))),
        return_exceptions=True)
    landed = [o for o in outcomes if not isinstance(o, Exception)]
    refused = [o for o in outcomes if isinstance(o, Exception)]
    assert len(landed) == 1 and landed[0].revision == 1
    assert all(isinstance(e, ServiceError) and e.reason is Reason.CONCURRENT_MOVE for e in refused)
    header = await first.log.header(table_id)
    assert (header.move_count, header.revision) == (1, 1)


async def test_two_replicas_racing_at_every_turn_land_exactly_one_move_per_revision(replicas):
    first, second = await replicas.open(), await replicas.open()
    table_id = await _dummy(first, target=1000)
    await second.get_view(table_id, "seat:0")  # both decide from a state they remember
    for revision in range(1, 13):
        seat = SEATS[json.loads((await first.get_view(table_id, "seat:0")).view_json)["turn"]]
        outcomes = await asyncio.gather(
            *(replica.act(table_id, seat, _add(n)) for replica, n in
              ((first, 1), (second, 2), (second, 3), (first, 2))),
            return_exceptions=True)
        landed = [o for o in outcomes if not isinstance(o, Exception)]
        assert [v.revision for v in landed] == [revision]
        assert [o.reason for o in outcomes if isinstance(o, Exception)] == [Reason.NOT_YOUR_TURN] * 3
    header = await first.log.header(table_id)
    assert (header.move_count, header.revision) == (12, 12)
    replayed = await _fresh_state(replicas, table_id)
    assert (await first.current(table_id)).state == (await second.current(table_id)).state == replayed.state


async def test_a_move_reads_nothing_writes_the_log_once_and_signals_its_state_behind_it(replicas):
    tables = await replicas.open(counting=True)
    table_id = await _dummy(tables, target=1000)
    await tables.drain()
    tables.log.calls.clear()
    tables.cache.calls.clear()
    for number in range(8):
        await tables.act(table_id, SEATS[number % 4], _add())
    await tables.drain()
    assert tables.log.calls == {"append": 8}  # no header read, no lock: the append is the check
    assert tables.cache.calls["load"] == tables.cache.calls["save"] == 0  # stored at creation only
    assert 1 <= tables.cache.calls["publish"] <= 8  # signals coalesce while one is in flight
    assert json.loads(await tables.cache.load(table_id))["revision"] == 0
    reader = await replicas.open()  # the stored snapshot and the moves after it in the log
    assert (await reader.current(table_id)).revision == 8


async def test_the_snapshot_is_stored_every_so_many_changes_and_when_the_status_changes(replicas):
    tables = await replicas.open()
    target = STORE_EVERY // 2 + 4  # team A adds 1 at every other move: it wins at move 2 * target - 1
    table_id = await _dummy(tables, target=target)
    assert await tables.cache.ongoing() == [table_id]  # stored at creation: it entered the running set
    stored = []
    for number in range(2 * target - 1):
        await tables.act(table_id, SEATS[number % 4], _add())
        await tables.drain()  # one write at a time: none coalesces into the next
        stored.append(json.loads(await tables.cache.load(table_id))["revision"])
    assert stored == [0] * (STORE_EVERY - 1) + [STORE_EVERY] * 7 + [STORE_EVERY + 7]
    assert json.loads(await tables.cache.load(table_id))["status"] == "finished"
    assert await tables.cache.ongoing() == []


async def test_a_replica_with_a_stale_state_plays_against_the_logs(replicas):
    first, second = await replicas.open(), await replicas.open()
    table_id = await _dummy(first)
    await second.get_view(table_id, "seat:0")  # second remembers revision 0
    await first.act(table_id, "seat:0", _add(2))
    await first.act(table_id, "seat:1", _add(3))
    view = await second.act(table_id, "seat:2", _add(1))  # would be "not your turn" at revision 0
    assert view.revision == 3 and json.loads(view.view_json)["totals"] == [2, 3, 1, 0]
    await _refused(Reason.NOT_YOUR_TURN, second.act(table_id, "seat:2", _add()))


# -- take-backs -----------------------------------------------------------------------------

async def test_a_take_back_restores_the_state_before_the_move_at_a_higher_revision(tables, replicas):
    table_id = await _dummy(tables)
    await tables.act(table_id, "seat:0", _add(2))
    before = (await tables.current(table_id)).state
    await tables.act(table_id, "seat:1", _add(3))
    assert await tables.take_back(table_id, expected_revision=2) == 3
    live = await tables.current(table_id)
    assert (live.move_count, live.revision, live.state) == (1, 3, before)
    assert (await _fresh_state(replicas, table_id)).state == before
    view = await tables.get_view(table_id, "seat:1")
    assert view.revision == 3 and json.loads(view.view_json)["your_turn"] is True
    await _refused(Reason.CONCURRENT_MOVE, tables.act(table_id, "seat:1", _add(), expected_revision=2))
    assert (await tables.act(table_id, "seat:1", _add(1))).revision == 4


async def test_a_take_back_is_refused_when_it_cannot_apply(tables):
    table_id = await _dummy(tables, target=1)
    await _refused(Reason.TAKE_BACK_UNSUPPORTED, tables.take_back(table_id))  # no move yet
    await tables.act(table_id, "seat:0", _add())
    await _refused(Reason.CONCURRENT_MOVE, tables.take_back(table_id, expected_revision=0))
    await _refused(Reason.GAME_FINISHED, tables.take_back(table_id))
    await _refused(Reason.TABLE_NOT_FOUND, tables.take_back(str(uuid.uuid4())))


async def test_a_seats_take_back_applies_only_to_its_own_last_play(tables):
    """The practice take-back (CONTRACT, Bots): decided against the log, under the table's lock."""
    table_id = (await tables.create_table("", "scopone_scientifico", "", SEATS)).table_id
    engine = tables.registry.get("scopone_scientifico")
    await _refused(Reason.ILLEGAL_MOVE, tables.take_back(table_id, seat="seat:0"))  # nothing played
    live = await tables.current(table_id)
    card, capture = engine.legal_plays(live.state)[0]
    player, other = SEATS[live.state["turn"]], SEATS[(live.state["turn"] + 1) % 4]
    await tables.act(table_id, player, json.dumps({"action": "play", "card": card, "capture": capture}))
    refused = await _refused(Reason.ILLEGAL_MOVE, tables.take_back(table_id, seat=other))
    assert refused.message == game_tables.OWN_LAST_PLAY_TEXT
    await _refused(Reason.NOT_SEATED, tables.take_back(table_id, seat="seat:9"))
    assert await tables.take_back(table_id, seat=player) == 2
    assert (await tables.current(table_id)).move_count == 0
    dummy = await _dummy(tables)
    await tables.act(dummy, "seat:0", _add())  # a move, but no play
    await _refused(Reason.ILLEGAL_MOVE, tables.take_back(dummy, seat="seat:0"))


# -- the cache is only a cache --------------------------------------------------------------

async def test_a_flushed_cache_mid_match_is_rebuilt_exactly_from_the_log(replicas, backend):
    tables = await replicas.open()
    table_id = await _dummy(tables, target=100)
    await play(tables, table_id, 9)
    await tables.fire_deadline(table_id, "turn:9", "turn")  # a random auto-play is in the log too
    before = await tables.current(table_id)
    await tables.drain()  # the snapshots saved behind the moves are in, then lost
    await backend.flush(tables.cache)
    assert await tables.cache.load(table_id) is None
    restarted = await replicas.open()
    rebuilt = await restarted.current(table_id)
    assert (rebuilt.state, rebuilt.revision, rebuilt.move_count) == (before.state, 10, 10)
    assert Live.from_snapshot(await tables.cache.load(table_id), table_id).state == before.state
    assert (await restarted.get_view(table_id, "seat:2")) == (await tables.get_view(table_id, "seat:2"))
    assert (await restarted.act(table_id, "seat:2", _add())).revision == 11
    assert (await tables.act(table_id, "seat:3", _add())).revision == 12


async def test_a_stale_snapshot_is_never_served(replicas, backend):
    tables = await replicas.open()
    table_id = await _dummy(tables, target=100)
    await play(tables, table_id, 2)
    await tables.drain()  # the snapshot saved behind the moves
    stale = await tables.cache.load(table_id)
    await play(tables, table_id, 3)
    await backend.put_snapshot(tables.cache, table_id, stale)  # as a writer that lost the race would
    reader = await replicas.open()
    view = await reader.get_view(table_id, "seat:0")
    assert view.revision == 5 and json.loads(view.view_json)["totals"] == [2, 1, 1, 1]
    assert json.loads(await tables.cache.load(table_id))["revision"] == 5  # brought forward and saved


async def test_a_snapshot_from_before_a_take_back_is_rebuilt_not_brought_forward(replicas, backend):
    tables = await replicas.open()
    table_id = await _dummy(tables, target=100)
    await tables.act(table_id, "seat:0", _add(1))
    await tables.act(table_id, "seat:1", _add(1))
    await tables.drain()
    old = await tables.cache.load(table_id)                      # move 2 = seat 1 adds 1
    await tables.take_back(table_id)
    await tables.act(table_id, "seat:1", _add(3))                # move 2 = seat 1 adds 3
    await backend.put_snapshot(tables.cache, table_id, old)      # same count, older revision
    view = await (await replicas.open()).get_view(table_id, "seat:0")
    assert view.revision == 4 and json.loads(view.view_json)["totals"] == [1, 3, 0, 0]


@pytest.mark.parametrize("junk", ["{oops", '{"revision": 99}', '[]'])
async def test_a_corrupt_snapshot_is_rebuilt_from_the_log(replicas, backend, junk):
    tables = await replicas.open()
    table_id = await _dummy(tables)
    await play(tables, table_id, 3)
    await backend.put_snapshot(tables.cache, table_id, junk)
    view = await (await replicas.open()).get_view(table_id, "seat:0")
    assert view.revision == 3 and json.loads(view.view_json)["totals"] == [1, 1, 1, 0]


async def test_a_corrupt_move_is_refused_with_a_clear_error_and_nothing_is_served(replicas, backend):
    tables = await replicas.open()
    table_id = await _dummy(tables)
    await play(tables, table_id, 3)
    await tables.drain()  # the snapshots saved behind the moves are in, then lost
    await backend.corrupt(tables.log, table_id, 2, '{"n": ')
    await backend.flush(tables.cache)
    reader = await replicas.open()
    error = await _refused(Reason.CORRUPT_LOG, reader.get_view(table_id, "seat:0"))
    assert f"table {table_id}: move 2 is not valid JSON" in error.message
    assert await tables.cache.load(table_id) is None  # no half-replayed snapshot was saved


async def test_a_move_the_engine_refuses_on_replay_is_reported_as_a_damaged_log(replicas, backend):
    tables = await replicas.open()
    table_id = await _dummy(tables)
    await play(tables, table_id, 2)
    await backend.corrupt(tables.log, table_id, 2, '{"n": 9}')
    error = await _refused(Reason.CORRUPT_LOG, _fresh_state(replicas, table_id))
    assert "move 2 does not replay" in error.message


async def test_a_long_log_is_replayed_one_window_at_a_time(replicas, monkeypatch):
    tables = await replicas.open()
    table_id = await _dummy(tables, target=10_000)
    engine = tables.registry.get("dummy")
    live = await tables.current(table_id)
    for number in range(1, 601):  # straight into the log: 600 moves
        entry = LoggedMove(number, "add", live.state["turn"], '{"n":1}', False, False, live.updated_ms + 7)
        await tables.log.append(table_id, live.position, entry, "playing", None)
        live = tables._applied(engine, live, entry)
    reader = await replicas.open()
    reader.states.cache = _NoCache()
    reads = []
    read_moves = reader.log.moves

    async def counted(table_id, after, limit=256):
        window = await read_moves(table_id, after, limit)
        reads.append(len(window))
        return window

    monkeypatch.setattr(reader.log, "moves", counted)
    rebuilt = await reader.current(table_id)
    assert rebuilt.state == live.state and rebuilt.move_count == 600
    assert reads == [256, 256, 88]


# -- deadlines and results ------------------------------------------------------------------

async def test_the_backstop_hears_of_a_new_table_and_of_its_end_not_of_every_move(tables, fakes):
    grace = tables.deadline_keeper.grace_ms
    table_id = await _dummy(tables, target=2)
    await tables.drain()
    (key, due), = fakes.deadlines.pending(table_id).items()
    assert key == ("turn", "turn:0")
    assert due == (await tables.current(table_id)).state["turn_deadline_ms"] + grace
    await tables.act(table_id, "seat:0", _add())  # the turn deadline moves later: nothing sent
    await tables.drain()
    assert list(fakes.deadlines.pending(table_id)) == [("turn", "turn:0")]
    await tables.act(table_id, "seat:1", _add())
    await tables.act(table_id, "seat:2", _add())  # team A reaches 2: finished
    await tables.drain()
    assert fakes.deadlines.pending(table_id) == {} and tables.deadline_keeper.timed_tables == 0
    sent = [call for call in fakes.deadlines.calls if call[1] == table_id]
    assert sent == [("set", table_id, "turn:0"), ("set", table_id)]  # one call each way


async def test_a_stale_backstop_fire_hands_over_the_current_deadlines(tables, fakes):
    table_id = await _dummy(tables, target=100)
    await tables.drain()
    await play(tables, table_id, 5)
    await tables.drain()
    assert list(fakes.deadlines.pending(table_id)) == [("turn", "turn:0")]  # early: harmless
    assert await tables.fire_deadline(table_id, "turn:0", "turn") == (False, 5)  # the backstop's
    await tables.drain()
    due = (await tables.current(table_id)).state["turn_deadline_ms"]
    assert fakes.deadlines.pending(table_id) == {("turn", "turn:5"): due + tables.deadline_keeper.grace_ms}


async def test_an_early_entry_about_to_fall_due_is_moved_before_it_fires(tables, fakes):
    keeper = tables.deadline_keeper
    table_id = await _dummy(tables, target=100)
    await play(tables, table_id, 3)
    await tables.drain()
    assert list(fakes.deadlines.pending(table_id)) == [("turn", "turn:0")]  # early
    assert keeper.refresh(ahead_ms=1000) == 0  # not due soon: left alone
    assert keeper.refresh(ahead_ms=60_000) == 1
    await tables.drain()
    due = (await tables.current(table_id)).state["turn_deadline_ms"]
    assert fakes.deadlines.pending(table_id) == {("turn", "turn:3"): due + keeper.grace_ms}
    assert keeper.refresh(ahead_ms=60_000) == 0  # what it holds is the current deadline


async def test_the_hand_over_is_retried_until_the_queue_answers(tables, fakes):
    fakes.deadlines.failures = 3
    table_id = await _dummy(tables)
    await tables.drain(timeout=10)
    assert list(fakes.deadlines.pending(table_id)) == [("turn", "turn:0")]


async def test_tables_that_change_while_the_queue_is_down_are_sent_once_as_they_end_up(
        tables, fakes):
    fakes.deadlines.failures = 10_000  # down
    first = await _dummy(tables, target=100)
    await asyncio.sleep(0.3)  # the first batch is on its way (and failing)
    second, third = await _dummy(tables, target=100), await _dummy(tables, target=1)
    await tables.act(third, "seat:0", _add())  # finished before its batch left
    fakes.deadlines.failures = 0       # back
    await tables.drain(timeout=10)
    assert list(fakes.deadlines.pending(first)) == list(fakes.deadlines.pending(second)) == [
        ("turn", "turn:0")]
    assert fakes.deadlines.pending(third) == {}
    sent = [call[1:] for call in fakes.deadlines.calls if call[1] in (first, second, third)]
    assert sorted(sent) == sorted([(first, "turn:0"), (second, "turn:0"), (third,)])


async def test_the_replica_that_moved_a_table_fires_its_deadline_itself(replicas, fakes):
    """Nobody moves: the replica that made the table times its turns, one after the other
    (no move of the test's races the 100 ms timers)."""
    tables = await replicas.open(turn_timeout_ms=100)
    table_id = await _dummy(tables, target=100)
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + 30
    while (live := await tables.current(table_id)).move_count < 3:  # three timeouts
        assert loop.time() < give_up_at, "the replica's timers never fired"
        await asyncio.sleep(0.02)
    auto = [move.auto for move in await tables.log.moves(table_id, 0)]
    assert auto[:3] == [True, True, True]
    await tables.drain()
    # the backstop was told of the new table once (its first batch), and of no move after:
    # each one pushed the deadline later
    (sent,) = [call for call in fakes.deadlines.calls if call[1] == table_id]
    (token,) = sent[2:]
    assert int(token.removeprefix("turn:")) <= 2 and live.move_count >= 3


async def test_a_due_deadline_plays_for_the_seat_and_a_stale_one_changes_nothing(tables):
    table_id = await _dummy(tables)
    assert await tables.fire_deadline(table_id, "turn:5", "turn") == (False, 0)
    assert await tables.fire_deadline(table_id, "turn:0", "hand_end") == (False, 0)  # wrong kind
    assert await tables.fire_deadline(table_id, "turn:0", "turn") == (True, 1)
    assert await tables.fire_deadline(table_id, "turn:0", "turn") == (False, 1)  # fired twice: no-op
    (move,) = await tables.log.moves(table_id, 0)
    assert (move.type, move.seat, move.auto, move.random) == ("roll", 0, True, True)
    await _refused(Reason.INVALID_ARGUMENT, tables.fire_deadline(table_id, "", "turn"))
    await _refused(Reason.TABLE_NOT_FOUND, tables.fire_deadline(str(uuid.uuid4()), "turn:0"))


async def test_a_finished_match_is_recorded_with_stats_once_despite_failures(tables, fakes):
    fakes.stats.failures = 2
    table_id = await _dummy(tables, target=3)
    await _refused(Reason.MATCH_NOT_FINISHED, tables.get_result(table_id))
    await play(tables, table_id, 3)  # seats 0 and 2 give team A 2... then seat 1
    await tables.act(table_id, "seat:3", _add(1))
    await tables.act(table_id, "seat:0", _add(1))  # A: 3
    await tables.drain(timeout=10)
    recorded = fakes.stats.matches[table_id]
    assert fakes.stats.calls == 3
    assert recorded.game_type == "dummy" and json.loads(recorded.result_json)["winner"] == "A"
    assert [(s.seat, s.seat_index, s.team, s.won, s.points) for s in recorded.seats] == [
        ("seat:0", 0, "A", True, 3), ("seat:1", 1, "B", False, 2),
        ("seat:2", 2, "A", True, 3), ("seat:3", 3, "B", False, 2)]
    header = await tables.log.header(table_id)
    assert header.recorded_ms is not None and header.finished_ms is not None
    assert recorded.finished_at.ToMilliseconds() == header.finished_ms
    assert recorded.started_at.ToMilliseconds() == header.created_ms
    result = await tables.get_result(table_id)
    assert json.loads(result.result_json) == json.loads(recorded.result_json)
    assert (result.started_ms, result.finished_ms) == (header.created_ms, header.finished_ms)


async def test_a_restarted_service_resumes_the_unrecorded_finished_matches(replicas, fakes):
    down = await replicas.open(stats=False)  # finished while stats was out of reach
    table_id = await _dummy(down, target=1)
    await down.act(table_id, "seat:0", _add())
    assert await down.log.unrecorded() == [table_id]
    restarted = await replicas.open()
    assert await restarted.resume() == 1
    await restarted.drain(timeout=10)
    assert table_id in fakes.stats.matches
    assert await restarted.log.unrecorded() == []
    assert await restarted.resume() == 0


async def test_a_match_stats_refuses_for_good_is_settled_not_retried_for_ever(replicas, fakes, caplog):
    fakes.stats.refusal = ServiceError(Reason.INVALID_ARGUMENT, "result_json is not valid JSON",
                                       field="result_json")
    tables = await replicas.open()
    table_id = await _dummy(tables, target=1)
    await tables.act(table_id, "seat:0", _add())
    await tables.drain(timeout=10)
    assert fakes.stats.calls == 1 and table_id not in fakes.stats.matches
    assert table_id not in await tables.log.unrecorded()  # not offered again at the next start
    (error,) = [r for r in caplog.records if r.levelname == "ERROR" and table_id in r.getMessage()]
    assert "INVALID_ARGUMENT" in error.getMessage() and "settled without a record" in error.getMessage()


async def test_a_refusal_a_later_attempt_may_overcome_keeps_the_match_waiting(replicas, fakes, caplog):
    fakes.stats.refusal = ServiceError(Reason.GAME_NOT_FOUND, "No lobby game seats this table")
    tables = await replicas.open(record_cap_seconds=0.1)
    table_id = await _dummy(tables, target=1)
    await tables.act(table_id, "seat:0", _add())
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + 20
    while fakes.stats.calls < 3:
        assert loop.time() < give_up_at, "the recorder stopped trying"
        await asyncio.sleep(0.02)
    assert await tables.log.unrecorded() == [table_id] and tables.waiting_to_record == 1
    assert [r for r in caplog.records if r.levelname == "WARNING" and "GAME_NOT_FOUND" in r.getMessage()]
    fakes.stats.refusal = None
    while (await tables.log.header(table_id)).recorded_ms is None:
        assert loop.time() < give_up_at, "never recorded"
        await asyncio.sleep(0.02)
    assert table_id in fakes.stats.matches and tables.waiting_to_record == 0


async def test_a_restarted_service_hands_the_running_tables_deadlines_to_the_queue_again(
        replicas, fakes):
    cut_off = await replicas.open(deadlines=False)  # stopped before its deadlines were sent
    running, done = await _dummy(cut_off, target=100), await _dummy(cut_off, target=1)
    await cut_off.act(running, "seat:0", _add())
    await cut_off.act(done, "seat:0", _add())  # finished: no deadline left
    assert fakes.deadlines.pending(running) == {}
    restarted = await replicas.open()
    assert await restarted.resume_deadlines(page_size=1) >= 1  # other tests' tables may run too
    await restarted.drain(timeout=10)
    due = (await restarted.current(running)).state["turn_deadline_ms"]
    assert fakes.deadlines.pending(running) == {("turn", "turn:1"): due + restarted.deadline_keeper.grace_ms}
    assert fakes.deadlines.pending(done) == {}


# -- the log, page by page ------------------------------------------------------------------

async def test_the_log_is_read_page_by_page(tables):
    table_id = await _dummy(tables, target=100)
    await play(tables, table_id, 5)
    page = await tables.get_log(table_id, 0, 2)
    assert [m.number for m in page.moves] == [1, 2] and page.next_after == 2
    page = await tables.get_log(table_id, 4, 0)
    assert [m.number for m in page.moves] == [5] and page.next_after == 0
    assert page.header.move_count == 5 and page.header.revision == 5
    assert (await tables.get_log(table_id, 9, 300)).moves == []
    await _refused(Reason.INVALID_ARGUMENT, tables.get_log(table_id, -1, 0))
    await _refused(Reason.INVALID_ARGUMENT, tables.get_log(table_id, 0, -5))
    await _refused(Reason.TABLE_NOT_FOUND, tables.get_log(str(uuid.uuid4()), 0, 0))


async def test_a_log_page_of_large_moves_stops_at_a_mebibyte(tables, monkeypatch):
    monkeypatch.setattr("game.tables.LOG_PAGE_BYTES", 50_000)
    table_id = await _dummy(tables, target=100)
    for number in range(6):
        await tables.act(table_id, SEATS[number % 4],
                         json.dumps({"action": "add", "n": 1, "note": "x" * 20_000}))
    numbers, after = [], 0
    while True:
        page = await tables.get_log(table_id, after, 0)
        assert 1 <= len(page.moves) <= 3  # 3 x 20 kB passes 50 kB with the third
        numbers += [m.number for m in page.moves]
        if not (after := page.next_after):
            break
    assert numbers == [1, 2, 3, 4, 5, 6]


async def test_purging_a_table_removes_its_log_and_snapshot(tables):
    table_id = await _dummy(tables)
    await tables.act(table_id, "seat:0", _add())
    assert await tables.purge(table_id)
    await _refused(Reason.TABLE_NOT_FOUND, tables.get_view(table_id, "seat:0"))
    assert await tables.cache.load(table_id) is None


# -- watching -------------------------------------------------------------------------------

async def _collect(stream, into: list, count: int | None = None) -> None:
    async for view in stream:
        into.append(view)
        if count is not None and len(into) >= count:
            return


async def test_a_watcher_gets_the_view_now_then_after_every_change_until_finished(replicas):
    tables, other = await replicas.open(), await replicas.open()
    table_id = await _dummy(tables, target=5)
    views: list = []
    watching = asyncio.create_task(_collect(tables.watch(table_id, "seat:1"), views))
    while not views:
        await asyncio.sleep(0.01)
    changes = [
        other.act(table_id, "seat:0", _add(2)),          # from the other replica
        other.fire_deadline(table_id, "turn:1", "turn"),  # seat 1 rolls
        tables.take_back(table_id),                       # the roll is taken back
        tables.act(table_id, "seat:1", _add(1)),
        other.act(table_id, "seat:2", _add(3)),          # A reaches 5
    ]
    for revision, change in enumerate(changes, 1):
        await change
        await eventually(lambda revision=revision: views[-1].revision == revision, timeout=20, interval=0.005)
    await asyncio.wait_for(watching, 10)
    assert [v.revision for v in views] == [0, 1, 2, 3, 4, 5]
    assert views[-1].status == "finished"
    assert all(json.loads(v.view_json)["you"] == 1 for v in views)
    assert json.loads(views[2].view_json)["last_play"]["auto"] is True


async def test_a_watcher_that_falls_behind_still_sees_every_move_in_order(tables):
    table_id = await _dummy(tables, target=100)
    stream = tables.watch(table_id, "seat:3")
    first = await anext(stream)
    await play(tables, table_id, 4)  # four moves before the watcher looks again
    views = [first]
    await asyncio.wait_for(_collect(stream, views, count=5), 10)
    await stream.aclose()
    assert [v.revision for v in views] == [0, 1, 2, 3, 4]
    assert [json.loads(v.view_json)["totals"] for v in views][1:] == [
        [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]


async def test_a_table_watcher_gets_every_seats_view_at_every_revision_even_when_behind(tables):
    table_id = await _dummy(tables, target=2)
    stream = tables.watch_table(table_id)
    first = await anext(stream)
    await play(tables, table_id, 3)  # three moves, the last one finishing, before it looks again
    messages = [first]
    await asyncio.wait_for(_collect(stream, messages), 10)
    assert [(m.revision, m.status) for m in messages] == [
        (0, "playing"), (1, "playing"), (2, "playing"), (3, "finished")]
    for message in messages:
        assert [seat for seat, _ in message.views] == SEATS
        views = [json.loads(view) for _, view in message.views]
        assert [v["you"] for v in views] == [0, 1, 2, 3]
        assert {v["revision"] for v in views} == {message.revision}
    assert [json.loads(m.views[0][1])["totals"] for m in messages] == [
        [0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]]
    seat_view = await tables.get_view(table_id, "seat:3")
    assert messages[-1].views[3][1] == seat_view.view_json
    assert messages[-1].updated_ms == seat_view.updated_ms


@contextlib.asynccontextmanager
async def _watching_all(tables, table_id: str):
    """Every seat's WatchViews and two WatchTable streams, what each received so far (from its
    first message on); the counts of the replica's store calls start afresh."""
    streams = [tables.watch(table_id, seat) for seat in SEATS]
    streams += [tables.watch_table(table_id), tables.watch_table(table_id)]
    received: list[list] = [[] for _ in streams]
    tasks = [asyncio.create_task(_collect(stream, into)) for stream, into in zip(streams, received)]
    try:
        await eventually(lambda: all(received), timeout=20, interval=0.005)
        for store in (tables.log, tables.cache):
            if hasattr(store, "calls"):
                store.calls.clear()
        yield received
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_change_made_here_reaches_the_watchers_here_with_no_read(replicas):
    tables = await replicas.open(counting=True)
    table_id = await _dummy(tables, target=1000)
    async with _watching_all(tables, table_id) as received:
        for number in range(6):
            await tables.act(table_id, SEATS[number % 4], _add())
        await eventually(lambda: all(r[-1].revision == 6 for r in received), timeout=20, interval=0.005)
        await tables.drain()
        await asyncio.sleep(0.2)  # the signals' echoes come back: they name revisions known here
    assert tables.log.calls == {"append": 6}
    assert tables.cache.calls["load"] == 0
    assert all([m.revision for m in r] == list(range(7)) for r in received)


async def test_a_change_made_elsewhere_reaches_all_the_watchers_here_without_a_read(replicas):
    here, there = await replicas.open(counting=True), await replicas.open()
    table_id = await _dummy(there, target=1000)
    async with _watching_all(here, table_id) as received:
        for number in range(4):
            await there.act(table_id, SEATS[number % 4], _add())
            await eventually(lambda number=number: all(r[-1].revision == number + 1 for r in received), timeout=20, interval=0.005)
    assert all([m.revision for m in r] == list(range(5)) for r in received)
    # The signal carries the new state (sent once the change is in the log): no read at all for
    # the six watchers.
    assert here.log.calls == {} and here.cache.calls == {}


async def test_a_change_signalled_by_its_revision_alone_is_read_from_the_cache(replicas, monkeypatch):
    here, there = await replicas.open(counting=True), await replicas.open()
    table_id = await _dummy(there, target=1000)

    async def as_an_earlier_version(live: Live) -> None:  # stored, then signalled by its revision
        await there.cache.save(SnapshotWrite(table_id, live.revision, live.snapshot_json(), 1, False))
        await there.cache.publish(table_id, str(live.revision))

    monkeypatch.setattr(there.states, "signal", as_an_earlier_version)
    async with _watching_all(here, table_id) as received:
        await there.act(table_id, SEATS[0], _add())
        await eventually(lambda: all(r[-1].revision == 1 for r in received), timeout=20, interval=0.005)
    assert here.log.calls == {} and here.cache.calls == {"load": 1}  # once for every watcher


async def test_changes_made_elsewhere_at_once_still_reach_the_watchers_here_one_by_one(replicas):
    here, there = await replicas.open(), await replicas.open()
    table_id = await _dummy(there, target=1000)
    async with _watching_all(here, table_id) as received:
        await asyncio.gather(*(there.act(table_id, seat, _add()) for seat in SEATS))  # saves coalesce
        await eventually(lambda: all(r[-1].revision == 4 for r in received), timeout=20, interval=0.005)
    assert all([m.revision for m in r] == [0, 1, 2, 3, 4] for r in received)
    assert [json.loads(m.view_json)["totals"] for m in received[0]] == [
        [0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]


async def test_each_change_is_rendered_once_for_every_table_watcher(tables, monkeypatch):
    table_id = await _dummy(tables, target=1000)
    rendered: list[int] = []
    render = tables._render_seats
    monkeypatch.setattr(tables, "_render_seats", lambda live: rendered.append(live.revision) or render(live))
    async with _watching_all(tables, table_id) as received:
        await play(tables, table_id, 3)
        await eventually(lambda: all(r[-1].revision == 3 for r in received), timeout=20, interval=0.005)
    assert rendered == [0, 1, 2, 3]
    assert received[-1] == received[-2]


async def test_a_change_whose_signal_was_lost_reaches_the_watchers_at_the_next_check(replicas, monkeypatch):
    here = await replicas.open(counting=True, watch_poll_seconds=0.05)
    there = await replicas.open()
    tables = [await _dummy(there, target=1000) for _ in range(3)]
    lost = [tables[1]]

    async def signal_unless_lost(live: Live) -> None:
        if live.table_id not in lost:
            await there.cache.publish(live.table_id, live.snapshot_json())

    monkeypatch.setattr(there.states, "signal", signal_unless_lost)
    async with contextlib.AsyncExitStack() as stack:
        received = [await stack.enter_async_context(_watching_all(here, t)) for t in tables]
        here.log.calls.clear()
        await eventually(lambda: here.log.calls["positions"] >= 2, timeout=20, interval=0.005)  # two checks, one read each
        assert here.log.calls["header"] == 0
        for table_id in tables:
            await there.act(table_id, SEATS[0], _add())
        await eventually(lambda: all(r[-1].revision == 1 for watched in received for r in watched), timeout=20, interval=0.005)
    # Without the check the lost change would never come; a check may also find a change whose
    # signal is still on its way, and read it (at most once a table).
    assert 1 <= here.log.calls["header"] <= 3


async def test_watchers_whose_table_cannot_be_read_end_with_the_error(replicas):
    tables = await replicas.open(counting=True, watch_poll_seconds=0.05)
    there = await replicas.open()
    table_id = await _dummy(tables)
    stream = tables.watch_table(table_id)
    await anext(stream)

    async def down(table_id):
        raise ConnectionRefusedError("the log does not answer")

    tables.log.header = down
    there.snapshots.submit = lambda live: None  # its signal is lost: the next check finds it
    await there.act(table_id, "seat:0", _add())
    with pytest.raises(ConnectionRefusedError):
        await asyncio.wait_for(anext(stream), 5)


async def test_a_failed_check_of_the_logs_ends_no_watcher(replicas):
    tables = await replicas.open(counting=True, watch_poll_seconds=0.05)
    table_id = await _dummy(tables)
    received: list = []
    watching = asyncio.create_task(_collect(tables.watch_table(table_id), received))
    await eventually(lambda: len(received) == 1, timeout=20, interval=0.005)
    checks = tables.log.calls["positions"]

    async def down(table_ids):
        raise ConnectionRefusedError("the log does not answer")

    original, tables.log.positions = tables.log.positions, down
    await asyncio.sleep(0.2)
    tables.log.positions = original
    await tables.act(table_id, "seat:0", _add())
    await eventually(lambda: len(received) == 2 and tables.log.calls["positions"] > checks, timeout=20, interval=0.005)
    assert not watching.done()
    watching.cancel()


async def test_watching_an_unknown_table_or_seat_is_refused(tables):
    table_id = await _dummy(tables)
    await _refused(Reason.TABLE_NOT_FOUND, anext(tables.watch(str(uuid.uuid4()), "seat:0")))
    await _refused(Reason.NOT_SEATED, anext(tables.watch(table_id, "seat:8")))
    await _refused(Reason.IDENTIFYING_SEAT, anext(tables.watch(table_id, "bob@example.org")))
    await _refused(Reason.TABLE_NOT_FOUND, anext(tables.watch_table(str(uuid.uuid4()))))


async def test_stopping_the_service_ends_the_view_streams(tables):
    table_id = await _dummy(tables)
    views: list = []
    watching = asyncio.create_task(_collect(tables.watch(table_id, "seat:0"), views))
    while not views:
        await asyncio.sleep(0.01)
    tables.stop_watching()
    await asyncio.wait_for(watching, 5)
    assert len(views) == 1


# -- scopone through the same flow ----------------------------------------------------------

async def test_a_scopone_table_plays_and_replays_exactly(replicas):
    tables = await replicas.open()
    table_id = (await tables.create_table("", "scopone_scientifico", "", SEATS)).table_id
    engine = tables.registry.get("scopone_scientifico")
    leader = (await tables.current(table_id)).state["turn"]  # the drawn dealer's left hand
    for _ in range(12):
        live = await tables.current(table_id)
        card, capture = engine.legal_plays(live.state)[0]
        seat = SEATS[live.state["turn"]]
        await tables.act(table_id, seat, json.dumps({"action": "play", "card": card, "capture": capture}))
    await tables.fire_deadline(table_id, engine.deadlines((await tables.current(table_id)).state)[0].token)
    live = await tables.current(table_id)
    assert live.move_count == 13
    assert (await _fresh_state(replicas, table_id)).state == live.state
    view = json.loads((await tables.get_view(table_id, "seat:2")).view_json)
    plays_by_seat_2 = sum(1 for move in range(13) if (leader + move) % 4 == 2)
    assert view["you"] == 2 and len(view["hand"]) == 10 - plays_by_seat_2 and view["revision"] == 13


async def test_the_public_view_is_rendered_once_per_change_and_only_while_a_watch_asks(tables, monkeypatch):
    table_id = await _dummy(tables, target=1000)
    rendered: list[int] = []
    render = game_tables._view_json

    def counted(engine, live, index):
        if index is None:
            rendered.append(live.revision)
        return render(engine, live, index)

    monkeypatch.setattr(game_tables, "_view_json", counted)
    async with _watching_all(tables, table_id) as received:  # the players' streams: no public view
        await play(tables, table_id, 1)
        await eventually(lambda: all(r[-1].revision == 1 for r in received), timeout=20, interval=0.005)
    assert rendered == [] and all(r[-1].public == "" for r in received[-2:])
    public = [tables.watch_table(table_id, public=True) for _ in range(3)]
    seen: list[list] = [[] for _ in public]
    tasks = [asyncio.create_task(_collect(stream, into)) for stream, into in zip(public, seen)]
    try:
        await eventually(lambda: all(seen), timeout=20, interval=0.005)
        await play(tables, table_id, 2)
        await eventually(lambda: all(s[-1].revision == 3 for s in seen), timeout=20, interval=0.005)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    # Three watches asking, one rendering per revision: the cost does not grow with them.
    assert rendered == [1, 2, 3]
    view = json.loads(seen[0][-1].public)
    assert "you" not in view and not any(p["is_you"] for p in view["players"]) and view["revision"] == 3
    assert (await tables.get_view(table_id, "", public=True)).view_json == seen[0][-1].public
