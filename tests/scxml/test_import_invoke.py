"""``import-scxml`` of a chart with ``<invoke>``: a spec per chart, which the parent's names; and
``export-scxml`` back.

``invoke/lab.scxml`` runs an inline child (fixed id, params, autoforward, finalize, a send to
it) and a child read from ``invoke/worker.scxml`` (an id location, a namelist item the child
declares no field for). Each written spec has its golden file in ``invoke/expected/``; the
modules generated from them pass ruff and ``mypy --strict`` together (the parent's params and
its send to the child are checked against the child's module). Exported with its children's
machines, the lab is one chart again, which imports to the same specs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.model import Machine
from statewright_compiler.pipeline import module_source
from statewright_compiler.scxml.exporter import export_scxml
from statewright_compiler.spec.load import parse_spec_text
from statewright_compiler.spec.toml_compat import tomllib

from tests.compiler.soundness import lint_findings
from tests.conftest import check_golden, run_cli
from tests.typing import run_mypy

HERE = Path(__file__).parent / "invoke"
EXPECTED = HERE / "expected"
#: The specs ``lab.scxml`` becomes: the parent's, then its children's in document order.
SPECS = ("lab.toml", "lab_invoke_0.toml", "lab_invoke_1.toml")


@pytest.fixture
def written(tmp_path: Path) -> Path:
    result = run_cli(["import-scxml", str(HERE / "lab.scxml"), "-o", str(tmp_path / "lab.toml")])
    assert result.code == 0, result.stderr
    assert [line.rsplit("/", 1)[-1] for line in result.stdout.splitlines()] == list(SPECS)
    return tmp_path


def test_a_chart_and_each_chart_it_invokes_become_a_spec_each(written: Path) -> None:
    assert sorted(path.name for path in written.glob("*.toml")) == sorted(SPECS)
    for name in SPECS:
        check_golden(EXPECTED / name, (written / name).read_text(encoding="utf-8"))


def test_the_parent_names_each_child_by_its_module_and_machine_class(written: Path) -> None:
    lab = tomllib.loads((written / "lab.toml").read_text(encoding="utf-8"))
    counter, worker = lab["states"]["working"]["invoke"]
    assert counter["machine"] == "lab_invoke_0:CounterMachine"
    assert worker["machine"] == "lab_invoke_1:LabInvoke1Machine"
    assert worker["id_location"] == "worker_id"
    # SCXML binds a param to the child's data only where the child declares that field.
    assert counter["params"] == {"limit": "limit", "label": "'lab'"}
    assert "params" not in worker
    child = tomllib.loads((written / "lab_invoke_0.toml").read_text(encoding="utf-8"))
    assert child["machine"]["module"] == "lab_invoke_0"
    assert "stop" in child["events"]  # what the parent sends it is the child's event


def test_a_chart_that_invokes_others_needs_an_output_file() -> None:
    result = run_cli(["import-scxml", str(HERE / "lab.scxml")])
    assert result.code == 2
    assert "give -o SPEC.toml" in result.stderr
    assert result.stdout == ""


@pytest.mark.slow
@pytest.mark.main_only  # mypy checks every target Python from the main interpreter
def test_the_generated_modules_pass_ruff_and_mypy_together(written: Path) -> None:
    files = []
    for name in SPECS:
        text = (written / name).read_text(encoding="utf-8")
        machine, _ = validate_source(parse_spec_text(text, name))
        source = module_source(machine)
        assert lint_findings(source) == "", name
        (written / f"{machine.module_name}.py").write_text(source, encoding="utf-8")
        files.append(f"{machine.module_name}.py")
    result, messages = run_mypy(files, written)
    assert result.code == 0 and not messages, result.output


def _machines(written: Path) -> dict[str, Machine]:
    found = {}
    for name in SPECS:
        text = (written / name).read_text(encoding="utf-8")
        machine, _ = validate_source(parse_spec_text(text, name))
        found[machine.module_name] = machine
    return found


def test_export_writes_the_children_inline_and_imports_back_to_the_same_specs(
    written: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    machines = _machines(written)
    text, diagnostics = export_scxml(machines["lab"], "lab.toml", machines)
    assert text is not None, diagnostics
    assert text.count("<scxml") == 3 and "<invoke " in text and "src=" not in text
    again = tmp_path_factory.mktemp("again")
    (again / "lab.scxml").write_text(text, encoding="utf-8")
    result = run_cli(["import-scxml", "lab.scxml", "-o", "lab.toml"], cwd=again)
    assert result.code == 0, result.stderr
    for name in SPECS:  # the same specs, but for the line naming the file they came from
        first = (written / name).read_text(encoding="utf-8").split("\n", 1)[1]
        assert (again / name).read_text(encoding="utf-8").split("\n", 1)[1] == first, name


def test_export_names_a_child_it_does_not_have_by_the_file_its_own_export_writes(
    written: Path,
) -> None:
    machines = _machines(written)
    text, diagnostics = export_scxml(machines["lab"], "lab.toml")
    assert text is not None, diagnostics
    assert '<invoke type="http://www.w3.org/TR/scxml/" id="counter" src="lab_invoke_0.scxml"' in (
        text
    )
    assert '<send event="stop" target="#_counter"/>' in text
