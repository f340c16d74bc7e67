"""A newcomer's first match, and the slips around it: the welcome page speaks of bots; the start
page offers "Play against the computer" on its first screen, against principianti for a first
match; the bots have a name each, their level beside it, never cut on a phone; the table has a
heading, says who deals and who leads, closes its menu on Escape and moves between cards with the
arrow keys; the hand end shows its scoring without scrolling, on a phone and on a desktop, with a
tip for the newcomer. A seat left to a bot is taken back from the start page, and its banner
covers no card; a stranger seated by quick match is not asked for friends.

Bots think 250 ms (BOT_THINK_MS), so a match left to them does not end before the test looks.
With ``TAVOLO_SCREENSHOTS=<dir>`` the screens are saved in ``<dir>/first-match/`` to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.pages import (
    MatchRecord,
    Player,
    axe_violations,
    expect_inside_viewport,
    log_in,
    play_my_turns,
    seat,
    start_against_bots,
)

STACK_ENV = {"BOT_THINK_MS": "250"}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
LEVEL_NAMES = {"Beginner", "Principiante", "Expert", "Esperto", "Master", "Maestro"}


def screenshot(page: Page, name: str, full_page: bool = False) -> None:
    folder = os.environ.get("TAVOLO_SCREENSHOTS")
    if folder:
        (Path(folder) / "first-match").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / "first-match" / f"{name}.png"), full_page=full_page)


def person(stack, browser: Browser, name: str, viewport: dict, phone: bool = False) -> Player:
    context = browser.new_context(base_url=stack.gateway_url, viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, name)
    return Player(name, page)


@pytest.fixture
def people(stack, browser) -> Iterator[list[Player]]:
    """The test's people; their browser contexts are closed after it."""
    made: list[Player] = []
    yield made
    for player in made:
        player.page.context.close()


def not_cut(locator: Locator) -> bool:
    """The element shows all of its text (no ellipsis, nothing hidden past its edge)."""
    return bool(locator.evaluate("e => e.scrollWidth <= e.clientWidth + 0.5"))


def overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


@pytest.mark.timeout(240)
def test_a_newcomer_finds_the_bots_plays_principianti_and_sees_the_hands_scoring(stack, browser, people):
    visitor = browser.new_context(base_url=stack.gateway_url, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        welcome = visitor.new_page()
        welcome.goto("/")
        login = welcome.get_by_test_id("screen-login")
        expect(login.get_by_role("heading", level=1)).to_have_text(
            "Scopone scientifico, with friends or against the computer")
        expect(login).to_contain_text("Play at once against bots")
        screenshot(welcome, "welcome-phone", full_page=True)
    finally:
        visitor.close()

    me = person(stack, browser, "newcomer", PHONE, phone=True)
    people.append(me)
    page = me.page
    # "Play against the computer" is on the start page's first screen, at the level for a first match.
    computer = page.get_by_role("group", name="Play against the computer")
    start = computer.get_by_role("button", name="Play against the computer")
    expect(start).to_be_visible()
    expect_inside_viewport(page, {"Play against the computer": start})
    expect(computer.get_by_label("Bot level")).to_have_value("principiante")
    screenshot(page, "home-phone")
    page.get_by_label("Target score").fill("21")  # one hand cannot end the match
    page.get_by_label("Napola").uncheck()
    start.click()
    expect(me.screen("table")).to_be_visible()
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    view = me.view(game_id)

    # Three bots, a name each (no level for a name), the level beside it, nothing cut on a phone.
    names = [seat(view, n)["name"] for n in (1, 2, 3)]
    assert len(set(names)) == 3 and not set(names) & LEVEL_NAMES, names
    for n in (1, 2, 3):
        info = page.locator(f'[data-testid="seat-info"][data-seat="{n}"]')
        name = info.locator(".seat-player-name")
        expect(name).to_have_text(names[n - 1])
        assert not_cut(name), f"{names[n - 1]} is cut at seat {n}"
        mark = info.get_by_test_id("bot-mark")
        expect(mark).to_have_attribute("data-level", "principiante")
        assert not_cut(mark), f"the level of seat {n} is cut"

    # The table: a heading (axe: page-has-heading-one), who deals and who leads.
    expect(page.get_by_role("heading", level=1)).to_have_count(1)
    axe_violations(page)  # injects axe-core
    missing = page.evaluate("async () => (await axe.run(document, {runOnly: ['page-has-heading-one']})).violations.length")
    assert missing == 0, "the table has no heading"
    roles = page.get_by_test_id("seat-role")
    expect(roles).to_have_count(2)
    assert sorted(roles.all_inner_texts()) == ["dealer", "leads"], roles.all_inner_texts()
    screenshot(page, "table-phone")

    # The keyboard: Escape closes the menu; the arrow keys go from card to card.
    page.get_by_label("Menu").click()
    rules = page.get_by_role("link", name="Rules of scopone")
    expect(rules).to_be_visible()
    page.keyboard.press("Escape")
    expect(rules).to_be_hidden()
    cards = me.hand.get_by_role("button")
    cards.first.focus()
    page.keyboard.press("ArrowRight")
    expect(cards.nth(1)).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(cards.first).to_be_focused()

    # The hand end: its scoring without scrolling, on the phone and on a desktop; a tip.
    record = MatchRecord()
    play_my_turns(me, game_id, record, until=lambda v: v["status"] != "playing", timeout=60)
    hand_end = me.screen("hand-end")
    expect(hand_end).to_be_visible(timeout=15_000)
    page.evaluate("window.scrollTo(0, 0)")
    scoring = hand_end.get_by_role("table", name="Scoring of hand 1")
    ok = hand_end.get_by_role("button", name="OK")
    expect(scoring).to_be_visible()
    expect(hand_end.get_by_test_id("first-hand-hint")).to_contain_text("Tip:")
    expect_inside_viewport(page, {"the hand's scoring": scoring, "OK": ok})
    screenshot(page, "hand-end-phone")
    page.set_viewport_size(DESKTOP)
    page.evaluate("window.scrollTo(0, 0)")
    expect_inside_viewport(page, {"the hand's scoring": scoring, "OK": ok})
    screenshot(page, "hand-end-desktop")


@pytest.mark.timeout(180)
def test_a_seat_left_to_a_bot_is_taken_back_from_the_start_page_and_its_banner_covers_no_card(
        stack, browser, people):
    me = person(stack, browser, "leaver", DESKTOP)
    people.append(me)
    page = me.page
    game_id = start_against_bots(me, target_score=21)
    page.get_by_label("Menu").click()
    page.get_by_role("button", name="Leave").click()
    page.get_by_role("button", name="Leave the match").click()
    expect(me.screen("home")).to_be_visible()
    offered = me.screen("home").get_by_test_id("taken-over")
    expect(offered).to_contain_text("A bot is playing your seat")
    expect(offered.get_by_role("button", name="Take my seat back")).to_be_visible()

    # At the table the banner stands above the cards, never over them, on a desktop and a phone.
    page.goto(f"/games/{game_id}")
    banner = page.get_by_test_id("taken-over")
    expect(banner).to_contain_text("A bot is playing your seat")
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        expect(me.hand.get_by_role("button").first).to_be_visible()
        # One reading of every box (the bot plays on meanwhile: the hand changes).
        shown, cards = page.evaluate("""() => {
            const box = (e) => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
            return [box(document.querySelector('[data-testid="taken-over"]')),
                    [...document.querySelectorAll('[data-card]')].filter((c) => c.closest('.hand')).map(box)];
        }""")
        assert cards, f"no card in the hand at {size}"
        for i, card in enumerate(cards):
            assert not overlap(shown, card), f"at {size} the banner {shown} covers card {i} at {card}"
        expect_inside_viewport(page, {"the banner": banner, "the hand": me.hand})
        screenshot(page, f"taken-over-{size['width']}x{size['height']}")
    page.set_viewport_size(DESKTOP)

    # Back on the start page, "Take my seat back" returns the seat and opens the table.
    me.go_home()
    me.screen("home").get_by_role("button", name="Take my seat back").click()
    expect(me.screen("table")).to_be_visible()
    expect(page.get_by_test_id("taken-over")).to_have_count(0)
    assert not seat(me.view(game_id), 0).get("took_over"), "the seat is still the bot's"


def test_a_stranger_seated_by_quick_match_is_not_asked_for_friends(stack, browser, people):
    first = person(stack, browser, "quick.one", DESKTOP)
    people.append(first)
    second = person(stack, browser, "quick.two", PHONE, phone=True)
    people.append(second)
    for player in (first, second):
        player.page.get_by_role("button", name="Play now").click()
        expect(player.screen("waiting")).to_be_visible()
    assert first.page.url == second.page.url, "quick match did not seat them at one table"
    for player in (first, second):
        invite = player.page.get_by_test_id("invite-text")
        expect(invite).to_contain_text("This table is open to anyone")
        expect(invite).not_to_contain_text("more friends")
    screenshot(second.page, "quick-match-phone", full_page=True)
    for player in (second, first):
        player.page.get_by_role("button", name="Leave").click()
        expect(player.screen("home")).to_be_visible()
