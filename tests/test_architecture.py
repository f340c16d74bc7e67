"""docs/architecture.md's table "Packages and who imports whom" is the rule: every import of one
tavolo package by another is one the table allows, so the picture and the code cannot part."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "architecture.md"
HEADING = "## Packages and who imports whom"


def allowed_imports() -> dict[str, set[str]]:
    """Each package of the table: the modules it may import (`game` allows every `game.*`)."""
    section = DOC.read_text().split(HEADING, 1)[1].split("\n## ", 1)[0]
    rules: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`\w+`", cells[0]):
            rules[cells[0].strip("`")] = {name.rstrip(".*") for name in re.findall(r"`([\w.*]+)`", cells[2])}
    return rules


def imports_of(package: str) -> set[tuple[str, str]]:
    """(file, module) for every absolute import in the package; ``from lobby import inputs``
    counts as ``lobby.inputs``."""
    found = set()
    for path in (REPO / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                package_itself = node.module.split(".")[0] == node.module
                modules = ([f"{node.module}.{alias.name}" for alias in node.names] if package_itself
                           else [node.module])
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                continue
            found.update((str(path.relative_to(REPO)), module) for module in modules)
    return found


def permitted(module: str, package: str, allowed: set[str]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in allowed | {package})


def test_the_table_names_every_package() -> None:
    packages = {path.parent.name for path in REPO.glob("*/__init__.py")}
    assert set(allowed_imports()) == packages - {"testing", "tests", "bench", "tavolo"}


def test_every_import_between_packages_is_one_the_table_allows() -> None:
    rules = allowed_imports()
    tavolo_packages = set(rules)
    breaches = [
        f"{path} imports {module}"
        for package, allowed in rules.items()
        for path, module in sorted(imports_of(package))
        if module.split(".")[0] in tavolo_packages and not permitted(module, package, allowed)
    ]
    assert not breaches, "docs/architecture.md does not allow:\n" + "\n".join(breaches)


def test_the_rule_catches_a_breach() -> None:
    rules = allowed_imports()
    assert not permitted("gateway.ws", "services", rules["services"])
    assert not permitted("game.tables", "gateway", rules["gateway"])
    assert permitted("game.client", "gateway", rules["gateway"])


def test_every_file_the_page_names_exists() -> None:
    """A module split or renamed leaves no stale path behind on the page."""
    named = set(re.findall(r"`((?:[a-z_]+/)+[a-z_]+\.py)`", DOC.read_text()))
    assert named, "the page names no file"
    assert not sorted(path for path in named if not (REPO / path).exists())
