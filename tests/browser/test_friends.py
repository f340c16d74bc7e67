"""Friends in the app (CONTRACT, Players, following, invitations, blocking): two people meet in a
waiting room and follow each other from the pages their names link to; each sees the other come
and go online, live; alice invites bob from her waiting room, bob joins from his start page with
one click, and the two play a whole match as partners against two bots. Then alice blocks bob:
her invitation and bob's join are refused, in words.

Every step waits for what a person would see; nothing sleeps. With ``TAVOLO_SCREENSHOTS=<dir>`` the
player page, Friends, the waiting room's invitations and the start page with an invitation are
saved at the four sizes in ``<dir>/friends/`` (else in the temporary directory), and at each size
nothing may be wider than the screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from tests.browser.pages import (
    MatchRecord,
    Player,
    create_game,
    expect_accessible,
    join_through_invite,
    person,
    play_a_turn,
    poll,
    shoot,
)

STACK_ENV = {"BOT_THINK_MS": "0"}


@pytest.fixture(scope="module")
def alice(stack, browser) -> Iterator[Player]:
    made = person(stack, browser, "alice", {"width": 390, "height": 844})
    yield made
    made.page.context.close()


@pytest.fixture(scope="module")
def bob(stack, browser) -> Iterator[Player]:
    made = person(stack, browser, "bob", {"width": 1280, "height": 800})
    yield made
    made.page.context.close()


def section(player: Player, name: str) -> None:
    player.page.get_by_role("navigation", name="Sections").get_by_role("link", name=name).click()


def follow_through_the_name(player: Player, waiting: Locator, name: str) -> None:
    """In the waiting room: the name links to the player's page; Follow there."""
    waiting.get_by_role("link", name=name, exact=True).click()
    page_of = player.screen("player")
    expect(page_of).to_be_visible()
    expect(page_of.get_by_role("heading", level=1)).to_contain_text(name)
    page_of.get_by_role("button", name="Follow").click()
    expect(page_of.get_by_role("button", name="Unfollow")).to_be_visible()
    expect(page_of.get_by_test_id("following")).to_be_visible()


def friend_row(player: Player, name: str) -> Locator:
    return player.screen("friends").get_by_test_id("friend").filter(has_text=name)


def leave_waiting_room(player: Player, game_id: str) -> None:
    player.page.goto(f"/games/{game_id}")
    expect(player.screen("waiting")).to_be_visible()
    player.page.get_by_role("button", name="Leave").click()
    expect(player.screen("home")).to_be_visible()


def new_page(context: BrowserContext) -> Page:
    page = context.new_page()
    page.goto("/")
    return page


def play_to_the_end(people: list[Player], game_id: str) -> MatchRecord:
    """The people click a card on each of their turns and OK at each hand end; the bots (and the
    shuffle together, by the app itself) do the rest."""
    record = MatchRecord()
    watcher = people[0]
    seats = {p["seat"]: next(x for x in people if x.name == p["name"])
             for p in watcher.view(game_id)["players"] if not p.get("bot")}
    while True:
        view = watcher.wait_for_view(
            game_id,
            lambda v: v["status"] in ("hand_end", "finished") or (v["status"] == "playing" and v["turn"] in seats),
            "a person's turn, a hand end or the end of the match", timeout=30)
        if view["status"] == "finished":
            return record
        if view["status"] == "hand_end":
            record.hand_ends += 1
            for seat_number, who in seats.items():
                if seat_number not in view.get("acknowledged", []):
                    expect(who.screen("hand-end")).to_be_visible()
                    who.page.get_by_role("button", name="OK").click()
            watcher.wait_for_view(game_id, lambda v, hand=view["hand_number"]: v["status"] != "hand_end"
                                  or v["hand_number"] != hand, "the next hand after OK", timeout=30)
            continue
        play = play_a_turn(seats[view["turn"]], game_id, record)
        watcher.wait_for_view(game_id, lambda v, after=play.revision: v["revision"] > after,
                              f"{play.player.name}'s click on {play.card} reaching the server")


@pytest.mark.timeout(420)
def test_two_friends_follow_invite_join_from_the_start_page_and_play_against_two_bots(alice, bob):
    # bob opens a table; alice joins it with its link; each opens the other's page from the name
    # in the waiting room and follows them.
    met = create_game(bob, target_score=1)
    join_through_invite(alice, met.link)
    alice_waiting = alice.screen("waiting")
    expect(alice_waiting).to_be_visible()
    bob_waiting = bob.screen("waiting")
    expect(bob_waiting.get_by_role("link", name="alice", exact=True)).to_be_visible()  # live
    follow_through_the_name(alice, alice_waiting, "bob")
    shoot(alice.page, "friends", "player-page")
    expect_accessible(alice.page, "bob's page")
    follow_through_the_name(bob, bob_waiting, "alice")
    leave_waiting_room(alice, met.game_id)
    leave_waiting_room(bob, met.game_id)

    # alice's Friends: bob with a green dot while a page of his is open; it goes grey when he
    # closes it and green again when he comes back, without alice doing anything.
    section(alice, "Friends")
    row = friend_row(alice, "bob")
    expect(row.get_by_test_id("online-dot")).to_have_attribute("data-online", "true")
    shoot(alice.page, "friends", "friends")
    expect_accessible(alice.page, "Friends")
    context = bob.page.context
    bob.page.close()
    expect(row.get_by_test_id("online-dot")).to_have_attribute("data-online", "false")
    bob.page = new_page(context)
    expect(bob.screen("home")).to_be_visible()
    expect(row.get_by_test_id("online-dot")).to_have_attribute("data-online", "true")
    # Its name opens bob's page.
    row.get_by_role("link", name="bob", exact=True).click()
    expect(alice.screen("player").get_by_role("heading", level=1)).to_contain_text("bob")

    # alice opens a table: her Friends list offers to invite bob to it.
    alice.go_home()
    table = create_game(alice, target_score=1)
    section(alice, "Friends")
    expect(alice.page.get_by_test_id("friends-waiting")).to_contain_text(table.code)
    expect(friend_row(alice, "bob").get_by_role("button", name="Invite bob")).to_be_visible()
    shoot(alice.page, "friends", "friends-with-a-table")
    # She invites him from the waiting room's "Invite a player".
    alice.page.get_by_test_id("friends-waiting").get_by_role("link", name="open it").click()
    expect(alice.screen("waiting")).to_be_visible()
    bob.page.get_by_role("navigation", name="Sections").get_by_role("link", name="Friends").click()
    invite = alice.page.get_by_test_id("invite-players")
    candidate = invite.get_by_test_id("invite-candidate").filter(has_text="bob")
    expect(candidate).to_contain_text("you follow")
    candidate.get_by_role("button", name="Invite bob").click()
    expect(candidate.get_by_test_id("invited")).to_contain_text("Invited")
    shoot(alice.page, "friends", "waiting-room-invite", invite)

    # bob, on another page, is told at once (the member socket); his start page lists it, and he
    # joins with one click.
    notice = bob.page.get_by_test_id("invite-notice")
    expect(notice).to_contain_text("alice invites you")
    shoot(bob.page, "friends", "invite-notice")
    section(bob, "Play")
    invitation = bob.page.get_by_test_id("invitation").filter(has_text="alice")
    expect(invitation).to_be_visible()
    expect(invitation).to_contain_text("Invited by alice")
    shoot(bob.page, "friends", "start-page-invitation")
    invitation.get_by_role("button", name="Join alice's table").click()
    expect(bob.screen("waiting")).to_be_visible()
    expect(bob.page).to_have_url(re.compile(rf"/games/{table.game_id}$"))
    # Partners: bob moves across from alice; alice fills the two other seats with bots.
    bob.page.get_by_role("button", name="Sit here, seat 3").click()
    alice_waiting = alice.screen("waiting")
    expect(alice_waiting.locator(".seat-row.team-A").filter(has_text="bob")).to_have_count(1)
    alice_waiting.get_by_role("button", name="Fill with bots").click()
    for who in (alice, bob):
        expect(who.screen("table")).to_be_visible(timeout=20_000)
    # At the table bob's name opens his page beside it.
    link = alice.page.get_by_test_id("seat-info").get_by_role("link", name="bob", exact=True)
    expect(link).to_have_attribute("target", "_blank")

    record = play_to_the_end([alice, bob], table.game_id)
    for who in (alice, bob):
        expect(who.screen("game-over")).to_be_visible()
    assert len(record.plays) >= 20, f"two people holding 10 cards each clicked {len(record.plays)} cards"
    view = alice.view(table.game_id)
    assert {p["name"] for p in view["players"] if not p.get("bot")} == {"alice", "bob"}
    assert {p["team"] for p in view["players"] if not p.get("bot")} == {"A"}, view["players"]
    assert alice.api("/api/me/invitations")["invitations"] == []
    assert bob.api("/api/me/invitations")["invitations"] == [], "an invitation outlived the game's start"


def test_a_blocked_player_is_refused_in_words(alice, bob):
    # bob's page has the match they played together, from his side.
    bob_id = next(p["player"] for p in alice.api("/api/me/following")["players"] if p["name"] == "bob")
    poll(alice, f"/api/players/{bob_id}", lambda a: a["matches"] >= 1, "the match reaching bob's page")
    alice.go_home()
    section(alice, "Friends")
    friend_row(alice, "bob").get_by_role("link", name="bob", exact=True).click()
    page_of = alice.screen("player")
    expect(page_of.get_by_test_id("player-matches")).to_have_text("1")
    match = page_of.get_by_test_id("match-item")
    expect(match).to_have_count(1)
    expect(match).to_contain_text("Practice")
    expect(match).to_contain_text("you")  # alice played it, beside bob
    shoot(alice.page, "friends", "player-page-with-a-match")
    # bob hides that he is online: alice's Friends shows him grey at once, and green when he
    # shows it again.
    bob.page.goto("/me")
    setting = bob.page.get_by_label("Show when I'm online")
    expect(setting).to_be_checked()
    setting.uncheck()
    expect(bob.page.get_by_test_id("online-setting")).to_contain_text("Saved")
    section(alice, "Friends")
    dot = friend_row(alice, "bob").get_by_test_id("online-dot")
    expect(dot).to_have_attribute("data-online", "false")
    setting.check()
    expect(dot).to_have_attribute("data-online", "true")
    friend_row(alice, "bob").get_by_role("link", name="bob", exact=True).click()
    page_of = alice.screen("player")
    # alice blocks bob from his page: it asks first, and says he is not told.
    page_of.get_by_role("button", name="Block").click()
    confirm = page_of.get_by_test_id("block-confirm")
    expect(confirm).to_contain_text("bob is not told")
    confirm.get_by_role("button", name="Block bob").click()
    expect(page_of.get_by_test_id("blocked-state")).to_contain_text("You blocked bob")

    # Her invitation is refused...
    alice.go_home()
    table = create_game(alice, target_score=1)
    candidate = alice.page.get_by_test_id("invite-candidate").filter(has_text="bob")
    candidate.get_by_role("button", name="Invite bob").click()
    expect(candidate.get_by_test_id("invite-error")).to_contain_text("Blocked: one of you blocked the other")
    # ...and so is bob's join with the code: he learns it from the refusal, in words.
    join_through_invite(bob, table.link)
    expect(bob.screen("join").get_by_role("alert")).to_contain_text(
        "Blocked: you cannot sit at this table, because one of its players has blocked you")
    assert all(p["name"] != "bob" for p in alice.view(table.game_id)["players"])

    # alice unblocks him from her account.
    alice.page.goto("/me")
    blocked = alice.page.get_by_test_id("blocked-player").filter(has_text="bob")
    expect(blocked).to_be_visible()
    shoot(alice.page, "friends", "account-blocked", alice.page.get_by_test_id("blocked-players"))
    blocked.get_by_role("button", name="Unblock bob").click()
    expect(alice.page.get_by_test_id("blocked-player")).to_have_count(0)
    leave_waiting_room(alice, table.game_id)
