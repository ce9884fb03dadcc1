"""Find and run the real diagram tools: Graphviz ``dot`` and Mermaid's parser (tools/mermaid).

Install both with ``make tools``. Locally a missing tool skips its tests with the command to run;
with ``CI=true`` it fails them, so CI can never pass without having checked the diagrams.
Overrides: ``STATEWRIGHT_DOT`` (path of ``dot``), ``STATEWRIGHT_MERMAID_DIR`` (a directory holding
``parse.mjs`` and its ``node_modules``), ``STATEWRIGHT_NODE`` (path of ``node``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any, NoReturn

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def missing(tool: str, fix: str) -> NoReturn:
    message = f"{tool} is not installed; run `make tools` ({fix})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " [CI=true: a missing tool is a failure]", pytrace=False)
    pytest.skip(message)


def dot_executable() -> str:
    executable = shutil.which(os.environ.get("STATEWRIGHT_DOT") or "dot")
    if not executable:
        missing("Graphviz `dot`", "or: apt-get install graphviz")
    return executable


def run_dot(source: str, output_format: str = "svg") -> str:
    """Render ``source``; any error or warning on stderr fails the test."""
    completed = subprocess.run(
        [dot_executable(), f"-T{output_format}"],
        input=source.encode(),
        capture_output=True,
        check=False,
    )
    stderr = completed.stderr.decode("utf-8", "replace")
    assert completed.returncode == 0 and not stderr.strip(), (
        f"dot -T{output_format} exit {completed.returncode}:\n{stderr}\n--- source ---\n{source}"
    )
    return completed.stdout.decode()


@dataclass(frozen=True)
class MermaidResult:
    name: str
    ok: bool
    error: str
    states: dict[str, list[str]]
    """Mermaid state id -> its descriptions (entity codes decoded)."""
    classes: dict[str, list[str]]
    """Mermaid state id -> the ``classDef`` classes applied to it."""
    relations: list[tuple[str, str, str]]
    """``(id1, id2, title)`` in diagram order; the start pseudo-state is ``root_start``."""
    layout_nodes: list[dict[str, Any]] = field(default_factory=list)
    """What Mermaid lays out: ``id``, ``label``, ``parentId`` (the box it is drawn in: a
    composite state, or a ``divider`` shape, one per region of a parallel state), ``isGroup``,
    ``shape`` and ``classes``; the initial pseudo-state of a box is ``<box id>_start``."""
    layout_edges: list[tuple[str, str, str]] = field(default_factory=list)
    """``(start, end, label)`` of every edge Mermaid lays out."""


def _node_tool(script: str) -> tuple[str, Path]:
    directory = Path(os.environ.get("STATEWRIGHT_MERMAID_DIR", REPOSITORY / "tools" / "mermaid"))
    node = shutil.which(os.environ.get("STATEWRIGHT_NODE") or "node")
    if not node:
        missing("Node.js (`node`)", "install Node.js >= 20")
    if not (directory / "node_modules" / "mermaid").is_dir():
        missing("Mermaid's parser", f"npm ci --prefix {directory}")
    return node, directory / script


def run_mermaid(paths: Sequence[Path]) -> dict[str, MermaidResult]:
    """Parse every file at once (``.md`` files: each mermaid fence) and dump what Mermaid read."""
    node, script = _node_tool("parse.mjs")
    completed = subprocess.run(
        [node, str(script), "--dump", *map(str, paths)],
        capture_output=True,
        check=False,
        text=True,
    )
    if completed.returncode not in (0, 1) or not completed.stdout.strip():
        raise AssertionError(f"parse.mjs failed to run: {completed.stderr}")
    results: dict[str, MermaidResult] = {}
    for entry in json.loads(completed.stdout):
        results[entry["name"]] = MermaidResult(
            name=entry["name"],
            ok=entry["ok"],
            error=entry.get("error", ""),
            states={state["id"]: state["descriptions"] for state in entry.get("states", [])},
            classes={state["id"]: state["classes"] for state in entry.get("states", [])},
            relations=[
                (relation["id1"], relation["id2"], relation["title"])
                for relation in entry.get("relations", [])
            ],
            layout_nodes=(entry.get("layout") or {}).get("nodes", []),
            layout_edges=[
                (edge["start"], edge["end"], edge["label"])
                for edge in (entry.get("layout") or {}).get("edges", [])
            ],
        )
    return results


MarkdownBlock = dict[str, Any]
"""One block of a page as ``tools/mermaid/markdown.mjs`` reports it (see that script)."""


def run_markdown(paths: Sequence[Path]) -> dict[str, list[MarkdownBlock]]:
    """The block structure marked (a GitHub-flavoured Markdown parser) reads in each page."""
    node, script = _node_tool("markdown.mjs")
    completed = subprocess.run(
        [node, str(script), *map(str, paths)], capture_output=True, check=False, text=True
    )
    assert completed.returncode == 0, f"markdown.mjs failed: {completed.stderr}"
    return {page["name"]: page["blocks"] for page in json.loads(completed.stdout)}


def run_renderers(paths: Sequence[Path]) -> dict[str, dict[str, str]]:
    """Each page rendered to HTML by markdown-it (CommonMark) and by marked (GitHub-flavoured),
    raw HTML allowed, so whatever HTML a page lets through shows up in the output."""
    node, script = _node_tool("render.mjs")
    completed = subprocess.run(
        [node, str(script), *map(str, paths)], capture_output=True, check=False, text=True
    )
    assert completed.returncode == 0, f"render.mjs failed: {completed.stderr}"
    return {
        page["name"]: {"markdown-it": page["markdown-it"], "marked": page["marked"]}
        for page in json.loads(completed.stdout)
    }


def html_text(html: str) -> str:
    """What a reader sees of inline HTML: line breaks kept, tags dropped, entities decoded."""
    return unescape(re.sub(r"<[^>]*>", "", re.sub(r"<br\s*/?>", "\n", html)))
