"""The app on a phone, against the computer: the table fits the screen upright and on its side,
every play is shown, the end of a hand stays on the table before its summary, the turn is in the
tab's title, the hand end and the game over count the cards by suit, a finished match replays
hand by hand; a seat is chosen in the waiting room; the rules, the manifest; and axe-core finds
no serious or critical violation on any screen. Lighthouse's scores measure this machine's CPU:
they are figures, printed by `make audit` (tests/browser/audit.py), not a test.

One stack for the module: bots play at once (BOT_THINK_MS 0), turns keep their default time so
the person clicks at their ease. With ``TAVOLO_SCREENSHOTS=<dir>`` the phone screenshots are
saved in ``<dir>/phone-table/`` to look at.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import (
    MatchRecord,
    Player,
    create_game,
    expect_accessible,
    expect_inside_viewport,
    log_in,
    play_my_turns,
    poll,
    start_against_bots,
)

STACK_ENV = {"BOT_THINK_MS": "0"}
PHONES = [(360, 640), (390, 844), (640, 360), (844, 390)]
LONG_NAME = "bartolomeo.ricciardelli.di.sangi"  # names are cut at 32 characters


def screenshot(page: Page, name: str, full_page: bool = False) -> None:
    folder = os.environ.get("TAVOLO_SCREENSHOTS")
    if folder:
        (Path(folder) / "phone-table").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / "phone-table" / f"{name}.png"), full_page=full_page)


@pytest.fixture(scope="module")
def phone(stack, browser) -> Iterator[Player]:
    """A person with a long name on a phone (touch, 360x640), logged in."""
    context = browser.new_context(base_url=stack.gateway_url, viewport={"width": 360, "height": 640},
                                  is_mobile=True, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, LONG_NAME)
    yield Player(LONG_NAME, page)
    context.close()


@pytest.fixture(scope="module")
def table(phone) -> str:
    """A game against three bots to 21 without napola (one hand cannot end it), the table open."""
    expect_accessible(phone.page, "the home screen")
    return start_against_bots(phone, target_score=21, napola=False)


def expect_within_width(page: Page, what: dict[str, Locator]) -> None:
    """The page does not scroll sideways, and every element of every locator lies between the
    viewport's left and right edges (a long page may go on below it)."""
    size = page.viewport_size
    assert size
    width = size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{page.url} scrolls sideways at {width} px"
    for name, locator in what.items():
        count = locator.count()
        assert count > 0, f"{name}: not on the page"
        for i in range(count):
            box = locator.nth(i).bounding_box()
            assert box is not None, f"{name} #{i}: not visible"
            assert box["x"] >= -0.5 and box["x"] + box["width"] <= width + 0.5, (
                f"{name} #{i} at {box} runs past the {width} px wide viewport")


def table_parts(player: Player) -> dict:
    page = player.page
    return {
        "the hand": player.hand,
        "each card of the hand": player.hand.get_by_role("button"),
        "the table": player.table,
        "each table card": player.table.get_by_role("button"),
        "whose turn": player.turn_indicator,
        "the time left": page.get_by_test_id("countdown"),
        "the score": player.score_board,
    }


@pytest.mark.timeout(120)
def test_the_table_fits_a_phone_upright_and_on_its_side_and_alerts_the_turn(phone, table):
    page = phone.page
    record = MatchRecord()
    # A few rounds, so the hand's plays are listed, and on to a turn with cards on the table.
    for _ in range(6):
        played = len(record.plays)

        def one_more(_view: dict, played: int = played) -> bool:
            return len(record.plays) > played

        play_my_turns(phone, table, record, until=one_more)
        view = phone.wait_for_view(table, lambda v: v.get("your_turn") is True, "the person's turn")
        if len(record.plays) >= 3 and view["table"]:
            break
    expect(phone.turn_indicator).to_contain_text("Your turn")
    expect(phone.table.get_by_role("button").first).to_be_visible()
    assert page.title().startswith("● Your turn"), page.title()
    expect(page.get_by_role("banner")).to_be_hidden()  # the header gives the table the screen
    page.wait_for_timeout(1_200)  # the cards of a capture just made have left the table

    for width, height in PHONES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        expect_inside_viewport(page, table_parts(phone))
        assert page.evaluate("document.documentElement.scrollHeight") <= height, "the table page scrolls"
        screenshot(page, f"table-{width}x{height}")

    # The hand's plays: the last one in words, the newest four as cards, each named.
    last_plays = page.get_by_role("list", name="Last plays").get_by_role("listitem")
    expect(last_plays).to_have_count(4)
    expect(last_plays.last).to_contain_text(re.compile(r"^\w.*: \d+ of (denari|coppe|spade|bastoni)"))
    expect(phone.last_play).to_contain_text(re.compile(r"played \d+ of"))

    # The sound of the turn: off until turned on, and remembered.
    sound = page.get_by_role("button", name="Sound when it is your turn")
    expect(sound).to_have_attribute("aria-pressed", "false")
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    page.reload()
    expect(page.get_by_role("button", name="Sound when it is your turn")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("list", name="Last plays").get_by_role("listitem")).to_have_count(4)  # kept over the reload
    page.get_by_role("button", name="Sound when it is your turn").click()

    # The menu links the rules; the table passes axe with it open.
    page.get_by_label("Menu").click()
    expect(page.get_by_role("link", name="Rules of scopone")).to_have_attribute("href", "/rules")
    screenshot(page, "table-menu")
    expect_accessible(page, "the table")
    page.get_by_label("Menu").click()
    page.set_viewport_size({"width": 360, "height": 640})


@pytest.mark.timeout(120)
def test_the_end_of_a_hand_stays_on_the_table_before_its_summary_which_counts_by_suit(phone, table):
    page = phone.page
    record = MatchRecord()
    play_my_turns(phone, table, record, until=lambda v: v["status"] != "playing" or not v["hand"])
    ended = poll(phone, f"/api/games/{table}", lambda v: v["status"] != "playing", "the end of hand 1",
                 timeout=15, every=0.05)
    seen_end = time.monotonic()
    assert ended["status"] == "hand_end", ended["status"]  # 21 points cannot be made in one hand
    held = page.get_by_test_id("screen-table").get_by_role("status")
    expect(held).to_contain_text("Hand over")
    expect(phone.last_play).to_contain_text("played")
    screenshot(page, "hand-closing")
    hand_end = phone.screen("hand-end")
    expect(hand_end).to_be_visible(timeout=10_000)
    assert time.monotonic() - seen_end >= 2.0, "the summary replaced the last play in under 2 s"

    tally = hand_end.get_by_test_id("hand-tally")
    expect(tally.get_by_role("table", name="Cards taken, by suit")).to_be_visible()
    expect(tally.get_by_role("table", name="Primiera, by suit")).to_be_visible()
    teams = ended["last_hand"]["teams"]
    totals = tally.get_by_role("table", name="Cards taken, by suit").locator("tfoot td")
    expect(totals).to_have_text([str(teams["A"]["cards"]), str(teams["B"]["cards"])])
    screenshot(page, "hand-end", full_page=True)
    expect_accessible(page, "the hand end")
    page.get_by_role("button", name="OK").click()
    expect(phone.screen("table")).to_be_visible()
    page.get_by_label("Menu").click()  # the menu holds the fingerprint and leaving
    expect(page.get_by_text("Fair deal · fingerprint")).to_be_visible()
    page.get_by_role("button", name="Leave").click()
    page.get_by_role("button", name="Leave the match").click()
    expect(phone.screen("home")).to_be_visible()


@pytest.mark.timeout(180)
def test_a_tap_skips_to_the_game_over_which_replays_from_the_history(phone):
    page = phone.page
    game_id = start_against_bots(phone, target_score=1)
    record = MatchRecord()
    while True:
        view = play_my_turns(phone, game_id, record, until=lambda v: v["status"] != "playing" or not v["hand"])
        view = poll(phone, f"/api/games/{game_id}", lambda v: v["status"] != "playing", "the end of a hand",
                    timeout=15, every=0.05)
        skip = page.get_by_role("button", name="See the hand's scoring")
        expect(skip).to_be_visible(timeout=2_000)
        skip.click()  # a tap skips the wait
        if view["status"] == "finished":
            break
        expect(phone.screen("hand-end")).to_be_visible()
        page.get_by_role("button", name="OK").click()  # a tie at the target: another hand
    over = phone.screen("game-over")
    expect(over).to_be_visible(timeout=2_500)
    expect(over.get_by_test_id("game-elo")).to_contain_text("practice match: no rating changes")
    expect(over.get_by_test_id("hand-tally")).to_be_visible()
    expect(page.get_by_test_id("verify-result")).to_contain_text("The deals match", timeout=20_000)
    expect(page.get_by_role("banner")).to_be_visible()
    screenshot(page, "game-over", full_page=True)
    expect_accessible(page, "the game over")

    # The replay: every hand dealt again, all four hands face up, the arrows step.
    page.get_by_role("link", name="See this match in your history").click()
    replay = page.get_by_test_id("replay")
    expect(replay.get_by_test_id("replay-play")).to_have_text("Play 0 of 40")
    expect(replay.get_by_role("list", name=re.compile("cards$")).get_by_role("img")).to_have_count(40)
    page.keyboard.press("ArrowRight")
    expect(replay.get_by_test_id("replay-play")).to_have_text("Play 1 of 40")
    expect(replay.get_by_test_id("replay-text")).to_contain_text(re.compile(r"played \d+ of"))
    expect(replay.get_by_role("list", name=re.compile("cards$")).get_by_role("img")).to_have_count(39)
    replay.get_by_role("button", name="End of the hand").click()
    expect(replay.get_by_test_id("replay-play")).to_have_text("Play 40 of 40")
    expect(replay.get_by_test_id("hand-tally")).to_be_visible()
    page.keyboard.press("ArrowLeft")
    expect(replay.get_by_test_id("replay-play")).to_have_text("Play 39 of 40")
    listed = poll(phone, "/api/me/matches", lambda a: any(m["id"] == game_id for m in a["items"]),
                  "the match in the history")["items"]
    hands = next(m for m in listed if m["id"] == game_id)["result"]["hands"]
    expect(replay.get_by_test_id("replay-hand")).to_have_text(f"Hand 1 of {hands}")
    screenshot(page, "replay", full_page=True)
    expect_accessible(page, "the match and its replay")

    # The players and their Elo fit the phone's width, in Italian too (its words are longer).
    for language in ("Italiano", "English"):
        page.get_by_role("button", name=language).click()
        players = page.get_by_role("table", name=re.compile(r"^(Players and Elo|Giocatori ed Elo)$"))
        expect(players).to_be_visible()
        expect_within_width(page, {"the match": page.get_by_test_id("screen-match"),
                                   "the players and Elo table": players,
                                   "each of its cells": players.locator("th, td")})


def test_a_player_picks_an_empty_seat_in_the_waiting_room_and_long_names_are_shortened(phone, stack, browser):
    context = browser.new_context(base_url=stack.gateway_url)
    try:
        bob = Player("bob", context.new_page())
        log_in(bob.page, "bob")
        invite = create_game(bob, target_score=1)
        expect_accessible(bob.page, "the waiting room")
        phone.page.goto(invite.link)
        expect(phone.screen("join")).to_be_visible()
        expect_accessible(phone.page, "the join page")
        phone.page.get_by_role("button", name="Join game").click()
        waiting = phone.screen("waiting")
        expect(waiting).to_be_visible()
        # The long name is cut with an ellipsis on one line, never broken mid-word.
        name = waiting.locator(".seat-name-text", has_text=LONG_NAME[:6]).first
        expect(name).to_be_visible()
        assert name.evaluate("e => getComputedStyle(e).textOverflow") == "ellipsis"
        assert name.evaluate("e => e.scrollWidth > e.clientWidth"), "the long name is not shortened"
        line = name.bounding_box()
        assert line and line["height"] < 40, f"the name wraps: {line}"

        # The phone's player sits down across from bob, as his partner.
        screenshot(phone.page, "waiting", full_page=True)
        waiting.get_by_role("button", name="Sit here, seat 3").click()
        lobby = poll(phone, f"/api/games/{invite.game_id}",
                     lambda v: any(p.get("is_you") and p["seat"] == 2 for p in v["players"]),
                     "the move to seat 3", timeout=10, every=0.1)
        assert sorted(p["seat"] for p in lobby["players"]) == [0, 2]
        expect(bob.screen("waiting").locator(".seat-row.team-A").nth(1)).to_contain_text(LONG_NAME[:6])
        phone.page.get_by_role("button", name="Leave").click()
        expect(phone.screen("home")).to_be_visible()
    finally:
        context.close()


def test_the_rules_the_other_screens_and_the_manifest(phone, stack, browser):
    page = phone.page
    page.goto("/rules")
    rules = phone.screen("rules")
    expect(rules.get_by_role("heading", level=1)).to_have_text("The rules of scopone scientifico")
    expect(rules.get_by_role("table", name="Primiera values")).to_contain_text("21")
    expect_accessible(page, "the rules")
    page.get_by_role("button", name="Italiano").click()
    expect(rules.get_by_role("heading", level=1)).to_have_text("Le regole dello scopone scientifico")
    expect_accessible(page, "the rules in Italian")
    screenshot(page, "rules-italian")
    page.get_by_role("button", name="English").click()

    for path, screen in (("/history", "history"), ("/leaderboard", "leaderboard"), ("/me", "account"),
                         ("/nowhere", "not-found")):
        page.goto(path)
        expect(phone.screen(screen)).to_be_visible()
        expect_accessible(page, path)

    visitor = browser.new_context(base_url=stack.gateway_url)
    try:
        login = visitor.new_page()
        login.goto("/")
        expect(login.get_by_test_id("screen-login")).to_be_visible()
        expect_accessible(login, "the login page")
    finally:
        visitor.close()

    # Installable: a manifest with its icons, all served by the gateway.
    href = page.locator("link[rel=manifest]").get_attribute("href")
    manifest = page.request.get(href)
    assert manifest.ok and manifest.headers["content-type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes, sizes
    for icon in data["icons"]:
        assert page.request.get(icon["src"]).ok, icon
