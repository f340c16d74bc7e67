"""Lighthouse on the table page, as a phone sees it: ``python -m tests.browser.audit`` (``make audit``).

Starts the whole platform (as the browser tests do), logs a person in with Debian's Chromium,
opens a game against three bots (they play up to the person's turn, then the table waits), and runs npm
``lighthouse`` 12 (web/audit, ``npm ci`` there first) on ``/games/<id>`` with its mobile profile
and the person's session cookie. Prints the accessibility and performance scores and what
costs points; fails below ACCESSIBILITY_MIN or PERFORMANCE_MIN. ``--json FILE`` keeps the report.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from testing.stack import real_stack
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, WEB_DIST, require_built_app
from tests.browser.pages import Player, log_in, start_against_bots

REPO = Path(__file__).resolve().parents[2]
LIGHTHOUSE = REPO / "web" / "audit" / "node_modules" / ".bin" / "lighthouse"
ACCESSIBILITY_MIN = 95
PERFORMANCE_MIN = 90
SESSION_COOKIE = "tavolo_session"


def open_a_table(base_url: str) -> tuple[str, str]:
    """(the table's URL, the session cookie's value) of a person at a game against three bots."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(base_url=base_url)
            page = context.new_page()
            log_in(page, "alice")
            game_id = start_against_bots(Player("alice", page), target_score=11)
            cookie = next(c["value"] for c in context.cookies() if c["name"] == SESSION_COOKIE)
            return f"{base_url}/games/{game_id}", cookie
        finally:
            browser.close()


def lighthouse(url: str, cookie: str, report: Path) -> dict:
    """Run Lighthouse's mobile audit of accessibility and performance; its JSON report."""
    if not LIGHTHOUSE.is_file():
        sys.exit(f"{LIGHTHOUSE} is missing: run `cd web/audit && npm ci` first")
    command = [
        str(LIGHTHOUSE), url,
        f"--chrome-path={CHROMIUM}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage",
        "--form-factor=mobile",
        "--only-categories=accessibility,performance",
        f"--extra-headers={json.dumps({'Cookie': f'{SESSION_COOKIE}={cookie}'})}",
        "--output=json", f"--output-path={report}", "--quiet",
    ]
    subprocess.run(command, check=True, timeout=300)
    return json.loads(report.read_text())


def summary(result: dict) -> tuple[int, int, list[str]]:
    """(accessibility, performance, the audits that cost points)."""
    categories = result["categories"]
    scores = {name: round((categories[name]["score"] or 0) * 100) for name in ("accessibility", "performance")}
    losses = []
    for name in ("accessibility", "performance"):
        for ref in categories[name]["auditRefs"]:
            audit = result["audits"][ref["id"]]
            if ref["weight"] > 0 and audit.get("score") is not None and audit["score"] < 0.9:
                value = audit.get("displayValue", "")
                losses.append(f"{name}: {audit['id']} {audit['score']:.2f} {value}".rstrip())
    return scores["accessibility"], scores["performance"], losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="keep Lighthouse's JSON report in this file")
    args = parser.parse_args()
    require_built_app()
    env = {"STATIC_DIR": str(WEB_DIST), "DUMMY_GAME": "false"}
    with real_stack(env, label="audit") as stack, tempfile.TemporaryDirectory() as folder:
        url, cookie = open_a_table(stack.gateway_url)
        report = args.json or Path(folder) / "lighthouse.json"
        result = lighthouse(url, cookie, report)
    accessibility, performance, losses = summary(result)
    metrics = result["audits"]
    timings = ", ".join(f"{key} {metrics[key]['displayValue']}" for key in
                        ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time",
                         "cumulative-layout-shift") if key in metrics)
    print(f"Lighthouse {result['lighthouseVersion']}, mobile, the table page {url.rsplit('/', 2)[0]}/games/<id>")
    print(f"  accessibility {accessibility} (at least {ACCESSIBILITY_MIN})")
    print(f"  performance   {performance} (at least {PERFORMANCE_MIN}): {timings}")
    for loss in losses:
        print(f"  - {loss}")
    if accessibility < ACCESSIBILITY_MIN or performance < PERFORMANCE_MIN:
        sys.exit("the table page is below the audit's minimum scores")


if __name__ == "__main__":
    main()
