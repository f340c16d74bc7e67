"""Table talk's rules, the same in memory and in Postgres (the ``store`` fixture runs both), through
the domain (talk.service.Talk) that checks what it is given."""

from __future__ import annotations

import pytest

from services.rpc.errors import Reason, ServiceError
from talk.catalogue import PHRASE_IDS, PHRASES
from talk.models import MAX_TEXT_CHARS
from talk.service import DAY_MS, ChatRetention

TABLE = "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"
OTHER_TABLE = "0b7e6a55-3a1c-5d1e-9f3b-2c4d5e6f7a8b"


async def _say(talk, member="m-alice", player="p-alice", name="alice", seat=0, spectator=False,
               table=TABLE, **said):
    message, _ = await talk.say(table, member, player, name, spectator=spectator, seat=seat,
                                phrase=said.get("phrase", ""), text=said.get("text", ""),
                                request_id=said.get("request_id", ""))
    return message


def test_the_catalogue_has_the_contract_phrases_in_both_languages():
    assert {"hello", "good_luck", "well_played", "thanks", "sorry", "oops", "good_game", "bye"} <= PHRASE_IDS
    assert len(PHRASE_IDS) == len(PHRASES)
    assert all(phrase.it and phrase.en for phrase in PHRASES)


async def test_a_table_lists_its_messages_oldest_first(talk, clock):
    first = await _say(talk, phrase="hello")
    clock.now += 1000
    second = await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, text="  ciao a tutti  ")
    await _say(talk, table=OTHER_TABLE, phrase="bye")
    listed = await talk.messages(TABLE, "m-carol", include_spectators=False)
    assert [m.id for m in listed] == [first.id, second.id]
    assert listed[1].text == "ciao a tutti" and listed[1].seat == 1 and listed[1].name == "bob"
    assert listed[0].phrase == "hello" and listed[0].at_ms == clock.now - 1000


async def test_a_listing_follows_the_time_said_not_the_order_stored(talk, clock):
    """Two says at once are timed before either is stored: the one stored last may be the older,
    and the listing still shows the `at` of its items oldest first."""
    clock.now += 2000
    later = await _say(talk, phrase="hello")
    clock.now -= 1000
    earlier = await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, phrase="thanks")
    clock.now += 2000
    last = await _say(talk, phrase="bye")
    listed = await talk.messages(TABLE, "m-carol", include_spectators=False)
    assert [m.id for m in listed] == [earlier.id, later.id, last.id]
    assert [m.id for m in await talk.messages(TABLE, "m-carol", False, limit=2)] == [later.id, last.id]


async def test_a_listing_is_the_newest_hundred(talk, clock):
    for n in range(105):
        clock.now += 1
        await _say(talk, text=f"message {n}")
    listed = await talk.messages(TABLE, "m-bob", include_spectators=False)
    assert [m.text for m in listed] == [f"message {n}" for n in range(5, 105)]
    assert [m.text for m in await talk.messages(TABLE, "m-bob", False, limit=2)] == ["message 103", "message 104"]


async def test_a_retried_say_is_stored_once(talk):
    one, replayed = await talk.say(TABLE, "m-alice", "p-alice", "alice", spectator=False, seat=0,
                                   phrase="thanks", text="", request_id="r1")
    again, replayed_again = await talk.say(TABLE, "m-alice", "p-alice", "alice", spectator=False,
                                           seat=0, phrase="thanks", text="", request_id="r1")
    assert again.id == one.id and not replayed and replayed_again
    assert len(await talk.messages(TABLE, "", False)) == 1


async def test_spectators_messages_are_listed_only_when_asked(talk):
    await _say(talk, phrase="hello")
    await _say(talk, member="m-eve", player="p-eve", name="eve", spectator=True, seat=-1, phrase="good_luck")
    assert [m.name for m in await talk.messages(TABLE, "", include_spectators=False)] == ["alice"]
    both = await talk.messages(TABLE, "", include_spectators=True)
    assert [(m.name, m.spectator, m.seat) for m in both] == [("alice", False, 0), ("eve", True, -1)]


@pytest.mark.parametrize(("said", "complaint"), [
    ({"phrase": "nonsense"}, "Unknown phrase: nonsense"),
    ({"text": " \t "}, "Text is empty"),
    ({"text": "x" * (MAX_TEXT_CHARS + 1)}, "Text is over 200 characters"),
    ({"text": "a\nb"}, "Text holds control characters"),
    ({"text": "bell\u0007"}, "Text holds control characters"),
    # Line breaks that are not Cc, and the bidirectional controls, as in a display name.
    ({"text": "one\u2028two"}, "Text holds control characters"),
    ({"text": "para\u2029graph"}, "Text holds control characters"),
    ({"text": "evil\u202egnp.exe"}, "Text holds control characters"),
    ({"text": "iso\u2066late\u2069"}, "Text holds control characters"),
    # Nothing a reader would see: empty.
    ({"text": "\u200b"}, "Text is empty"),
    ({"text": " \u200b\u2060 "}, "Text is empty"),
    ({}, "Say a phrase or a text, one of the two"),
    ({"phrase": "hello", "text": "hi"}, "Say a phrase or a text, one of the two"),
])
async def test_what_may_not_be_said_is_refused(talk, said, complaint):
    with pytest.raises(ServiceError) as refused:
        await _say(talk, **said)
    assert refused.value.reason is Reason.INVALID_ARGUMENT and refused.value.message == complaint
    assert await talk.messages(TABLE, "", True) == []


async def test_emoji_sequences_with_joiners_are_said(talk):
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # ZWJ (Cf) inside a visible text: fine
    assert (await _say(talk, text=f"ciao {family}")).text == f"ciao {family}"


async def test_two_hundred_characters_are_said(talk):
    said = await _say(talk, text=" " + "é" * MAX_TEXT_CHARS + " ")
    assert said.text == "é" * MAX_TEXT_CHARS


async def test_a_muted_player_is_left_out_of_the_muters_listing_only(talk, clock):
    await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, phrase="hello")
    await _say(talk, phrase="hello")
    await talk.mute("m-alice", "p-bob", "bobby")
    await talk.mute("m-alice", "p-bob", "bob")  # again: the time kept, the name taken
    assert [m.name for m in await talk.messages(TABLE, "m-alice", False)] == ["alice"]
    assert [m.name for m in await talk.messages(TABLE, "m-carol", False)] == ["bob", "alice"]
    assert [(m.player, m.name) for m in await talk.mutes("m-alice")] == [("p-bob", "bob")]
    await talk.unmute("m-alice", "p-bob")
    assert await talk.mutes("m-alice") == []
    assert [m.name for m in await talk.messages(TABLE, "m-alice", False)] == ["bob", "alice"]


async def test_mutes_are_listed_most_recent_first(talk, clock):
    for name in ("bob", "carol"):
        await _say(talk, member=f"m-{name}", player=f"p-{name}", name=name, phrase="hello")
    await talk.mute("m-alice", "p-bob", "bob")
    clock.now += 1000
    await talk.mute("m-alice", "p-carol", "carol")
    clock.now += 1000
    await talk.mute("m-alice", "p-bob", "bob")
    assert [m.name for m in await talk.mutes("m-alice")] == ["carol", "bob"]
    with pytest.raises(ServiceError, match="display_name is required"):
        await talk.mute("m-alice", "p-dave", "")


async def test_a_muted_players_message_can_still_be_reported(talk):
    """Muting hides a player's messages from the muter, who read them before: "mute and report"
    works in either order (docs/CONTRACT.md, Table talk)."""
    said = await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, text="insults")
    await talk.mute("m-alice", "p-bob", "bob")
    assert await talk.report(TABLE, said.id, "m-alice", "Insults", include_spectators=False)
    assert [r.message.id for r in await talk.reports(include_closed=False)] == [said.id]


async def test_a_report_keeps_a_copy_until_closed(talk, clock):
    said = await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, text="rude words")
    assert await talk.report(TABLE, said.id, "m-alice", "Insults", include_spectators=False)
    assert not await talk.report(OTHER_TABLE, said.id, "m-alice", "", include_spectators=False)
    assert not await talk.report(TABLE, "f" * 32, "m-alice", "", include_spectators=False)
    [report] = await talk.reports(include_closed=False)
    assert (report.message.text, report.message.member_id, report.reporter, report.reason) == (
        "rude words", "m-bob", "m-alice", "Insults")
    clock.now += 1000
    closed = await talk.close_report(report.id, "warned bob")
    assert closed.closed_at_ms == clock.now and closed.note == "warned bob"
    assert (await talk.close_report(report.id, "again")).note == "warned bob"
    assert await talk.reports(include_closed=False) == []
    assert [r.id for r in await talk.reports(include_closed=True)] == [report.id]


async def test_a_spectators_message_cannot_be_reported_by_whom_it_does_not_reach(talk):
    said = await _say(talk, member="m-eve", player="p-eve", name="eve", spectator=True, seat=-1, text="psst")
    assert not await talk.report(TABLE, said.id, "m-alice", "", include_spectators=False)
    assert await talk.report(TABLE, said.id, "m-dave", "", include_spectators=True)


async def test_bad_report_inputs_are_refused(talk):
    said = await _say(talk, phrase="oops")
    with pytest.raises(ServiceError, match="reason is over 200 characters"):
        await talk.report(TABLE, said.id, "m-bob", "x" * 201, include_spectators=False)
    with pytest.raises(ServiceError, match="Report not found"):
        await talk.close_report("f" * 32, "")
    with pytest.raises(ServiceError, match=r"limit must be 0\.\.500"):
        await talk.reports(False, limit=501)


async def test_erasing_a_member_deletes_their_messages_and_mutes(talk):
    said = await _say(talk, member="m-bob", player="p-bob", name="bob", seat=1, text="bye all")
    await _say(talk, phrase="hello")
    await _say(talk, member="m-carol", player="p-carol", name="carol", phrase="hello")
    await talk.mute("m-bob", "p-carol", "carol")
    await talk.mute("m-alice", "p-bob", "bob")
    await talk.mute("m-alice", "p-carol", "carol")
    await talk.report(TABLE, said.id, "m-alice", "", include_spectators=False)
    assert await talk.erase_member("m-bob", "p-bob") == 1
    assert [m.player for m in await talk.mutes("m-alice")] == ["p-carol"]  # bob's name is gone
    assert [m.name for m in await talk.messages(TABLE, "", False)] == ["alice", "carol"]
    assert await talk.mutes("m-bob") == []
    [report] = await talk.reports(False)
    assert report.message.text == "" and report.message.member_id == ""
    assert await talk.erase_member("m-bob") == 0


async def test_retention_deletes_the_talk_of_quiet_tables_only(talk, store, clock):
    retention = ChatRetention(store, 30, clock=clock, batch_tables=1)
    old = await _say(talk, member="m-bob", player="p-bob", name="bob", table=OTHER_TABLE, text="old")
    await talk.report(OTHER_TABLE, old.id, "m-alice", "", include_spectators=False)
    clock.now += 20 * DAY_MS
    await _say(talk, phrase="hello")
    await _say(talk, table="third", phrase="bye")
    clock.now += 11 * DAY_MS  # OTHER_TABLE quiet for 31 days, the others for 11
    assert await retention.run_once() == 1
    assert await talk.messages(OTHER_TABLE, "", True) == []
    assert len(await talk.messages(TABLE, "", True)) == 1
    assert [r.message.text for r in await talk.reports(False)] == ["old"]  # kept until closed
    clock.now += 20 * DAY_MS
    assert await retention.run_once() == 2  # in batches of one
    assert await talk.messages(TABLE, "", True) == []
