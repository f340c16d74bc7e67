"""The lock files in requirements/ agree with pyproject.toml's pins (`make lock` was run after a
pin changed), with each other, and carry hashes: `make` and the image install from them alone."""

from __future__ import annotations

import pathlib
import re
import tomllib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
LOCKS = REPO / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(requirements: list[str]) -> dict[str, str]:
    found = {}
    for line in requirements:
        match = PIN.match(line.strip())
        assert match, f"not pinned with ==: {line!r}"
        found[normalized(match[1])] = match[2]
    return found


def locked(file: str) -> dict[str, str]:
    """package -> version of a lock file; every package is followed by at least one hash."""
    text = (LOCKS / file).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text)
    found = {}
    for entry in entries:
        match = PIN.match(entry)
        if match is None:
            continue
        assert "--hash=sha256:" in entry, f"{file}: {match[1]} has no hash"
        found[normalized(match[1])] = match[2]
    return found


PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]
# Which pins each lock file must hold: what `make run`, the image and `make test` install.
EXPECTED = {
    "runtime.txt": PROJECT["dependencies"],
    "run.txt": PROJECT["dependencies"] + EXTRAS["codegen"],
    "test.txt": PROJECT["dependencies"] + EXTRAS["codegen"] + EXTRAS["test"] + EXTRAS["lint"],
}


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_every_pin_of_pyproject_is_locked_at_its_version(file: str) -> None:
    lock = locked(file)
    wrong = {name: (version, lock.get(name)) for name, version in pins(EXPECTED[file]).items()
             if lock.get(name) != version}

    assert not wrong, f"requirements/{file} is stale (run `make lock`): {wrong}"


def test_the_lock_files_agree_on_every_package_they_share() -> None:
    runtime, run, test = locked("runtime.txt"), locked("run.txt"), locked("test.txt")

    assert runtime.items() <= run.items()
    assert run.items() <= test.items()


def test_the_runtime_lock_holds_no_test_or_build_tool() -> None:
    runtime = locked("runtime.txt")

    assert not {"pytest", "playwright", "grpcio-tools", "ruff", "mypy", "helm-python-sdk"} & runtime.keys()
