"""Builds tavolo-api: every build generates the messages, stubs and type stubs from the protos
into build/gen, then packages them (see pyproject.toml for where each version comes from).

From the repository the protos and the root pyproject.toml (the version, the pin of
googleapis-common-protos) are read where they are, ../../protos and ../../pyproject.toml; the
sdist carries copies of both (``protos/`` and ``root-pyproject.toml``), so a wheel builds from it
alone. The build runs on Python 3.11 or later (tomllib); the wheel runs on 3.10 and later.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# An sdist carries its own copies (SdistWithProtos); a checkout reads the repository's.
IN_SDIST = (HERE / "root-pyproject.toml").exists()
PROTOS = HERE / "protos" if IN_SDIST else REPO / "protos"
ROOT_PYPROJECT = HERE / "root-pyproject.toml" if IN_SDIST else REPO / "pyproject.toml"
GEN = HERE / "build" / "gen"


def generate() -> None:
    """protoc (grpcio-tools) with the Python, gRPC and mypy-protobuf plugins, as `make gen`,
    into build/gen: the dependencies' ranges are read from what it writes."""
    files = sorted(str(path.relative_to(PROTOS)) for path in PROTOS.rglob("*.proto"))
    if not files:
        sys.exit(f"tavolo-api: no .proto files under {PROTOS}")
    shutil.rmtree(GEN, ignore_errors=True)
    GEN.mkdir(parents=True)
    # protoc-gen-mypy and protoc-gen-mypy_grpc are installed beside this Python.
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTOS}", f"--python_out={GEN}",
         f"--grpc_python_out={GEN}", f"--mypy_out={GEN}", f"--mypy_grpc_out={GEN}", *files],
        check=True, env=env, cwd=PROTOS,
    )
    # The hand-written helpers (src/tavolo/client.py) beside the generated modules.
    shutil.copytree(HERE / "src" / "tavolo", GEN / "tavolo", dirs_exist_ok=True)
    # PEP 561: tavolo is a namespace package, so every package of it carries the marker.
    for package in [GEN / "tavolo", *(path for path in (GEN / "tavolo").rglob("*") if path.is_dir())]:
        (package / "py.typed").write_text("")


def generated_version(pattern: str, glob: str) -> str:
    """The one version every generated file of ``glob`` checks for at import time."""
    found = {match[1] for path in GEN.rglob(glob) if (match := re.search(pattern, path.read_text()))}
    if len(found) != 1:
        sys.exit(f"tavolo-api: expected one version in the generated {glob} files, found {found}")
    return found.pop()


def next_major(version: str) -> str:
    return f"{int(version.split('.')[0]) + 1}"


def root_pin(project: dict, name: str) -> str:
    for requirement in project["dependencies"]:
        if (match := re.match(rf"{re.escape(name)}==([^\s;]+)", requirement)):
            return match[1]
    sys.exit(f"tavolo-api: the root pyproject.toml pins no {name}")


class SdistWithProtos(sdist):
    """The sdist carries the protos and the root pyproject.toml, so a wheel builds from it alone."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        if not IN_SDIST:
            shutil.copytree(PROTOS, Path(base_dir) / "protos", dirs_exist_ok=True)
            shutil.copy(ROOT_PYPROJECT, Path(base_dir) / "root-pyproject.toml")


generate()
ROOT = tomllib.loads(ROOT_PYPROJECT.read_text())["project"]
GRPC = generated_version(r"GRPC_GENERATED_VERSION = '([^']+)'", "*_pb2_grpc.py")
PROTOBUF = generated_version(r"# Protobuf Python Version: (\S+)", "*_pb2.py")
COMMON_PROTOS = root_pin(ROOT, "googleapis-common-protos")

setup(
    version=ROOT["version"],
    # Packaged from build/gen, which the sdist leaves out (setuptools prunes build/): the sdist
    # carries the protos, and each wheel build generates the code again.
    package_dir={"": str(GEN.relative_to(HERE))},
    packages=find_namespace_packages(str(GEN), include=["tavolo*"]),
    package_data={"": ["*.pyi", "py.typed"]},
    cmdclass={"sdist": SdistWithProtos},
    install_requires=[
        f"grpcio>={GRPC},<{next_major(GRPC)}",
        f"protobuf>={PROTOBUF},<{next_major(PROTOBUF)}",
        f"googleapis-common-protos>={COMMON_PROTOS},<{next_major(COMMON_PROTOS)}",
    ],
)
