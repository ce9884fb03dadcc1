"""``statewright export-scxml``, and export and import as inverses of each other.

``export/chart.toml`` uses everything SCXML can say; its SCXML is golden (``chart.scxml``).
``export/refused_*.toml`` use what it cannot; their diagnostics are golden (``.expected``).
Every valid import case of ``test_import.py`` goes round trip both ways.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from statewright_compiler.check.validate import validate_source
from statewright_compiler.model import Expression, Machine
from statewright_compiler.scxml.document import (
    Cancel,
    Document,
    Foreach,
    If,
    Node,
    NodeKind,
    Send,
    Step,
    Transition,
)
from statewright_compiler.scxml.exporter import export_scxml
from statewright_compiler.scxml.importer import read_document
from statewright_compiler.scxml.names import machine_name, state_names
from statewright_compiler.scxml.read import parse_xml
from statewright_compiler.spec.durations import parse_duration
from statewright_compiler.spec.load import parse_spec_text

from tests.conftest import check_golden, run_cli
from tests.scxml.test_import import VALID

HERE = Path(__file__).parent / "export"
REFUSED = sorted(HERE.glob("refused_*.toml"))
#: Valid import cases export cannot write back: ids with whitespace are no SCXML ids.
NOT_EXPORTABLE = {"hostile"}


def compiled(text: str, name: str = "spec.toml") -> Machine:
    machine, _ = validate_source(parse_spec_text(text, name))
    return machine


def imported(scxml: str, tmp_path: Path, name: str = "chart") -> str:
    (tmp_path / f"{name}.scxml").write_text(scxml, encoding="utf-8")
    result = run_cli(["import-scxml", f"{name}.scxml"], cwd=tmp_path)
    assert result.code == 0, result.stderr
    return result.stdout


def exported(machine: Machine) -> str:
    text, diagnostics = export_scxml(machine, "spec.toml")
    assert text is not None, diagnostics
    return text


def without_header(text: str) -> str:
    """The text less its first comment line (which names the file it came from)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(("# ", "<!--")))


def test_golden_export() -> None:
    result = run_cli(["export-scxml", "chart.toml"], cwd=HERE)
    assert result.code == 0, result.stderr
    check_golden(HERE / "chart.scxml", result.stdout)


@pytest.mark.parametrize("spec", REFUSED, ids=[spec.stem for spec in REFUSED])
def test_refused(spec: Path, tmp_path: Path) -> None:
    output = tmp_path / "out.scxml"
    result = run_cli(["export-scxml", spec.name, "-o", str(output)], cwd=HERE)
    check_golden(spec.with_suffix(".expected"), result.stderr)
    assert result.code == 1
    assert not output.exists()


def test_writes_the_output_file(tmp_path: Path) -> None:
    result = run_cli(["export-scxml", str(HERE / "chart.toml"), "-o", str(tmp_path / "c.scxml")])
    assert result.code == 0, result.stderr
    written = (tmp_path / "c.scxml").read_text(encoding="utf-8")
    assert without_header(written) == without_header((HERE / "chart.scxml").read_text())


def test_invalid_spec_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('[machine]\nname = "X"\n', encoding="utf-8")
    result = run_cli(["export-scxml", "bad.toml"], cwd=tmp_path)
    assert result.code == 1 and "error[" in result.stderr
    assert run_cli(["export-scxml", "none.toml"], cwd=tmp_path).code == 2


def projection(machine: Machine) -> object:
    """What a chart is, without where its spec writes things or how it orders its events."""
    states = [
        (s.name, s.value, s.kind, s.parent, s.initial, s.initial_steps, s.entry, s.exit, s.history)
        for s in machine.states
    ]
    defaults = [(s.default, s.default_steps) for s in machine.states]
    rules = [
        (r.sources, frozenset(r.events), r.targets, r.guard, r.steps, r.internal)
        for r in machine.rules
    ]
    events = {event.name: event.value for event in machine.events}
    return (
        states,
        defaults,
        sorted(rules, key=repr),
        events,
        machine.initial_targets,
        machine.on_error,
    )


def _plain(value: object) -> object:
    """A step or a value with each expression as its text (positions left out)."""
    if isinstance(value, Expression):
        return value.text
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            *(_plain(getattr(value, f.name)) for f in dataclasses.fields(value)),
        )
    return value


def data_projection(machine: Machine) -> object:
    """A chart's data model: its fields, conds, steps and done data, as texts."""
    fields = [(f.name, f.annotation, f.initial, _plain(f.expr), f.state) for f in machine.data]
    rules = [
        (r.sources, r.event, r.targets, _plain(r.cond), _plain(r.steps)) for r in machine.rules
    ]
    states = [
        (s.name, _plain(s.entry), _plain(s.exit), _plain(s.donedata), _plain(s.donedata_params))
        for s in machine.states
    ]
    return fields, sorted(rules, key=repr), states, machine.binding


def test_the_data_model_round_trips(tmp_path: Path) -> None:
    """export-scxml writes the data model (data, cond, assign, if, foreach, send, cancel, log,
    done data) as SCXML's Python data model, and importing it gives the same data model."""
    machine = compiled((HERE / "data.toml").read_text(encoding="utf-8"))
    scxml = exported(machine)
    for element in ("<data ", "<assign ", "<if ", "<foreach ", "<send ", "<cancel ", "<donedata>"):
        assert element in scxml
    again = compiled(imported(scxml, tmp_path))
    assert data_projection(again) == data_projection(machine)
    before, after = projection(machine), projection(again)
    assert isinstance(before, tuple) and isinstance(after, tuple)
    assert after[:2] == before[:2]  # states (their entry and exit steps too) and defaults


def test_import_of_export_compiles_to_the_same_chart(tmp_path: Path) -> None:
    machine = compiled((HERE / "chart.toml").read_text(encoding="utf-8"))
    again = compiled(imported(exported(machine), tmp_path))
    assert projection(again) == projection(machine)


def _normal(document: Document, stem: str) -> Document:
    """The document as SCXML means it: ids for nodes without one (as the importer names them),
    default initial states written out, and a node's evented and eventless transitions each in
    their own order (the two kinds never compete, so their interleaving means nothing)."""
    names = state_names([node.id for node in document.nodes])
    nodes = [
        dataclasses.replace(node, id=node.id or name)
        for node, name in zip(document.nodes, names, strict=True)
    ]

    def first_state(parent: int | None) -> tuple[str, ...]:
        children = [
            nodes[i] for i in document.children(parent) if nodes[i].kind is not NodeKind.HISTORY
        ]
        return (children[0].id or "",) if children else ()

    def transitions(node: Node) -> tuple[Transition, ...]:
        kept = [dataclasses.replace(t, line=0, column=0) for t in node.transitions]
        return tuple(t for t in kept if t.events) + tuple(t for t in kept if not t.events)

    normal = tuple(
        dataclasses.replace(
            node,
            initial=node.initial or (first_state(index) if node.kind is NodeKind.STATE else ()),
            history=node.history,
            transitions=transitions(node),
            line=0,
            column=0,
        )
        for index, node in enumerate(nodes)
    )
    name = machine_name(document.name, stem)
    return _timers(Document(name, document.initial or first_state(None), normal))


def _timers(document: Document) -> Document:
    """Timer ids numbered by first appearance (a ``<send>`` without one gets its own number, as
    the importer gives it its own timer), delays in seconds."""
    numbers: dict[str, str] = {}
    count = 0

    def number(identifier: str | None) -> str:
        nonlocal count
        if identifier is not None and identifier in numbers:
            return numbers[identifier]
        count += 1
        if identifier is not None:
            numbers[identifier] = f"t{count}"
        return f"t{count}"

    def steps(block: tuple[Step, ...]) -> tuple[Step, ...]:
        normal: list[Step] = []
        for step in block:
            if isinstance(step, Send):
                delay = str(parse_duration(step.delay, allow_zero=True)) if step.delay else ""
                identifier = None if step.idlocation is not None else number(step.id)
                normal.append(dataclasses.replace(step, delay=delay, id=identifier))
            elif isinstance(step, Cancel) and step.expr is None:
                normal.append(Cancel(number(step.id)))
            elif isinstance(step, If):
                branches = tuple((test, steps(body)) for test, body in step.branches)
                rest = None if step.otherwise is None else steps(step.otherwise)
                normal.append(If(branches, rest))
            elif isinstance(step, Foreach):
                normal.append(dataclasses.replace(step, steps=steps(step.steps)))
            else:
                normal.append(step)
        return tuple(normal)

    nodes = []
    for node in document.nodes:
        nodes.append(
            dataclasses.replace(
                node,
                initial_steps=steps(node.initial_steps),
                entry=steps(node.entry),
                exit=steps(node.exit),
                default_steps=steps(node.default_steps),
                transitions=tuple(
                    dataclasses.replace(t, steps=steps(t.steps)) for t in node.transitions
                ),
            )
        )
    return dataclasses.replace(document, nodes=tuple(nodes))


def _document(scxml: str) -> Document:
    document, diagnostics = read_document(parse_xml(scxml.encode(), "chart.scxml"), "chart.scxml")
    assert document is not None, diagnostics
    return document


@pytest.mark.parametrize("chart", VALID, ids=[chart.stem for chart in VALID])
def test_round_trips(chart: Path, tmp_path: Path) -> None:
    spec = imported(chart.read_text(encoding="utf-8"), tmp_path, chart.stem)
    machine = compiled(spec)
    text, diagnostics = export_scxml(machine, "spec.toml")
    if chart.stem in NOT_EXPORTABLE:
        assert text is None and diagnostics
        return
    assert text is not None, diagnostics
    # export(import(x)) is x, structurally ...
    original = _document(chart.read_text(encoding="utf-8"))
    assert _normal(_document(text), chart.stem) == _normal(original, chart.stem)
    # ... and import(export(spec)) is the spec again, byte for byte past the header.
    assert without_header(imported(text, tmp_path, chart.stem)) == without_header(spec)
    assert projection(compiled(spec)) == projection(machine)
