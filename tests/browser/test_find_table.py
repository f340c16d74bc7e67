"""Finding a table, in the browser: two people who do not know each other meet through "Play now".

alice presses "Play now" and gets a new table open to anyone; bob, on the Play page, sees it
appear in the open tables without reloading (the list is live). alice, alone for a minute (her
page's clock fast-forwarded), is offered bots for the empty seats; bob's "Play now" seats him at
her table instead, and each sees the other in the waiting room. alice fills the other two seats
with bots in one click, the game starts, and the two of them play the match through with the bots.

Bots play at once (BOT_THINK_MS 0); turns keep their default time, so the people click at their ease.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import MatchRecord, Player, acknowledge_hand_end_everywhere, log_in, play_a_turn

STACK_ENV = {"BOT_THINK_MS": "0"}


def screenshot(page: Page, name: str) -> None:
    """With ``TAVOLO_SCREENSHOTS=<dir>``, the page as it looks now, in ``<dir>/find-table/``."""
    folder = os.environ.get("TAVOLO_SCREENSHOTS")
    if folder:
        (Path(folder) / "find-table").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / "find-table" / f"{name}.png"), full_page=True)


@pytest.fixture(scope="module")
def two(stack, browser) -> Iterator[list[Player]]:
    """alice and bob, strangers, each logged in in a browser context of their own; alice on a
    phone (360x640), bob on a desktop."""
    made = []
    for name, viewport in (("alice", {"width": 360, "height": 640}), ("bob", {"width": 1280, "height": 800})):
        context = browser.new_context(base_url=stack.gateway_url, viewport=viewport)
        context.set_default_timeout(10_000)
        page = context.new_page()
        log_in(page, name)
        made.append(Player(name, page))
    yield made
    for player in made:
        player.page.context.close()


def open_tables(player: Player):
    return player.page.get_by_role("list", name="Open tables")


def game_id_of(player: Player) -> str:
    expect(player.page).to_have_url(re.compile(r"/games/[A-Za-z0-9-]+$"))
    return player.page.url.rstrip("/").rsplit("/", 1)[1]


def play_the_match_with_bots(people: list[Player], game_id: str) -> MatchRecord:
    """Each person clicks a card on their turns and OK at each hand end; the bots play theirs."""
    record = MatchRecord()
    by_name = {p.name: p for p in people}
    watcher = people[0]
    view = watcher.view(game_id)
    seats = {p["seat"]: by_name[p["name"]] for p in view["players"] if not p.get("bot")}
    while view["status"] != "finished":
        if view["status"] == "hand_end":
            record.hand_ends += 1
            acknowledge_hand_end_everywhere(people)
            view = watcher.wait_for_view(game_id, lambda v: v["status"] != "hand_end",
                                         "the next hand after both pressed OK", timeout=30)
            continue
        if view["status"] == "playing" and view["turn"] in seats:
            play = play_a_turn(seats[view["turn"]], game_id, record)
            after = play.revision
        else:
            after = view["revision"]
        view = watcher.wait_for_view(game_id, lambda v, after=after: v["revision"] > after or v["status"] == "finished",
                                     "the next play", timeout=30)
    return record


@pytest.mark.timeout(420)
def test_two_strangers_meet_through_play_now_fill_the_table_with_bots_and_play_it_through(two):
    alice, bob = two
    alice.go_home()
    bob.go_home()

    # Nobody has opened a table yet: the Play page says so, and what to do.
    for player in two:
        expect(player.screen("home")).to_contain_text("No open tables right now — press Play now to open one")
    screenshot(alice.page, "play-empty-phone")

    # alice's page keeps a clock the test can move on (it runs as usual until then).
    alice.page.clock.install()
    alice.page.reload()
    expect(alice.screen("home")).to_be_visible()
    alice.page.get_by_role("button", name="Play now").click()
    waiting = alice.screen("waiting")
    expect(waiting).to_be_visible()
    game_id = game_id_of(alice)
    lobby = alice.view(game_id)
    assert lobby["status"] == "lobby" and lobby.get("open") is True, lobby
    assert [p["name"] for p in lobby["players"]] == ["alice"], lobby["players"]
    expect(waiting.get_by_label("Open to anyone")).to_be_checked()

    # bob's Play page shows alice's table as it opens, without a reload: rules, who, seats, rating.
    table = open_tables(bob).get_by_role("listitem").filter(has_text="alice")
    expect(table).to_have_count(1)
    expect(table).to_contain_text("3 seats open")
    expect(table).to_contain_text(re.compile(r"To \d+ points?"))
    expect(table).to_contain_text("Average rating 1500")
    expect(table.get_by_role("button", name="Join alice's table")).to_be_enabled()
    screenshot(bob.page, "play-one-table-desktop")

    # Alone for a minute, alice is offered bots for the empty seats.
    offer = waiting.get_by_test_id("fill-with-bots")
    expect(offer).to_be_visible()
    expect(offer).not_to_contain_text("Nobody has joined you for a minute")
    alice.page.clock.fast_forward("01:05")
    expect(offer).to_contain_text("Nobody has joined you for a minute")
    expect(offer.get_by_role("button", name="Fill with bots")).to_be_visible()
    screenshot(alice.page, "waiting-offer-phone")

    # bob presses Play now: he sits at alice's open table, and each sees the other there.
    bob.page.get_by_role("button", name="Play now").click()
    expect(bob.screen("waiting")).to_be_visible()
    assert game_id_of(bob) == game_id, "bob's Play now did not seat him at alice's open table"
    expect(bob.screen("waiting")).to_contain_text("alice")
    expect(bob.screen("waiting").get_by_test_id("open-state")).to_contain_text("open to anyone")
    expect(waiting).to_contain_text("bob")
    expect(waiting).not_to_contain_text("Nobody has joined you for a minute")  # she is not alone now
    screenshot(bob.page, "waiting-two-desktop")

    # alice fills the two empty seats with bots in one click: the game starts on both pages. Her
    # first match: the bots offered are principianti.
    expect(waiting.get_by_label("Level of the bots")).to_have_value("principiante")
    waiting.get_by_role("button", name="Fill with bots").click()
    for player in two:
        expect(player.screen("table")).to_be_visible()
    view = alice.view(game_id)
    assert view["status"] == "playing", view["status"]
    assert sorted(p["name"] for p in view["players"] if not p.get("bot")) == ["alice", "bob"], view["players"]
    assert [p.get("bot") for p in view["players"] if p.get("bot")] == ["principiante", "principiante"], view["players"]
    for player in two:
        expect(player.page.get_by_test_id("seat-info").get_by_test_id("bot-mark")).to_have_count(2)
    assert bob.api("/api/games/open")["games"] == [], "a started game is still listed as open"

    record = play_the_match_with_bots(two, game_id)

    for player in two:
        expect(player.screen("game-over")).to_be_visible(timeout=15_000)
    played = {p.name: sum(1 for x in record.plays if x.player is p) for p in two}
    assert all(n >= 10 for n in played.values()), f"each person holds 10 cards a hand; they played {played}"
