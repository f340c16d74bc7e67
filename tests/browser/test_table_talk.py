"""Table talk and spectators in the app, at phone sizes: two people chat (free text in the waiting room,
quick phrases while cards are in play, the text field closed with its reason) and a third watches
from the Watch page, sees every seat's back and talks in the spectators' channel, which the players
do not read; a muted player's messages disappear for the member who muted them, and stay away after
a reload. Each step waits for what a person would see; nothing sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.pages import (
    Player,
    create_game,
    expect_accessible,
    expect_inside_viewport,
    join_through_invite,
    log_in,
)

STACK_ENV = {"BOT_THINK_MS": "400"}  # bots play, but slowly enough that a hand lasts while people talk
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 640}


def on_a_phone(stack, browser, name: str, viewport: dict) -> Player:
    context = browser.new_context(base_url=stack.gateway_url, viewport=viewport, is_mobile=True, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, name)
    return Player(name, page)


@pytest.fixture(scope="module")
def people(stack, browser) -> Iterator[tuple[Player, Player, Player]]:
    """alice and bob, who play, on 390x844 phones; carol, who watches, on a 360x640 phone."""
    made = (on_a_phone(stack, browser, "alice", PHONE), on_a_phone(stack, browser, "bob", PHONE),
            on_a_phone(stack, browser, "carol", SMALL_PHONE))
    yield made
    for person in made:
        person.page.context.close()


# -- the drawer, as a person uses it ----------------------------------------------------------------

def toggle(page: Page) -> Locator:
    return page.get_by_test_id("chat-toggle")


def open_talk(page: Page) -> Locator:
    drawer = page.get_by_test_id("chat-drawer")
    if not drawer.is_visible():
        toggle(page).click()
    expect(drawer).to_be_visible()
    return drawer


def close_talk(page: Page) -> None:
    if page.get_by_test_id("chat-drawer").is_visible():
        page.keyboard.press("Escape")
    expect(page.get_by_test_id("chat-drawer")).to_be_hidden()


def messages(page: Page) -> Locator:
    return page.get_by_test_id("chat-drawer").get_by_test_id("chat-message")


def say_text(page: Page, text: str) -> None:
    drawer = open_talk(page)
    field = drawer.get_by_label("Your message")
    expect(field).to_be_enabled()
    field.fill(text)
    drawer.get_by_role("button", name="Send", exact=True).click()
    expect(field).to_have_value("")


def say_phrase(page: Page, phrase: str) -> None:
    open_talk(page).get_by_role("group", name="Quick phrases").get_by_role("button", name=phrase, exact=True).click()


# -- the tests ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def match(people) -> str:
    """alice creates a game and greets in its waiting room; bob joins and answers; alice seats two
    bots, and the cards are dealt. The game's id."""
    alice, bob, _ = people
    invite = create_game(alice, target_score=21)
    say_text(alice.page, "Ciao! <b>benvenuti</b>")
    close_talk(alice.page)
    join_through_invite(bob, invite.link)
    expect(bob.screen("waiting")).to_be_visible()
    # bob finds alice's greeting in the history, as text (never markup).
    open_talk(bob.page)
    expect(messages(bob.page)).to_have_count(1)
    expect(messages(bob.page).first).to_contain_text("Ciao! <b>benvenuti</b>")
    expect(bob.page.get_by_test_id("chat-drawer").locator("b")).to_have_count(0)
    say_phrase(bob.page, "Good luck!")
    expect(messages(bob.page)).to_have_count(2)
    close_talk(bob.page)
    # alice was away from the drawer: one unread, announced politely.
    expect(toggle(alice.page)).to_have_attribute("aria-label", re.compile(r"1 unread$"))
    expect(alice.page.get_by_test_id("chat-announcer")).to_have_text(re.compile(r"^bob says: "))
    for seat in (3, 4):
        alice.page.get_by_role("button", name=f"Add a bot at seat {seat}").click()
    for person in (alice, bob):
        expect(person.screen("table")).to_be_visible()
    return invite.game_id


def test_two_people_chat_and_a_third_watches_on_phones(people, match):
    alice, bob, carol = people

    # carol finds the table on the Watch page and watches it: every seat's back, the table, the score.
    carol.page.goto("/watch")
    expect(carol.screen("watch")).to_be_visible()
    listed = carol.page.get_by_test_id("live-game").filter(has=carol.page.locator(f'[href="/watch/{match}"]'))
    expect(listed).to_contain_text("alice")
    listed.get_by_role("link", name=re.compile(r"^Watch ")).click()
    expect(carol.screen("watch-table")).to_be_visible()
    for name in ("alice", "bob"):
        expect(carol.page.get_by_role("img", name=re.compile(rf"^{name} holds \d+ cards?$"))).to_be_visible()
    expect(carol.page.get_by_role("region", name="Your hand")).to_have_count(0)
    expect(carol.page.get_by_role("region", name="Table")).to_be_visible()
    expect(carol.page.get_by_role("group", name="Match score")).to_be_visible()
    # The players see that someone watches.
    expect(alice.page.get_by_test_id("watcher-count")).to_have_attribute("aria-label", "1 watching")

    # While cards are in play alice has quick phrases only; the field says why it is closed.
    drawer = open_talk(alice.page)
    expect(drawer.get_by_label("Your message")).to_be_disabled()
    expect(drawer.get_by_test_id("chat-closed-reason")).to_contain_text("only quick phrases")
    expect_inside_viewport(alice.page, {"the drawer": drawer, "its phrases": drawer.get_by_role("group", name="Quick phrases")})
    expect_accessible(alice.page, "the table with its chat drawer open")
    say_phrase(alice.page, "Well played!")
    expect(messages(alice.page).last).to_contain_text("Well played!")

    # bob and carol both get it: a player's message reaches the players and the spectators.
    expect(toggle(bob.page)).to_have_attribute("aria-label", re.compile(r"unread$"))
    open_talk(bob.page)
    expect(messages(bob.page).last).to_contain_text("Well played!")
    spectators = open_talk(carol.page)
    expect(spectators).to_contain_text("Spectators' talk")
    expect(messages(carol.page).last).to_contain_text("Well played!")
    expect_inside_viewport(carol.page, {"the spectators' drawer": spectators})
    # Who reads it is said, and on a 360x640 phone the phrases leave the messages room to be read
    # (wrapped, they took all but a message and a half).
    expect(spectators.get_by_test_id("chat-channel")).to_contain_text("the players do not read this")
    shown = spectators.get_by_role("list", name="Messages").bounding_box()
    assert shown and shown["height"] >= 150, f"the spectators' messages get {shown} of a 360x640 phone"
    expect_accessible(carol.page, "the spectator's table with its talk open")

    # carol greets the other spectators: the players do not read it while the game is on.
    say_phrase(carol.page, "Hello everyone!")
    expect(messages(carol.page).last).to_contain_text("Hello everyone!")
    say_phrase(alice.page, "Thanks!")
    expect(messages(bob.page).last).to_contain_text("Thanks!")
    expect(messages(alice.page).filter(has_text="carol")).to_have_count(0)
    expect(messages(bob.page).filter(has_text="carol")).to_have_count(0)
    for person in people:
        close_talk(person.page)


def test_a_muted_players_messages_disappear_for_who_muted_them(people, match):
    alice, bob, _ = people
    say_phrase(alice.page, "Sorry!")
    drawer = open_talk(bob.page)
    expect(messages(bob.page).filter(has_text="alice").last).to_contain_text("Sorry!")
    from_alice = messages(bob.page).filter(has_text="alice")
    assert from_alice.count() > 0

    from_alice.last.get_by_role("button", name="Mute or report alice").click()
    drawer.get_by_role("button", name="Mute alice").click()
    expect(messages(bob.page).filter(has_text="alice")).to_have_count(0)

    # What alice says next never reaches bob; alice herself still sees it.
    say_phrase(alice.page, "Oops!")
    expect(messages(alice.page).last).to_contain_text("Oops!")
    say_phrase(bob.page, "Good game!")  # bob's own message arrives after alice's would have
    expect(messages(bob.page).last).to_contain_text("Good game!")
    expect(messages(bob.page).filter(has_text="Oops!")).to_have_count(0)

    # A reload lists the history without her.
    bob.page.reload()
    expect(bob.screen("table")).to_be_visible()
    open_talk(bob.page)
    expect(messages(bob.page).filter(has_text="Good game!")).to_have_count(1)
    expect(messages(bob.page).filter(has_text="alice")).to_have_count(0)
    expect(bob.page.get_by_test_id("chat-drawer").get_by_text("Muted (1)")).to_be_visible()
