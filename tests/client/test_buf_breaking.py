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


def released_ref() -> str:
    """What `make lint` compares with (Makefile, RELEASED_REF): the tag, or in a clone without
    tags the release's commit, whose subject is "Release <tag>"."""
    return subprocess.run(["make", "-s", "--no-print-directory", "-f", "Makefile", "print-released-ref"],
                          cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def breaking(protos: Path) -> subprocess.CompletedProcess[str]:
    """What `make lint` runs (Makefile, BREAKING_AGAINST), on the protos at ``protos``."""
    assert BUF.exists(), "buf is installed by `make lint` (tools/package.json)"
    return subprocess.run([str(BUF), "breaking", str(protos), "--against",
                           f".git#ref={released_ref()},subdir=protos"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.fixture
def protos(tmp_path: Path) -> Path:
    copy = tmp_path / "protos"
    shutil.copytree(REPO / "protos", copy)
    assert FIELD in (copy / GAME_PROTO).read_text(), "the field this test renames is gone"
    return copy


def test_the_release_is_an_ancestor_of_this_branch() -> None:
    assert released().startswith("v"), "protos/RELEASED names a release's tag, v<version>"
    assert released_ref(), f"no tag {released()} and no commit 'Release {released()}' in this history"
    found = subprocess.run(["git", "merge-base", "--is-ancestor", released_ref(), "HEAD"], cwd=REPO,
                           capture_output=True, text=True)
    assert found.returncode == 0, (f"protos/RELEASED ({released()}) is not an ancestor of HEAD "
                                   f"(a shallow clone has no history: fetch it): {found.stderr}")


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
