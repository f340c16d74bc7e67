"""Table talk's rules at the gateway, without a stack: who reads whose messages (the channels), the
`say` a socket sends, the rate of one member at one table, and the events that carry talk between
gateway processes."""

from __future__ import annotations

import pytest

from gateway.contract.socket import WsSaid
from gateway.events import MutesChanged, Said, decode, encode
from gateway.rate_limits import MemoryBuckets
from gateway.table_talk import TEXT_ALLOWED, Refused, TalkLimits, chat_message, read_say, said_text
from talk.models import Message, visible


@pytest.mark.parametrize(("author_spectator", "reader_spectator", "finished", "seen"), [
    (False, False, False, True),  # players' messages reach players
    (False, True, False, True),  # and spectators
    (True, True, False, True),  # spectators' reach spectators
    (True, False, False, False),  # but not players, while the game is on
    (True, False, True, True),  # once finished, everyone
    (False, True, True, True),
])
def test_the_channels(author_spectator, reader_spectator, finished, seen):
    assert visible(author_spectator, reader_spectator, finished) is seen


def test_free_text_is_allowed_between_hands_only():
    assert {str(status) for status in TEXT_ALLOWED} == {"lobby", "hand_end", "finished"}


@pytest.mark.parametrize(("data", "said"), [
    ({"action": "say", "phrase": "well_played"}, ("well_played", "")),
    ({"action": "say", "text": "\u00a0 ciao \u3000"}, ("", "ciao")),
    ({"action": "say", "text": "x" * 200}, ("", "x" * 200)),
])
def test_a_say_is_read(data, said):
    assert read_say(data) == said


@pytest.mark.parametrize(("data", "complaint"), [
    ({"action": "say"}, "Say a phrase or a text, one of the two"),
    ({"action": "say", "phrase": None, "text": None}, "Say a phrase or a text, one of the two"),
    ({"action": "say", "phrase": 7}, "Unknown phrase: 7"),
    ({"action": "say", "phrase": "GOOD_LUCK"}, "Unknown phrase: GOOD_LUCK"),
    ({"action": "say", "text": ["hi"]}, "text must be a string"),
    ({"action": "say", "text": "x" * 201}, "Text is over 200 characters"),
    ({"action": "say", "text": "tab\there"}, "Text holds control characters"),
    ({"action": "say", "text": "nul\u0000"}, "Text holds control characters"),
    ({"action": "say", "text": "\u0085c1"}, "Text holds control characters"),
    ({"action": "say", "text": "line\u2028break"}, "Text holds control characters"),
    ({"action": "say", "text": "\u202egnp.exe"}, "Text holds control characters"),
    ({"action": "say", "text": "\u200b"}, "Text is empty"),
    ({"action": "say", "text": ""}, "Text is empty"),
    ({"action": "say", "phrase": "hello", "seat": 2}, "Unknown field: seat"),
])
def test_a_bad_say_is_a_bad_request(data, complaint):
    with pytest.raises(Refused) as refused:
        read_say(data)
    assert (refused.value.code, refused.value.message) == ("bad_request", complaint)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_one_member_says_one_a_second_at_one_table_in_bursts_of_five():
    clock = Clock()
    limits = TalkLimits(MemoryBuckets(clock))
    assert [await limits.allows("m-alice", "t1") for _ in range(6)] == [True] * 5 + [False]
    assert await limits.allows("m-alice", "t2")  # another table
    assert await limits.allows("m-bob", "t1")  # another member
    clock.now += 1.0
    assert [await limits.allows("m-alice", "t1") for _ in range(2)] == [True, False]


def test_said_is_the_contracts_message():
    message = Message(id="a" * 32, table_id="t1", member_id="m-eve", player="q3Zr8YkV0bT1mWc9LxPa2g",
                      name="eve", spectator=True, seat=-1, phrase="", text="ciao", at_ms=1_800_000_000_000)
    sent = WsSaid.model_validate_json(said_text(message))
    assert sent.model_dump(by_alias=True, exclude_none=True) == {
        "type": "said", "id": "a" * 32, "from": {"spectator": True, "name": "eve", "player": "q3Zr8YkV0bT1mWc9LxPa2g"},
        "text": "ciao", "at": "2027-01-15T08:00:00.000Z"}
    bot = chat_message(Message(id="b" * 32, table_id="t1", member_id="bot:1", player="", name="Bruno",
                               spectator=False, seat=1, phrase="well_played", text="", at_ms=0))
    assert bot.body() == {"id": "b" * 32, "from": {"seat": 1, "name": "Bruno"}, "phrase": "well_played",
                          "at": "1970-01-01T00:00:00.000Z"}


@pytest.mark.parametrize("event", [
    Said("t1", '{"type":"said"}', True, "q3Zr8YkV0bT1mWc9LxPa2g"),
    Said("t1", "{}", False, ""),
    MutesChanged("alice", ("p1", "p2")),
    MutesChanged("alice", ()),
])
def test_talk_events_cross_the_bus_unchanged(event):
    assert decode(encode(event)) == event
