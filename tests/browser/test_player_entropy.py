"""Player entropy in the browser (issue 33): the create form has "Players shuffle too" on by
default; the started game first shows the seeding screen, where the browser commits and reveals
its own random value by itself; after the match "Check this deal" recomputes the deal key from
the seed and the players' values and shows each seat's contribution.

One person (on a 360x640 phone screen) against three bots, which draw their own values. The
second match drops the person's commit on its way to the server (Playwright's WebSocket route),
so the commit phase ends at its deadline and the person's seat withholds: the check says so.
Screenshots of the seeding screen and of the check are saved in ``<tmp>/tavolo-browser/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS
from tests.browser.pages import Player, log_in
from tests.browser.test_bots_flow import play_against_bots

STACK_ENV = {"BOT_THINK_MS": "0", "ENTROPY_TIMEOUT_SECONDS": "6"}
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture(scope="module")
def alice(stack, browser) -> Iterator[Player]:
    context = browser.new_context(base_url=stack.gateway_url, viewport={"width": 360, "height": 640})
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, "alice")
    yield Player("alice", page)
    context.close()


def start_practice(person: Player) -> str:
    """Home, target 1, the players' entropy left on (its default), "Play against the computer"."""
    page = person.page
    person.go_home()
    page.get_by_label("Target score").fill("1")
    entropy = page.get_by_label("Players shuffle too")
    expect(entropy).to_be_checked()
    expect(page.get_by_text("so nobody — not even the server — chooses the cards").first).to_be_visible()
    page.get_by_role("group", name="Play against the computer").get_by_role(
        "button", name="Play against the computer").click()
    expect(page).to_have_url(re.compile(r"/games/[A-Za-z0-9-]+$"))
    return page.url.rstrip("/").rsplit("/", 1)[1]


def screenshot(person: Player, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    person.page.screenshot(path=str(SCREENSHOTS / f"entropy-{name}.png"))  # the 360x640 screen


def expect_nothing_overflows(person: Player) -> None:
    width = person.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px screen"


def entropy_moves(person: Player, game_id: str) -> list[dict]:
    log = person.api(f"/api/games/{game_id}/log")
    return [m for m in log["moves"] if m["type"] in ("commit", "reveal", "entropy_deadline")]


def check_the_deal(person: Player, game_id: str, name: str) -> None:
    page = person.page
    expect(person.screen("game-over")).to_be_visible()
    expect(page.get_by_test_id("verify-result")).to_contain_text("The deals match", timeout=20_000)
    contributions = page.get_by_test_id("contributions")
    expect(contributions).to_be_visible()
    contributions.evaluate("e => e.scrollIntoView({block: \"center\"})")
    expect_nothing_overflows(person)
    screenshot(person, name)


@pytest.mark.timeout(300)
def test_the_browser_adds_its_value_by_itself_and_the_check_shows_every_contribution(alice):
    game_id = start_practice(alice)
    view = alice.wait_for_view(game_id, lambda v: v["status"] in ("seeding", "playing", "hand_end", "finished"),
                               "the game starting")
    assert view["options"].get("player_entropy") is True, view["options"]
    # Nobody clicks anything: the seeding passes by itself and hand 1 is dealt.
    expect(alice.screen("table")).to_be_visible(timeout=20_000)
    moves = entropy_moves(alice, game_id)
    mine = [m for m in moves if m["seat"] == "seat:0"]
    assert [m["type"] for m in mine] == ["commit", "reveal"], moves
    assert HEX64.match(mine[0]["payload"]["hash"]) and HEX64.match(mine[1]["payload"]["value"]), mine
    # Past seeding the value is gone from the page's storage.
    kept = alice.page.evaluate("Object.keys(sessionStorage).filter(k => k.startsWith('tavolo:entropy:'))")
    assert kept == [], kept

    play_against_bots(alice, game_id)
    check_the_deal(alice, game_id, "check-all-values")
    contributions = alice.page.get_by_test_id("contributions")
    expect(contributions.get_by_role("listitem")).to_have_count(4)
    expect(contributions.get_by_text("withheld", exact=True)).to_have_count(0)
    short = mine[1]["payload"]["value"][:6]
    expect(alice.page.get_by_test_id("contribution-0")).to_contain_text(short)
    expect(contributions).to_contain_text("Every seat added its value.")


@pytest.mark.timeout(300)
def test_a_commit_that_never_arrives_withholds_at_the_deadline_and_the_check_says_so(alice):
    page = alice.page

    def route(ws):
        server = ws.connect_to_server()

        def to_server(message):
            text = message if isinstance(message, str) else message.decode()
            try:
                if json.loads(text).get("action") == "commit":
                    return  # lost on the way
            except ValueError:
                pass
            server.send(message)

        ws.on_message(to_server)

    # For the rest of this module alice's commits are lost (the earlier test is done).
    page.route_web_socket(re.compile(r"/ws/games/"), route)
    game_id = start_practice(alice)
    seeding = alice.screen("seeding")
    expect(seeding).to_be_visible()
    expect(seeding).to_contain_text("nobody — not even the server — chooses the cards")
    # The bots committed; alice's commit never arrived, so her seat waits.
    for bot in (1, 2, 3):
        expect(seeding.get_by_test_id(f"seeding-seat-{bot}")).to_contain_text("committed")
    expect(seeding.get_by_test_id("seeding-seat-0")).to_contain_text("waiting")
    expect(seeding.get_by_test_id("countdown")).to_be_visible()
    expect_nothing_overflows(alice)
    screenshot(alice, "seeding")
    # At the deadline the phase moves on without her and hand 1 is dealt.
    expect(alice.screen("table")).to_be_visible(timeout=20_000)
    moves = entropy_moves(alice, game_id)
    assert not any(m["seat"] == "seat:0" for m in moves), moves
    assert any(m["type"] == "entropy_deadline" for m in moves), moves

    play_against_bots(alice, game_id)
    check_the_deal(alice, game_id, "check-withheld")
    expect(page.get_by_test_id("contribution-0")).to_contain_text("withheld")
    for bot in (1, 2, 3):
        expect(page.get_by_test_id(f"contribution-{bot}")).not_to_contain_text("withheld")
    expect(page.get_by_test_id("contributions")).to_contain_text("Withheld (counted as zeros): seat 1 (alice).")
