"""The seed specs' pages against reviewed copies in tests/docs/golden/, and their diagrams against
the real tools.

After an intended change to the docs renderer or a spec, refresh the copies and review the diff:
``STATEWRIGHT_UPDATE_GOLDEN=1 pytest tests/docs``.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from statewright_compiler.diagrams import render_dot
from statewright_compiler.docs.page import render_markdown

from tests.docs.seeds import GOLDEN, SPECS, compile_seed
from tests.docs.tools import MermaidResult, run_dot

UPDATE = os.environ.get("STATEWRIGHT_UPDATE_GOLDEN") == "1"


@pytest.mark.parametrize("spec", SPECS, ids=[spec.stem for spec in SPECS])
def test_page_matches_golden(spec: Path) -> None:
    page = render_markdown(compile_seed(spec))
    golden = GOLDEN / f"{spec.stem}.md"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(page, "utf-8", newline="\n")
        return
    if not golden.exists():
        pytest.fail(f"{golden} is missing: run STATEWRIGHT_UPDATE_GOLDEN=1 pytest tests/docs")
    expected = golden.read_text("utf-8")
    if page != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                page.splitlines(keepends=True),
                str(golden),
                "rendered",
            )
        )
        pytest.fail(
            f"{spec.name}: page differs from {golden.name}; if intended, refresh with "
            f"STATEWRIGHT_UPDATE_GOLDEN=1 pytest tests/docs\n{diff}",
            pytrace=False,
        )


def test_no_orphaned_goldens() -> None:
    orphans = {path.stem for path in GOLDEN.glob("*.md")} - {spec.stem for spec in SPECS}
    assert not orphans, f"golden pages without a spec: {sorted(orphans)}"


@pytest.mark.parametrize("spec", SPECS, ids=[spec.stem for spec in SPECS])
@pytest.mark.parametrize("expand", [False, True], ids=["collapsed", "expanded"])
def test_seed_dot_renders_without_warnings(spec: Path, expand: bool) -> None:
    run_dot(render_dot(compile_seed(spec), expand_wildcards=expand))


@pytest.mark.parametrize("spec", SPECS, ids=[spec.stem for spec in SPECS])
@pytest.mark.parametrize("mode", ["collapsed", "expanded"])
def test_seed_mermaid_parses(
    spec: Path, mode: str, mermaid_results: dict[str, MermaidResult]
) -> None:
    result = mermaid_results[f"seed-{spec.stem}-{mode}.mmd"]
    assert result.ok, result.error


def test_golden_pages_mermaid_parses(mermaid_results: dict[str, MermaidResult]) -> None:
    pages = {name: result for name, result in mermaid_results.items() if name.startswith("golden-")}
    assert len(pages) == len(list(GOLDEN.glob("*.md")))
    assert all(result.ok for result in pages.values()), pages
