"""Logging set-up: the application at LOG_LEVEL, its dependencies capped at WARNING.

LOGGING_CONFIG (a dictConfig file, YAML or JSON) replaces this default entirely.
"""

from __future__ import annotations

import json
import logging
import logging.config
from pathlib import Path

import yaml

from services.config import ConfigError, Settings

APP_LOGGERS = ("services", "gateway", "lobby", "game", "deadlines", "stats", "tavolo")


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
    logging.basicConfig(
        level=logging.WARNING,
        format=f"%(asctime)s %(levelname)s {component} %(name)s: %(message)s",
        force=True,
    )
    for name in APP_LOGGERS:
        logging.getLogger(name).setLevel(settings.log_level)
