"""Which events' payloads reach a statechart state's exit: only the events of the transitions
that can leave it (with its ancestors), not every event of the chart.

A transition between two top-level states has no common ancestor in the spec (their common
ancestor is the chart's root), and leaving the source exits only what lies below the root's child
holding the source; a flat seed that gains a data model (and so becomes a chart) keeps the exit
handlers' payload types it had.
"""

from __future__ import annotations

from statewright_compiler.check.validate import validate_source
from statewright_compiler.codegen.chart_triggers import chart_triggers
from statewright_compiler.model import AssignStep, Machine
from statewright_compiler.spec.load import parse_spec_text

SPEC = """
[machine]
name = "Shuttle"
initial = "idle"

[events]
GO = { payload = { amount = "int" } }
BACK = { payload = { reason = "str" } }
DONE = {}

[data]
total = { type = "int", initial = 0 }

[states.idle]
exit = [{ assign = "total", expr = "_event.data.amount" }, "leave_idle"]
on.GO = "busy"

[states.busy]
initial = "working"
exit = ["leave_busy"]

[states.working]
parent = "busy"
on.BACK = "idle"
on.DONE = "finished"

[states.finished]
parent = "busy"
kind = "final"
"""


def compiled() -> Machine:
    machine, _ = validate_source(parse_spec_text(SPEC, "shuttle.toml"))
    return machine


def test_a_top_level_state_is_exited_only_by_the_transitions_that_leave_it() -> None:
    machine = compiled()  # _event.data.amount in idle's exit: GO's payload only, no type error
    step = machine.state("idle").exit[0]
    assert isinstance(step, AssignStep) and step.value.event_data == "GoPayload"
    triggers, _ = chart_triggers(machine)
    assert list(triggers["leave_idle"]) == ["GO"]
    assert list(triggers["leave_busy"]) == ["BACK"]  # DONE stays inside busy
