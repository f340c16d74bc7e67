"""Seat ids that could identify a person are refused; opaque ones pass."""

from __future__ import annotations

import pytest

from game.seats import check_seat
from services.rpc.errors import Reason, ServiceError

IDENTIFYING = [
    "alice@example.org", "seat:alice%40example.org", "bob%40gmail.com", "alice\uff20example.org",
    "mario.rossi.gmail.com", "anna.libero.it", "bob.outlook.co.uk", "seat.hotmail.com",
    "user:42", "users/42", "User_7", "member-3", "members:9", "account17", "accounts.5",
    "customer:1", "subscribers#2", "profile/abc", "person:8", "people:8", "uid-9", "uid42",
    "login:bob", "email:x", "emails_1", "e-mail:x", "mail:bob", "seat:user:1", "MEMBER99",
    "user%3A42", "member~1", "account!2", "user*1", "uid$1", "mario.rossi.gmail", "bob%2540x.it",
]
OPAQUE = ["seat:0", "seat:1", "seat:3", "s0", "north", "p-1", "seat:0:a", "table.seat.2",
          "dummy-seat-7", "username", "membership", "mailbox"]


@pytest.mark.parametrize("seat", IDENTIFYING)
def test_a_seat_that_could_identify_a_person_is_refused(seat):
    with pytest.raises(ServiceError) as refused:
        check_seat(seat)
    assert refused.value.reason is Reason.IDENTIFYING_SEAT
    assert seat not in refused.value.message  # never repeated: it may be an address


@pytest.mark.parametrize("seat", OPAQUE)
def test_an_opaque_seat_passes(seat):
    assert check_seat(seat) == seat


@pytest.mark.parametrize("seat", ["", None, 3, "seat 0", "seat:\n0", "x" * 65])
def test_a_missing_or_malformed_seat_is_an_invalid_argument(seat):
    with pytest.raises(ServiceError) as refused:
        check_seat(seat)
    assert refused.value.reason is Reason.INVALID_ARGUMENT
