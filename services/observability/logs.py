"""Logging set-up: the application at LOG_LEVEL, its dependencies capped at WARNING, one line a
record as LOG_FORMAT says (``text`` for people, ``json`` for log pipelines).

Inside a traced request or call each line carries its trace and span ids, so a log search
leads to the trace and back. LOGGING_CONFIG (a dictConfig file, YAML or JSON) replaces this
default entirely.
"""

from __future__ import annotations

import json
import logging
import logging.config
import sys
from datetime import UTC, datetime
from pathlib import Path

import yaml

from services.config import ConfigError, Settings

APP_LOGGERS = ("services", "launcher", "gateway", "lobby", "game", "deadlines", "stats", "bots", "tavolo")


def configure_logging(settings: Settings, component: str) -> None:
    if settings.logging_config:
        path = Path(settings.logging_config)
        try:
            text = path.read_text()
            config = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
            logging.config.dictConfig(config)
        except (OSError, ValueError, TypeError, yaml.YAMLError) as error:
            raise ConfigError(f"LOGGING_CONFIG {path}: {error}") from None
        return
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(component) if settings.log_format == "json"
                         else TextFormatter(component))
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    for name in APP_LOGGERS:
        logging.getLogger(name).setLevel(settings.log_level)


def trace_ids() -> tuple[str, str] | None:
    """The current span's (trace id, span id) in hex, None outside a span.

    OpenTelemetry is only looked at once something imported it (telemetry is on): logging
    never loads it.
    """
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return f"{context.trace_id:032x}", f"{context.span_id:016x}"


class TextFormatter(logging.Formatter):
    """``<time> <LEVEL> <component> <logger>: <message>``, then ``trace_id=... span_id=...``
    inside a span."""

    def __init__(self, component: str):
        super().__init__(f"%(asctime)s %(levelname)s {component} %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = trace_ids()
        if ids is None:
            return line
        first, newline, rest = line.partition("\n")  # after the message, before a traceback
        return f"{first} trace_id={ids[0]} span_id={ids[1]}{newline}{rest}"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (RFC 3339, UTC), ``level``, ``service``, ``logger``,
    ``message``, then ``trace_id`` and ``span_id`` inside a span, ``exception`` with a
    traceback."""

    def __init__(self, component: str):
        super().__init__()
        self.component = component

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
                    .replace("+00:00", "Z"),
            "level": record.levelname,
            "service": self.component,
            "logger": record.name,
            "message": record.getMessage(),
        }
        ids = trace_ids()
        if ids is not None:
            entry["trace_id"], entry["span_id"] = ids
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)
