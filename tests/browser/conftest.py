"""The browser tests' shared pieces: the whole platform on real Redis and Postgres serving the
built app, Debian's Chromium driven by Playwright (sync API), and four people logged in by hand.

A module may set ``STACK_ENV`` (a dict) for its stack's extra environment, e.g. a short
TURN_TIMEOUT_SECONDS. On a failure every open page is saved as a screenshot in the temporary
directory (``<tmp>/tavolo-browser/``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from testing.stack import real_stack
from tests.browser.pages import Player, log_in

REPO = Path(__file__).resolve().parents[2]
WEB_DIST = REPO / "web" / "dist"
CHROMIUM = "/usr/bin/chromium"  # Debian's package; never `playwright install`
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
NAMES = ("alice", "bob", "carol", "dave")
SCREENSHOTS = Path(tempfile.gettempdir()) / "tavolo-browser"

# Generous but bounded: a step that does not happen within this fails the test.
expect.set_options(timeout=10_000)


def require_built_app() -> None:
    """The tests drive the compiled app the gateway serves: fail (never skip) without it."""
    if not (WEB_DIST / "index.html").is_file():
        pytest.fail("web/dist/index.html does not exist: the browser tests need the built web app; "
                    "run `make web` / npm run build first (cd web && npm ci && npm run build)",
                    pytrace=False)


@pytest.fixture(scope="module")
def stack(request):
    """The whole platform as real processes on real Redis and Postgres, serving web/dist; one per
    module, with the module's ``STACK_ENV``."""
    require_built_app()
    env = {"STATIC_DIR": str(WEB_DIST), "DUMMY_GAME": "false",
           **getattr(request.module, "STACK_ENV", {})}
    with real_stack(env, label="browser") as running:
        yield running


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, one per module."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} does not exist: the browser tests drive Debian's Chromium "
                    "(apt-get install chromium; never `playwright install`)", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def players(stack, browser):
    """alice, bob, carol and dave, each in a browser context of their own, logged in by clicking
    "Log in with default" and signing in at the development provider; each on the home screen."""
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


@pytest.fixture
def home(players):
    """The four players, every page back on the home screen (a test starts from there)."""
    for player in players:
        player.go_home()
    return players


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and "browser" in item.fixturenames and "browser" in item.funcargs:
        _screenshot_every_page(item.funcargs["browser"], item.name, report)
    return report


def _screenshot_every_page(browser, test_name: str, report) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = []
    for c, context in enumerate(browser.contexts):
        for p, page in enumerate(context.pages):
            path = SCREENSHOTS / f"{test_name}-{report.when}-{c}-{p}.png"
            try:
                page.screenshot(path=str(path), full_page=True)
                saved.append(f"{path} ({page.url})")
            except Exception as error:  # noqa: BLE001 - a closed page must not hide the real failure
                saved.append(f"{path}: no screenshot ({error})")
    if saved:
        report.sections.append(("screenshots", "\n".join(saved)))
