"""The chart's README is generated from Chart.yaml and values.yaml's comments
(tools/chart_readme.py, `make chart-readme`): it must be what the generator makes of the
committed files, and hold every value. And the chart's icon is a file of the repository."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from .support import CHART, REPO

GENERATOR = REPO / "tools" / "chart_readme.py"
README = CHART / "README.md"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chart_readme", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_up_to_date() -> None:
    """Run `make chart-readme` after changing values.yaml or Chart.yaml."""
    result = subprocess.run([sys.executable, str(GENERATOR)], cwd=REPO, capture_output=True, text=True, timeout=60)

    assert result.returncode == 0, result.stderr
    assert result.stdout == README.read_text(), "charts/tavolo/README.md is stale: run `make chart-readme`"


def test_a_changed_comment_makes_it_stale(tmp_path: Path) -> None:
    copy = tmp_path / "tavolo"
    shutil.copytree(CHART, copy)
    values = copy / "values.yaml"
    values.write_text(values.read_text().replace("# -- Image pull policy.", "# -- How the image is pulled.", 1))

    text = _generator().render(copy)

    assert text != README.read_text()
    assert "| `image.pullPolicy` | string | `\"IfNotPresent\"` | How the image is pulled. |" in text


def _paths(values: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix] if prefix else []
    if isinstance(values, dict):
        for key, value in values.items():
            found += _paths(value, (*prefix, key))
    return found


def test_every_value_is_in_the_readme() -> None:
    """Each key has a row, or is inside a map shown whole in its parent's row."""
    text = README.read_text()
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    rows = {line.split("`")[1] for line in text.splitlines() if line.startswith("| `")}

    for path in _paths(values):
        shown = [".".join(path[:n]) for n in range(len(path), 0, -1)]
        assert any(name in rows for name in shown) or f"### `{path[0]}`" in text, ".".join(path)
    for key in values:
        assert f"### `{key}`" in text


def test_the_icon_is_an_svg_of_the_repository_that_chart_yaml_links() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    repository = chart["sources"][0].removeprefix("https://github.com/")

    assert chart["icon"] == f"https://raw.githubusercontent.com/{repository}/main/charts/tavolo/icon.svg"
    svg = ET.parse(CHART / "icon.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 64 64"
    assert (CHART / "icon.svg").stat().st_size < 4096
