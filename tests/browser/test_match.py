"""Four people play scopone in their browsers: log in, create a game, join by the invite link,
play a whole match by clicking cards, and verify the revealed deals; a reloaded page finds its
table again, a lost connection comes back. One stack (real Redis and Postgres, the default
timeouts) for the module; the test that restarts the gateway comes last.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.pages import (
    MatchRecord,
    Player,
    card_name,
    cards_named_in,
    create_game,
    expect_logged_in_as,
    expect_ready_to_play,
    in_turn_order,
    join_through_invite,
    play_a_turn,
    play_until_game_over,
    seats_of,
    sign_in_at_the_provider,
    start_game,
    table_snapshot,
)


@pytest.mark.timeout(240)
def test_four_people_play_a_whole_match_by_clicking_cards(home):
    alice, bob, carol, dave = home
    invite = create_game(alice, target_score=1)
    waiting_room = alice.screen("waiting")
    expect(waiting_room).to_contain_text("alice")
    copy_the_join_code(alice, invite.code)

    # The seats fill live in alice's waiting room, without a reload.
    for joiner in (bob, carol):
        join_through_invite(joiner, invite.link)
        expect(joiner.screen("waiting")).to_be_visible()
        expect(waiting_room).to_contain_text(joiner.name)
    # The fourth join starts the game: every waiting room turns into the table by itself.
    join_through_invite(dave, invite.link)
    for player in home:
        expect(player.screen("table")).to_be_visible()
        expect(player.hand.get_by_role("button")).to_have_count(10)
    leader, *others = in_turn_order(home, invite.game_id)  # the seat after the drawn dealer
    expect(leader.turn_indicator).to_contain_text("Your turn")
    expect(leader.page.get_by_test_id("countdown")).to_be_visible()
    for player in others:
        expect(player.turn_indicator).not_to_contain_text("Your turn")
        expect(player.hand.get_by_role("button").first).to_be_disabled()

    record = play_until_game_over(home, invite.game_id)

    for player in home:
        over = player.screen("game-over")
        expect(over).to_be_visible()
        expect(over.get_by_role("heading", name="wins")).to_be_visible()
        expect(player.page.get_by_test_id("verify-result")).to_contain_text("The deals match",
                                                                             timeout=20_000)
    assert len(record.plays) >= 40, f"a hand is 40 plays; {len(record.plays)} were clicked"
    if record.choices_offered:
        assert record.cancelled_a_choice
        assert any(play.chose for play in record.plays), "a capture was never chosen"
    print(f"\nmatch: {len(record.plays)} plays, {record.choices_offered} capture choices, "
          f"{record.hand_ends} hand ends")


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)], ids=["phone", "desktop"])
def test_a_player_who_changes_seats_in_the_waiting_room_sees_only_their_own_cards(home, size):
    """bob joins at seat 2, moves to seat 4 with "Sit here"; carol then sits at seat 2. At the
    table bob's page shows his own cards as his hand, never carol's, he is online at his seat,
    and his turn is his to play."""
    alice, bob, carol, dave = home
    default = bob.page.viewport_size
    bob.page.set_viewport_size({"width": size[0], "height": size[1]})
    try:
        invite = create_game(alice, target_score=1)
        join_through_invite(bob, invite.link)
        waiting = bob.screen("waiting")
        expect(waiting).to_be_visible()
        waiting.get_by_role("button", name="Sit here, seat 4").click()
        bob.wait_for_view(invite.game_id, lambda v: [p["seat"] for p in v["players"] if p.get("is_you")] == [3],
                          "bob's move to seat 4")
        for joiner in (carol, dave):
            join_through_invite(joiner, invite.link)
        for player in home:
            expect(player.screen("table")).to_be_visible()
        mine, carols = bob.view(invite.game_id), carol.view(invite.game_id)
        assert (mine["you"], carols["you"]) == (3, 1)
        expect(bob.hand.get_by_role("button")).to_have_count(10)
        shown = sorted(card for label in bob.hand.get_by_role("button").evaluate_all(
            "buttons => buttons.map(b => b.getAttribute('aria-label'))") for card in cards_named_in(label))
        assert shown == sorted(mine["hand"]), f"bob's page shows {shown}, his hand is {mine['hand']}"
        assert not set(shown) & set(carols["hand"])
        for player in (alice, carol, dave):  # bob's page is open: nobody sees him offline
            expect(player.screen("table").get_by_test_id("offline-mark")).to_have_count(0)

        # Play on until bob has played a card of his own by clicking it.
        seats, record = seats_of(home, invite.game_id), MatchRecord()
        while True:
            view = alice.view(invite.game_id)
            play = play_a_turn(seats[view["turn"]], invite.game_id, record)
            alice.wait_for_view(invite.game_id, lambda v, after=play.revision: v["revision"] > after,
                                f"{play.player.name}'s click reaching the server")
            if play.player is bob:
                break
        log = alice.api(f"/api/games/{invite.game_id}/log")
        assert any(m["seat"] == "seat:3" and m["type"] == "play" and not m["auto"] for m in log["moves"])
    finally:
        bob.page.set_viewport_size(default)


def copy_the_join_code(player: Player, code: str) -> None:
    player.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    player.page.get_by_role("button", name="Copy code").click()
    expect(player.screen("waiting")).to_contain_text("Copied")
    assert player.page.evaluate("navigator.clipboard.readText()") == code


def test_a_reloaded_page_finds_the_same_table_and_plays_on(home):
    game_id = start_game(home, target_score=1)
    order = in_turn_order(home, game_id)
    record = MatchRecord()
    for turn in range(3):  # mid-hand: three cards are down
        play = play_a_turn(order[turn], game_id, record)
        order[0].wait_for_view(game_id, lambda v, after=play.revision: v["revision"] > after, "the play")

    fourth = order[3]  # on turn
    expect(fourth.last_play).to_contain_text(card_name(record.plays[-1].card))
    expect_ready_to_play(fourth)
    before = table_snapshot(fourth)
    fourth.page.reload()
    expect(fourth.screen("table")).to_be_visible()
    expect(fourth.hand.get_by_role("button")).to_have_count(10)
    expect_ready_to_play(fourth)  # the socket is back: the cards wake up
    assert table_snapshot(fourth) == before
    expect(fourth.score_board).to_contain_text(f"Hand {fourth.view(game_id)['hand_number']}")

    play = play_a_turn(fourth, game_id, record)
    view = fourth.wait_for_view(game_id, lambda v: v["revision"] > play.revision,
                                "the fourth's click after the reload reaching the server")
    assert view["last_play"]["card"] == play.card
    expect(fourth.hand.get_by_role("button")).to_have_count(9)
    expect(order[0].turn_indicator).to_contain_text("Your turn")


def test_an_invite_opened_while_logged_out_comes_back_after_login(home, browser, stack):
    invite = create_game(home[0], target_score=1)
    context = browser.new_context(base_url=stack.gateway_url)
    try:
        erin = Player("erin", context.new_page())
        erin.page.goto(invite.link)
        expect(erin.screen("login")).to_be_visible()
        sign_in_at_the_provider(erin.page, "erin")
        expect(erin.screen("join")).to_be_visible()
        expect(erin.page).to_have_url(invite.link)
        expect_logged_in_as(erin.page, "erin")
        erin.page.get_by_role("button", name="Join game").click()
        expect(erin.screen("waiting")).to_be_visible()
        expect(home[0].screen("waiting")).to_contain_text("erin")
    finally:
        context.close()


def test_home_marks_the_game_where_it_is_your_move_and_leads_back_to_the_table(home):
    game_id = start_game(home, target_score=1)
    code = home[0].view(game_id)["join_code"]
    leader, second = in_turn_order(home, game_id)[:2]  # the seats after the drawn dealer
    for player in (leader, second):
        player.go_home()
    leaders_game = leader.screen("home").get_by_role("link", name=re.compile(code))
    seconds_game = second.screen("home").get_by_role("link", name=re.compile(code))
    expect(leaders_game.get_by_test_id("your-turn-badge")).to_be_visible()
    expect(seconds_game).to_be_visible()
    expect(seconds_game.get_by_test_id("your-turn-badge")).to_have_count(0)

    leaders_game.click()
    expect(leader.screen("table")).to_be_visible()
    expect(leader.turn_indicator).to_contain_text("Your turn")


def test_an_unknown_join_code_says_game_not_found(home):
    alice = home[0]
    alice.page.get_by_label("Join code").fill("ZZZZ22")
    alice.page.get_by_role("button", name="Join", exact=True).click()
    expect(alice.screen("join")).to_be_visible()
    expect(alice.page.get_by_role("alert")).to_contain_text("Game not found")


def test_a_lost_connection_shows_reconnecting_and_the_table_comes_back(home, stack):
    game_id = start_game(home, target_score=1)
    leader = in_turn_order(home, game_id)[0]  # on turn: the seat after the drawn dealer
    expect_ready_to_play(leader)

    stack.kill("gateway")  # SIGKILL: every socket drops at once
    try:
        expect(leader.page.get_by_role("status")).to_contain_text("Reconnecting…")
        expect(leader.hand.get_by_role("button").first).to_be_disabled()
    finally:
        stack.start_again("gateway")

    # The banner goes; its live region, on the page all along, tells a screen reader it is over.
    expect(leader.page.get_by_text("Reconnecting…")).to_have_count(0, timeout=20_000)
    expect(leader.page.get_by_role("status")).to_have_text("Connected again: the table is up to date.")
    expect_ready_to_play(leader)
    play = play_a_turn(leader, game_id, MatchRecord())
    leader.wait_for_view(game_id, lambda v: v["revision"] > play.revision,
                         "the leader's click after the reconnect reaching the server")
