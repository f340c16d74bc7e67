"""The build hook of the tavolo distribution: the gRPC stubs (the top-level ``tavolo`` package)
are generated from protos/ by every build of a wheel, so a clean checkout or the sdist (which
carries protos/, MANIFEST.in) installs a working ``tavolo`` command. Everything else about the
distribution is in pyproject.toml; grpcio-tools, which generates, is a build requirement there.

An editable install (``make install``) generates nothing: ``make gen`` writes the stubs into the
checkout, which is on sys.path.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PROTOS = Path(__file__).resolve().parent / "protos"


def generate_stubs(out: Path) -> list[str]:
    """protoc (grpcio-tools) with the Python and gRPC plugins, as `make gen`, into ``out``:
    the paths written, for the build's record."""
    files = sorted(str(path.relative_to(PROTOS)) for path in PROTOS.rglob("*.proto"))
    if not files:
        sys.exit(f"tavolo: no .proto files under {PROTOS}: the sdist must carry protos/")
    out = out.resolve()  # protoc runs in protos/
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTOS}", f"--python_out={out}",
                    f"--grpc_python_out={out}", *files], check=True, cwd=PROTOS)
    return [str(path) for path in (out / "tavolo").rglob("*.py")]


class BuildPyWithStubs(build_py):
    """build_py, then the stubs into the build's own folder (never into the source tree)."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            self._stubs = generate_stubs(Path(self.build_lib))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *getattr(self, "_stubs", [])]


setup(cmdclass={"build_py": BuildPyWithStubs})
