"""Every W3C chart statewright passes, exported again, passes in an independent engine.

For each mandatory chart that reaches ``pass`` here (``harness.py``), the spec import-scxml
made of it is written back with export-scxml, and python-statemachine 3.2.2's own SCXML engine
runs what was written, with its restricted evaluator (an AST allowlist: nothing evaluates chart
text). It must reach ``pass`` too, except where that engine's restricted evaluator does not run
the *original* chart either (:data:`RESTRICTED`): the test checks that it still does not, so
the list cannot hide an export that lost something.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Final

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.model import Machine
from statewright_compiler.scxml.exporter import export_scxml
from statewright_compiler.scxml.importer import import_scxml
from statewright_compiler.scxml.spec_text import ImportedSpec
from statewright_compiler.spec.load import parse_spec_text

from tests.conformance.harness import CHARTS, Outcome, Result
from tests.conformance.report import collect

statemachine_io = pytest.importorskip("statemachine.io")

#: Passing charts python-statemachine's restricted evaluator cannot run as the suite writes them:
#: it refuses calls (``.get``, ``hasattr``) and ``1 = 1`` when it loads the chart, and ends 318
#: and 342 (``_event`` after a raise, ``_event.sendid`` of an internal event) in ``fail``; and
#: 187, 229 and 236, which python-statemachine itself fails as the suite writes them (its
#: ``<invoke>`` failures: a child's delayed send arriving after the child ended, a child's own
#: event not forwarded back to it, a final state's onexit send to the parent).
RESTRICTED: Final = frozenset(
    {"187", "229", "234", "236", "294", "309", "318", "330", "342", "344", "500", "501"}
)
#: How long python-statemachine's delayed sends (real time) may take to end a chart.
TIMEOUT: Final = 3.0


def _outcome(path: Path, timeout: float) -> str:
    """``pass`` or what python-statemachine did with the chart at ``path``."""
    try:
        machine: Any = statemachine_io.load(str(path), trusted=False)()
    except Exception as error:  # whatever it is, the assertion shows it
        return f"{type(error).__name__}: {error}"
    deadline = time.monotonic() + timeout
    while not machine.is_terminated and time.monotonic() < deadline:
        machine._engine.processing_loop()
        time.sleep(0.01)
    leaves = sorted(state.id for state in machine.configuration)
    return "pass" if "pass" in leaves else f"ended in {leaves}"


def _children(imported: ImportedSpec) -> dict[str, Machine]:
    """The machines of the charts ``imported`` invokes (theirs too), by module."""
    found = {}
    for child in imported.children:
        assert child.child is not None
        module = child.child.module
        found[module], _ = validate_source(parse_spec_text(child.text, f"{module}.toml"))
        found |= _children(child)
    return found


def _exported(result: Result, folder: Path) -> Path:
    """The chart import-scxml and export-scxml make of test ``result`` (its children inline)."""
    path = CHARTS / f"test{result.test}.scxml"
    imported, diagnostics = import_scxml(path, path.name)
    assert imported is not None, diagnostics
    machine, _ = validate_source(parse_spec_text(imported.text, f"test{result.test}.toml"))
    text, diagnostics = export_scxml(machine, f"test{result.test}.toml", _children(imported))
    assert text is not None, diagnostics
    written = folder / f"exported{result.test}.scxml"
    written.write_text(text, encoding="utf-8")
    return written


@pytest.mark.slow
def test_passing_charts_pass_in_python_statemachine_once_exported(tmp_path: Path) -> None:
    if not CHARTS.is_dir():
        pytest.skip(f"the W3C charts are not in {CHARTS}; run `make w3c-charts`")
    passing = [result for result in collect(tmp_path) if result.outcome is Outcome.PASS]
    assert len(passing) >= 100
    failed = {}
    for result in passing:
        timeout = TIMEOUT if result.timers else 0.2
        outcome = _outcome(_exported(result, tmp_path), timeout)
        if result.test in RESTRICTED:
            original = _outcome(CHARTS / f"test{result.test}.scxml", timeout)
            assert original != "pass", f"test{result.test} runs in python-statemachine now"
        elif outcome != "pass":
            failed[result.test] = outcome
    assert not failed
