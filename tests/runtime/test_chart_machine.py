"""The statechart machines run the golden chart module (tests/cases/chart_sink): regions, deep
history, eventless transitions with in() guards, raised and done events, then-steps, error
events, and the typed configuration, in both the sync and the asyncio flavour."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from statewright import InvalidTransition, StatewrightError

GOLDEN = Path(__file__).parents[1] / "cases" / "chart_sink" / "expected.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("chart_sink_golden", GOLDEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


sink = _load()
S = sink.ChartSinkState
E = sink.ChartSinkEvent


class Handlers:
    """Records every action; guards answer from attributes a test sets."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.succeeds = True
        self.is_patient = True
        self.fail_in: str | None = None

    def _act(self, name: str) -> None:
        self.calls.append(name)
        if self.fail_in == name:
            raise RuntimeError(f"{name} failed")

    def succeeded(self, context: object, payload: Any) -> bool:
        return self.succeeds

    def patient(self, context: object, payload: Any) -> bool:
        return self.is_patient

    def remember_goal(self, context: object, payload: Any) -> None:
        self._act("remember_goal")

    def announce(self, context: object, payload: Any) -> None:
        self._act("announce")

    def start_call(self, context: object, payload: Any) -> None:
        self._act("start_call")

    def stop_clock(self, context: object, payload: Any) -> None:
        self._act("stop_clock")

    def retry(self, context: object, payload: Any) -> None:
        self._act("retry")

    def restart(self, context: object, payload: Any) -> None:
        self._act("restart")


def test_regions_start_together_and_then_runs_after_entry() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    assert machine.state is S.IDLE
    assert machine.configuration == sink.ChartSinkConfiguration(S.IDLE, None, None)
    assert machine.start(goal="g") is S.CALLING
    # transition actions, then the initial transition's actions of 'tool', then 'then'
    assert handlers.calls == ["remember_goal", "start_call", "announce"]
    assert machine.active_states == {S.CALLING, S.WAITING}
    assert machine.configuration == sink.ChartSinkConfiguration(None, S.CALLING, S.WAITING)
    assert machine.is_in(sink.IN_WORKING) and machine.is_in(S.WAITING)
    assert not machine.is_in(S.IDLE)
    assert machine.in_tag("busy")


def test_done_events_and_eventless_transitions_finish_the_machine() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    handlers.calls.clear()
    # calling -> called (final in 'tool'); the watchdog's eventless in(called) fires, the
    # watchdog completes, done.state.working leaves 'working' for 'done'.
    assert machine.tool_done(result=None) is S.DONE
    assert machine.is_final
    assert handlers.calls == ["stop_clock"]
    record = machine.last_transition
    assert record is not None and (record.source, record.event, record.target) == (
        S.CALLING,
        E.TOOL_DONE,
        S.DONE,
    )
    with pytest.raises(InvalidTransition, match="final"):
        machine.tick()


def test_guards_with_in_and_targetless_transitions() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    handlers.is_patient = False
    # the first alternative's guard fails; the targetless one runs and leaves nothing
    assert machine.tick() is S.CALLING
    assert machine.active_states == {S.CALLING, S.WAITING}
    handlers.succeeds = False
    handlers.calls.clear()
    assert machine.tool_done(result="x") is S.CALLING  # an internal retry of the atomic state
    assert handlers.calls == ["retry"]


def test_deep_history_restores_both_regions() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    machine.suspend()
    assert machine.configuration == sink.ChartSinkConfiguration(S.SUSPENDED, None, None)
    handlers.calls.clear()
    machine.resume()
    assert machine.active_states == {S.CALLING, S.WAITING}
    assert handlers.calls == []  # remembered: the default's actions do not run


def test_raised_and_descriptor_events() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    # on."tool" matches tool.failed and tool.timeout; its action raises TICK, which nothing
    # takes in 'idle' (an internal event nobody waits for is dropped)
    assert machine.send(E.TOOL_TIMEOUT) is S.IDLE
    assert machine.allowed_events() == {E.START}


def test_an_action_error_becomes_error_execution() -> None:
    handlers = Handlers()
    handlers.fail_in = "remember_goal"
    machine = sink.ChartSinkMachine(None, handlers)
    # on_error = "event": the failing block stops, the transition completes, and
    # error.execution (which nothing in 'working' takes) is raised and dropped
    assert machine.start(goal="g") is S.CALLING
    assert handlers.calls == ["remember_goal", "start_call", "announce"]


def test_guard_error_with_on_error_event_is_an_internal_event() -> None:
    class Broken(Handlers):
        def succeeded(self, context: object, payload: Any) -> bool:
            raise ValueError("boom")

    handlers = Broken()
    handlers.is_patient = True
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    # the guard raises: error.execution is raised; the second alternative (retry) is taken
    assert machine.tool_done(result=None) is S.CALLING
    assert handlers.calls[-1] == "retry"


def test_log_steps_go_to_the_statewright_logger(caplog: pytest.LogCaptureFixture) -> None:
    machine = sink.ChartSinkMachine(None, Handlers())
    with caplog.at_level(logging.INFO, logger="statewright"):
        machine.start(goal="g")
    assert any(record.getMessage().endswith("task: working") for record in caplog.records)


def test_can_send_evaluates_guards_only() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    assert machine.can_send(E.START, goal="g")
    assert not machine.can_send(E.TICK)
    assert handlers.calls == []
    assert machine.state is S.IDLE


def test_async_machine_agrees() -> None:
    async def run() -> tuple[Any, list[str]]:
        handlers = Handlers()
        machine = sink.ChartSinkAsyncMachine(None, handlers)
        assert machine.state is S.IDLE
        await machine.start_chart()
        await machine.start(goal="g")
        await machine.tool_done(result=None)
        return machine.state, handlers.calls

    state, calls = asyncio.run(run())
    assert state is S.DONE
    assert calls == ["remember_goal", "start_call", "announce", "stop_clock"]


def test_an_eventless_loop_is_an_error_naming_the_cycle(tmp_path: Path) -> None:
    from tests.runtime.chart_specs import compile_chart

    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Spin"
        initial = "a"
        [events]
        GO = {}
        [states.a]
        on.GO = "b"
        [states.b]
        always = { to = "c" }
        [states.c]
        always = { to = "b" }
        """,
    )
    machine = module.SpinMachine(None)
    with pytest.raises(
        StatewrightError,
        match=r"did not settle after 10000 microsteps: (b -> c -> b|c -> b -> c) repeats",
    ):
        machine.send(module.SpinEvent.GO)
    assert machine.state is module.SpinState.A  # the macrostep was not applied


# -- snapshots -----------------------------------------------------------------------------------


def test_a_snapshot_restores_the_whole_configuration_without_entry_actions() -> None:
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers)
    machine.start(goal="g")
    machine.suspend()  # history remembers calling and waiting
    snapshot = machine.snapshot()
    assert snapshot["chart"]["active"] == ["suspended"]
    assert snapshot["chart"]["memory"] == {"resume": ["calling", "waiting"]}
    handlers.calls.clear()
    restored = sink.ChartSinkMachine.restore(snapshot, handlers)
    assert handlers.calls == []  # nothing entered again
    assert restored.state is S.SUSPENDED and restored.history == machine.history
    restored.resume()
    assert restored.active_states == {S.CALLING, S.WAITING}
    assert restored.snapshot()["chart"]["active"] == [
        "working",
        "tool",
        "calling",
        "watchdog",
        "waiting",
    ]


def test_a_restored_async_chart_does_not_start_again() -> None:
    async def run() -> list[str]:
        handlers = Handlers()
        machine = sink.ChartSinkAsyncMachine(None, handlers)
        await machine.start(goal="g")
        restored = sink.ChartSinkAsyncMachine.restore(machine.snapshot(), handlers)
        handlers.calls.clear()
        await restored.tool_done(result=None)
        assert restored.state is S.DONE
        return handlers.calls

    assert asyncio.run(run()) == ["stop_clock"]


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("active", ["working", "tool", "calling"], "chart.active"),  # a region missing
        ("active", ["nowhere"], "chart.active[0]"),
        ("active", ["idle", "suspended"], "chart.active"),
        ("memory", {"idle": []}, "chart.memory.idle"),
        ("memory", {"resume": ["tool"]}, "chart.memory.resume"),  # deep history keeps leaves
        ("finished", True, "chart.finished"),
        ("queue", [["NOPE", {}]], "chart.queue[0]"),
        ("timers", [{"id": "t"}], "chart.timers[0]"),
        ("saved_at", "yesterday", "chart.saved_at"),
    ],
)
def test_a_broken_chart_field_is_a_snapshot_error_naming_it(
    field: str, value: object, where: str
) -> None:
    from statewright import SnapshotError

    machine = sink.ChartSinkMachine(None, Handlers())
    machine.start(goal="g")
    snapshot = machine.snapshot()
    snapshot["chart"][field] = value
    with pytest.raises(SnapshotError) as caught:
        sink.ChartSinkMachine.restore(snapshot, Handlers())
    assert caught.value.field == where


def test_a_chart_checkpoint_is_durable_or_not_applied() -> None:
    from statewright import MachineOptions, MemoryStore, StoreError

    store = MemoryStore()
    handlers = Handlers()
    machine = sink.ChartSinkMachine(None, handlers, options=MachineOptions(store=store))
    machine.start(goal="g")
    assert store.load(machine.instance_id) is None  # START has no checkpoint
    machine.tool_done(result=None)  # calling -> called is a checkpoint
    saved = store.load(machine.instance_id)
    assert saved is not None and saved["chart"]["finished"] and saved["state"] == "done"

    class Failing(MemoryStore):
        def save(self, instance_id: str, snapshot: Any, expected_revision: int) -> int:
            raise StoreError("disk full")

    other = sink.ChartSinkMachine(None, Handlers(), options=MachineOptions(store=Failing()))
    other.start(goal="g")
    with pytest.raises(StoreError):
        other.tool_done(result=None)
    assert other.active_states == {S.CALLING, S.WAITING} and other.total_transitions == 1


def test_timers_are_kept_in_snapshots_with_their_restore_policy(tmp_path: Path) -> None:
    from statewright import MachineOptions

    from tests.runtime.chart_specs import compile_chart

    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Wait"
        initial = "waiting"
        [events]
        PING = {}
        [states.waiting]
        after = [
          { delay = "10s", to = "fired" },
          { delay = "20s", to = "resumed", on_restore = "resume" },
          { delay = "30s", to = "restarted", on_restore = "restart" },
        ]
        on.PING = "fired"
        [states.fired]
        kind = "final"
        [states.resumed]
        kind = "final"
        [states.restarted]
        kind = "final"
        """,
    )
    now = [1000.0]
    options = MachineOptions(clock=lambda: now[0])
    machine = module.WaitMachine(None, options=options)
    assert machine.pending_timers == {
        "after.waiting.10s": 1010.0,
        "after.waiting.20s": 1020.0,
        "after.waiting.30s": 1030.0,
    }
    snapshot = machine.snapshot()
    now[0] = 1100.0  # restored 100 s later
    restored = module.WaitMachine.restore(snapshot, options=options)
    assert restored.pending_timers == {
        "after.waiting.10s": 1010.0,  # fire: absolute, overdue now
        "after.waiting.20s": 1120.0,  # resume: the 20 s it had left
        "after.waiting.30s": 1130.0,  # restart: the full 30 s again
    }
    assert restored.fire_due() == 1 and restored.state is module.WaitState.FIRED
    assert restored.pending_timers == {}  # leaving the state cancelled the others


def test_a_guard_error_is_processed_even_when_nothing_takes_the_event(tmp_path: Path) -> None:
    """on_error = "event": the error.execution a guard raised while matching an event is handled
    (SCXML), not dropped with the event."""
    from tests.runtime.chart_specs import compile_chart

    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Careful"
        initial = "a"
        on_error = "event"
        [events]
        GO = {}
        [states.a]
        on.GO = { to = "b", guard = "allowed" }
        on."error.execution" = "failed"
        [states.b]
        kind = "final"
        [states.failed]
        kind = "final"
        """,
    )

    class Broken:
        def allowed(self, context: object, payload: object) -> bool:
            raise ValueError("no idea")

    machine = module.CarefulMachine(None, Broken())
    assert machine.send(module.CarefulEvent.GO) is module.CarefulState.FAILED


def test_events_sent_at_once_arrive_first_in_first_out(tmp_path: Path) -> None:
    """``delay = "0s"`` is SCXML's ``<send>`` without a delay (the external queue): due at once,
    fired after the current event, in the order sent, also after a snapshot; sending an id again
    puts it last."""
    from statewright import MachineOptions

    from tests.runtime.chart_specs import compile_chart

    module = compile_chart(
        tmp_path,
        """
        [machine]
        name = "Queue"
        initial = "a"
        [events]
        GO = {}
        Z = {}
        Y = {}
        X = {}
        [states.a]
        on.GO = { to = "b", actions = [
          { send = "Z", id = "z", delay = "0s" },
          { send = "Y", id = "y", delay = "0s" },
          { send = "X", id = "x", delay = "0s" },
          { send = "Z", id = "z", delay = "0s" },
        ] }
        [states.b]
        on.Y = "c"
        [states.c]
        on.X = "d"
        [states.d]
        on.Z = "done"
        [states.done]
        kind = "final"
        """,
    )
    S = module.QueueState
    now = [50.0]
    options = MachineOptions(clock=lambda: now[0])
    machine = module.QueueMachine(None, options=options)
    assert machine.send(module.QueueEvent.GO) is S.B  # nothing sent has arrived yet
    assert list(machine.pending_timers) == ["y", "x", "z"]
    restored = module.QueueMachine.restore(machine.snapshot(), options=options)
    assert list(restored.pending_timers) == ["y", "x", "z"]
    assert restored.fire_due() == 3 and restored.state is S.DONE
    assert [str(record.event) for record in restored.history][-3:] == ["Y", "X", "Z"]
