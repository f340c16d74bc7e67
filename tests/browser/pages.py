"""What a person does in the app, by the accessible names and test ids the app promises.

Every step goes through the UI (links, buttons, form fields); the REST API is only read, with
the page's own cookies (``page.request``), to learn what a person sees on the screen anyway:
whose turn it is and which plays are legal (the view's ``legal``).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

SUITS = {"D": "denari", "C": "coppe", "S": "spade", "B": "bastoni"}
_NAMED_CARD = re.compile(r"\b(10|[1-9]) of (denari|coppe|spade|bastoni)\b")
_SUIT_CODES = {name: code for code, name in SUITS.items()}
JOIN_CODE = re.compile(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$")


def card_name(card: str) -> str:
    """``07D`` -> ``7 of denari``: how the app names a card (it may add "(settebello)" etc.)."""
    return f"{int(card[:2])} of {SUITS[card[2]]}"


def cards_named_in(text: str) -> list[str]:
    """The cards a text names, as sorted codes: "Take 3 of spade and 4 of bastoni" -> [03S, 04B]."""
    return sorted(f"{int(rank):02d}{_SUIT_CODES[suit]}" for rank, suit in _NAMED_CARD.findall(text))


@dataclass
class Player:
    name: str
    page: Page

    # -- the screens and their parts -------------------------------------------------------------
    def screen(self, name: str) -> Locator:
        return self.page.get_by_test_id(f"screen-{name}")

    @property
    def hand(self) -> Locator:
        return self.page.get_by_role("region", name="Your hand")

    @property
    def table(self) -> Locator:
        return self.page.get_by_role("region", name="Table")

    def card_in_hand(self, card: str) -> Locator:
        return self.hand.get_by_role("button", name=re.compile(rf"^{re.escape(card_name(card))}\b"))

    @property
    def score_board(self) -> Locator:
        return self.page.get_by_label("Match score")

    @property
    def turn_indicator(self) -> Locator:
        return self.page.get_by_test_id("turn-indicator")

    @property
    def last_play(self) -> Locator:
        return self.page.get_by_test_id("last-play")

    @property
    def capture_chooser(self) -> Locator:
        return self.page.get_by_role("group", name="Choose a capture")

    # -- reading what the server says this person sees --------------------------------------------
    def api(self, path: str) -> dict:
        response = self.page.request.get(path)
        assert response.ok, f"GET {path} as {self.name}: {response.status} {response.text()}"
        return response.json()

    def view(self, game_id: str) -> dict:
        return self.api(f"/api/games/{game_id}")

    def wait_for_view(self, game_id: str, until, what: str, timeout: float = 15.0) -> dict:
        """Poll this person's view of the game until ``until(view)``; fail naming ``what``."""
        deadline = time.monotonic() + timeout
        while True:
            view = self.view(game_id)
            if until(view):
                return view
            assert time.monotonic() < deadline, f"{what}: never happened within {timeout} s; last view {view}"
            time.sleep(0.05)

    # -- going places ---------------------------------------------------------------------------
    def go_home(self) -> None:
        self.page.goto("/")
        expect(self.screen("home")).to_be_visible()


def log_in(page: Page, name: str) -> None:
    """Logged out at ``/``: click "Log in with default", sign in as ``name`` at the provider, and
    land back in the app with the name in the header and a "Log out" link."""
    page.goto("/")
    expect(page.get_by_test_id("screen-login")).to_be_visible()
    sign_in_at_the_provider(page, name)
    expect(page.get_by_test_id("screen-home")).to_be_visible()
    expect_logged_in_as(page, name)


# The four screen sizes the app is looked at in: phones upright and sideways, a desktop.
SIZES = [(360, 640), (390, 844), (844, 390), (1280, 800)]
SCREENSHOTS = Path(os.environ.get("TAVOLO_SCREENSHOTS") or Path(tempfile.gettempdir()) / "tavolo-browser")


def shoot(page: Page, folder: str, name: str, part: Locator | None = None) -> None:
    """The page at the four sizes, saved under SCREENSHOTS/``folder`` as the screen shows it
    (scrolled to ``part``) and whole; at each, nothing wider than the screen."""
    shots = SCREENSHOTS / folder
    shots.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name}: the page is {overflow} px wide on a {width} px screen"
        if part is not None:
            part.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / f"{name}-{width}x{height}.png"))
        page.screenshot(path=str(shots / f"{name}-{width}x{height}-whole.png"), full_page=True)
    if size:
        page.set_viewport_size(size)


def person(stack, browser: Browser, name: str, viewport: dict) -> Player:
    """``name`` logged in, in a browser context of their own (own storage and service worker)."""
    context = browser.new_context(base_url=stack.gateway_url, viewport=viewport)
    context.set_default_timeout(10_000)
    page = context.new_page()
    log_in(page, name)
    return Player(name, page)


def sign_in_at_the_provider(page: Page, name: str) -> None:
    page.get_by_role("link", name="Log in with default").click()
    page.get_by_label("User name").fill(name)
    page.get_by_role("button", name="Sign in").click()


def expect_logged_in_as(page: Page, name: str) -> None:
    expect(page.get_by_role("link", name="Log out")).to_be_visible()
    expect(page.get_by_role("banner")).to_contain_text(name)


@dataclass
class Invite:
    code: str
    link: str
    game_id: str


def create_game(player: Player, target_score: int) -> Invite:
    """On the home screen: fill in the new-game form, "Create game", and read the waiting room's
    join code and invite link."""
    page = player.page
    expect(player.screen("home")).to_be_visible()
    game_type = page.get_by_label("Game type")
    if game_type.count():
        game_type.select_option(label="Scopone scientifico")
    page.get_by_label("Target score").fill(str(target_score))
    expect(page.get_by_label("Napola")).to_be_visible()
    expect(page.get_by_label("Asso pigliatutto")).to_be_visible()
    page.get_by_role("button", name="Create game").click()
    waiting = player.screen("waiting")
    expect(waiting).to_be_visible()
    expect(page.get_by_test_id("join-code")).to_have_text(JOIN_CODE)
    code = page.get_by_test_id("join-code").inner_text().strip()
    expect(page.get_by_role("button", name="Copy code")).to_be_visible()
    link = read_invite_link(page)
    origin = page.evaluate("location.origin")
    assert link == f"{origin}/join/{code}", f"the invite link {link!r} is not {origin}/join/{code}"
    game_id = player.api(f"/api/games/preview?code={code}")["id"]
    return Invite(code, link, game_id)


def read_invite_link(page: Page) -> str:
    invite = page.get_by_test_id("invite-link")
    expect(invite).to_be_visible()
    if invite.evaluate("e => e.tagName") in ("INPUT", "TEXTAREA"):
        return invite.input_value().strip()
    return invite.inner_text().strip()


def join_through_invite(player: Player, link: str) -> None:
    """Open the invite link, see the game's preview, and click "Join game"."""
    player.page.goto(link)
    expect(player.screen("join")).to_be_visible()
    player.page.get_by_role("button", name="Join game").click()


def start_game(players: list[Player], target_score: int = 1) -> str:
    """The first player creates a game, the other three join through its invite link; every page
    ends up at the table. The game's id."""
    first, *others = players
    invite = create_game(first, target_score)
    for player in others:
        join_through_invite(player, invite.link)
    for player in players:
        expect(player.screen("table")).to_be_visible()
    return invite.game_id


# -- playing ---------------------------------------------------------------------------------------

@dataclass
class Play:
    player: Player
    card: str
    capture: list[str]
    revision: int  # the revision the player saw when playing
    chose: bool  # picked among several captures in "Choose a capture"


@dataclass
class MatchRecord:
    plays: list[Play] = field(default_factory=list)
    choices_offered: int = 0  # turns whose legal plays had a card with several captures
    hand_ends: int = 0
    cancelled_a_choice: bool = False


def seats_of(players: list[Player], game_id: str) -> dict[int, Player]:
    view = players[0].view(game_id)
    by_name = {player.name: player for player in players}
    return {seat["seat"]: by_name[seat["name"]] for seat in view["players"]}


def in_turn_order(players: list[Player], game_id: str) -> list[Player]:
    """The players in the order they play the current hand: from the seat after its dealer (the
    first dealer is drawn from the seed)."""
    seats = seats_of(players, game_id)
    dealer = players[0].view(game_id)["dealer"]
    return [seats[(dealer + 1 + i) % 4] for i in range(4)]


def choose_play(legal: list[dict]) -> tuple[str, list[str], bool]:
    """A card with several captures when there is one (its last capture); else a card that takes
    nothing (a fuller table offers more choices later); else the first legal card. Returns
    (card, capture, several captures offered)."""
    for option in legal:
        if len(option["captures"]) > 1:
            return option["card"], option["captures"][-1], True
    for option in legal:
        if option["captures"] == [[]]:
            return option["card"], [], False
    return legal[0]["card"], legal[0]["captures"][0], False


def play_a_turn(player: Player, game_id: str, record: MatchRecord) -> Play:
    """The player on turn clicks a card (and a "Take ..." button when it has several captures)."""
    expect(player.turn_indicator).to_contain_text("Your turn")
    view = player.view(game_id)
    assert view.get("your_turn") is True, f"{player.name}'s screen says 'Your turn', the server does not"
    assert "legal" in view, "the view on turn carries no `legal` (CONTRACT: present with your_turn)"
    card, capture, several = choose_play(view["legal"])
    button = player.card_in_hand(card)
    expect(button).to_be_enabled()
    if several:
        record.choices_offered += 1
        if not record.cancelled_a_choice:
            cancel_a_capture_choice(player, card)
            record.cancelled_a_choice = True
        button.click()
        take_capture(player, view["legal"], card, capture)
    else:
        button.click()
        expect(player.capture_chooser).to_have_count(0)
    play = Play(player, card, capture, view["revision"], several)
    record.plays.append(play)
    return play


def cancel_a_capture_choice(player: Player, card: str) -> None:
    """Open the capture choice and cancel it: nothing is played, it is still your turn."""
    player.card_in_hand(card).click()
    expect(player.capture_chooser).to_be_visible()
    player.capture_chooser.get_by_role("button", name="Cancel").click()
    expect(player.capture_chooser).to_have_count(0)
    expect(player.card_in_hand(card)).to_be_enabled()
    expect(player.turn_indicator).to_contain_text("Your turn")


def take_capture(player: Player, legal: list[dict], card: str, capture: list[str]) -> None:
    """In "Choose a capture": one "Take ..." button per legal capture, each naming the cards it
    takes; click the one for ``capture``."""
    chooser = player.capture_chooser
    expect(chooser).to_be_visible()
    options = next(option["captures"] for option in legal if option["card"] == card)
    takes = chooser.get_by_role("button", name=re.compile(r"^Take\b"))
    expect(takes).to_have_count(len(options))
    expect(chooser.get_by_role("button", name="Cancel")).to_be_visible()
    names = [takes.nth(i).get_attribute("aria-label") or takes.nth(i).inner_text()
             for i in range(len(options))]
    named = [cards_named_in(name) for name in names]
    assert sorted(named) == sorted(options), (
        f"the 'Take ...' buttons {names} do not name the legal captures {options} of {card}")
    takes.nth(named.index(sorted(capture))).click()
    expect(chooser).to_have_count(0)


def expect_last_play_shown(players: list[Player], view: dict, play: Play) -> None:
    """The server took the clicked play, and every screen's last-play shows it."""
    last = view["last_play"]
    assert last is not None and last["card"] == play.card and sorted(last["capture"]) == sorted(play.capture), (
        f"{play.player.name} clicked {play.card} taking {play.capture}; the server has {last}")
    assert last["auto"] is False
    for player in players:
        expect(player.last_play).to_contain_text(card_name(play.card))
        if last["scopa"]:
            expect(player.last_play).to_contain_text("Scopa!")


def acknowledge_hand_end_everywhere(players: list[Player]) -> None:
    for player in players:
        expect(player.screen("hand-end")).to_be_visible()
        player.page.get_by_role("button", name="OK").click()


def play_until_game_over(players: list[Player], game_id: str) -> MatchRecord:
    """Click through the whole match: each step the person on turn plays; at a hand end
    everyone presses OK. Returns what happened."""
    record = MatchRecord()
    seats = seats_of(players, game_id)
    watcher = players[0]
    view = watcher.view(game_id)
    while view["status"] != "finished":
        if view["status"] == "hand_end":
            record.hand_ends += 1
            acknowledge_hand_end_everywhere(players)
            view = watcher.wait_for_view(game_id, lambda v: v["status"] != "hand_end",
                                         "the next hand after everyone pressed OK")
            continue
        play = play_a_turn(seats[view["turn"]], game_id, record)
        view = watcher.wait_for_view(
            game_id, lambda v, after=play.revision: v["revision"] > after,
            f"{play.player.name}'s click on {card_name(play.card)} reaching the server")
        if view["status"] == "playing":
            expect_last_play_shown(players, view, play)
    return record


def expect_ready_to_play(player: Player) -> None:
    """The player's screen is live and on turn: "Your turn" and the cards playable."""
    expect(player.turn_indicator).to_contain_text("Your turn")
    expect(player.hand.get_by_role("button").first).to_be_enabled()


def table_snapshot(player: Player) -> dict:
    """What the table screen shows that must survive a reload (the countdown ticks: left out)."""
    return {
        "score and hand number": player.score_board.inner_text(),
        "hand": player.hand.aria_snapshot(),
        "table": player.table.aria_snapshot(),
        "turn": player.turn_indicator.inner_text(),
        "last_play": player.last_play.inner_text(),
    }


def poll(player: Player, path: str, until: Callable[[dict], bool], what: str,
         timeout: float = 30.0, every: float = 0.25) -> dict:
    """GET ``path`` as ``player`` until ``until(answer)``; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        answer = player.api(path)
        if until(answer):
            return answer
        assert time.monotonic() < deadline, f"{what}: never happened within {timeout} s; last answer {answer}"
        time.sleep(every)


def seat(view: dict, number: int) -> dict:
    return next(p for p in view["players"] if p["seat"] == number)


def open_history(player: Player) -> None:
    player.page.get_by_role("navigation", name="Sections").get_by_role("link", name="History").click()
    expect(player.screen("history")).to_be_visible()


# -- accessibility and layout ----------------------------------------------------------------------

AXE_SCRIPT = Path(__file__).resolve().parents[2] / "web" / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def axe_violations(page: Page) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now (its script from the
    app's npm devDependencies, injected once per page)."""
    assert AXE_SCRIPT.is_file(), (f"{AXE_SCRIPT} is missing: the accessibility checks need the app's "
                                  "npm devDependencies (cd web && npm ci)")
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=AXE_SCRIPT.read_text())
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ['violations']});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(' '))}));
    }""")
    return [v for v in found if v["impact"] in SERIOUS]


def expect_accessible(page: Page, what: str) -> None:
    """No serious or critical axe-core violation on the page."""
    bad = axe_violations(page)
    assert not bad, f"axe-core on {what} ({page.url}): " + "; ".join(
        f"{v['impact']} {v['id']} ({v['help']}) at {v['nodes']}" for v in bad)


def expect_inside_viewport(page: Page, what: dict[str, Locator]) -> None:
    """Every element of every locator is visible and entirely inside the viewport, with the page
    not scrolled: seen without scrolling."""
    size = page.viewport_size
    assert size
    assert page.evaluate("window.scrollY") == 0, "the page is scrolled"
    for name, locator in what.items():
        count = locator.count()
        assert count > 0, f"{name}: not on the page at {size}"
        for i in range(count):
            box = locator.nth(i).bounding_box()
            assert box is not None, f"{name} #{i}: not visible at {size}"
            inside = (box["x"] >= -0.5 and box["y"] >= -0.5 and box["x"] + box["width"] <= size["width"] + 0.5
                      and box["y"] + box["height"] <= size["height"] + 0.5)
            assert inside, f"{name} #{i} at {box} is not inside the {size['width']}x{size['height']} viewport"


# -- against the computer ---------------------------------------------------------------------------

def start_against_bots(player: Player, target_score: int, napola: bool = True) -> str:
    """On the home screen: "Play against the computer" alone with three bots; the game's id once
    the table is open."""
    page = player.page
    player.go_home()
    page.get_by_label("Target score").fill(str(target_score))
    if not napola:
        page.get_by_label("Napola").uncheck()
    page.get_by_role("group", name="Play against the computer").get_by_role(
        "button", name="Play against the computer").click()
    expect(player.screen("table")).to_be_visible()
    return page.url.rstrip("/").rsplit("/", 1)[1]


def play_my_turns(player: Player, game_id: str, record: MatchRecord, until: Callable[[dict], bool],
                  timeout: float = 30.0) -> dict:
    """Click a card on each of the player's turns until ``until(view)``; the last view read."""
    while True:
        view = player.wait_for_view(
            game_id, lambda v: until(v) or v.get("your_turn") is True or v["status"] != "playing",
            "the player's turn or the end", timeout=timeout)
        if until(view) or view["status"] != "playing":
            return view
        play = play_a_turn(player, game_id, record)
        player.wait_for_view(game_id, lambda v, after=play.revision: v["revision"] > after,
                             f"{player.name}'s play of {play.card} reaching the server", timeout=timeout)
