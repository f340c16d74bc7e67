"""docs/websocket.md: every code, message and rule of CONTRACT.md's WebSocket section, with valid examples."""

from __future__ import annotations

import re

import pytest

from gateway.contract.socket import WS_ERROR_CODES
from tests.gateway_contract.support import REPO_DOCS, errors_of, json_examples, schema_ref, ws_error_codes


def test_every_error_code_of_the_contract_is_explained(contract, websocket_doc):
    codes = ws_error_codes(contract)
    assert "concurrent_move" in codes and "action" not in codes  # the parser works
    explained = set(re.findall(r"^\| `(\w+)` \|", websocket_doc, re.MULTILINE))
    assert codes <= set(WS_ERROR_CODES)  # and the codes tavolo adds: gateway.contract.socket's
    assert explained == set(WS_ERROR_CODES)


def test_every_message_type_and_action_is_described(websocket_doc):
    for heading in ("### `state`", "### `game_over`", "### `error`", "### `play`", "### `ack`", "### `revision`"):
        assert heading in websocket_doc


def test_the_json_examples_are_valid_messages(document, websocket_doc):
    examples = json_examples(websocket_doc)
    assert {e.get("type") for e in examples} >= {"state", "game_over", "error"}
    assert {e.get("action") for e in examples} >= {"play", "ack", "state"}
    for example in examples:
        schema = schema_ref("WsServerMessage" if "type" in example else "WsClientMessage")
        assert not errors_of(document, schema, example), example


def test_the_contract_client_messages_are_valid(contract, document):
    messages = [v for v in json_examples(contract) if isinstance(v, dict) and "action" in v]
    assert len(messages) == 4
    for message in messages:
        assert not errors_of(document, schema_ref("WsClientMessage"), message), message


@pytest.mark.parametrize("fact", [
    "401", "403", "404", "Origin", "4096 bytes", "1009", "Any number of sockets per seat",
    "The game has not started", "stays open", "tavolo_session", '"revision": N',
])
def test_the_connection_rules_are_stated(websocket_doc, fact):
    assert fact in websocket_doc


def test_the_docs_name_no_machine_path():
    for doc in REPO_DOCS.glob("*.md"):
        assert not re.search(r"/(?:work|tmp|home|root)/", doc.read_text(encoding="utf-8")), doc
