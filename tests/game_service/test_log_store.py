"""The move log, in memory and in Postgres: one behaviour."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace

import pytest

from game.log_store import WINDOW, ConcurrentChange, CorruptLog, DuplicateRequest, LoggedMove, TableRecord

CREATED_MS = 1764669630123


def _record(table_id: str | None = None, **changes) -> TableRecord:
    fields = {
        "table_id": table_id or str(uuid.uuid4()), "game_type": "dummy", "engine_version": "1",
        "seed": bytes(range(32)), "seed_commitment": "c0ffee",
        "seats": ("seat:0", "seat:1", "seat:2", "seat:3"), "options_json": '{"target":20}',
        "status": "playing", "created_ms": CREATED_MS,
    }
    fields.update(changes)
    return TableRecord(**fields)


def _move(number: int, payload_json: str = '{"n":1}', seat: int | None = 0, at: int = CREATED_MS) -> LoggedMove:
    return LoggedMove(number, "add", seat, payload_json, auto=False, random=False, created_ms=at + number)


async def _append(store, table_id: str, count: int) -> None:
    for _ in range(count):
        header = await store.header(table_id)
        await store.append(table_id, header.position, _move(header.move_count + 1), "playing", None)


async def test_a_new_table_starts_at_move_zero_revision_zero(log_store):
    record = _record()
    stored, created = await log_store.create(record)
    assert created and stored == record
    header = await log_store.header(record.table_id)
    assert header == record
    assert (header.move_count, header.revision, header.seats) == (0, 0, record.seats)


async def test_creating_an_existing_id_returns_the_stored_table_unchanged(log_store):
    first = _record()
    await log_store.create(first)
    stored, created = await log_store.create(_record(first.table_id, game_type="other", seed=b"x" * 32))
    assert not created and stored == first


async def test_an_unknown_table_has_no_header_and_no_moves(log_store):
    table_id = str(uuid.uuid4())
    assert await log_store.header(table_id) is None
    assert await log_store.moves(table_id, 0) == []


async def test_appended_moves_come_back_byte_for_byte_in_order(log_store):
    record = _record()
    await log_store.create(record)
    payloads = ['{"z":1,"a":[0.1,1e-07,1.10]}', '{"note":"caff\\u00e8 \u2615","n":2}', "{}"]
    for number, payload in enumerate(payloads, 1):
        header = await log_store.header(record.table_id)
        await log_store.append(record.table_id, header.position, _move(number, payload, seat=None),
                               "playing", None)
    moves = await log_store.moves(record.table_id, 0)
    assert [m.payload_json for m in moves] == payloads
    assert [m.number for m in moves] == [1, 2, 3]
    assert [m.created_ms for m in moves] == [CREATED_MS + 1, CREATED_MS + 2, CREATED_MS + 3]
    assert moves[0].seat is None
    header = await log_store.header(record.table_id)
    assert (header.move_count, header.revision) == (3, 3)


async def test_an_append_records_the_status_and_the_finish_time(log_store):
    record = _record()
    await log_store.create(record)
    await log_store.append(record.table_id, record.position, _move(1), "finished", CREATED_MS + 5)
    header = await log_store.header(record.table_id)
    assert (header.status, header.finished_ms) == ("finished", CREATED_MS + 5)


async def test_of_moves_appended_at_once_from_one_position_exactly_one_lands(log_store):
    record = _record()
    await log_store.create(record)
    outcomes = await asyncio.gather(
        *(log_store.append(record.table_id, record.position, _move(1, f'{{"n":{i}}}'), "playing", None)
          for i in range(1, 6)),
        return_exceptions=True,
    )
    assert sum(o is None for o in outcomes) == 1
    assert all(isinstance(o, ConcurrentChange) for o in outcomes if o is not None)
    header = await log_store.header(record.table_id)
    assert (header.move_count, header.revision) == (1, 1)
    assert len(await log_store.moves(record.table_id, 0)) == 1


async def test_an_append_at_an_old_count_is_refused(log_store):
    record = _record()
    await log_store.create(record)
    await log_store.append(record.table_id, record.position, _move(1), "playing", None)
    with pytest.raises(ConcurrentChange):
        await log_store.append(record.table_id, record.position, _move(1), "playing", None)


async def test_a_move_computed_before_a_take_back_is_refused_at_the_same_count(log_store):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 2)
    seen = (await log_store.header(record.table_id)).position          # count 2, revision 2
    await log_store.take_back(record.table_id, seen, "playing")         # count 1, revision 3
    await _append(log_store, record.table_id, 1)                        # count 2, revision 4
    header = await log_store.header(record.table_id)
    assert (header.move_count, header.revision) == (seen.move_count, 4)
    with pytest.raises(ConcurrentChange):
        await log_store.append(record.table_id, seen, _move(3), "playing", None)


async def test_a_take_back_lowers_the_count_raises_the_revision_and_deletes_the_move(log_store):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 3)
    header = await log_store.header(record.table_id)
    await log_store.take_back(record.table_id, header.position, "playing")
    after = await log_store.header(record.table_id)
    assert (after.move_count, after.revision) == (2, 4)
    assert [m.number for m in await log_store.moves(record.table_id, 0)] == [1, 2]
    with pytest.raises(ConcurrentChange):  # the position it was computed at is gone
        await log_store.take_back(record.table_id, header.position, "playing")


async def test_a_take_back_of_an_empty_log_is_refused(log_store):
    record = _record()
    await log_store.create(record)
    with pytest.raises(ConcurrentChange):
        await log_store.take_back(record.table_id, record.position, "playing")
    assert (await log_store.header(record.table_id)).revision == 0


async def test_a_change_for_another_incarnation_of_the_id_is_refused(log_store):
    record = _record()
    await log_store.create(record)
    other = record.position.__class__(0, 0, "another-seed-commitment")
    with pytest.raises(ConcurrentChange):
        await log_store.append(record.table_id, other, _move(1), "playing", None)


async def test_moves_are_read_in_windows_of_256(log_store):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 600)
    sizes = [len(w) async for w in log_store.windows(record.table_id)]
    assert sizes == [WINDOW, WINDOW, 600 - 2 * WINDOW]
    upto = [m.number async for w in log_store.windows(record.table_id, 10, 300) for m in w]
    assert upto == list(range(11, 301))
    page = await log_store.moves(record.table_id, 595, 10)
    assert [m.number for m in page] == [596, 597, 598, 599, 600]


async def test_a_full_read_starts_again_when_the_log_changed_meanwhile(log_store):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 300)
    read_moves = log_store.moves
    changed = []

    async def moves_then_take_back(table_id, after, limit=WINDOW):
        window = await read_moves(table_id, after, limit)
        if not changed:  # between two windows of the first read: a take-back and a new move
            changed.append(True)
            header = await log_store.header(table_id)
            await log_store.take_back(table_id, header.position, "playing")
            header = await log_store.header(table_id)
            await log_store.append(table_id, header.position, _move(300, '{"n":3}'), "playing", None)
        return window

    log_store.moves = moves_then_take_back
    header, moves = await log_store.read_all(record.table_id)
    assert (header.move_count, header.revision) == (300, 302)
    assert len(moves) == 300 and moves[-1].payload_json == '{"n":3}'


async def test_a_row_that_is_not_json_is_refused_with_a_clear_error(log_store, backend):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 2)
    await backend.corrupt(log_store, record.table_id, 2, '{"n": 1')
    first, second = await log_store.moves(record.table_id, 0)
    assert first.to_move(record.table_id).payload == {"n": 1}
    with pytest.raises(CorruptLog, match=f"table {record.table_id}: move 2 is not valid JSON"):
        second.to_move(record.table_id)


async def test_a_row_that_is_json_but_not_an_object_is_refused(log_store, backend):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 1)
    await backend.corrupt(log_store, record.table_id, 1, "[1, 2]")
    (move,) = await log_store.moves(record.table_id, 0)
    with pytest.raises(CorruptLog, match="move 1 is not a JSON object"):
        move.to_move(record.table_id)


async def test_deleting_a_table_removes_it_and_its_moves(log_store):
    record = _record()
    await log_store.create(record)
    await _append(log_store, record.table_id, 3)
    assert await log_store.delete(record.table_id)
    assert await log_store.header(record.table_id) is None
    assert await log_store.moves(record.table_id, 0) == []
    assert not await log_store.delete(record.table_id)
    stored, created = await log_store.create(record)  # the id is free again
    assert created and stored.move_count == 0


async def test_unfinished_tables_are_listed_in_id_order_page_by_page(log_store):
    running = sorted((_record() for _ in range(5)), key=lambda record: record.table_id)
    finished = _record()
    for record in (*running, finished):
        await log_store.create(record)
    await log_store.append(finished.table_id, finished.position, _move(1), "finished", CREATED_MS + 1)
    mine = {record.table_id for record in running} | {finished.table_id}
    seen, after = [], ""
    while page := await log_store.unfinished(after, limit=2):
        assert len(page) <= 2 and page == sorted(page) and all(t > after for t in page)
        seen += [table_id for table_id in page if table_id in mine]  # other tests' tables too
        after = page[-1]
    assert seen == [record.table_id for record in running]


async def test_finished_tables_wait_to_be_recorded_until_marked(log_store):
    playing, done, older = _record(), _record(), _record()
    for record in (playing, done, older):
        await log_store.create(record)
    await log_store.append(done.table_id, done.position, _move(1), "finished", CREATED_MS + 20)
    await log_store.append(older.table_id, older.position, _move(1), "finished", CREATED_MS + 10)
    assert await log_store.unrecorded() == [older.table_id, done.table_id]
    assert await log_store.unrecorded_count() == 2
    await log_store.mark_recorded(older.table_id, CREATED_MS + 30)
    await log_store.mark_recorded(older.table_id, CREATED_MS + 99)  # the first time stays
    assert await log_store.unrecorded() == [done.table_id]
    assert await log_store.unrecorded_count() == 1
    assert (await log_store.header(older.table_id)).recorded_ms == CREATED_MS + 30


async def test_matches_waiting_to_be_recorded_are_listed_oldest_first_page_by_page(log_store):
    # Two finish at the same moment: the id breaks the tie, so no page skips or repeats one.
    finished_at = [CREATED_MS + 30, CREATED_MS + 10, CREATED_MS + 20, CREATED_MS + 20, CREATED_MS + 40]
    records = [_record() for _ in finished_at]
    for record, at in zip(records, finished_at):
        await log_store.create(record)
        await log_store.append(record.table_id, record.position, _move(1), "finished", at)
    expected = [r.table_id for r, _ in sorted(zip(records, finished_at), key=lambda p: (p[1], p[0].table_id))]
    seen, after = [], ""
    while page := await log_store.unrecorded(2, after):
        assert len(page) <= 2
        seen += page
        after = page[-1]
    assert seen == expected
    assert await log_store.unrecorded(10, finished_before_ms=CREATED_MS + 21) == expected[:3]
    assert await log_store.unrecorded(10, expected[1], finished_before_ms=CREATED_MS + 21) == expected[2:3]
    assert await log_store.unrecorded_count() == 5


# -- many tables at once (group commit, on Postgres) ------------------------------------------

async def test_appends_of_many_tables_at_once_each_land_and_share_statements(log_store, backend):
    records = [_record() for _ in range(40)]
    for record in records:
        await log_store.create(record)
    batches_before = getattr(getattr(log_store, "appends", None), "batches", 0)

    await asyncio.gather(*(log_store.append(r.table_id, r.position, _move(1), "playing", None)
                           for r in records))

    for record in records:
        header = await log_store.header(record.table_id)
        assert (header.move_count, header.revision) == (1, 1)
        assert [m.number for m in await log_store.moves(record.table_id, 0)] == [1]
    if backend.real:  # the first went alone; the others waited and went together
        assert log_store.appends.batches - batches_before < len(records) / 4


async def test_in_a_shared_statement_one_tables_conflict_or_repeat_fails_only_that_table(log_store):
    stale, repeated, *fine = [_record() for _ in range(6)]
    for record in (stale, repeated, *fine):
        await log_store.create(record)
    await log_store.append(stale.table_id, stale.position, _move(1), "playing", None)
    await log_store.append(repeated.table_id, repeated.position,
                           replace(_move(1), request_id="r-1"), "playing", None)
    moved_on = (await log_store.header(repeated.table_id)).position

    outcomes = await asyncio.gather(
        log_store.append(stale.table_id, stale.position, _move(1), "playing", None),
        log_store.append(repeated.table_id, moved_on, replace(_move(2), request_id="r-1"),
                         "playing", None),
        *(log_store.append(r.table_id, r.position, _move(1), "playing", None) for r in fine),
        return_exceptions=True)

    assert isinstance(outcomes[0], ConcurrentChange)
    assert isinstance(outcomes[1], DuplicateRequest)
    assert outcomes[2:] == [None] * len(fine)
    assert (await log_store.header(repeated.table_id)).move_count == 1
    assert await log_store.find_request(repeated.table_id, "r-1") == 1


async def test_a_statement_that_fails_whole_is_written_again_table_by_table(log_store):
    broken, *fine = [_record() for _ in range(5)]
    for record in (broken, *fine):
        await log_store.create(record)

    outcomes = await asyncio.gather(
        *(log_store.append(r.table_id, r.position, _move(1), "playing", None) for r in fine),
        log_store.append(broken.table_id, broken.position, _move(1, payload_json='{"n":"\x00"}'),
                         "playing", None),  # Postgres text holds no NUL
        return_exceptions=True)

    assert outcomes[:-1] == [None] * len(fine)
    for record in fine:
        assert (await log_store.header(record.table_id)).move_count == 1
