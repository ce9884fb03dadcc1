"""One spec per diagnostic code, each with its exact expected output (message and position)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_golden, run_cli

CASES = Path(__file__).parent / "invalid"
SPECS = sorted(CASES.glob("*.toml"))
#: Codes a spec file in a folder cannot trigger, and the test that covers each instead.
NO_CASE_FILE = {"unreadable-file": "test_cli.py::test_unreadable_and_non_utf8_specs"}
#: Warnings alone do not fail validation.
WARNING_ONLY = {"dead_end_state", "unused_event", "unused_import"}


def test_every_code_in_the_docs_has_a_case() -> None:
    documented = Path(__file__).parents[2] / "docs" / "spec-language.md"
    section = documented.read_text(encoding="utf-8").split("## Validation", 1)[1]
    codes = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
    covered = set()
    for expected in CASES.glob("*.expected"):
        covered |= {part.split("]")[0] for part in expected.read_text().split("[")[1:]}
    assert codes - set(NO_CASE_FILE) <= covered, (
        f"codes without a test case: {sorted(codes - covered)}"
    )
    assert set(NO_CASE_FILE) <= codes


@pytest.mark.parametrize("spec", SPECS, ids=[spec.stem for spec in SPECS])
def test_diagnostic(spec: Path) -> None:
    result = run_cli(["validate", spec.name], cwd=CASES)
    check_golden(spec.with_suffix(".expected"), result.stderr)
    assert result.code == (0 if spec.stem in WARNING_ONLY else 1)
    assert "Traceback" not in result.stderr


def test_reserved_method_names_cover_both_machines() -> None:
    """An event's method must not shadow anything the runtime's machines define."""
    import statewright
    from statewright_compiler.check.validate import RESERVED_METHOD_NAMES

    public = {
        name
        for machine in (
            statewright.Machine,
            statewright.AsyncMachine,
            statewright.ChartMachine,
            statewright.AsyncChartMachine,
        )
        for name in dir(machine)
        if not name.startswith("_")
    }
    assert public <= RESERVED_METHOD_NAMES
