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
from statewright_compiler import compile_spec
from statewright_compiler.diagrams import render_dot, render_mermaid
from statewright_compiler.docs import render_markdown
from statewright_compiler.model import Machine

from tests.docs.tools import REPOSITORY, run_dot, run_mermaid

GOLDEN = Path(__file__).parent / "golden"
SPECS = sorted((REPOSITORY / "spec").glob("*.toml"))
UPDATE = os.environ.get("STATEWRIGHT_UPDATE_GOLDEN") == "1"


def compile_seed(spec: Path) -> Machine:
    machine, _ = compile_spec(spec, spec.relative_to(REPOSITORY).as_posix())
    return machine


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


def test_seed_mermaid_parses(tmp_path: Path) -> None:
    paths = []
    for spec in SPECS:
        for expand in (False, True):
            path = tmp_path / f"{spec.stem}-{expand}.mmd"
            path.write_text(render_mermaid(compile_seed(spec), expand_wildcards=expand), "utf-8")
            paths.append(path)
    paths.extend(sorted(GOLDEN.glob("*.md")))
    failures = {name: result.error for name, result in run_mermaid(paths).items() if not result.ok}
    assert not failures
