"""A statechart's events that only move it between configurations are planned once per
configuration and committed inline (statewright._chart_plans); every other event runs SCXML's
algorithm as before. A planned event leaves the machine exactly where the algorithm would:
state, configuration, history, counters, snapshot, listeners."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from statewright import (
    Chart,
    ChartNode,
    Invoke,
    Machine,
    MachineOptions,
    MachineSpec,
    StrEnum,
    TransitionRecord,
    _chart_plans,
)

from tests.runtime.chart_specs import PARALLEL_CHART, compile_chart
from tests.runtime.machines import FakeClock

#: Depth 4, a two-region parallel state, deep history (issue #22's chart, bench_chart_send.py).
PARALLEL = PARALLEL_CHART.format(name="Planned")
CYCLE = ["START", "FETCHED", "WARN", "PAUSE", "RESUME", "DONE", "RECOVER"]
#: The same chart with a timer in ``degraded``: the worker's events leave it pending.
TIMED = PARALLEL.replace(
    'on.RECOVER = "ok"\n', 'on.RECOVER = "ok"\nafter = { delay = "1h", to = "ok" }\n'
)

#: Every transition here runs content or asks a guard, enters a final state or leads to an
#: eventless transition: none may be planned.
BUSY = """
[machine]
name = "Busy"
initial = "a"

[events]
GUARDED = {}
ACTED = {}
EXITED = {}
ENTERED = {}
THEN = {}
TIMED = {}
RAISED = {}
LOGGED = {}
SAVED = {}
FINISH = {}
ONWARD = {}
BACK = {}

[states.a]
on.GUARDED = [{ to = "b", guard = "ready" }]
on.ACTED = { to = "b", actions = ["act"] }
on.THEN = { to = "b", then = ["act"] }
on.RAISED = { to = "b", actions = [{ raise = "BACK" }] }
on.LOGGED = { to = "b", actions = [{ log = "hello" }] }
on.SAVED = { to = "b", checkpoint = true }
on.ENTERED = "entered"
on.TIMED = "timed"
on.FINISH = "region"
on.ONWARD = "passing"

[states.b]
exit = ["act"]
on.EXITED = "a"
on.BACK = "a"

[states.entered]
entry = ["act"]
on.BACK = "a"

[states.timed]
after = { delay = "1h", to = "a" }
on.BACK = "a"

[states.region]
initial = "working"
on."done.state.region" = "a"

[states.working]
parent = "region"
on.FINISH = "finished"

[states.finished]
parent = "region"
kind = "final"

[states.passing]
always = { to = "a" }
"""
BUSY_CYCLE = [
    ["GUARDED", "EXITED"],
    ["ACTED", "EXITED"],
    ["THEN", "EXITED"],
    ["RAISED"],
    ["LOGGED", "EXITED"],
    ["SAVED", "EXITED"],
    ["ENTERED", "BACK"],
    ["TIMED", "BACK"],
    ["FINISH", "FINISH"],
    ["ONWARD"],
]


class Handlers:
    def __init__(self) -> None:
        self.calls = 0

    def ready(self, context: object, payload: object) -> bool:
        return True

    def act(self, context: object, payload: object) -> None:
        self.calls += 1


class Steps:
    """An engine that counts the steps asked of it, otherwise the machine's own."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.steps = 0

    def step(self, *arguments: Any) -> Any:
        self.steps += 1
        return self.engine.step(*arguments)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def _modules(tmp_path: Path, text: str) -> tuple[ModuleType, ModuleType]:
    """The spec compiled twice: the second module's class plans nothing."""
    planned = compile_chart(tmp_path, text, "planned")
    unplanned = compile_chart(tmp_path, text, "unplanned")
    getattr(unplanned, f"{unplanned.SPEC.name}Machine")._classdata()[1].planned = False
    return planned, unplanned


def _machine(module: ModuleType, name: str, **options: Any) -> Any:
    handlers = Handlers()
    options = {"instance_id": "m-1", **options}
    return getattr(module, f"{name}Machine")(None, handlers, options=MachineOptions(**options))


def _seen(machine: Any, snapshot: bool = True) -> tuple[Any, ...]:
    """Everything a caller can see of a machine, its snapshot too (times are the clock's)."""
    return (
        machine.state,
        machine.previous_state,
        machine.active_states,
        getattr(machine, "configuration", None),  # a chart with parallel states has one
        machine.is_final,
        machine.allowed_events(),
        machine.pending_timers,
        machine.transition_counts(),
        [(r.source, r.event, r.target, r.payload, r.epoch) for r in machine.history],
        machine.snapshot() if snapshot else None,
    )


def test_an_event_that_only_moves_the_chart_is_committed_without_a_step(tmp_path: Path) -> None:
    """Issue #22: a chart event cost 35-43x a flat send, most of it the working copy and the
    algorithm. Once its configuration has planned it, an event that runs no content is committed
    inline, leaving the machine as the algorithm leaves an unplanned class's machine."""
    planned, unplanned = _modules(tmp_path, PARALLEL)
    for _ in range(2):  # an event's first occurrence in a configuration plans it, the second
        warm = _machine(planned, "Planned")  # counts it (the first cycle's configurations
        for name in CYCLE * 2:  # remember no history, so each machine sees them once)
            warm.send(name)
    clocks = FakeClock(), FakeClock()
    machine = _machine(planned, "Planned", clock=clocks[0])
    reference = _machine(unplanned, "Planned", clock=clocks[1])
    records: tuple[list[TransitionRecord], list[TransitionRecord]] = ([], [])
    machine.add_listener(records[0].append)
    reference.add_listener(records[1].append)
    counting = machine._engine = Steps(machine._engine)
    for number, name in enumerate(CYCLE * 3):
        assert machine.send(name, note=number) == reference.send(name, note=number)
        assert _seen(machine) == _seen(reference), name
    assert counting.steps == 1  # the first: a machine's row is set by its first event
    assert records[0] == records[1]
    assert reference._engine.configurations == {}
    sets = {id(config.active) for config in counting.engine.configurations.values()}
    assert id(machine._chart.active) in sets  # the configuration's set, shared
    restored = type(machine).restore(machine.snapshot(), Handlers())
    assert _seen(restored, snapshot=False) == _seen(machine, snapshot=False)
    assert machine.try_send("START") is True and machine.state.value == "fetching"
    assert counting.steps == 1


def test_a_planned_event_leaves_pending_timers_to_fire(tmp_path: Path) -> None:
    planned, unplanned = _modules(tmp_path, TIMED)
    clocks = FakeClock(), FakeClock()
    machines = [
        _machine(planned, "Planned", clock=clocks[0]),
        _machine(unplanned, "Planned", clock=clocks[1]),
    ]
    counting = machines[0]._engine = Steps(machines[0]._engine)
    for machine in machines:
        for name in ["WARN", *["START", "FETCHED", "DONE"] * 4]:  # degraded: its timer waits
            machine.send(name)
    assert counting.steps == 1 + 3 * 2  # WARN, then twice each worker event (then inline)
    assert _seen(machines[0]) == _seen(machines[1])
    assert list(machines[0].pending_timers) == ["after.degraded.1h"]
    for machine, clock in zip(machines, clocks, strict=True):
        assert machine.fire_due(clock.now + 7_200) == 1
    assert _seen(machines[0]) == _seen(machines[1])
    assert machines[0].active_states == {planned.PlannedState.IDLE, planned.PlannedState.OK}


def test_events_with_content_guards_finals_or_eventless_transitions_take_the_algorithm(
    tmp_path: Path,
) -> None:
    planned, unplanned = _modules(tmp_path, BUSY)
    machine = _machine(planned, "Busy", clock=FakeClock())
    reference = _machine(unplanned, "Busy", clock=FakeClock())
    counting = machine._engine = Steps(machine._engine)
    for _ in range(3):
        for names in BUSY_CYCLE:
            for name in names:
                assert machine.send(name) == reference.send(name)
            assert _seen(machine) == _seen(reference), names
    # Two events only move the chart: BACK from 'entered' (whose entry ran when it was entered)
    # and the first FINISH (into 'region', not yet final); each is inline the third time.
    assert counting.steps == sum(map(len, BUSY_CYCLE)) * 3 - 2
    rows = [config.row for config in counting.engine.configurations.values()]
    plans = [str(event) for row in rows for event, entry in row.items() if entry[0] is not None]
    assert sorted(plans) == ["BACK", "FINISH"]
    others = {str(event) for row in rows for event, entry in row.items() if entry[0] is None}
    assert others == {name for names in BUSY_CYCLE for name in names}  # BACK, FINISH too
    assert machine._handlers.calls == reference._handlers.calls > 0


def test_a_class_plans_at_most_its_configurations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_chart_plans, "MAX_CONFIGURATIONS", 2)
    planned, unplanned = _modules(tmp_path, PARALLEL)
    machine = _machine(planned, "Planned", clock=FakeClock())
    reference = _machine(unplanned, "Planned", clock=FakeClock())
    for name in CYCLE * 4:
        machine.send(name)
        reference.send(name)
        assert _seen(machine) == _seen(reference)
    assert len(machine._engine.configurations) == 2


def test_an_asyncio_chart_takes_the_algorithm_for_planned_events_too(tmp_path: Path) -> None:
    """The asyncio flavour commits no chart event inline: the rows it meets go to the
    algorithm, which leaves it where the sync machine is."""
    planned = compile_chart(tmp_path, PARALLEL, "planned")
    sync = _machine(planned, "Planned", clock=FakeClock())
    options = MachineOptions(clock=FakeClock(), instance_id="m-1")
    machine = planned.PlannedAsyncMachine(None, Handlers(), options=options)

    async def run() -> None:
        for name in CYCLE * 3:
            assert await machine.send(name) is sync.send(name)
            assert _seen(machine) == _seen(sync)

    asyncio.run(run())


class ParentState(StrEnum):
    RUNNING = "running"


class ParentEvent(StrEnum):
    NOTHING = "NOTHING"


def test_a_child_machine_s_events_go_through_its_tree(tmp_path: Path) -> None:
    """A child machine's events are delivered through its tree (statewright._tree), which a
    committed-inline event would skip: a chart class the parent invokes plans for its own
    machines only."""
    planned = compile_chart(tmp_path, PARALLEL, "planned")
    warm = _machine(planned, "Planned")
    for name in CYCLE * 3:
        warm.send(name)
    invoke = Invoke(lambda: planned.PlannedMachine, lambda: planned.PlannedAsyncMachine, "c")
    running = ChartNode("running", "atomic", member=ParentState.RUNNING, invokes=(invoke,))
    spec: MachineSpec[Any, Any] = MachineSpec(
        name="Parent",
        version=1,
        spec_hash="0" * 64,
        state_type=ParentState,
        event_type=ParentEvent,
        initial=ParentState.RUNNING,
        final_states=frozenset(),
        transitions={},
        entry_actions={},
        exit_actions={},
        error_routes={},
        tags={},
        chart=Chart((running,), (), (0,)),
    )
    parent = type("ParentMachine", (Machine,), {"spec": spec})(None, Handlers())
    child = parent.children["c"]
    counting = child._engine = Steps(child._engine)
    for name in CYCLE * 3:
        assert child.send(name) == warm.send(name)
        assert child.active_states == warm.active_states
    assert counting.steps == len(CYCLE) * 3
    assert warm.send("START") is planned.PlannedState.FETCHING  # its own machines still plan
