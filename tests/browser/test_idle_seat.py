"""A seat that does not play in time gets an automatic play, and everyone sees it marked, in the
last play's words and on its card in the recent plays.

Its own stack: turns time out after 2 seconds. Nobody clicks anything once the game starts, so
every assertion below holds whichever automatic play the screens happen to show.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.pages import in_turn_order, start_game

STACK_ENV = {"TURN_TIMEOUT_SECONDS": "2"}


def test_an_idle_seat_gets_an_automatic_play_marked_auto_on_the_others_screens(home):
    game_id = start_game(home)  # the seat after the drawn dealer leads hand 1, and does nothing
    leader, *others = in_turn_order(home, game_id)
    leading_seat = (home[0].view(game_id)["dealer"] + 1) % 4
    expect(others[0].page.get_by_test_id("countdown")).to_be_visible()

    for player in others:
        expect(player.last_play).to_contain_text("auto", timeout=15_000)
        # The recent plays mark the card "auto" too, where it is seen (not only in words).
        first_play = player.page.get_by_role("list", name="Last plays").get_by_role("listitem").first
        expect(first_play.get_by_text("auto", exact=True)).to_be_visible()

    # The first card of the match (the seats' entropy, when the form asked for it, comes before).
    first = next(move for move in leader.api(f"/api/games/{game_id}/log")["moves"]
                 if move["type"] in ("play", "auto_play"))
    assert (first["type"], first["seat"], first["auto"]) == ("auto_play", f"seat:{leading_seat}", True), first
    expect(leader.card_in_hand(first["payload"]["card"])).to_have_count(0)
