"""The served OpenAPI document against the gateway that serves it (issue 41): schemathesis
generates requests from the document, valid and invalid, logged in with a session cookie, and
checks every answer: no 500, a documented status, a body of the documented schema, a valid
request accepted, an invalid one refused, the event stream's events as declared.

Bounded for the suite: a fixed number of examples per operation, generated deterministically (the
same requests on every run), one worker, the event stream read to its first event.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from testing.players import Player
from testing.stack import Stack

EXAMPLES_PER_OPERATION = 20
# The run takes about 30 s on 2 quiet cores, twice that on a busy machine; a hang fails the test,
# not the suite.
RUN_SECONDS = 180

# Left out, each tested where it can be:
EXCLUDED = (
    "logout",          # GET /auth/logout ends the session the run uses (tests/gateway_auth)
    "deleteMe",        # DELETE /api/me too, and erases its member (tests/gateway/test_erasure.py)
    "openGameSocket",  # a WebSocket upgrade, which schemathesis does not speak (tests/gateway)
    "openWatchSocket",  # the spectators' WebSocket, likewise (tests/gateway/test_spectators.py)
    "loginCallback",   # valid only with the state of a login in progress, a secret (tests/gateway_auth)
)

# Warnings that mean the run did not test what it should: the cookie was not sent or not taken,
# a filter names no operation, the document uses what the generator cannot read.
FAIL_ON = ("missing_auth", "unused_openapi_auth", "unmatched_filter", "unsupported_regex",
           "unresolvable_reference", "missing_deserializer", "validation_mismatch", "rate_limited")


def _config(session: str) -> str:
    fail_on = ", ".join(f'"{name}"' for name in FAIL_ON)
    return f"""\
workers = 1
max-stream-events = 1
[generation]
deterministic = true
max-examples = {EXAMPLES_PER_OPERATION}
[warnings]
fail-on = [{fail_on}]
[auth.openapi.session]
api_key = "{session}"
# The cursor is opaque: only a page's next_cursor is one (anything else is 400 by CONTRACT), and
# no schema can say which those are. Empty is the first page.
[parameters]
"query.cursor" = ""
"""


@pytest.fixture(scope="module")
def stack():
    running = Stack().start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def session(stack) -> str:
    async def log_in() -> str:
        player = await Player(stack, "fuzzer").login()
        cookie = player.cookie
        await player.close()
        assert cookie
        return cookie

    return asyncio.run(log_in())


@pytest.mark.timeout(RUN_SECONDS + 60)  # and the stack's start
def test_the_gateway_answers_as_its_openapi_document_says(stack, session, tmp_path):
    config = tmp_path / "schemathesis.toml"
    config.write_text(_config(session))
    excluded = [arg for name in EXCLUDED for arg in ("--exclude-operation-id", name)]
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run",
         f"{stack.gateway_url}/api/openapi.json", "--checks", "all", *excluded],
        capture_output=True, text=True, timeout=RUN_SECONDS, cwd=tmp_path,
        env={**stack.env, "NO_COLOR": "1"})
    took = time.monotonic() - started
    assert run.returncode == 0, f"{run.stdout[-20000:]}\n{run.stderr[-5000:]}"
    lines = run.stdout.splitlines()
    cases = lines[lines.index("Test cases:") + 1].strip()  # "1449 generated, 1449 passed, 16 skipped"
    assert "failure" not in cases, cases
    print(f"schemathesis: {cases} in {took:.0f} s")
