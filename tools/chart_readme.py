"""The Helm chart's README (charts/tavolo/README.md), generated from Chart.yaml and values.yaml.

values.yaml documents itself with comments, as helm-docs reads them: a comment block right above
a key describes it, from its `# -- ` marker on (the text before the marker, or a block with no
marker above a top-level key, introduces that key's section); a block followed by a blank line
is prose of its own. Every key gets a row: its dotted path, type, default and description.

    python tools/chart_readme.py [CHART_DIR] > charts/tavolo/README.md     (make chart-readme)

tests/chart/test_chart_readme.py fails while the committed README differs from this output.
Standard library and PyYAML only.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import re
import sys
import textwrap
from typing import Any

import yaml

CHART = pathlib.Path(__file__).resolve().parents[1] / "charts" / "tavolo"
KEY = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_.-]+):(?:\s|$)")
MARKER = "-- "


@dataclasses.dataclass
class Key:
    path: tuple[str, ...]
    intro: list[str]        # comment lines before the marker (a section's introduction)
    description: list[str]  # from the marker on


@dataclasses.dataclass
class Prose:
    lines: list[str]


def parse(text: str) -> list[Key | Prose]:
    """The keys of a values file with their comments, and the free-standing comment blocks at
    the top level (column 0, followed by a blank line), in the file's order."""
    items: list[Key | Prose] = []
    block: list[str] = []
    block_at_top = False
    stack: list[tuple[int, str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if block and block_at_top:
                items.append(Prose(block))
            block = []
            continue
        if stripped.startswith("#"):
            if not block:
                block_at_top = not line.startswith(" ")
            block.append(stripped[1:].removeprefix(" "))
            continue
        match = KEY.match(line)
        if match is None:  # a list item or a continuation: part of its key's default
            block = []
            continue
        indent = len(match["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match["key"]))
        marker = next((i for i, comment in enumerate(block) if comment.startswith(MARKER)), None)
        if marker is None:
            intro, description = (block, []) if indent == 0 else ([], block)
        else:
            intro = block[:marker]
            description = [block[marker].removeprefix(MARKER), *block[marker + 1:]]
        items.append(Key(tuple(key for _, key in stack), intro, description))
        block = []
    return items


def lookup(values: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        values = values[part]
    return values


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "bool", int: "int", float: "float", str: "string", list: "list", dict: "object"}[type(value)]


def _escape_text(text: str) -> str:
    """Markdown text outside code spans: what GitHub would take for HTML or emphasis, escaped."""
    return (text.replace("\\", "\\\\").replace("<", "&lt;").replace(">", "&gt;")
            .replace("*", "\\*").replace("_", "\\_"))


def markdown(text: str, cell: bool = False) -> str:
    """``text`` (which may hold `code` spans) as Markdown; in a table cell, pipes escaped."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans
        parts = [text.replace("`", "'")]
    out = "".join(f"`{part}`" if i % 2 else _escape_text(part) for i, part in enumerate(parts))
    return out.replace("|", "\\|") if cell else out


def paragraph(lines: list[str]) -> str:
    """Comment lines as Markdown: lines indented in the comment (examples) as a code block, the
    rest joined into paragraphs."""
    out: list[str] = []
    text: list[str] = []
    code: list[str] = []

    def flush_text() -> None:
        if text:
            out.append(markdown(" ".join(text)))
            text.clear()

    def flush_code() -> None:
        if code:
            out.append("```\n" + textwrap.dedent("\n".join(code)) + "\n```")
            code.clear()

    for line in lines:
        if line.startswith("  ") or (code and line.startswith(" ")):
            flush_text()
            code.append(line)
        else:
            flush_code()
            if line:
                text.append(line.strip())
            else:
                flush_text()
    flush_text()
    flush_code()
    return "\n\n".join(out)


def describe(lines: list[str]) -> str:
    """A description for a table cell: text lines joined; lines indented in the comment (an
    example) each on a line of its own, as code."""
    parts: list[str] = []
    for line in lines:
        if line.startswith("  "):
            parts.append("<br>`" + line.strip().replace("`", "'") + "`")
        elif line.strip():
            parts.append(markdown(line.strip()))
    return " ".join(parts).replace("|", "\\|").replace(" <br>", "<br>")


def row(key: Key, value: Any, collapsed: bool) -> str:
    """A key's row; a map is shown whole when ``collapsed`` (no key inside it is described)."""
    shown = not isinstance(value, dict) or not value or collapsed
    default = f"`{json.dumps(value, ensure_ascii=False)}`" if shown else ""
    cells = [f"`{'.'.join(key.path)}`", type_of(value), default.replace("|", "\\|"), describe(key.description)]
    return "| " + " | ".join(cells) + " |"


def render(chart_dir: pathlib.Path = CHART) -> str:
    chart = yaml.safe_load((chart_dir / "Chart.yaml").read_text())
    text = (chart_dir / "values.yaml").read_text()
    values = yaml.safe_load(text)
    items = parse(text)
    out = [
        "<!-- Generated by tools/chart_readme.py from Chart.yaml and values.yaml (make chart-readme): "
        "edit those, not this file. -->",
        "",
        f"# {chart['name']}",
        "",
        '<img src="icon.svg" alt="" width="64" height="64" align="right">',
        "",
        markdown(" ".join(chart["description"].split())),
        "",
        "| Chart version | App version | Kubernetes | Source |",
        "|---|---|---|---|",
        f"| {chart['version']} | {chart['appVersion']} | `{chart['kubeVersion']}` | {chart['sources'][0]} |",
        "",
        "## Install",
        "",
        "A production-like installation (external Redis and Postgres, OIDC providers, Ingress, monitors"
        " and alerts) starts from `ci/production-values.yaml`; `values-evaluation.yaml` runs everything"
        " on a laptop cluster, not for production:",
        "",
        "```sh",
        "helm install tavolo charts/tavolo -f charts/tavolo/ci/production-values.yaml",
        "",
        "make image   # then load tavolo and tavolo-dev-oidc into kind, k3d or minikube",
        "helm install tavolo charts/tavolo -f charts/tavolo/values-evaluation.yaml",
        "helm test tavolo",
        "```",
        "",
        "The same values always render the same manifests: where Helm sees no cluster (`helm template`,"
        " Argo CD) give the gRPC tokens (`grpcAuth.tokens`) and the evaluation stores' passwords, which an"
        " install otherwise makes once and keeps. The operator's guide, metrics, alerts and their runbook:"
        " [docs/operations.md](../../docs/operations.md).",
        "",
        "## Values",
    ]
    described = {item.path for item in items if isinstance(item, Key) and item.description}
    table_open = False
    collapsed: tuple[str, ...] | None = None
    for item in items:
        if isinstance(item, Key) and collapsed is not None and item.path[:len(collapsed)] == collapsed:
            continue  # inside a map shown whole
        collapsed = None
        if isinstance(item, Prose):
            if table_open:
                out.append("")
                table_open = False
            out += ["", paragraph(item.lines)]
            continue
        if len(item.path) == 1:
            out += ["", f"### `{item.path[0]}`"]
            if item.intro:
                out += ["", paragraph(item.intro)]
            out += ["", "| Key | Type | Default | Description |", "|---|---|---|---|"]
            table_open = True
        value = lookup(values, item.path)
        is_map = isinstance(value, dict) and bool(value)
        if is_map and not item.description:
            continue  # its keys have the rows
        whole = is_map and not any(path[:len(item.path)] == item.path and len(path) > len(item.path)
                                   for path in described)
        if whole:
            collapsed = item.path
        out.append(row(item, value, whole))
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    chart_dir = pathlib.Path(argv[1]) if len(argv) > 1 else CHART
    sys.stdout.write(render(chart_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
