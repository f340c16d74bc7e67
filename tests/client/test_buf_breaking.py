"""`make lint` runs `buf breaking` against the last release (the tag protos/RELEASED names),
so a change that breaks a released contract fails CI: here a renamed field is refused, and
an added one is not."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUF = REPO / "tools" / "node_modules" / ".bin" / "buf"
GAME_PROTO = Path("tavolo/game/v1/game.proto")
FIELD = "  string action_json = 3;\n"


def released() -> str:
    return (REPO / "protos" / "RELEASED").read_text().strip()


def breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    """What `make lint` runs (Makefile, BREAKING_AGAINST), on the protos at ``protos``."""
    assert BUF.exists(), "buf is installed by `make lint` (tools/package.json)"
    return subprocess.run([str(BUF), "breaking", str(protos), "--against",
                           f".git#ref={released()},subdir=protos"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.fixture
def protos(tmp_path: Path) -> Path:
    copy = tmp_path / "protos"
    shutil.copytree(REPO / "protos", copy)
    assert FIELD in (copy / GAME_PROTO).read_text(), "the field this test renames is gone"
    return copy


def test_the_release_is_a_tag_of_this_branch() -> None:
    assert released().startswith("v"), "protos/RELEASED names a release's tag, v<version>"
    found = subprocess.run(["git", "merge-base", "--is-ancestor", f"refs/tags/{released()}", "HEAD"], cwd=REPO,
                           capture_output=True, text=True)
    assert found.returncode == 0, (f"protos/RELEASED ({released()}) is not a tag of an ancestor of HEAD "
                                   f"(a shallow clone has no history or tags: fetch them): {found.stderr}")


def test_a_renamed_field_is_refused(protos: Path) -> None:
    proto = protos / GAME_PROTO
    proto.write_text(proto.read_text().replace(FIELD, "  string move_json = 3;\n"))

    result = breaking(protos)

    assert result.returncode != 0
    assert 'changed name from "action_json" to "move_json"' in result.stdout + result.stderr


def test_an_added_field_passes(protos: Path) -> None:
    proto = protos / GAME_PROTO
    proto.write_text(proto.read_text().replace(
        FIELD, FIELD + "  // A note that changes nothing.\n  string note = 99;\n"))

    result = breaking(protos)

    assert result.returncode == 0, result.stdout + result.stderr
