"""The W3C SCXML conformance charts, end to end (see ``harness.py``), and the page reporting them.

The charts are fetched by ``make w3c-charts`` (``make test`` runs it). Locally a missing cache
skips these tests with that command; with ``CI=true`` it fails them.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.harness import CHARTS, OPTIONAL, REQUIRED, Outcome, Result, chart_paths
from tests.conformance.report import PAGE, _version, collect, render
from tests.typing import run_mypy

#: The W3C run takes seconds of CPU: make test runs it, make check does not.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CHARTS.is_dir():
        message = f"the W3C charts are not in {CHARTS}; run `make w3c-charts`"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " [CI=true: missing charts are a failure]", pytrace=False)
        pytest.skip(message)
    return tmp_path_factory.mktemp("w3c")


@pytest.fixture(scope="module")
def results(folder: Path) -> list[Result]:
    return collect(folder)


@pytest.fixture(scope="module")
def optional(folder: Path) -> list[Result]:
    return collect(folder, OPTIONAL) if OPTIONAL.is_dir() else []


def test_every_mandatory_chart_is_run(results: list[Result]) -> None:
    assert [result.test for result in results] == [
        path.stem.removeprefix("test") for path in chart_paths()
    ]
    assert len(results) == 165  # make/w3c.mk: 166 files, test552.txt being data


@pytest.mark.parametrize("test", REQUIRED)
def test_required_tier_passes(results: list[Result], test: str) -> None:
    (result,) = (result for result in results if result.test == test)
    assert result.outcome is Outcome.PASS, result.reason


def test_report_is_up_to_date(results: list[Result], optional: list[Result]) -> None:
    expected = render(results, _version(), optional)
    actual = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    diff = "".join(
        difflib.unified_diff(
            actual.splitlines(keepends=True),
            expected.splitlines(keepends=True),
            fromfile=f"docs/{PAGE.name} (committed)",
            tofile=f"docs/{PAGE.name} (what the charts give now)",
        )
    )
    assert not diff, f"run `python -m tests.conformance.report --write`\n{diff}"


def _generated(results: list[Result]) -> Iterator[tuple[str, str]]:
    for result in results:
        if result.module is not None and result.module_name is not None:
            yield result.module_name, result.module
            yield from result.children


@pytest.mark.slow
def test_generated_modules_pass_mypy_strict(results: list[Result], folder: Path) -> None:
    """One mypy run for every generated module (each run costs seconds)."""
    project = folder / "mypy"
    project.mkdir()
    files = []
    for name, source in _generated(results):
        (project / f"{name}.py").write_text(source, encoding="utf-8")
        files.append(f"{name}.py")
    assert len(files) >= len(REQUIRED)
    run, messages = run_mypy(files, project)
    assert run.code == 0 and not messages, run.output
