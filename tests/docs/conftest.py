"""Render everything once, then read it with Mermaid's parser and marked in one run each (Node
takes seconds to start)."""

from __future__ import annotations

from pathlib import Path

import pytest
from statewright_compiler.diagrams import render_mermaid
from statewright_compiler.docs.page import render_markdown

from tests.docs.chart_machines import CASES, CHART_MACHINES
from tests.docs.sample_machines import ALL_MACHINES
from tests.docs.seeds import GOLDEN, SPECS, compile_seed
from tests.docs.tools import MarkdownBlock, MermaidResult, run_markdown, run_mermaid

MODES = {"collapsed": False, "expanded": True}

#: Fixtures that start Node (Mermaid's parser, marked): their tests are slow ones.
NODE_FIXTURES = frozenset({"mermaid_results", "markdown_results"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests read by Mermaid's parser or marked run Node: they are part of ``make test``, not of
    the fast loop (``make check``)."""
    for item in items:
        if NODE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def rendered_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``diagram-<machine>-<mode>.mmd`` and ``page-<machine>.md`` for the sample
    machines, ``seed-<spec>-<mode>.mmd`` for spec/*.toml, ``golden-<spec>.md`` for the golden
    pages, ``chart-<machine>-<mode>.mmd`` and ``chartpage-<machine>.md`` for the statecharts, and
    ``case-<case>.md`` / ``case-<case>.mmd`` for the golden pages and diagrams of tests/cases."""
    directory = tmp_path_factory.mktemp("rendered")
    files: dict[str, str] = {}
    for name, build in ALL_MACHINES.items():
        machine = build()
        files[f"page-{name}.md"] = render_markdown(machine)
        for mode, expand in MODES.items():
            files[f"diagram-{name}-{mode}.mmd"] = render_mermaid(machine, expand_wildcards=expand)
    for spec in SPECS:
        machine = compile_seed(spec)
        for mode, expand in MODES.items():
            files[f"seed-{spec.stem}-{mode}.mmd"] = render_mermaid(machine, expand_wildcards=expand)
    for name, build in CHART_MACHINES.items():
        machine = build()
        files[f"chartpage-{name}.md"] = render_markdown(machine)
        for mode, expand in MODES.items():
            files[f"chart-{name}-{mode}.mmd"] = render_mermaid(machine, expand_wildcards=expand)
    for case in CASES:
        for suffix in ("md", "mmd"):
            expected = case.parent / f"expected.{suffix}"
            if expected.exists():
                files[f"case-{case.parent.name}.{suffix}"] = expected.read_text("utf-8")
    for golden in sorted(GOLDEN.glob("*.md")):
        files[f"golden-{golden.name}"] = golden.read_text("utf-8")
    for file_name, text in files.items():
        (directory / file_name).write_text(text, "utf-8")
    return directory


@pytest.fixture(scope="session")
def mermaid_results(rendered_files: Path) -> dict[str, MermaidResult]:
    """Mermaid's reading of every rendered file, keyed by file name (``#N``: a page's Nth fence)."""
    results = run_mermaid(sorted(rendered_files.iterdir()))
    return {key.removeprefix(f"{rendered_files}/"): result for key, result in results.items()}


@pytest.fixture(scope="session")
def markdown_results(rendered_files: Path) -> dict[str, list[MarkdownBlock]]:
    """marked's reading of every rendered page, keyed by file name."""
    pages = run_markdown(sorted(rendered_files.glob("*.md")))
    return {key.removeprefix(f"{rendered_files}/"): blocks for key, blocks in pages.items()}
