"""Bots at the table, in the browser: a player who closes their page is shown offline to the
others, then replaced by a bot once their turns have timed out, and the match still finishes
(with their seat marked "bot for dave" and the match "abandoned" in History).

The module's stack times turns out after 1.5 s, takes a seat over after 2 automatic turns in a
row with no page open (ABANDON_AFTER_TIMEOUTS) and deals the next hand 2 s after a hand ends,
so nobody has to click a card.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import NAMES
from tests.browser.pages import Player, log_in, open_history, poll, seat, start_game

STACK_ENV = {"BOT_THINK_MS": "0", "TURN_TIMEOUT_SECONDS": "1.5", "ABANDON_AFTER_TIMEOUTS": "2",
             "HAND_ACK_TIMEOUT_SECONDS": "2"}


@pytest.fixture(scope="module")
def four(stack, browser) -> Iterator[list[Player]]:
    """alice, bob, carol and dave logged in on the module's stack, each in a context of their own."""
    made = []
    for name in NAMES:
        context = browser.new_context(base_url=stack.gateway_url)
        context.set_default_timeout(10_000)
        page = context.new_page()
        log_in(page, name)
        made.append(Player(name, page))
    yield made
    for player in made:
        player.page.context.close()


@pytest.mark.timeout(420)
def test_a_closed_page_shows_offline_then_a_bot_takes_the_seat_and_the_match_finishes(four):
    alice, bob, carol, dave = four
    others = [alice, bob, carol]
    game_id = start_game(four, target_score=1)  # nobody clicks a card: the deadlines play
    daves = next(p["seat"] for p in alice.view(game_id)["players"] if p["name"] == "dave")

    dave.page.close()  # the tab is gone, and with it dave's socket

    poll(alice, f"/api/games/{game_id}", lambda v: seat(v, daves).get("connected") is False,
         "dave's seat shown as not connected in the game view", timeout=15, every=0.1)
    for player in others:
        offline = player.page.get_by_test_id("offline-mark")
        expect(offline).to_have_count(1)  # only dave: the others' pages are open
        expect(offline).to_have_text("offline")
        expect(player.page.locator(f'[data-testid="seat-info"][data-seat="{daves}"]')
               .get_by_test_id("offline-mark")).to_be_visible()

    # Two of dave's turns time out with no page of his open: a bot takes his seat.
    view = poll(alice, f"/api/games/{game_id}", lambda v: seat(v, daves).get("took_over") is True,
                "a bot taking over dave's seat", timeout=60)
    assert seat(view, daves)["bot"] == "esperto" and seat(view, daves)["name"] == "dave", seat(view, daves)
    for player in others:
        expect(player.page.get_by_test_id("bot-mark").filter(has_text="bot for dave")).to_be_visible()
        expect(player.page.get_by_test_id("offline-mark")).to_have_count(0)

    # dave comes back: his page says a bot plays his seat, and offers it back (he lets it play).
    dave.page = dave.page.context.new_page()
    dave.page.goto(f"/games/{game_id}")
    banner = dave.page.get_by_test_id("taken-over")
    expect(banner).to_contain_text("A bot is playing your seat")
    expect(banner.get_by_role("button", name="Take my seat back")).to_be_enabled()

    final = poll(alice, f"/api/games/{game_id}", lambda v: v["status"] == "finished",
                 "the end of the match", timeout=300, every=0.5)
    assert seat(final, daves).get("took_over") is True, "the bot kept dave's seat to the end"
    for player in four:
        expect(player.screen("game-over")).to_be_visible(timeout=15_000)

    # The match is not rated; dave abandoned it, and alice's history says so.
    item = poll(alice, "/api/me/matches", lambda a: any(m["id"] == game_id for m in a["items"]),
                "the match reaching the history")["items"][0]
    assert item["id"] == game_id and item["rated"] is False, item
    row = next(p for p in item["players"] if p["seat"] == daves)
    assert row.get("abandoned") is True and row["elo_delta"] < 0, row
    open_history(alice)
    listed = alice.screen("history").get_by_test_id("match-item").first
    expect(listed).to_contain_text("Unrated")
    expect(listed).to_contain_text("abandoned")
    expect(listed.get_by_test_id("elo-delta")).to_have_count(0)  # alice's own rating did not change
