"""One run of Mermaid's parser for every diagram the docs tests check: it takes seconds to start."""

from __future__ import annotations

import pytest
from statewright_compiler.diagrams import render_mermaid
from statewright_compiler.docs import render_markdown

from tests.docs.sample_machines import ALL_MACHINES
from tests.docs.seeds import GOLDEN, SPECS, compile_seed
from tests.docs.tools import MermaidResult, run_mermaid

MODES = {"collapsed": False, "expanded": True}


@pytest.fixture(scope="session")
def mermaid_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MermaidResult]:
    """Results keyed by file name (``#N`` for the Nth fence of a page):

    ``diagram-<machine>-<mode>.mmd`` and ``page-<machine>.md`` for the sample machines,
    ``seed-<spec>-<mode>.mmd`` for spec/*.toml, and ``golden-<spec>.md`` for the golden pages.
    """
    directory = tmp_path_factory.mktemp("mermaid")
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
    for golden in sorted(GOLDEN.glob("*.md")):
        files[f"golden-{golden.name}"] = golden.read_text("utf-8")
    for file_name, text in files.items():
        (directory / file_name).write_text(text, "utf-8")
    results = run_mermaid([directory / file_name for file_name in files])
    return {key.removeprefix(f"{directory}/"): result for key, result in results.items()}
