"""What a release publishes, made as docs/releasing.md makes it, from a clean clone of HEAD:
both sdists build and carry the protos, a wheel builds from each sdist in an isolated build
environment (which generates the gRPC stubs), each installs into a fresh virtual environment with
its dependencies from the package index and works; the release check passes with the release's
tag, and fails without it.

The builds and installs use uv (as `make lock` and `make dist`): pip's isolated builds and
installs of the same take about four minutes here, uv's well under one."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from launcher.cli import COMPONENTS
from services.migrations import COMPONENTS as MIGRATED

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
UV = VENV_BIN / "uv"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
TAG = f"v{VERSION}"
PROTO_MODULES = sorted(".".join(path.relative_to(REPO / "protos").with_suffix("").parts)
                       for path in (REPO / "protos").rglob("*.proto"))
# Nothing of the caller's environment: only what the fresh virtual environments hold.
OWN_ENVIRONMENT = {key: value for key, value in os.environ.items()
                   if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
GIT_USER = ["-c", "user.name=tavolo tests", "-c", "user.email=tests@tavolo.invalid"]


def run(*args: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(arg) for arg in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=OWN_ENVIRONMENT)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """HEAD, cloned: only what is committed, nothing generated or installed."""
    where = tmp_path_factory.mktemp("clone") / "tavolo"
    run("git", "clone", "--quiet", "--no-hardlinks", REPO, where, cwd=where.parent)
    run("git", "checkout", "--quiet", subprocess.check_output(["git", "rev-parse", "HEAD"], cwd=REPO,
                                                               text=True).strip(), cwd=where)
    return where


@pytest.fixture(scope="module")
def dists(clone, tmp_path_factory) -> dict[str, Path]:
    """The sdist of each package from the clone, then its wheel from that sdist alone."""
    out = tmp_path_factory.mktemp("dist")
    for source in (clone, clone / "clients" / "python"):
        run(UV, "build", "--quiet", "--sdist", "--out-dir", out, source, cwd=clone)
    for sdist in sorted(out.glob("*.tar.gz")):
        run(UV, "build", "--quiet", "--wheel", "--out-dir", out, sdist, cwd=out)
    found = {path.name: path for path in out.iterdir() if path.name.endswith((".tar.gz", ".whl"))}
    assert set(found) == {f"tavolo-{VERSION}.tar.gz", f"tavolo-{VERSION}-py3-none-any.whl",
                          f"tavolo_api-{VERSION}.tar.gz", f"tavolo_api-{VERSION}-py3-none-any.whl"}
    return {"tavolo": out / f"tavolo-{VERSION}.tar.gz", "tavolo-wheel": out / f"tavolo-{VERSION}-py3-none-any.whl",
            "api": out / f"tavolo_api-{VERSION}.tar.gz", "api-wheel": out / f"tavolo_api-{VERSION}-py3-none-any.whl"}


def fresh_environment(wheel: Path, where: Path) -> Path:
    """A new virtual environment with ``wheel`` and its dependencies from the index: its Python."""
    run(UV, "venv", "--quiet", "--python", sys.executable, where, cwd=where.parent)
    python = where / "bin" / "python"
    run(UV, "pip", "install", "--quiet", "--python", python, wheel, cwd=where.parent)
    return python


def test_both_sdists_carry_the_protos_the_license_and_no_generated_code(dists):
    for key, root in (("tavolo", f"tavolo-{VERSION}"), ("api", f"tavolo_api-{VERSION}")):
        with tarfile.open(dists[key]) as archive:
            names = set(archive.getnames())
        protos = {name for name in names if name.endswith(".proto")}
        assert protos == {f"{root}/protos/{module.replace('.', '/')}.proto" for module in PROTO_MODULES}
        assert f"{root}/LICENSE" in names
        assert not [name for name in names if name.endswith(("_pb2.py", "_pb2_grpc.py"))], key
    with tarfile.open(dists["api"]) as archive:  # its version and pins come from the root's
        assert f"tavolo_api-{VERSION}/root-pyproject.toml" in archive.getnames()
        assert f"tavolo_api-{VERSION}/src/tavolo/client.py" in archive.getnames()


def test_the_wheels_built_from_the_sdists_hold_the_generated_stubs_and_the_license(dists):
    for key, stubs in (("tavolo-wheel", ("_pb2.py", "_pb2_grpc.py")),
                       ("api-wheel", ("_pb2.py", "_pb2_grpc.py", "_pb2.pyi", "_pb2_grpc.pyi"))):
        with zipfile.ZipFile(dists[key]) as archive:
            names = set(archive.namelist())
            metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        for module in PROTO_MODULES:
            for suffix in stubs:
                assert module.replace(".", "/") + suffix in names, (key, module, suffix)
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), key
        assert "License-Expression: Apache-2.0" in metadata
        assert "Project-URL: Source, https://github.com/tavolo-dev/tavolo" in metadata.replace(
            "/tree/main/clients/python", "")
        assert f"Version: {VERSION}\n" in metadata


def test_the_tavolo_wheel_installs_and_runs_every_service(dists, tmp_path):
    python = fresh_environment(dists["tavolo-wheel"], tmp_path / "venv")

    version = run(python.parent / "tavolo", "--version", cwd=tmp_path)
    assert version.stdout == f"tavolo {VERSION}\n"
    modules = [*COMPONENTS.values(), *(f"{module}_pb2_grpc" for module in PROTO_MODULES)]
    script = ("import importlib, launcher.cli\n"
              f"for name in {modules!r}: importlib.import_module(name)\n"
              "from services.migrations import load\n"
              f"print(sum(len(load(c)) for c in {MIGRATED!r}))\n"
              "print(launcher.cli.__file__)\n")
    imported = run(python, "-c", script, cwd=tmp_path)
    count, location = imported.stdout.splitlines()
    assert int(count) == sum(len(list((REPO / c / "migrations").glob("*.sql"))) for c in MIGRATED)
    assert "site-packages" in location and Path(location).is_relative_to(tmp_path)
    helped = run(python.parent / "tavolo", "migrate", "--help", cwd=tmp_path)
    assert "--status" in helped.stdout


def test_the_tavolo_api_wheel_installs_and_imports_every_stub(dists, tmp_path):
    python = fresh_environment(dists["api-wheel"], tmp_path / "venv")
    script = "import importlib\n" + "".join(
        f"importlib.import_module({module + suffix!r})\n"
        for module in PROTO_MODULES for suffix in ("_pb2", "_pb2_grpc"))
    script += "import tavolo.client\n"  # the hand-written helpers, from the sdist's src/
    run(python, "-c", script + "import importlib.metadata as m; print(m.version('tavolo-api'))", cwd=tmp_path)
    denied = subprocess.run([python, "-c", "import services"], cwd=tmp_path, capture_output=True, text=True,
                            env=OWN_ENVIRONMENT)
    assert "ModuleNotFoundError" in denied.stderr


def test_the_release_check_passes_with_the_tag_and_names_it_when_it_is_missing(clone):
    # The project's environment, as it is: never installed again from the clone.
    venv = VENV_BIN.parent
    make = ["make", "--no-print-directory", f"VENV={venv}", "-o", f"{venv}/.test-installed",
            "-o", f"{venv}/.run-installed"]
    run(*make, "sbom", cwd=clone)
    if _has_tag(clone):  # the tag is there once the release is made: take it away here
        run("git", "tag", "--delete", TAG, cwd=clone)

    untagged = subprocess.run([sys.executable, "tools/release_check.py", "--sbom", "dist/sbom.cdx.json"],
                              cwd=clone, capture_output=True, text=True, timeout=300, env=OWN_ENVIRONMENT)
    assert untagged.returncode != 0
    assert f"  [ ] protos/RELEASED names the tag {TAG}, which exists: there is no tag {TAG} in this clone" in untagged.stdout
    assert "release check: 1 check(s) failed" in untagged.stdout

    run("git", *GIT_USER, "tag", "-a", TAG, "-m", f"tavolo {VERSION}", cwd=clone)
    tagged = run(*make, "release-check", cwd=clone)
    assert "Release procedure (docs/releasing.md):" in tagged.stdout
    assert "  [ ]" not in tagged.stdout
    assert tagged.stdout.count("  [x] ") == 8
    assert "release check: every check holds" in tagged.stdout


def _has_tag(clone: Path) -> bool:
    return subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/tags/{TAG}"], cwd=clone,
                          capture_output=True).returncode == 0
