"""Golden files: each ``tests/cases/<name>/spec.toml`` documents itself as exactly
``expected.md`` (the page), ``expected.mmd`` and ``expected.dot`` (the diagrams), and the real
tools read those files.

The compiler's own golden test checks ``expected.py``. After an intended change, refresh with
``STATEWRIGHT_UPDATE_GOLDEN=1 pytest tests/docs`` and review the diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from statewright_compiler.diagrams import render_dot, render_mermaid
from statewright_compiler.docs.page import render_markdown
from statewright_compiler.model import Machine

from tests.conftest import check_golden
from tests.docs.chart_machines import CASES, compile_case
from tests.docs.tools import MermaidResult, run_dot

RENDERERS: dict[str, Callable[[Machine], str]] = {
    "md": render_markdown,
    "mmd": render_mermaid,
    "dot": render_dot,
}


@pytest.mark.parametrize("suffix", list(RENDERERS))
@pytest.mark.parametrize("spec", CASES, ids=[spec.parent.name for spec in CASES])
def test_page_and_diagrams_match_golden(spec: Path, suffix: str) -> None:
    check_golden(spec.parent / f"expected.{suffix}", RENDERERS[suffix](compile_case(spec)))


def test_cases_include_statecharts() -> None:
    charts = [spec.parent.name for spec in CASES if compile_case(spec).chart]
    assert {"chart_task", "chart_parallel"} <= set(charts)


@pytest.mark.parametrize("spec", CASES, ids=[spec.parent.name for spec in CASES])
def test_golden_dot_renders_without_warnings(spec: Path) -> None:
    run_dot((spec.parent / "expected.dot").read_text("utf-8"))


@pytest.mark.parametrize("spec", CASES, ids=[spec.parent.name for spec in CASES])
def test_golden_mermaid_parses(spec: Path, mermaid_results: dict[str, MermaidResult]) -> None:
    name = spec.parent.name
    for key in (f"case-{name}.mmd", f"case-{name}.md#1"):
        assert mermaid_results[key].ok, mermaid_results[key].error
