"""Bots at the table, in the browser: one person plays a whole match against three bots started
with one click ("Play against the computer"), and finds it in History as a practice match.

Bots play at once (BOT_THINK_MS 0); turns keep the default time, so the person clicks at their
ease. test_bots_abandon.py has the player who closes their page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.pages import MatchRecord, Player, log_in, open_history, play_a_turn, poll, seat

STACK_ENV = {"BOT_THINK_MS": "0"}


# -- one person against three bots --------------------------------------------------------------

@pytest.fixture(scope="module")
def alice(stack, browser) -> Iterator[Player]:
    """alice alone, logged in, in a browser context of her own on the module's stack."""
    context = browser.new_context(base_url=stack.gateway_url)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, "alice")
    yield Player("alice", page)
    context.close()


def play_against_bots(person: Player, game_id: str) -> MatchRecord:
    """The person clicks a card on each of their turns and OK at each hand end; the bots do the
    rest. Returns what the person did."""
    record = MatchRecord()
    while True:
        view = person.wait_for_view(
            game_id, lambda v: v["status"] in ("hand_end", "finished") or v.get("your_turn") is True,
            "the person's turn, a hand end or the end of the match", timeout=30)
        if view["status"] == "finished":
            return record
        if view["status"] == "hand_end":
            record.hand_ends += 1
            expect(person.screen("hand-end")).to_be_visible()
            person.page.get_by_role("button", name="OK").click()
            person.wait_for_view(game_id, lambda v: v["status"] != "hand_end", "the next hand after OK", timeout=30)
            continue
        play = play_a_turn(person, game_id, record)
        person.wait_for_view(game_id, lambda v, after=play.revision: v["revision"] > after,
                             f"{person.name}'s click on {play.card} reaching the server")


@pytest.mark.timeout(300)
def test_one_person_plays_a_whole_match_against_three_bots_from_one_click(alice):
    page = alice.page
    alice.go_home()
    page.get_by_label("Target score").fill("1")
    computer = page.get_by_role("group", name="Play against the computer")
    expect(computer).to_contain_text("practice")
    expect(computer.get_by_label("Who plays")).to_have_value("alone")
    expect(computer.get_by_label("Bot level")).to_have_value("principiante")  # her first match
    computer.get_by_label("Bot level").select_option("esperto")
    computer.get_by_role("button", name="Play against the computer").click()

    # No waiting room: the three bots fill the table at once, each marked with its level.
    table = alice.screen("table")
    expect(table).to_be_visible()
    expect(page).to_have_url(re.compile(r"/games/[A-Za-z0-9-]+$"))
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = alice.view(game_id)
    assert view["you"] == 0 and view["options"]["target_score"] == 1, view
    assert [seat(view, n).get("bot") for n in range(4)] == [None, "esperto", "esperto", "esperto"], view["players"]
    expect(table.get_by_test_id("bot-mark")).to_have_count(3)
    names = {seat(view, n)["name"] for n in (1, 2, 3)}
    assert len(names) == 3 and not names & {"Expert", "Esperto"}, names  # a first name each
    for n in (1, 2, 3):  # a bot is named by its name, with a robot and its level beside it
        bot_seat = table.locator(f'[data-testid="seat-info"][data-seat="{n}"]')
        expect(bot_seat).to_contain_text(seat(view, n)["name"])
        expect(bot_seat.get_by_test_id("bot-mark")).to_have_text("bot, Expert")
    expect(alice.hand.get_by_role("button")).to_have_count(10)

    record = play_against_bots(alice, game_id)

    over = alice.screen("game-over")
    expect(over).to_be_visible()
    expect(over.get_by_role("heading", name="wins")).to_be_visible()
    expect(page.get_by_test_id("verify-result")).to_contain_text("The deals match", timeout=20_000)
    assert len(record.plays) >= 10, f"alice holds 10 cards a hand; she clicked {len(record.plays)}"

    # History: a practice match, the bots with their level, no Elo change for anyone.
    item = poll(alice, "/api/me/matches", lambda a: any(m["id"] == game_id for m in a["items"]),
                "the practice match reaching the history")["items"][0]
    assert item["id"] == game_id and item["rated"] is False, item
    assert sorted(p.get("bot") or "" for p in item["players"]) == ["", "esperto", "esperto", "esperto"]
    assert all(r["rating"] == 1500 for r in alice.api("/api/me/ratings")["ratings"]), "a practice match changed a rating"
    open_history(alice)
    row = alice.screen("history").get_by_test_id("match-item").filter(has_text="Practice").first
    expect(row).to_be_visible()
    expect(row.get_by_test_id("elo-delta")).to_have_count(0)
    expect(row.get_by_test_id("bot-mark")).to_have_count(3)
    expect(row.get_by_role("link")).to_have_count(1)  # the match: alice is "you", a bot has no page
    row.get_by_role("link").first.click()  # the card's head: the match
    detail = alice.screen("match")
    expect(page).to_have_url(re.compile(rf"/history/{game_id}$"))
    expect(detail).to_contain_text("Practice")
    rows = detail.get_by_test_id("match-player")
    expect(rows).to_have_count(4)
    expect(rows.filter(has=page.get_by_test_id("bot-mark"))).to_have_count(3)
    expect(rows.filter(has_text="Expert")).to_have_count(3)
    expect(detail.get_by_test_id("elo-delta")).to_have_count(0)
