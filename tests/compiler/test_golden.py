"""Golden files: each ``tests/cases/<name>/spec.toml`` compiles to exactly ``expected.py``, and
in the shape of a machine above ``render.MATCH_LIMIT`` to exactly ``expected_large.py``.

After an intended change, refresh with ``STATEWRIGHT_UPDATE_GOLDEN=1 pytest tests/compiler``
and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from statewright_compiler.check.validate import compile_spec
from statewright_compiler.pipeline import module_source

from tests.compiler.shapes import large_shape
from tests.conftest import check_golden

CASES = sorted((Path(__file__).parents[1] / "cases").glob("*/spec.toml"))


@pytest.mark.parametrize("spec", CASES, ids=[spec.parent.name for spec in CASES])
def test_generated_module_matches_golden(spec: Path) -> None:
    machine, warnings = compile_spec(spec, f"tests/cases/{spec.parent.name}/spec.toml")
    assert warnings == ()
    check_golden(spec.parent / "expected.py", module_source(machine))


@pytest.mark.parametrize("spec", CASES, ids=[spec.parent.name for spec in CASES])
def test_large_machine_shape_matches_golden(spec: Path) -> None:
    machine, _ = compile_spec(spec, f"tests/cases/{spec.parent.name}/spec.toml")
    with large_shape():
        check_golden(spec.parent / "expected_large.py", module_source(machine))
