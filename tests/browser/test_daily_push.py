"""Daily games and Web Push in the app (CONTRACT, Turn-based games; issue 44).

alice starts a daily game against three bots from the new-game form's pace and finds it on her
start page under "Your tables": her turn, first, with the time left. She plays on a second device;
back on the first, the table opens with "Since you left" listing the plays made meanwhile.

Chromium's DevTools protocol delivers a push to the app's service worker
(``ServiceWorker.deliverPushMessage``); the worker shows the notification (read back with
``registration.getNotifications()``), and a click on it (the worker's own ``notificationclick``
path, dispatched in the worker: DevTools cannot click an OS notification) takes the open tab to
the table. The Account setting asks the browser's permission only when turned on, says so in
words when it is refused, and with the permission granted subscribes and gives the subscription
to the server.

With ``TAVOLO_SCREENSHOTS=<dir>`` the start page with the tables, the "Since you left" notice and
the Account setting are saved at the four sizes in ``<dir>/daily/`` (else in the temporary
directory), and at each size nothing may be wider than the screen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright.sync_api import Page, expect

from testing.push_receiver import b64url
from tests.browser.pages import MatchRecord, Player, expect_accessible, person, play_a_turn, shoot

SUBJECT = "mailto:operators@tavolo.example"
VAPID_KEY = ec.generate_private_key(ec.SECP256R1())
PUBLIC_KEY = b64url(VAPID_KEY.public_key().public_bytes(serialization.Encoding.X962,
                                                        serialization.PublicFormat.UncompressedPoint))
STACK_ENV = {
    "BOT_THINK_MS": "0",
    "WEB_PUSH_SUBJECT": SUBJECT,
    "WEB_PUSH_VAPID_PRIVATE_KEY": VAPID_KEY.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
}
TIME_LEFT = re.compile(r"^(2[0-3]|1?\d) h( \d+ min)? left$")


@pytest.fixture(scope="module")
def phone(stack, browser) -> Iterator[Player]:
    made = person(stack, browser, "alice", {"width": 390, "height": 844})
    yield made
    made.page.context.close()


@pytest.fixture(scope="module")
def desktop(stack, browser) -> Iterator[Player]:
    made = person(stack, browser, "alice", {"width": 1280, "height": 800})
    yield made
    made.page.context.close()


def start_daily_against_bots(player: Player) -> str:
    """The new-game form's pace set to daily, then "Play against the computer": the game's id."""
    page = player.page
    player.go_home()
    pace = page.locator("#option-pace")
    expect(pace).to_have_value("live")
    pace.select_option(label="Daily (a day a turn)")
    computer = page.get_by_role("group", name="Play against the computer")
    expect(computer).to_contain_text("Daily (a day a turn)")
    computer.get_by_role("button", name="Play against the computer").click()
    expect(player.screen("table")).to_be_visible()
    return page.url.rstrip("/").rsplit("/", 1)[1]


def wait_for_my_turn(player: Player, game_id: str) -> dict:
    return player.wait_for_view(game_id, lambda v: v["status"] == "playing" and v.get("your_turn") is True,
                                "alice's turn", timeout=30)


def wait_until(page: Page, condition, what: str, timeout_ms: int = 10_000) -> None:
    """Let the browser run (DevTools events arrive while Playwright waits) until ``condition()``."""
    waited = 0
    while not condition():
        assert waited < timeout_ms, f"{what}: never happened within {timeout_ms} ms"
        page.wait_for_timeout(50)
        waited += 50


def push_to_worker(player: Player, payload: dict) -> None:
    """The DevTools protocol delivers a push message to the app's service worker, as the
    browser's push service would."""
    page = player.page
    match = re.match(r"^https?://[^/]+", page.url)
    assert match, page.url
    origin = match.group(0)
    page.wait_for_function("navigator.serviceWorker.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    found: dict[str, str] = {}

    def updated(event: dict) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"] == f"{origin}/" and not registration.get("isDeleted"):
                found["id"] = registration["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    wait_until(page, lambda: "id" in found, "the app's service worker registration")
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": origin, "registrationId": found["id"], "data": json.dumps(payload)})


def notifications(page: Page) -> list[dict]:
    return page.evaluate("""async () => {
        const registration = await navigator.serviceWorker.ready;
        return (await registration.getNotifications()).map(
            (n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
    }""")


def shown_notifications(page: Page, count: int) -> list[dict]:
    found: list[list[dict]] = [[]]

    def enough() -> bool:
        found[0] = notifications(page)
        return len(found[0]) == count

    wait_until(page, enough, f"{count} notification(s) shown")
    return found[0]


@pytest.mark.timeout(300)
def test_a_daily_table_on_the_start_page_and_since_you_left(phone, desktop):
    game_id = start_daily_against_bots(phone)
    view = wait_for_my_turn(phone, game_id)
    assert view["options"]["pace"] == "daily"
    # The phone has seen the table as it stands; a waiting room of a live game is listed too.
    phone.go_home()
    page = phone.page
    page.get_by_role("button", name="Create game").click()
    expect(phone.screen("waiting")).to_be_visible()
    lobby_id = page.url.rstrip("/").rsplit("/", 1)[1]
    phone.go_home()

    tables = page.get_by_test_id("your-table")
    expect(tables).to_have_count(2)
    first = tables.nth(0)
    expect(first).to_have_attribute("data-game", game_id)
    expect(first).to_have_attribute("data-pace", "daily")
    expect(first.get_by_test_id("your-turn-badge")).to_be_visible()
    expect(first.get_by_text("Daily", exact=True)).to_be_visible()
    expect(first.get_by_test_id("time-left")).to_have_text(TIME_LEFT)
    second = tables.nth(1)
    expect(second).to_have_attribute("data-game", lobby_id)
    expect(second).to_have_attribute("data-pace", "live")
    expect(second).to_contain_text("Waiting for 3 more players")
    expect(second.get_by_test_id("time-left")).to_have_count(0)
    expect_accessible(page, "the start page with your tables")
    shoot(page, "daily", "your-tables", page.get_by_test_id("your-tables"))

    # alice plays on her other device; the bots answer.
    desktop.page.goto(f"/games/{game_id}")
    expect(desktop.screen("table")).to_be_visible()
    record = MatchRecord()
    play = play_a_turn(desktop, game_id, record)
    wait_for_my_turn(desktop, game_id)

    # Back on the phone, one tap opens the table, with what happened since.
    first.get_by_role("link").click()
    expect(phone.screen("table")).to_be_visible()
    since = page.get_by_test_id("since-left")
    expect(since).to_be_visible()
    expect(since.get_by_role("heading", name="Since you left")).to_be_visible()
    lines = since.get_by_test_id("since-left-play")
    expect(lines).to_have_count(4)
    expect(lines.nth(0)).to_contain_text(f"You: {int(play.card[:2])} of ")
    expect_accessible(page, "the table with Since you left")
    shoot(page, "daily", "since-you-left", since)
    since.get_by_role("button", name="Dismiss: since you left").click()
    expect(since).to_have_count(0)
    # Seen now: opening the table again says nothing new.
    page.reload()
    expect(phone.screen("table")).to_be_visible()
    expect(phone.turn_indicator).to_contain_text("Your turn")
    expect(page.get_by_test_id("since-left")).to_have_count(0)


@pytest.mark.timeout(120)
def test_a_push_shows_a_notification_and_a_click_opens_the_table(phone):
    page = phone.page
    page.context.grant_permissions(["notifications"])
    # The daily table of the test before, or (run alone) a new one.
    phone.go_home()
    expect(page.get_by_test_id("your-tables")).to_be_visible()
    tables = page.get_by_test_id("your-table")
    expect(page.get_by_test_id("your-tables").get_by_role("status")).to_have_count(0)  # read
    game_id = tables.first.get_attribute("data-game") if tables.count() else start_daily_against_bots(phone)
    phone.go_home()
    push_to_worker(phone, {"type": "your_turn", "game": game_id, "title": "Your turn",
                           "body": "alice, your move at the daily table", "url": f"/games/{game_id}"})
    [shown] = shown_notifications(page, 1)
    assert shown["title"] == "Your turn"
    assert shown["body"] == "alice, your move at the daily table"
    assert shown["tag"] == f"game-{game_id}"
    assert shown["data"]["url"].endswith(f"/games/{game_id}")
    # A newer push of the same game replaces the notification instead of adding one.
    push_to_worker(phone, {"type": "your_turn", "game": game_id, "title": "Still your turn",
                           "body": "the table waits", "url": f"/games/{game_id}"})
    wait_until(page, lambda: [n["title"] for n in notifications(page)] == ["Still your turn"],
               "the newer notification in place of the older")

    # The tap: the worker's notificationclick, with the notification it showed.
    [worker] = page.context.service_workers
    worker.evaluate("""async () => {
        const [notification] = await self.registration.getNotifications();
        self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
    }""")
    expect(page).to_have_url(re.compile(rf"/games/{game_id}$"))
    expect(phone.screen("table")).to_be_visible()
    wait_until(page, lambda: notifications(page) == [], "the clicked notification closed")


# Chromium gives a Playwright context (off the record) no push service ("Registration failed -
# permission denied"), and this machine reaches none: the browser's push service is replaced in
# the page by one that makes subscriptions as a browser does (an ECDH P-256 key pair, a 16-byte
# auth secret, the application server key kept) with an endpoint on this machine. Everything
# else (the permission, the service worker, the server's key and endpoints) is the real one.
FAKE_PUSH_SERVICE = """
(() => {
  if (!("PushManager" in self)) return;
  const STORE = "test.push-service";
  const bytesOf = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
  const b64url = (bytes) => b64(bytes).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  const made = (record) => record && {
    endpoint: record.endpoint,
    options: { userVisibleOnly: true, applicationServerKey: bytesOf(record.key).buffer },
    toJSON: () => ({ endpoint: record.endpoint, expirationTime: null, keys: record.keys }),
    unsubscribe: async () => { localStorage.removeItem(STORE); return true; },
  };
  PushManager.prototype.getSubscription = async function () {
    return made(JSON.parse(localStorage.getItem(STORE) || "null"));
  };
  PushManager.prototype.subscribe = async function (options) {
    if (Notification.permission !== "granted") throw new DOMException("permission denied", "NotAllowedError");
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const record = {
      endpoint: `http://127.0.0.1:9/push/${b64url(crypto.getRandomValues(new Uint8Array(12)))}`,
      key: b64(options.applicationServerKey),
      keys: { p256dh: b64url(await crypto.subtle.exportKey("raw", pair.publicKey)),
              auth: b64url(crypto.getRandomValues(new Uint8Array(16))) },
    };
    localStorage.setItem(STORE, JSON.stringify(record));
    return made(record);
  };
})();
"""


def subscribed_key(page: Page) -> str | None:
    """The application server key of the browser's push subscription, base64url; None without."""
    return page.evaluate("""async () => {
        const registration = await navigator.serviceWorker.ready;
        const subscription = await registration.pushManager.getSubscription();
        if (!subscription) return null;
        const bytes = new Uint8Array(subscription.options.applicationServerKey);
        return btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    }""")


@pytest.mark.timeout(120)
def test_the_account_setting_asks_permission_only_when_turned_on(stack, browser):
    carol = person(stack, browser, "carol", {"width": 390, "height": 844})
    page = carol.page
    page.context.add_init_script(FAKE_PUSH_SERVICE)
    try:
        page.goto("/me")
        setting = page.get_by_test_id("push-setting")
        box = setting.get_by_role("checkbox", name="Notify me when it is my turn (daily games) or when I am invited")
        expect(box).not_to_be_checked()
        expect(setting.get_by_test_id("push-help")).to_contain_text("Off. Turning it on asks the browser")
        assert page.evaluate("Notification.permission") == "default", "the page asked before the player turned it on"
        # Refused: a headless browser answers the question with "denied" for the player.
        box.click()
        expect(setting.get_by_test_id("push-help")).to_contain_text("The browser blocks notifications from tavolo")
        expect(box).not_to_be_checked()
        assert subscribed_key(page) is None
        shoot(page, "daily", "push-refused", setting)

        # Allowed: the subscription is made with the server's key and given to the server.
        page.context.grant_permissions(["notifications"])
        page.reload()
        expect(box).not_to_be_checked()
        with page.expect_response(lambda r: r.url.endswith("/api/me/push") and r.request.method == "POST") as posted:
            box.click()
        assert posted.value.status == 201, posted.value.text()
        expect(box).to_be_checked()
        expect(setting.get_by_test_id("push-help")).to_contain_text("A tap opens the table")
        assert subscribed_key(page) == PUBLIC_KEY
        expect_accessible(page, "the Account page with notifications on")
        shoot(page, "daily", "push-on", setting)
        page.reload()
        expect(box).to_be_checked()

        # Off: the server forgets it, the browser drops it.
        with page.expect_response(lambda r: r.url.endswith("/api/me/push") and r.request.method == "DELETE") as deleted:
            box.click()
        assert deleted.value.status == 204, deleted.value.text()
        expect(box).not_to_be_checked()
        assert subscribed_key(page) is None
    finally:
        page.context.close()
