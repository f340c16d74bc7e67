"""Input checks: clear messages that name the field."""

from __future__ import annotations

import json

import pytest

from lobby import inputs
from services.rpc.errors import Reason, ServiceError


@pytest.mark.parametrize("name, message", [
    ("", "display_name is required"),
    ("   ", "display_name is required"),
    ("a" * 65, "display_name is longer than 64 characters"),
    ("al\nice", "display_name contains control characters"),
    ("al\x00ice", "display_name contains control characters"),
    ("al\x7fice", "display_name contains control characters"),
    ("al\u2028ice", "display_name contains control characters"),
    ("\u202eecila", "display_name contains control characters"),
])
def test_bad_display_names(name, message):
    with pytest.raises(ServiceError) as caught:
        inputs.display_name(name)
    assert caught.value.reason is Reason.INVALID_ARGUMENT
    assert caught.value.message == message


def test_display_names_are_trimmed_and_may_be_any_script():
    assert inputs.display_name("  alice ") == "alice"
    assert inputs.display_name("é" * 64) == "é" * 64
    assert inputs.display_name("Gigi 🃏 D'Alessio") == "Gigi 🃏 D'Alessio"


@pytest.mark.parametrize("member_id, message", [
    ("", "member_id is required"),
    ("x" * 513, "member_id is longer than 512 characters"),
    ("bob\r\n", "member_id contains control characters"),
])
def test_bad_member_ids(member_id, message):
    with pytest.raises(ServiceError) as caught:
        inputs.member_id(member_id)
    assert (caught.value.reason, caught.value.message) == (Reason.INVALID_ARGUMENT, message)


def test_member_ids_are_opaque():
    assert inputs.member_id("default:00u1-ab@c") == "default:00u1-ab@c"


@pytest.mark.parametrize("text, message", [
    ("{", "Invalid options: not valid JSON"),
    ("[1, 2]", "Invalid options: must be a JSON object"),
    ("11", "Invalid options: must be a JSON object"),
    ('{"target_score": NaN}', "Invalid options: not valid JSON (NaN is not a JSON number"),
    (json.dumps({"x": "y" * 20000}), "Invalid options: longer than 16384 bytes"),
    ('{"x": ' + "[" * 5000 + "]" * 5000 + "}", "Invalid options: not valid JSON (nested too deeply)"),
])
def test_malformed_options(text, message):
    with pytest.raises(ServiceError) as caught:
        inputs.options_json(text)
    assert caught.value.reason is Reason.INVALID_OPTIONS
    assert caught.value.message.startswith(message)


def test_empty_options_mean_all_defaults():
    assert inputs.options_json("") == "{}"
    assert inputs.options_json("  ") == "{}"
    assert json.loads(inputs.options_json('{"napola": false}')) == {"napola": False}


def test_game_ids_are_canonical_uuids_in_any_case():
    game_id = "6f1c2d9e-8a7b-4c3d-9e8f-0a1b2c3d4e5f"
    assert inputs.game_id(game_id) == game_id
    assert inputs.game_id(game_id.upper()) == game_id
    assert inputs.game_id("6f1c2d9e8a7b4c3d9e8f0a1b2c3d4e5f") is None  # not the canonical form
    assert inputs.game_id("nope") is None
    with pytest.raises(ServiceError) as caught:
        inputs.game_id("", "table_id")
    assert caught.value.message == "table_id is required"
