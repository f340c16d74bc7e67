"""Watching a match in the app: a member finds a running table on the Watch page (and on the start
page), opens it on a phone, and sees every seat's back with its count, the table, the score and each
play as it comes, at the four sizes without scrolling; the players see that someone watches. The
spectator's page passes axe-core. Each step waits for what a person would see; nothing sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import (
    SIZES,
    MatchRecord,
    Player,
    card_name,
    expect_accessible,
    expect_inside_viewport,
    log_in,
    play_a_turn,
    start_against_bots,
)

STACK_ENV = {"BOT_THINK_MS": "0"}


@pytest.fixture(scope="module")
def player(stack, browser) -> Iterator[Player]:
    context = browser.new_context(base_url=stack.gateway_url, viewport={"width": 390, "height": 844},
                                  is_mobile=True, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, "alice")
    yield Player("alice", page)
    context.close()


@pytest.fixture(scope="module")
def watcher(stack, browser) -> Iterator[Player]:
    context = browser.new_context(base_url=stack.gateway_url, viewport={"width": 360, "height": 640},
                                  has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, "carol")
    yield Player("carol", page)
    context.close()


@pytest.fixture(scope="module")
def game_id(player) -> str:
    """alice plays three bots, to 21 so the match lasts."""
    return start_against_bots(player, target_score=21, napola=False)


def cards_held(page: Page, name: str) -> int:
    label = page.get_by_role("img", name=re.compile(rf"^{re.escape(name)} holds \d+ cards?$")).get_attribute("aria-label")
    assert label
    return int(re.search(r"holds (\d+)", label).group(1))  # type: ignore[union-attr]


def test_a_member_finds_the_table_and_watches_it_on_a_phone(player, watcher, game_id):
    page = watcher.page
    # The start page offers the table too.
    watcher.go_home()
    teaser = page.get_by_test_id("watch-teaser")
    expect(teaser.locator(f'a[href="/watch/{game_id}"]')).to_be_visible()
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Watch").click()
    expect(watcher.screen("watch")).to_be_visible()
    listed = page.get_by_test_id("live-game").filter(has=page.locator(f'a[href="/watch/{game_id}"]'))
    expect(listed).to_contain_text("alice")
    expect_accessible(page, "the Watch page")
    listed.get_by_role("link", name=re.compile(r"^Watch alice & ")).click()

    expect(watcher.screen("watch-table")).to_be_visible()
    expect(page).to_have_url(re.compile(rf"/watch/{game_id}$"))
    expect(page.get_by_role("region", name="Your hand")).to_have_count(0)
    backs = page.get_by_role("img", name=re.compile(r" holds \d+ cards?$"))
    expect(backs).to_have_count(4)
    # The players see that someone watches.
    expect(player.page.get_by_test_id("watcher-count")).to_have_attribute("aria-label", "1 watching")

    # alice plays: the spectator sees her card come, and her count go down.
    before = cards_held(page, "alice")
    held = set(player.view(game_id)["hand"])
    play = play_a_turn(player, game_id, MatchRecord())
    # The bots play at once after her: her play is among the hand's last plays, her count one less.
    expect(page.get_by_role("list", name="Last plays")).to_contain_text(f"alice: {card_name(play.card)}")
    expect(page.get_by_role("img", name=re.compile(rf"^alice holds {before - 1} cards?$"))).to_be_visible()
    # The spectator's page shows no card alice still holds.
    shown = set(page.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)"))
    still_held = set(player.view(game_id)["hand"])
    assert still_held <= held and not (shown & still_held), f"alice's hand {still_held} shown to a spectator"
    expect_accessible(page, "the spectator's table")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_spectators_table_fits_each_size(watcher, game_id, width, height):
    page = watcher.page
    page.set_viewport_size({"width": width, "height": height})
    if not re.search(rf"/watch/{game_id}$", page.url):
        page.goto(f"/watch/{game_id}")
    screen = watcher.screen("watch-table")
    expect(screen).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"the page scrolls sideways at {width} px"
    expect_inside_viewport(page, {
        "the score": page.get_by_role("group", name="Match score"),
        "the table": page.get_by_role("region", name="Table"),
        "the seats": page.get_by_test_id("watched-seat"),
        "the talk's button": page.get_by_test_id("chat-toggle"),
    })
    # The keyboard opens and closes the spectators' talk, and comes back to its button.
    page.get_by_test_id("chat-toggle").focus()
    page.keyboard.press("Enter")
    drawer = page.get_by_test_id("chat-drawer")
    expect(drawer).to_be_visible()
    expect_inside_viewport(page, {"the spectators' talk": drawer})
    page.keyboard.press("Escape")
    expect(drawer).to_have_count(0)
    expect(page.get_by_test_id("chat-toggle")).to_be_focused()
