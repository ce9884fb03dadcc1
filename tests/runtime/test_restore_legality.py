"""Restore checks legality: a statechart's snapshot restores only what a run of the chart can
produce (issue #18, items 4 to 7), and every malformed value is a :class:`SnapshotError` naming
its field, never another exception.

* history memory is what leaving the parent records: a deep history one legal configuration's
  leaves below its parent, a shallow one the parent's active children; never two siblings of a
  compound state, never nothing, never a pseudo-state;
* pending ``after`` timers belong to active states and have the spec's delay; the internal queue
  is empty between macrosteps (a finished chart's too);
* every delay is within the compiler's ten years, due times are epochs, and numbers come back as
  they were given (an integer stays an integer, none turns into a float that is another number).
"""

from __future__ import annotations

import copy
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from agent_task import AgentTaskMachine
from statewright import ActionFailed, MachineOptions, SnapshotError
from statewright._chart_spec import MAX_DELAY

from tests.runtime.chart_specs import compile_chart

START = 1_767_225_600.0
PANES = """
[machine]
name = "Panes"
initial = "main"
[events]
GO = {}
AWAY = {}
BACK = {}
RIGHT = {}
[states.main]
initial = "left"
on.AWAY = "away"
[states.left]
parent = "main"
on.GO = "right"
[states.right]
parent = "main"
initial = "r1"
[states.r1]
parent = "right"
on.GO = "r2"
[states.r2]
parent = "right"
[states.right_hist]
kind = "history"
parent = "right"
[states.main_hist]
kind = "history"
parent = "main"
history = "deep"
[states.away]
on.BACK = "main_hist"
on.RIGHT = "right_hist"
"""
SENDER = """
[machine]
name = "Sender"
initial = "a"
[events]
GO = {}
PING = {}
X = {}
[states.a]
on.GO = { to = "b", actions = [{ send = "PING", id = "ping", delay_handler = "how_long" }] }
on.X = { to = "end", actions = [{ raise = "PING" }] }
[states.b]
on.PING = "a"
on.X = { to = "end", actions = [{ raise = "PING" }] }
[states.end]
kind = "final"
"""


class Wait:
    """The delay handler answers what the test sets."""

    def __init__(self, seconds: object) -> None:
        self.seconds = seconds

    def how_long(self, context: object, payload: object, /) -> object:
        return self.seconds


class AgentHandlers:
    def succeeded(self, context: object, payload: Any, /) -> bool:
        return bool(payload["ok"])


@pytest.fixture
def panes(tmp_path: Path) -> ModuleType:
    return compile_chart(tmp_path, PANES, "panes")


@pytest.fixture
def sender(tmp_path: Path) -> ModuleType:
    return compile_chart(tmp_path, SENDER, "sender")


def away(panes: ModuleType) -> dict[str, Any]:
    """Left main from r2: both history states remember."""
    machine = panes.PanesMachine(None, options=MachineOptions(clock=lambda: START))
    machine.go()
    machine.go()
    machine.away()
    snapshot: dict[str, Any] = machine.snapshot()
    assert snapshot["chart"]["memory"] == {"main_hist": ["r2"], "right_hist": ["r2"]}
    return snapshot


def calling() -> dict[str, Any]:
    """The agent task waiting for its tool, its 30 s watchdog pending."""
    machine: AgentTaskMachine[None] = AgentTaskMachine(
        None, AgentHandlers(), options=MachineOptions(clock=lambda: START)
    )
    machine.planned()
    snapshot: dict[str, Any] = machine.snapshot()
    return snapshot


def refused(cls: Any, snapshot: dict[str, Any], handlers: object = None) -> SnapshotError:
    with pytest.raises(SnapshotError) as caught:
        cls.restore(snapshot, handlers)
    return caught.value


# -- item 4: history memory -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("history", "remembered"),
    [
        ("right_hist", ["r1", "r2"]),  # two siblings of a compound state
        ("right_hist", []),  # nothing
        ("right_hist", ["right_hist"]),  # a pseudo-state
        ("main_hist", ["left", "r1"]),  # two configurations at once
        ("main_hist", []),
        ("main_hist", ["right"]),  # deep history remembers leaves
        ("main_hist", ["main_hist"]),
    ],
)
def test_history_memory_must_be_one_legal_configuration(
    panes: ModuleType, history: str, remembered: list[str]
) -> None:
    snapshot = away(panes)
    snapshot["chart"]["memory"][history] = remembered
    assert refused(panes.PanesMachine, snapshot).field == f"chart.memory.{history}"


def test_legal_history_memory_restores_and_resumes(panes: ModuleType) -> None:
    snapshot = away(panes)
    snapshot["chart"]["memory"] = {"main_hist": ["left"], "right_hist": ["r1"]}
    restored = panes.PanesMachine.restore(snapshot)
    assert restored.send(panes.PanesEvent.RIGHT) is panes.PanesState.R1
    assert restored.active_states == {panes.PanesState.R1}


def test_deep_history_of_a_parallel_state_remembers_every_region() -> None:
    machine: AgentTaskMachine[None] = AgentTaskMachine(
        None, AgentHandlers(), options=MachineOptions(clock=lambda: START)
    )
    machine.planned()
    machine.suspend()
    snapshot = machine.snapshot()
    assert snapshot["chart"]["memory"] == {"resume_point": ["waiting_for_tool", "ticking"]}
    AgentTaskMachine.restore(copy.deepcopy(snapshot), AgentHandlers())
    snapshot["chart"]["memory"]["resume_point"] = ["waiting_for_tool"]  # a region forgotten
    error = refused(AgentTaskMachine, snapshot, AgentHandlers())
    assert error.field == "chart.memory.resume_point"
    assert "parallel calling has an inactive region" in str(error)


# -- item 5: timers and the internal queue ------------------------------------------------------


def test_an_after_timer_of_an_inactive_state_is_refused() -> None:
    machine: AgentTaskMachine[None] = AgentTaskMachine(
        None, AgentHandlers(), options=MachineOptions(clock=lambda: START)
    )
    machine.planned()
    timer = machine.snapshot()["chart"]["timers"][0]
    machine.suspend()  # leaving calling cancelled the watchdog
    snapshot = machine.snapshot()
    snapshot["chart"]["timers"] = [timer]
    error = refused(AgentTaskMachine, snapshot, AgentHandlers())
    assert error.field == "chart.timers[0].id"
    assert "ticking, which is not active" in str(error)


def test_an_after_timer_with_another_delay_is_refused() -> None:
    snapshot = calling()
    snapshot["chart"]["timers"][0]["delay"] = 45.0
    assert refused(AgentTaskMachine, snapshot, AgentHandlers()).field == "chart.timers[0].delay"


def test_a_send_timer_is_checked_by_its_own_rules(sender: ModuleType) -> None:
    machine = sender.SenderMachine(None, Wait(5), options=MachineOptions(clock=lambda: START))
    machine.go()
    snapshot = machine.snapshot()
    (timer,) = snapshot["chart"]["timers"]
    assert (timer["id"], timer["event"], timer["delay"]) == ("ping", "PING", 5)
    for key, value in [("id", "pong"), ("event", "GO")]:
        broken = copy.deepcopy(snapshot)
        broken["chart"]["timers"][0][key] = value
        assert refused(sender.SenderMachine, broken, Wait(5)).field == f"chart.timers[0].{key}"
    snapshot["chart"]["timers"][0]["delay"] = 3600  # a delay handler's: any within the limit
    assert sender.SenderMachine.restore(snapshot, Wait(5)).pending_timers == {"ping": START + 5}


def test_the_internal_queue_is_empty_at_rest(sender: ModuleType) -> None:
    machine = sender.SenderMachine(None, Wait(5), options=MachineOptions(clock=lambda: START))
    snapshot = machine.snapshot()
    snapshot["chart"]["queue"] = [["PING", {}]]
    assert refused(sender.SenderMachine, snapshot, Wait(5)).field == "chart.queue[0]"
    machine.send(sender.SenderEvent.X)  # raises PING, then finishes: nothing processes it
    finished = machine.snapshot()
    assert finished["chart"]["finished"] and finished["chart"]["queue"] == []
    assert sender.SenderMachine.restore(finished, Wait(5)).is_final


# -- item 6: numbers ---------------------------------------------------------------------------


@pytest.mark.parametrize("delay", [1e300, 10**30, MAX_DELAY + 1, -1, float("inf")])
def test_a_delay_beyond_ten_years_is_refused(sender: ModuleType, delay: float) -> None:
    machine = sender.SenderMachine(None, Wait(5), options=MachineOptions(clock=lambda: START))
    machine.go()
    snapshot = machine.snapshot()
    snapshot["chart"]["timers"][0]["delay"] = delay
    assert refused(sender.SenderMachine, snapshot, Wait(5)).field == "chart.timers[0].delay"


def test_integers_stay_integers(sender: ModuleType) -> None:
    machine = sender.SenderMachine(None, Wait(5), options=MachineOptions(clock=lambda: START))
    machine.go()
    snapshot = machine.snapshot()
    snapshot["chart"]["timers"][0]["due"] = 1_767_225_605
    snapshot["chart"]["timers"][0]["delay"] = MAX_DELAY // 2
    again = sender.SenderMachine.restore(snapshot, Wait(5)).snapshot()["chart"]["timers"][0]
    assert again["due"] == 1_767_225_605 and type(again["due"]) is int
    assert again["delay"] == MAX_DELAY // 2 and type(again["delay"]) is type(MAX_DELAY // 2)


@pytest.mark.parametrize("answer", [MAX_DELAY * 1.1, 1e300, -1, float("nan"), "5"])
def test_a_delay_handler_beyond_ten_years_fails_the_event(
    sender: ModuleType, answer: object
) -> None:
    machine = sender.SenderMachine(None, Wait(answer), options=MachineOptions(clock=lambda: START))
    with pytest.raises(ActionFailed, match="how_long"):
        machine.go()
    assert machine.state is sender.SenderState.A and machine.pending_timers == {}


# -- item 7: malformed values ------------------------------------------------------------------

MALFORMED: list[tuple[str, Any, str]] = [
    ("timers.0.on_restore", {}, "chart.timers[0].on_restore"),
    ("timers.0.on_restore", [], "chart.timers[0].on_restore"),
    ("timers.0.on_restore", None, "chart.timers[0].on_restore"),
    ("timers.0.id", {}, "chart.timers[0].id"),
    ("timers.0.id", ["x"], "chart.timers[0].id"),
    ("timers.0.event", {}, "chart.timers[0].event"),
    ("timers.0.due", {}, "chart.timers[0].due"),
    ("timers.0.due", "soon", "chart.timers[0].due"),
    ("timers.0.delay", [], "chart.timers[0].delay"),
    ("timers.0.delay", True, "chart.timers[0].delay"),
    ("timers.0", [], "chart.timers[0]"),
    ("timers", {}, "chart.timers"),
    ("memory", [], "chart.memory"),
    ("memory.resume_point", {}, "chart.memory.resume_point"),
    ("memory.resume_point", [{}], "chart.memory.resume_point[0]"),
    ("memory.resume_point", [["x"]], "chart.memory.resume_point[0]"),
    ("queue", {}, "chart.queue"),
    ("queue", [[{}, {}]], "chart.queue[0]"),
    ("queue", [["PLANNED", []]], "chart.queue[0]"),
    ("active", [{}], "chart.active[0]"),
    ("active", {}, "chart.active"),
    ("finished", {}, "chart.finished"),
    ("saved_at", {}, "chart.saved_at"),
    ("saved_at", [], "chart.saved_at"),
]


@pytest.mark.parametrize(("path", "value", "field"), MALFORMED)
def test_a_malformed_chart_value_is_a_snapshot_error_naming_it(
    path: str, value: Any, field: str
) -> None:
    snapshot = calling()
    snapshot["chart"]["memory"] = {"resume_point": ["waiting_for_tool", "ticking"]}
    target: Any = snapshot["chart"]
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    target[int(last) if isinstance(target, list) else last] = value
    assert refused(AgentTaskMachine, snapshot, AgentHandlers()).field == field


def test_the_runtime_s_delay_limit_is_the_compiler_s() -> None:
    from statewright_compiler.spec.durations import MAX_DELAY as COMPILER_MAX_DELAY

    assert MAX_DELAY == COMPILER_MAX_DELAY
