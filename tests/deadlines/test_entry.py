"""Entries, their stored form, the backoff and the due-time rounding: pure values."""

from __future__ import annotations

import pytest
from google.protobuf import timestamp_pb2

from deadlines.consumer import Backoff
from deadlines.entry import MAX_FIELD_LENGTH, Entry, InvalidEntry
from deadlines.servicer import due_ms_from
from services.rpc.errors import ServiceError


def test_member_is_compact_canonical_json():
    entry = Entry("t-1", "turn", "seat:0#3")
    assert entry.member == '{"table":"t-1","kind":"turn","token":"seat:0#3"}'
    assert Entry("t-1", "turn", "seat:0#3").member == entry.member


def test_member_round_trips_any_text():
    entry = Entry('t"\\1', "hand_end", "gettone ✓ \n")
    assert Entry.from_member(entry.member) == entry


@pytest.mark.parametrize("member", ["", "not json", "[1,2]", '{"table":"t","kind":"k"}',
                                    '{"table":"t","kind":"k","token":""}',
                                    '{"table":1,"kind":"k","token":"x"}',
                                    '{"table":"t","kind":"k","token":"x","extra":1}'])
def test_from_member_refuses_what_is_not_an_entry(member):
    with pytest.raises(InvalidEntry):
        Entry.from_member(member)


@pytest.mark.parametrize("field", ["table_id", "kind", "token"])
def test_each_field_must_be_non_empty_and_bounded(field):
    values = {"table_id": "t", "kind": "k", "token": "x"}
    with pytest.raises(InvalidEntry, match=field):
        Entry(**{**values, field: ""})
    with pytest.raises(InvalidEntry, match=field):
        Entry(**{**values, field: "x" * (MAX_FIELD_LENGTH + 1)})
    Entry(**{**values, field: "x" * MAX_FIELD_LENGTH})


def test_backoff_doubles_up_to_its_ceiling_with_jitter_below():
    backoff = Backoff(initial_ms=100, max_ms=1000)
    assert [backoff.delay_ms(n, 0.999999) for n in (1, 2, 3, 4, 5)] == [99, 199, 399, 799, 999]
    assert backoff.delay_ms(1, 0.0) == 50
    assert backoff.delay_ms(10_000, 0.5) == 750  # no overflow on a long outage


def test_due_time_rounds_up_to_the_millisecond():
    assert due_ms_from(timestamp_pb2.Timestamp(seconds=10, nanos=0)) == 10_000
    assert due_ms_from(timestamp_pb2.Timestamp(seconds=10, nanos=1)) == 10_001
    assert due_ms_from(timestamp_pb2.Timestamp(seconds=10, nanos=999_999_999)) == 11_000
    assert due_ms_from(timestamp_pb2.Timestamp(seconds=-1, nanos=500_000_000)) == -500


@pytest.mark.parametrize("seconds, nanos", [(0, -1), (0, 1_000_000_000), (10**12, 0),
                                            (-10**12, 0)])
def test_due_time_outside_the_timestamp_range_is_refused(seconds, nanos):
    with pytest.raises(ServiceError, match="due_at"):
        due_ms_from(timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos))
