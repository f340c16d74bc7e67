"""After a match: each player finds it in History with the right Elo changes and its per-hand
audit, the leaderboard shows the four, a rematch started by one is joined by the others from
its invitation, the app speaks Italian on every screen, and an erased account shows as
"deleted player" in the others' history.

One match for the whole module, created and joined by clicking, then played by the deadlines
(turns time out after a quarter second, so nobody has to click 40 cards). Every player starts
at 1500, so the winners gain exactly 16 and the losers lose 16 (CONTRACT, Elo: K = 32, E = 0.5).
The erasure comes last: it logs dave out for good.

With ``TAVOLO_SCREENSHOTS=<dir>`` the README's screenshots (a match, the history, the
leaderboard, the Italian table) are saved there, and the same pages as a 360 px phone shows them
in ``<dir>/phone/``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import Player, create_game, join_through_invite

STACK_ENV = {"TURN_TIMEOUT_SECONDS": "0.25"}
ANY_LIVE_SCREEN = ("[data-testid=screen-table], [data-testid=screen-hand-end], "
                   "[data-testid=screen-game-over]")
DELETED = "deleted player"
MINUS, DASH = "\u2212", "\u2013"  # the app writes an Elo loss and a score with these


def screenshot(page: Page, name: str) -> None:
    """Save the page for the README when TAVOLO_SCREENSHOTS names a folder."""
    folder = os.environ.get("TAVOLO_SCREENSHOTS")
    if not folder:
        return
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(Path(folder) / f"{name}.png"))
    page.set_viewport_size({"width": 360, "height": 740})  # a phone, to check by eye
    page.screenshot(path=str(Path(folder) / "phone" / f"{name}.png"), full_page=True)
    page.set_viewport_size(size)


def wait_until_finished(players: list[Player], game_id: str) -> dict:
    """The deadlines play the match; a hand end (a tie at the target) is acknowledged by all."""
    watcher = players[0]
    while True:
        view = watcher.wait_for_view(game_id, lambda v: v["status"] in ("hand_end", "finished"),
                                     "the end of a hand", timeout=90)
        if view["status"] == "finished":
            return view
        for player in players:
            player.page.get_by_role("button", name="OK").click()
        watcher.wait_for_view(game_id, lambda v: v["status"] != "hand_end", "the next hand")


@pytest.fixture(scope="module")
def match(players) -> dict:
    """The module's match, target 1: created and joined in the app, finished by the deadlines;
    its final view (as alice sees it), with ``winners`` and ``losers`` by name."""
    for player in players:
        player.go_home()
    invite = create_game(players[0], target_score=1)
    for player in players[1:]:
        join_through_invite(player, invite.link)
    view = wait_until_finished(players, invite.game_id)
    for player in players:
        over = player.screen("game-over")
        expect(over).to_be_visible()
        # Everyone's Elo change, once the history has the match: 1500 each, so 16 either way.
        expect(over.get_by_test_id("game-elo")).to_contain_text("+16")
        expect(over.get_by_test_id("game-elo")).to_contain_text(f"{MINUS}16")
    winner = view["winner"]
    return {**view, "winners": {p["name"] for p in view["players"] if p["team"] == winner},
            "losers": {p["name"] for p in view["players"] if p["team"] != winner}}


def open_section(player: Player, name: str) -> None:
    sections = player.page.get_by_role("navigation", name=re.compile("^(Sections|Sezioni)$"))
    sections.get_by_role("link", name=name).click()


@pytest.mark.timeout(240)
def test_each_player_finds_the_match_in_history_with_the_right_elo_changes_and_its_audit(home, match):
    for player in home:
        open_section(player, "History")
        history = player.screen("history")
        expect(history).to_be_visible()
        expect(player.page).to_have_url(re.compile(r"/history$"))
        row = history.get_by_role("link").filter(has=player.page.get_by_test_id("elo-delta")).first
        expected = "+16" if player.name in match["winners"] else f"{MINUS}16"
        expect(row.get_by_test_id("elo-delta")).to_have_text(expected)
        expect(row).to_contain_text("Won" if player.name in match["winners"] else "Lost")
        mine = next(p["team"] for p in match["players"] if p["name"] == player.name)
        theirs = "B" if mine == "A" else "A"
        expect(row).to_contain_text(f"{match['scores'][mine]}{DASH}{match['scores'][theirs]}")  # yours first
        recorded = player.api("/api/me/matches")["items"][0]
        assert recorded["id"] == match["id"]
        assert {p["name"]: p["elo_delta"] for p in recorded["players"]} == {
            **dict.fromkeys(match["winners"], 16), **dict.fromkeys(match["losers"], -16)}

        row.click()
        detail = player.screen("match")
        expect(player.page).to_have_url(re.compile(rf"/history/{match['id']}$"))
        rows = detail.get_by_test_id("match-player")
        expect(rows).to_have_count(4)
        for name in match["winners"] | match["losers"]:
            delta = "+16" if name in match["winners"] else f"{MINUS}16"
            expect(rows.filter(has_text=name).get_by_test_id("elo-delta")).to_have_text(delta)
        expect(detail.locator("tr.is-me")).to_contain_text(player.name)
        audit = detail.get_by_test_id("hand-audit")
        expect(audit.get_by_role("table")).to_have_count(len(match_audit(player, match["id"])))
        expect(audit.get_by_role("table").first).to_contain_text("Scoring of hand 1")
        expect(audit).to_contain_text("Settebello")
        expect(detail.get_by_role("link", name="Open the move log (JSON)")).to_have_attribute(
            "href", f"/api/games/{match['id']}/log")

    alice = home[0]
    alice.page.reload()  # a shared link to the match works on reload
    detail = alice.screen("match")
    expect(detail.get_by_test_id("match-player")).to_have_count(4)
    screenshot(alice.page, "match")
    detail.get_by_role("button", name="Check this deal").click()
    expect(alice.page.get_by_test_id("verify-result")).to_contain_text("The deals match", timeout=20_000)


def match_audit(player: Player, match_id: str) -> list[dict]:
    item = next(m for m in player.api("/api/me/matches")["items"] if m["id"] == match_id)
    return item["result"]["audit"]


def test_the_leaderboard_shows_the_four_with_your_row_marked_and_opens_without_login(
        home, match, browser, stack):
    bob = home[1]
    open_section(bob, "Leaderboard")
    board = bob.screen("leaderboard")
    rows = board.get_by_test_id("leaderboard-row")
    expect(rows).to_have_count(4)
    for name in match["winners"]:
        expect(rows.filter(has_text=name)).to_contain_text("1516")
    for name in match["losers"]:
        expect(rows.filter(has_text=name)).to_contain_text("1484")
    mine = board.locator("[aria-current=true]")
    expect(mine).to_have_count(1)
    expect(mine).to_contain_text("bob")
    rating = "1516" if "bob" in match["winners"] else "1484"
    expect(board.get_by_test_id("my-ratings")).to_contain_text(rating)
    expect(board.get_by_test_id("my-ratings")).to_contain_text("1 match")
    screenshot(bob.page, "leaderboard")

    visitor = browser.new_context(base_url=stack.gateway_url)
    try:
        page = visitor.new_page()
        page.goto("/leaderboard")  # a shared link, logged out
        expect(page.get_by_test_id("screen-leaderboard").get_by_test_id("leaderboard-row")).to_have_count(4)
        expect(page.locator("[aria-current=true]")).to_have_count(0)
        expect(page.get_by_test_id("my-ratings")).to_have_count(0)
    finally:
        visitor.close()


@pytest.mark.timeout(180)
def test_a_rematch_started_by_one_is_joined_by_the_others_from_the_invitation(home, match):
    alice, *others = home
    for player in home:
        player.page.goto(f"/games/{match['id']}")
        over = player.screen("game-over")
        expect(over).to_be_visible()
        expect(over).to_have_attribute("data-connection", "open")  # the invitation comes here

    alice.page.get_by_role("button", name="Play again").click()
    expect(alice.screen("waiting")).to_be_visible()
    new_id = alice.page.url.rsplit("/", 1)[-1]
    assert new_id != match["id"]
    lobby = alice.view(new_id)
    assert lobby["status"] == "lobby" and lobby["options"] == match["options"]

    for player in reversed(others):  # in another order than they first sat down
        invitation = player.page.get_by_test_id("rematch-invite")
        expect(invitation).to_contain_text("alice")
        expect(invitation).to_contain_text(lobby["join_code"])
        player.page.get_by_role("button", name="Join the rematch").click()
        expect(player.page).to_have_url(re.compile(rf"/games/{new_id}$"))
    for player in home:
        expect(player.page.locator(ANY_LIVE_SCREEN)).to_be_visible()
    started = alice.view(new_id)
    assert started["status"] != "lobby"
    # Everyone sits where they sat in the finished game: partners stay partners.
    seats = {p["seat"]: p["name"] for p in match["players"]}
    assert {p["seat"]: p["name"] for p in started["players"]} == seats
    wait_until_finished(home, new_id)
    alice.page.goto("/history")  # both matches, the rematch first
    expect(alice.screen("history").get_by_test_id("elo-delta")).to_have_count(2)
    screenshot(alice.page, "history")


@pytest.mark.timeout(240)
def test_the_app_switched_to_italian_speaks_italian_on_every_screen(home, match, browser, stack):
    try:
        speak_italian_on_every_screen(home, match, browser, stack)
    finally:  # back to English for the rest of the module, whatever failed
        for player in home:
            player.page.goto("/")  # a table in play has no header: the switch is in its menu
            player.page.get_by_role("button", name="English").click()
            expect(player.page.locator("html")).to_have_attribute("lang", "en")


def speak_italian_on_every_screen(home, match, browser, stack):
    alice, bob, carol, dave = home
    for player in home:
        player.page.get_by_role("group", name="Language").get_by_role("button", name="Italiano").click()
        expect(player.page.locator("html")).to_have_attribute("lang", "it")
        player.page.reload()  # the choice is remembered
        expect(player.page.get_by_role("button", name="Italiano")).to_have_attribute("aria-pressed", "true")

    page = alice.page
    page.goto("/")
    expect(alice.screen("home")).to_contain_text("I tuoi tavoli")
    expect(alice.screen("home")).to_contain_text("Inizia una partita")
    page.get_by_label("Punteggio obiettivo").fill("21")
    # All ten denari win the match at once; without napola one hand cannot reach 21, so the
    # deadlines' hand always ends on the hand summary this test reads.
    page.get_by_label("Napola").uncheck()
    page.get_by_role("button", name="Crea la partita").click()
    waiting = alice.screen("waiting")
    expect(waiting).to_contain_text("In attesa dei giocatori")
    expect(waiting).to_contain_text("Regole di questo tavolo")
    link = page.get_by_test_id("invite-link").inner_text().strip()

    for player in (bob, carol, dave):
        player.page.goto(link)
        expect(player.screen("join")).to_contain_text("Unisciti alla partita")
        player.page.get_by_role("button", name="Unisciti alla partita").click()

    table = alice.screen("table")
    expect(table).to_be_visible()
    expect(alice.page.get_by_role("region", name="La tua mano")).to_be_visible()
    expect(alice.page.get_by_role("region", name="Tavolo")).to_be_visible()
    expect(alice.page.get_by_label("Punteggio della partita")).to_contain_text("Squadra A")
    expect(alice.page.get_by_label("Punteggio della partita")).to_contain_text("si gioca ai 21 punti")
    expect(alice.turn_indicator).to_contain_text(re.compile(r"^Tocca a "))
    expect(alice.page.get_by_role("region", name="La tua mano").get_by_role("button").first).to_have_attribute(
        # Italian names, whatever the deal: "asso di bastoni", "7 di denari", "cavallo di spade".
        "aria-label", re.compile(r"^(asso|[2-7]|fante|cavallo|re) di (denari|coppe|spade|bastoni)$"))
    expect(table).to_contain_text("Smazzata equa")
    screenshot(page, "table-italian")

    hand_end = alice.screen("hand-end")  # the deadlines play the hand; the summary waits 30 s
    expect(hand_end).to_be_visible(timeout=60_000)
    expect(hand_end.get_by_role("heading", level=1)).to_have_text("La mano 1 è finita")
    expect(hand_end).to_contain_text("Punteggio della mano 1")
    expect(hand_end).to_contain_text("Primiera")  # the game's words stay Italian
    expect(hand_end).to_contain_text("Pronti per la prossima mano")

    page.goto(f"/games/{match['id']}")
    over = alice.screen("game-over")
    expect(over.get_by_role("heading", level=1)).to_contain_text("Vince la squadra")
    expect(over).to_contain_text("Punteggio finale")
    expect(page.get_by_test_id("verify-result")).to_contain_text("Le smazzate corrispondono",
                                                                 timeout=20_000)
    open_section(alice, "Storico")
    expect(alice.screen("history")).to_contain_text("Le tue partite giocate")
    expect(alice.screen("history")).to_contain_text(re.compile("Vinta|Persa"))
    page.goto(f"/history/{match['id']}")
    expect(alice.screen("match")).to_contain_text("Mano per mano")
    expect(alice.screen("match")).to_contain_text("Variazione Elo")
    open_section(alice, "Classifica")
    expect(alice.screen("leaderboard")).to_contain_text("Il tuo punteggio Elo")
    page.get_by_role("banner").get_by_role("link", name="alice").click()
    expect(alice.screen("account")).to_contain_text("Elimina il mio account")
    expect(alice.screen("account")).to_contain_text("giocatore eliminato")

    visitor = browser.new_context(base_url=stack.gateway_url, locale="it-IT")
    try:  # a visitor whose browser speaks Italian gets Italian without switching
        login = visitor.new_page()
        login.goto("/")
        expect(login.get_by_test_id("screen-login")).to_contain_text("con gli amici o contro il computer")
        expect(login.get_by_role("link", name="Accedi con default")).to_be_visible()
    finally:
        visitor.close()


def test_a_deleted_account_shows_as_deleted_player_in_the_others_history(home, match):
    alice, dave = home[0], home[3]
    dave.page.get_by_role("banner").get_by_role("link", name="dave").click()
    account = dave.screen("account")
    expect(account.get_by_test_id("account-name")).to_have_text("dave")
    expect(account.get_by_test_id("account-provider")).to_have_text("default")
    expect(account.get_by_test_id("delete-explained")).to_contain_text("deleted player")
    delete = account.get_by_role("button", name="Delete my account")
    expect(delete).to_be_disabled()
    account.get_by_label(re.compile("type your name")).fill("dav")
    expect(delete).to_be_disabled()
    account.get_by_label(re.compile("type your name")).fill("dave")
    delete.click()
    expect(dave.screen("login")).to_contain_text("Your account was deleted")
    assert dave.page.request.get("/api/me").status == 401

    alice.page.goto("/history")
    first = alice.screen("history").get_by_test_id("match-item").filter(
        has=alice.page.get_by_test_id("elo-delta")).last  # the module's first match
    expect(first).to_contain_text(DELETED)
    expect(first).not_to_contain_text("dave")
    alice.page.goto(f"/history/{match['id']}")
    rows = alice.screen("match").get_by_test_id("match-player")
    expect(rows.filter(has_text=DELETED)).to_have_count(1)
    expect(rows.filter(has_text="dave")).to_have_count(0)
    alice.page.goto("/leaderboard")
    expect(alice.screen("leaderboard").get_by_test_id("leaderboard-row")).to_have_count(3)
