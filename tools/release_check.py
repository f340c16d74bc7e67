#!/usr/bin/env python3
"""`make release-check`: print the release checklist (docs/releasing.md) and check what can be
checked. Exits 1 when a check fails, naming what to fix.

Checked: the version is the same everywhere (pyproject.toml, the one place; the chart's
appVersion; the image's label; `tavolo --version`; tavolo-api), the client's build tools are the
root's pins, CHANGELOG.md has the version with its date and an "Upgrading" section,
protos/RELEASED names the version's tag and the tag exists in this clone, pointing at an
ancestor of HEAD, LICENSE and SECURITY.md are there, and the SBOM (`make sbom`) lists every
locked runtime dependency at its locked version.

    python tools/release_check.py [--repo DIR] [--sbom FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCKED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")

# The steps a person does; the checks below verify their outcome (docs/releasing.md).
PROCEDURE = """\
Release procedure (docs/releasing.md):
  1. version = "X.Y.Z" in pyproject.toml, appVersion: "X.Y.Z" in charts/tavolo/Chart.yaml (bump
     the chart's own version too)
  2. CHANGELOG.md: move Unreleased to "## [X.Y.Z] - YYYY-MM-DD", with its "### Upgrading"
  3. protos/RELEASED: vX.Y.Z (buf breaking compares with it from now on)
  4. commit, then: git tag -a vX.Y.Z -m "tavolo X.Y.Z" && make sbom release-check
  5. make dist (both sdists, their wheels), make image; publish; push the tag
"""


class Failed(Exception):
    """A check that does not hold, with what to do."""


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project(repo: Path) -> dict:
    return tomllib.loads((repo / "pyproject.toml").read_text())


def version_of(repo: Path) -> str:
    return str(project(repo)["project"]["version"])


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60)


def checks(repo: Path, sbom: Path) -> Iterator[tuple[str, Callable[[], str]]]:
    """(what is checked, a function returning what was found or raising Failed)."""
    version = version_of(repo)
    tag = f"v{version}"

    def chart() -> str:
        text = (repo / "charts" / "tavolo" / "Chart.yaml").read_text()
        match = re.search(r'^appVersion:\s*"?([^"\s]+)"?\s*$', text, re.MULTILINE)
        found = match[1] if match else None
        if found != version:
            raise Failed(f"charts/tavolo/Chart.yaml has appVersion {found}, pyproject.toml {version}")
        return f"appVersion {found}"

    def image() -> str:
        dockerfile = (repo / "Dockerfile").read_text()
        makefile = (repo / "Makefile").read_text()
        if 'org.opencontainers.image.version="${VERSION}"' not in dockerfile:
            raise Failed("the Dockerfile's runtime stage labels no org.opencontainers.image.version from VERSION")
        if "--build-arg VERSION=$(VERSION)" not in makefile:
            raise Failed("`make image` does not pass --build-arg VERSION=$(VERSION)")
        return "labelled from pyproject.toml's version by `make image`"

    def command() -> str:
        ran = subprocess.run([sys.executable, "-m", "launcher.cli", "--version"], cwd=repo,
                             capture_output=True, text=True, timeout=60)
        if ran.stdout.strip() != f"tavolo {version}":
            raise Failed(f"`tavolo --version` says {ran.stdout.strip() or ran.stderr.strip()!r}: "
                         "install this checkout (make install) and check again")
        return ran.stdout.strip()

    def client() -> str:
        client_project = tomllib.loads((repo / "clients" / "python" / "pyproject.toml").read_text())
        if "version" not in client_project["project"].get("dynamic", []):
            raise Failed("clients/python/pyproject.toml sets a version of its own: it takes the root's")
        pins = dict(m.groups() for req in project(repo)["project"]["optional-dependencies"]["codegen"]
                    if (m := PIN.match(req.split("#")[0].strip())))
        pins.update(m.groups() for req in project(repo)["build-system"]["requires"] if (m := PIN.match(req)))
        for requirement in client_project["build-system"]["requires"]:
            match = PIN.match(requirement)
            if match is None or pins.get(match[1]) != match[2]:
                raise Failed(f"clients/python builds with {requirement!r}; the root pins "
                             f"{match[1] if match else requirement}=={pins.get(match[1]) if match else '?'}")
        return f"tavolo-api {version} (the root's), built with the root's pins"

    def changelog() -> str:
        text = (repo / "CHANGELOG.md").read_text()
        heading = re.search(rf"^## \[{re.escape(version)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", text, re.MULTILINE)
        if heading is None:
            raise Failed(f'CHANGELOG.md has no "## [{version}] - YYYY-MM-DD" section')
        following = text[heading.end():]
        section = following[:m.start()] if (m := re.search(r"^## ", following, re.MULTILINE)) else following
        if not re.search(r"^### Upgrading$", section, re.MULTILINE):
            raise Failed(f'CHANGELOG.md\'s [{version}] has no "### Upgrading" section')
        if not re.search(rf"^\[{re.escape(version)}\]: \S+", text, re.MULTILINE):
            raise Failed(f"CHANGELOG.md has no link for [{version}]")
        return f"[{version}] of {heading[1]}, with Upgrading"

    def released() -> str:
        named = (repo / "protos" / "RELEASED").read_text().strip()
        if named != tag:
            raise Failed(f"protos/RELEASED names {named!r}, not this release's tag {tag}")
        commit = _git(repo, "rev-parse", "-q", "--verify", f"refs/tags/{tag}^{{commit}}")
        if commit.returncode != 0:
            raise Failed(f"there is no tag {tag} in this clone: create it "
                         f'(git tag -a {tag} -m "tavolo {version}") or fetch the tags')
        if _git(repo, "merge-base", "--is-ancestor", commit.stdout.strip(), "HEAD").returncode != 0:
            raise Failed(f"the tag {tag} is not an ancestor of HEAD")
        return f"{tag} at {commit.stdout.strip()[:12]}"

    def files() -> str:
        license_text = (repo / "LICENSE").read_text() if (repo / "LICENSE").exists() else ""
        if "Apache License" not in license_text or "Version 2.0" not in license_text:
            raise Failed("LICENSE is not the Apache License 2.0 text")
        if not (repo / "SECURITY.md").exists():
            raise Failed("SECURITY.md is missing")
        return "LICENSE (Apache-2.0), SECURITY.md"

    def bill_of_materials() -> str:
        if not sbom.exists():
            raise Failed(f"{sbom} is missing: make sbom")
        document = json.loads(sbom.read_text())
        if document.get("bomFormat") != "CycloneDX":
            raise Failed(f"{sbom} is not a CycloneDX document")
        root = document.get("metadata", {}).get("component", {})
        if (root.get("name"), root.get("version")) != ("tavolo", version):
            raise Failed(f"{sbom} describes {root.get('name')} {root.get('version')}: make sbom again")
        listed = {(normalized(c["name"]), c.get("version")) for c in document.get("components", [])}
        locked = {(normalized(name), pinned) for name, pinned in
                  LOCKED.findall((repo / "requirements" / "runtime.txt").read_text())}
        if missing := sorted(locked - listed):
            raise Failed(f"{sbom} lacks {len(missing)} locked runtime package(s), e.g. "
                         f"{missing[0][0]}=={missing[0][1]}: make sbom again")
        return f"CycloneDX {document.get('specVersion')}, {len(listed)} components, every locked one"

    yield f"one version, {version}, in the chart's appVersion", chart
    yield "the image's version label", image
    yield "`tavolo --version`", command
    yield "tavolo-api's version and build tools", client
    yield "CHANGELOG.md", changelog
    yield f"protos/RELEASED names the tag {tag}, which exists", released
    yield "LICENSE and SECURITY.md", files
    yield "the SBOM of the runtime dependencies", bill_of_materials


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--sbom", type=Path, default=None, help="default: <repo>/dist/sbom.cdx.json")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    sbom = args.sbom or repo / "dist" / "sbom.cdx.json"
    print(PROCEDURE)
    print(f"Checks of tavolo {version_of(repo)}:")
    failed = 0
    for what, check in checks(repo, sbom):
        try:
            found = check()
        except (Failed, OSError, ValueError, KeyError) as error:
            failed += 1
            print(f"  [ ] {what}: {error}")
        else:
            print(f"  [x] {what}: {found}")
    print("release check: " + (f"{failed} check(s) failed" if failed else "every check holds"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
