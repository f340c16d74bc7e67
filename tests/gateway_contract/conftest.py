"""CONTRACT.md as test input: the docs are checked against the contract's own text.

The repository keeps a copy of the fixed public contract in docs/CONTRACT.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.openapi import spec
from tests.gateway_contract.support import registry_game_types

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / "docs" / "CONTRACT.md"


@pytest.fixture(scope="session")
def contract() -> str:
    return CONTRACT.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def document() -> dict:
    """The document for the catalogue the game service's registry offers (scopone scientifico)."""
    return spec(registry_game_types())


@pytest.fixture(scope="session")
def websocket_doc() -> str:
    return (REPO / "docs" / "websocket.md").read_text(encoding="utf-8")
