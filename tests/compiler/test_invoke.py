"""Child machines (``invoke``, #20) from the compiler's side: what the model declares, and the
golden ``invoke_task`` module running its research children with the runtime, sync and async.

The module's text is golden (``test_golden.py``); mypy checks it against its child in
``tests/typing/test_invoke_typing.py``; the validation errors are cases of ``invalid/``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from statewright_compiler.check.validate import compile_spec, validate_source
from statewright_compiler.diagnostics import Severity
from statewright_compiler.model import Machine
from statewright_compiler.model.invoke_cycles import handler_cuts
from statewright_compiler.pipeline import BuildResult, build, module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.typing import run_mypy

REPO = Path(__file__).resolve().parents[2]
CASE = REPO / "tests" / "cases" / "invoke_task"

LAB = """\
[machine]
name = "Lab"
initial = "running"

[data]
seen = {{ type = "object", initial = "" }}

[states.running]
{triggers}

[[states.running.invoke]]
id = "searcher"
machine = "research:ResearchMachine"

[[states.running.invoke]]
machine = "research:ResearchMachine"

[states.done]
kind = "final"
"""


def lab(triggers: str) -> Machine:
    machine, _ = validate_source(parse_spec_text(LAB.format(triggers=triggers), "lab.toml"))
    return machine


def test_done_invoke_is_declared_when_a_trigger_matches_it_internal_and_its_data_any() -> None:
    values = {event.value: event for event in lab('on."done.invoke" = "done"').events}
    assert set(values) == {"done.invoke.searcher", "done.invoke.running"}
    assert all(event.internal for event in values.values())
    assert values["done.invoke.running"].name == "done_invoke_running"
    assert not lab('on."done.invoke.searcher" = "done"').event("done_invoke_searcher").payload
    # _event.data is the child's done data, whose type only the child's spec knows.
    any_data = 'on."done.invoke.searcher" = { to = "done", actions = ['
    any_data += '{ assign = "seen", expr = "_event.data.result" }] }'
    assert lab(any_data).rules[0].steps


def test_a_send_to_a_child_names_the_child_s_event_which_this_machine_need_not_declare() -> None:
    send = '{ send = "FOUND", target = "#_searcher", data = { text = "\'x\'" } }'
    machine = lab(f'on."done.invoke" = {{ to = "done", actions = [{send}] }}')
    assert "FOUND" not in {event.name for event in machine.events}
    source = module_source(machine)
    assert "_invoked_research.ResearchEvent.FOUND," in source
    assert "import research as _invoked_research" in source


@pytest.fixture
def invoke_task() -> Iterator[ModuleType]:
    """The golden module, its child (generated/research.py) importable."""
    spec = importlib.util.spec_from_file_location("invoke_task", CASE / "expected.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["invoke_task"] = module
    sys.path.insert(0, str(REPO / "generated"))
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(REPO / "generated"))
        del sys.modules["invoke_task"]


def test_the_golden_module_is_what_its_spec_compiles_to() -> None:
    machine, _ = compile_spec(CASE / "spec.toml", "tests/cases/invoke_task/spec.toml")
    assert module_source(machine) == (CASE / "expected.py").read_text(encoding="utf-8")


def test_children_start_with_their_params_hear_the_parent_and_end_it(
    invoke_task: ModuleType,
) -> None:
    lab: Any = invoke_task.InvokeTaskMachine(None)
    searcher = lab.children.searcher
    assert searcher.data.max_attempts == 3 and searcher.data.findings == ["seed"]
    helper_id = lab.data.helper_id
    assert helper_id.startswith("investigating.") and set(lab.children) == {"searcher", helper_id}
    lab.hint(text="look here")
    assert searcher.data.findings == ["seed", "hint: look here"]
    searcher.done()  # the child ends: done.invoke.searcher takes the parent to reporting
    assert lab.state == invoke_task.InvokeTaskState.REPORTING
    assert lab.data.finished_by == "searcher"
    assert dict(lab.children) == {} and lab.children.searcher is None


def test_the_async_machine_runs_async_children(invoke_task: ModuleType) -> None:
    async def run() -> None:
        lab: Any = invoke_task.InvokeTaskAsyncMachine(None)
        await lab.start_chart()  # an async chart enters its initial states when awaited
        searcher = lab.children.searcher
        assert type(searcher).__name__ == "ResearchAsyncMachine"
        await lab.hint(text="async")
        assert searcher.data.findings == ["seed", "hint: async"]
        await lab.give_up()  # leaving the state cancels both children
        assert dict(lab.children) == {}

    asyncio.run(run())


def _warnings(text: str) -> list[str]:
    _, diagnostics = validate_source(parse_spec_text(text, "lab.toml"))
    return [d.code for d in diagnostics if d.severity is Severity.WARNING]


def test_events_passed_on_to_other_machines_are_used_and_a_child_may_send_an_internal_one() -> None:
    """An event sent to the parent (``#_parent``) or forwarded to a child (``autoforward``) is
    used though no transition matches it; an ``internal = true`` event no step of this machine
    sends is fine where a child machine may send it to its parent."""
    unused = LAB.format(triggers='on."done.invoke" = "done"').replace(
        "[states.running]", "[events]\nPING = {}\n\n[states.running]"
    )
    assert _warnings(unused) == ["unused-event"]
    forwarded = unused.replace('id = "searcher"', 'id = "searcher"\nautoforward = true')
    assert _warnings(forwarded) == []
    sent_up = unused.replace(
        'on."done.invoke" = "done"',
        'on."done.invoke" = { to = "done", actions = [{ send = "PING", target = "#_parent" }] }',
    )
    assert _warnings(sent_up) == []
    from_child = unused.replace("PING = {}", "PING = { internal = true }").replace(
        'on."done.invoke" = "done"', 'on."done.invoke" = "done"\non.PING = "done"'
    )
    assert _warnings(from_child) == []


CALLER = """\
[machine]
name = "{name}"
module = "{module}"
initial = "idle"
statechart = true

[events]
GO = {{}}

[states.idle]
on.GO = "calling"

[states.calling]
entry = ["enter_{module}"]

[[states.calling.invoke]]
id = "callee"
machine = "{callee}"
"""


def test_machines_that_invoke_each_other_or_themselves_import_and_share_the_handlers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent's handlers protocol includes its children's, whose modules are imported at the
    top: at run time only type checkers read the children's protocols, so two modules that
    invoke each other still import (each is half imported when the other runs), and a chart
    that invokes itself leaves itself out of its protocol's bases."""
    machines = {"ping": ("Ping", "pong:PongMachine"), "pong": ("Pong", "ping:PingMachine")}
    machines["nest"] = ("Nest", "nest:NestMachine")
    for module, (name, callee) in machines.items():
        text = CALLER.format(name=name, module=module, callee=callee)
        machine, _ = validate_source(parse_spec_text(text, f"{module}.toml"))
        (tmp_path / f"{module}.py").write_text(module_source(machine), encoding="utf-8")
    nest_source = (tmp_path / "nest.py").read_text(encoding="utf-8")
    assert "_ChildrenHandlers" not in nest_source  # its own protocol is the whole tree's
    monkeypatch.syspath_prepend(str(tmp_path))
    entered: list[str] = []

    class Handlers:
        def enter_ping(self, context: None, payload: object, /) -> None:
            entered.append("ping")

        def enter_pong(self, context: None, payload: object, /) -> None:
            entered.append("pong")

        def enter_nest(self, context: None, payload: object, /) -> None:
            entered.append("nest")

    try:
        ping = importlib.import_module("ping")
        nest = importlib.import_module("nest")
        caller: Any = ping.PingMachine(None, Handlers())
        caller.go()
        caller.children["callee"].go()  # the pong child starts a ping grandchild
        assert type(caller.children["callee"].children["callee"]).__name__ == "PingMachine"
        nested: Any = nest.NestMachine(None, Handlers())
        nested.go()
        assert type(nested.children["callee"]).__name__ == "NestMachine"
        assert entered == ["ping", "pong", "nest"]
    finally:
        for module in machines:
            sys.modules.pop(module, None)


@pytest.mark.slow  # mypy
@pytest.mark.main_only  # the bases' shape, the same for every target Python
def test_machines_invoking_each_other_type_check_their_protocols_cut_where_the_cycle_closes(
    tmp_path: Path,
) -> None:
    """A two-machine cycle (ping <-> pong), a three-machine one (red -> green -> blue -> red) and
    a machine invoking itself, compiled together: the walk cuts each cycle at the edge that
    closes it, so the protocols' bases have no cycle and every module passes mypy --strict."""
    machines = {
        "ping": ("Ping", "pong:PongMachine"),
        "pong": ("Pong", "ping:PingMachine"),
        "red": ("Red", "green:GreenMachine"),
        "green": ("Green", "blue:BlueMachine"),
        "blue": ("Blue", "red:RedMachine"),
        "nest": ("Nest", "nest:NestMachine"),
    }
    specs = []
    for module, (name, callee) in machines.items():
        spec = tmp_path / "spec" / f"{module}.toml"
        spec.parent.mkdir(exist_ok=True)
        spec.write_text(CALLER.format(name=name, module=module, callee=callee), encoding="utf-8")
        specs.append(spec)
    built = build(specs, tmp_path / "out", None, tmp_path)
    assert not built.failed, built.diagnostics
    # walked from blue (by module name): blue -> red -> green, whose edge to blue closes that
    # cycle; then ping -> pong, whose edge to ping closes the other
    assert {m.module_name: sorted(c) for m, c in _cuts(built).items()} == {
        "blue": [],
        "green": [("blue", "Blue")],
        "nest": [],
        "ping": [],
        "pong": [("ping", "Ping")],
        "red": [],
    }
    for artifact in built.artifacts:
        artifact.path.parent.mkdir(exist_ok=True)
        artifact.path.write_text(artifact.content, encoding="utf-8")
    sources = {path.stem: path.read_text(encoding="utf-8") for path in (tmp_path / "out").iterdir()}
    assert "_invoked_pong.PongInvokedHandlers" in sources["ping"]
    assert "_invoked_ping.PingInvokedHandlers" not in sources["pong"]
    files = [f"out/{module}.py" for module in machines]
    result, _ = run_mypy(files, tmp_path)
    assert result.code == 0, result.output


def _cuts(built: BuildResult) -> dict[Machine, frozenset[tuple[str, str]]]:
    cuts = handler_cuts(built.machines)
    return {machine: cuts[machine.module_name] for machine in built.machines}
