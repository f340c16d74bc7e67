""""Analyse my play" in the browser: a person finishes a practice match against three bots, asks
for the analysis on the game-over screen, watches it wait and finish, and on a phone steps through
the replay in History to a marked mistake, with its verdict and the better play beside it.

The person plays carelessly on purpose (the most valuable card that takes nothing laid on the
table, the smallest capture when one is forced), so the analysis has mistakes to mark. Bots play
at once (BOT_THINK_MS 0); turns keep their default time, so every play of the person is theirs, not
an auto-play. With ``TAVOLO_SCREENSHOTS=<dir>`` the screenshots at the four sizes are saved in
``<dir>/analysis/`` (else under the temporary folder's ``tavolo-browser/analysis/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.pages import (
    Player,
    card_name,
    expect_accessible,
    person,
    shoot,
    start_against_bots,
    take_capture,
)

STACK_ENV = {"BOT_THINK_MS": "0"}
PHONE = {"width": 360, "height": 640}
MISTAKES = ("inaccuracy", "mistake", "blunder")
WORDS = {"best": "Best play", "good": "Good play", "inaccuracy": "Inaccuracy", "mistake": "Mistake",
         "blunder": "Blunder"}
ITALIAN = {"best": "La giocata migliore", "good": "Buona giocata", "inaccuracy": "Imprecisione",
           "mistake": "Errore", "blunder": "Errore grave"}
# What laying a card on the table gives away, roughly as a scopone player counts it.
GIVEN_AWAY = {"07D": 10}


@pytest.fixture(scope="module")
def alice(stack, browser) -> Iterator[Player]:
    player = person(stack, browser, "alice", {"width": 390, "height": 844})
    yield player
    player.page.context.close()


def careless(legal: list[dict]) -> tuple[str, list[str]]:
    """The play a careless player makes: the most valuable card laid on the table (a 7, a denaro),
    or, when every card must take, the smallest capture."""
    def giveaway(card: str) -> int:
        return GIVEN_AWAY.get(card, 0) + (5 if card.startswith("07") else 0) + (2 if card.endswith("D") else 0)

    options = [(option["card"], capture) for option in legal for capture in option["captures"]]
    return max(options, key=lambda o: (not o[1], giveaway(o[0]) if not o[1] else -len(o[1]), o[0]))


def play_carelessly(player: Player, game_id: str) -> int:
    """Click a careless card at each of the person's turns and OK at each hand end until the match
    is over; how many cards the person played."""
    played = 0
    while True:
        view = player.wait_for_view(
            game_id, lambda v: v["status"] in ("hand_end", "finished") or v.get("your_turn") is True,
            "the person's turn, a hand end or the end of the match", timeout=30)
        if view["status"] == "finished":
            return played
        if view["status"] == "hand_end":
            expect(player.screen("hand-end")).to_be_visible()
            player.page.get_by_role("button", name="OK").click()
            player.wait_for_view(game_id, lambda v: v["status"] != "hand_end", "the next hand after OK", timeout=30)
            continue
        card, capture = careless(view["legal"])
        player.card_in_hand(card).click()
        options = next(o["captures"] for o in view["legal"] if o["card"] == card)
        if len(options) > 1:
            take_capture(player, view["legal"], card, capture)
        played += 1
        player.wait_for_view(game_id, lambda v, after=view["revision"]: v["revision"] > after,
                             f"the play of {card} reaching the server")


def replay_place(log: dict, number: int) -> tuple[int, int]:
    """Where move ``number`` shows in the replay: (hand from 1, play of the hand from 1)."""
    plays = [m["number"] for m in log["moves"] if m["type"] in ("play", "auto_play")]
    index = plays.index(number)
    return index // 40 + 1, index % 40 + 1


@pytest.mark.timeout(300)
def test_a_finished_practice_match_is_analysed_and_the_replay_steps_to_a_marked_mistake(alice):
    page = alice.page
    game_id = start_against_bots(alice, target_score=1)
    played = play_carelessly(alice, game_id)
    assert played >= 10, f"alice holds 10 cards a hand; she played {played}"

    # The game over: "Analyse my play", a calm line while it waits, then the figures.
    over = alice.screen("game-over")
    expect(over).to_be_visible()
    panel = over.get_by_test_id("analysis-panel")
    expect(panel).to_have_attribute("data-state", "none")
    page.evaluate("""panel => {
        window.analysisStates = [panel.dataset.state];
        new MutationObserver(() => window.analysisStates.push(panel.dataset.state))
            .observe(panel, {attributes: true, attributeFilter: ['data-state']});
    }""", panel.element_handle())
    panel.get_by_role("button", name="Analyse my play").click()
    expect(panel).to_have_attribute("data-state", "done", timeout=120_000)
    states = page.evaluate("window.analysisStates")
    assert "waiting" in states and states[-1] == "done", f"the panel went through {states}"

    analysis = alice.api(f"/api/games/{game_id}/analysis")
    assert analysis["status"] == "done" and analysis["seat"] == 0, analysis
    summary = analysis["summary"]
    expect(panel.get_by_test_id("analysis-accuracy")).to_have_text(f"{summary['accuracy']}%")
    figures = panel.get_by_test_id("analysis-figures")
    for symbol, key, one, many in (("?!", "inaccuracies", "inaccuracy", "inaccuracies"),
                                   ("?", "mistakes", "mistake", "mistakes"), ("??", "blunders", "blunder", "blunders")):
        n = summary[key]
        expect(figures).to_contain_text(f"{symbol} {n} {one if n == 1 else many}")
    assert len(analysis["plays"]) == played, "every play of the seat is listed"
    shoot(page, "analysis", "game-over", panel)

    marked = [p for p in analysis["plays"] if not p["auto"] and p.get("verdict") in MISTAKES]
    assert marked, (f"alice played carelessly, yet no play was marked a mistake: {analysis['plays']}; "
                    "the verdicts' thresholds (docs/analysis.md) or the careless plays need a look")
    first = min(marked, key=lambda p: p["number"])

    # History's replay on a phone: "Next mistake" goes to the first marked play.
    panel.get_by_role("link", name="Step through your plays").click()
    detail = alice.screen("match")
    expect(page).to_have_url(re.compile(rf"/history/{game_id}$"))
    page.set_viewport_size(PHONE)
    expect(detail.get_by_test_id("analysis-panel")).to_have_attribute("data-state", "done")  # kept
    expect(detail.get_by_test_id("replay-play")).to_have_text("Play 0 of 40")
    detail.get_by_role("button", name="Next mistake").click()
    hand, play = replay_place(alice.api(f"/api/games/{game_id}/log"), first["number"])
    expect(detail.get_by_test_id("replay-hand")).to_have_text(re.compile(rf"^Hand {hand} of \d+$"))
    expect(detail.get_by_test_id("replay-play")).to_have_text(f"Play {play} of 40")
    verdict = detail.get_by_test_id("play-verdict")
    expect(verdict).to_have_attribute("data-verdict", first["verdict"])
    expect(verdict).to_contain_text(WORDS[first["verdict"]])
    expect(verdict.get_by_role("group", name=re.compile(rf"^You played: {re.escape(card_name(first['played']['card']))}\b"))).to_be_visible()
    expect(verdict.get_by_role("group", name=re.compile(rf"^Better: {re.escape(card_name(first['best']['card']))}\b"))).to_be_visible()
    marks = detail.get_by_role("list", name="Your plays in this hand")
    expect(marks.locator("[aria-current=step]")).to_have_count(1)
    expect_accessible(page, "the replay at a marked mistake")
    verdict.scroll_into_view_if_needed()
    shoot(page, "analysis", "mistake", verdict)

    # In Italian too, and still within a phone's width (the words are longer).
    page.get_by_role("button", name="Italiano").click()
    try:
        expect(verdict).to_contain_text(ITALIAN[first["verdict"]])
        expect(detail.get_by_role("button", name="Errore successivo")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(page, "analysis", "mistake-italian", verdict)
    finally:
        page.get_by_role("button", name="English").click()
