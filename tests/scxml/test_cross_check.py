"""What export-scxml writes runs in an independent engine as the spec runs in statewright.

Each spec below has a data model (fields, cond, assign, if/elif/else, foreach, raise, send with
data, done data, In()); it is compiled and run by statewright, exported with ``statewright
export-scxml`` and loaded by python-statemachine 3.2.2's own SCXML engine, with its restricted
(AST allowlist) evaluator: nothing here evaluates chart text. Both get the same events, and after
each one both must be in the same states.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from statewright import MachineOptions
from statewright_compiler.check.validate import validate_source
from statewright_compiler.pipeline import module_source
from statewright_compiler.spec.load import parse_spec_text

from tests.conftest import run_cli

statemachine_io = pytest.importorskip("statemachine.io")

COUNTER = """\
[machine]
name = "Counter"
initial = "counting"
on_error = "event"

[data]
count = { type = "int", initial = 0 }
total = { type = "int", initial = 0 }
parity = { type = "str", initial = "even" }

[events]
TICK = {}
ODD = {}
SUM = {}

[states.counting]
on.TICK = [
  { to = "done", cond = "count >= 4" },
  { to = "counting", actions = [
    { assign = "count", expr = "count + 1" },
    { if = "count % 2 == 1", then = [
      { assign = "parity", expr = "'odd'" }, { raise = "ODD" },
    ], elif = [
      { if = "count == 4", then = [{ assign = "parity", expr = "'four'" }] },
    ], else = [{ assign = "parity", expr = "'even'" }] },
  ] },
]
on.ODD = { to = "odd", cond = "parity == 'odd'" }
on.SUM = { to = "summed", actions = [
  { foreach = "[1, 2, 3]", item = "count", do = [{ assign = "total", expr = "total + count" }] },
] }

[states.odd]
on.TICK = { to = "counting", actions = [{ assign = "count", expr = "count + 1" }] }

[states.summed]
always = [{ to = "done", cond = "total == 6" }, { to = "counting" }]

[states.done]
kind = "final"
"""

REGIONS = """\
[machine]
name = "Regions"
initial = "both"
on_error = "event"

[data]
hits = { type = "int", initial = 0 }

[events]
GO = {}
HIT = {}
NOTE = { payload = { n = "Any" } }  # Any: SCXML data is untyped

[states.both]
kind = "parallel"

[states.left]
parent = "both"
initial = "left_idle"

[states.left_idle]
parent = "left"
on.GO = "left_busy"

[states.left_busy]
parent = "left"
on.HIT = { to = "left_idle", cond = "In('right_ready')", actions = [
  { assign = "hits", expr = "hits + 1" },
  { send = "NOTE", data = { n = "hits" } },
] }

[states.right]
parent = "both"
initial = "right_waiting"

[states.right_waiting]
parent = "right"
on.GO = "right_ready"

[states.right_ready]
parent = "right"
on.NOTE = [
  { to = "right_waiting", cond = "_event.data['n'] >= 2" },
  { to = "right_ready" },
]
"""

#: Each spec and the events both engines get, in order.
CASES = {
    "counter": (COUNTER, ["TICK", "TICK", "ODD", "TICK", "TICK", "SUM", "TICK", "TICK"]),
    "counter_to_the_end": (COUNTER, ["TICK"] * 9),
    "regions": (REGIONS, ["GO", "HIT", "GO", "HIT", "GO", "HIT", "HIT"]),
}


def _statewright(spec: str, folder: Path) -> Any:
    machine, _ = validate_source(parse_spec_text(spec, "spec.toml"))
    module_file = folder / f"{machine.module_name}.py"
    module_file.write_text(module_source(machine), encoding="utf-8")
    loader = importlib.util.spec_from_file_location(f"cross_{machine.module_name}", module_file)
    assert loader is not None and loader.loader is not None
    module = importlib.util.module_from_spec(loader)
    sys.modules[loader.name] = module  # dataclasses look their module up while the class is built
    try:
        loader.loader.exec_module(module)
    finally:
        del sys.modules[loader.name]
    machine_class = getattr(module, f"{machine.name}Machine")
    return machine_class(None, None, options=MachineOptions(log_transitions=False))


def _exported(spec: str, folder: Path) -> Path:
    (folder / "spec.toml").write_text(spec, encoding="utf-8")
    result = run_cli(["export-scxml", "spec.toml", "-o", "spec.scxml"], cwd=folder)
    assert result.code == 0, result.stderr
    return folder / "spec.scxml"


def _leaves(machine: Any) -> list[str]:
    """python-statemachine's active states that have no active child."""
    active = list(machine.configuration)
    return sorted(
        state.id for state in active if not any(child in active for child in state.states)
    )


def _settle(machine: Any) -> None:
    """Let python-statemachine's loop take what it queued (its external queue)."""
    deadline = time.monotonic() + 0.05
    while not machine.is_terminated and time.monotonic() < deadline:
        machine._engine.processing_loop()
        time.sleep(0.01)


@pytest.mark.parametrize("case", CASES)
def test_exported_spec_runs_alike_in_python_statemachine(case: str, tmp_path: Path) -> None:
    spec, events = CASES[case]
    ours = _statewright(spec, tmp_path)
    theirs = statemachine_io.load(str(_exported(spec, tmp_path)), trusted=False)()
    _settle(theirs)
    steps = [("(start)", sorted(map(str, ours.active_states)), _leaves(theirs))]
    for event in events:
        if not ours.is_final:
            ours.try_send(event)  # an event no state takes is ignored, as in SCXML
        if not theirs.is_terminated:
            theirs.send(event)
            _settle(theirs)
        steps.append((event, sorted(map(str, ours.active_states)), _leaves(theirs)))
    assert [(event, mine) for event, mine, _ in steps] == [(e, t) for e, _, t in steps]
    assert ours.is_final == theirs.is_terminated
