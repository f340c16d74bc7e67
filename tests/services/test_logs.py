"""LOG_FORMAT: text for people, one JSON object a line for log pipelines, trace ids inside a span."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider

from services.observability.logs import JsonFormatter, TextFormatter

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = """
import logging
from services.config import Settings
from services.observability.logs import configure_logging
configure_logging(Settings.from_env(), "game")
logging.getLogger("game.tables").info("table %s created", "t-1")
logging.getLogger("asyncio").info("a dependency's detail")
try:
    raise ValueError("boom")
except ValueError:
    logging.getLogger("game.tables").exception("it failed")
"""


def _record(message: str = "table %s created", *args, exc_info=None) -> logging.LogRecord:
    return logging.LogRecord("game.tables", logging.INFO, __file__, 1, message, args or ("t-1",),
                             exc_info)


def _run(log_format: str) -> list[str]:
    env = {**os.environ, "LOG_FORMAT": log_format, "LOG_LEVEL": "INFO"}
    result = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=True)
    return result.stderr.splitlines()


def test_json_lines_are_one_object_each_with_the_component():
    lines = _run("json")
    entries = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(entries) == 2   # the dependency's INFO is capped at WARNING
    created, failed = entries
    assert created["message"] == "table t-1 created"
    assert (created["level"], created["service"], created["logger"]) == ("INFO", "game",
                                                                        "game.tables")
    assert created["time"].endswith("Z") and "T" in created["time"]
    assert "trace_id" not in created   # outside any span
    assert failed["level"] == "ERROR" and "ValueError: boom" in failed["exception"]
    # The traceback is inside the object: every line of the output is JSON.
    assert all(line.startswith("{") for line in lines)


def test_text_is_the_default_and_stays_one_line_per_record():
    lines = _run("text")
    assert any(line.endswith("INFO game game.tables: table t-1 created") for line in lines)


def test_inside_a_span_both_formats_carry_its_trace_and_span_ids():
    tracer = TracerProvider().get_tracer("test")
    with tracer.start_as_current_span("request") as span:
        context = span.get_span_context()
        entry = json.loads(JsonFormatter("gateway").format(_record()))
        line = TextFormatter("gateway").format(_record())
    assert entry["trace_id"] == f"{context.trace_id:032x}"
    assert entry["span_id"] == f"{context.span_id:016x}"
    assert line.endswith(f"table t-1 created trace_id={context.trace_id:032x} "
                         f"span_id={context.span_id:016x}")
