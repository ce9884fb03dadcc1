"""Seed 004 — ReMem 状态机使用文档, played through ``generated/remem.py``.

Covers: initialise / THINK / REFINE / ACT, valid actions per state, max_iterations forcing ACT,
termination on ACT, on timeout (an injected fake clock), on 5 identical actions in a row,
``should_terminate``, ``get_progress`` (the seed's example reproduced), MDP statistics from the
runtime's transition counts and probabilities, reset, and the errors before initialisation and
after termination.

The seed's ``StateMachine`` facade (``ReMemLoop`` below) is a thin consumer of the generated
machine: the loop's counters and limits (iteration, max_iterations, the actions taken, the forced
ACT) are the spec's data model, read from ``machine.data``; the memory bank object and the clock
live with the handlers (no ``Any`` payloads), the timeout is checked by the caller with the
injected clock and reported as a TIMEOUT event, and the seed's ``ValueError`` messages are raised
by the facade from the runtime's ``InvalidTransition``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import pytest
from remem import (
    TAG_ACTIVE,
    TAG_TERMINATED,
    ActPayload,
    InitializePayload,
    RefinePayload,
    ReMemData,
    ReMemEvent,
    ReMemMachine,
    ReMemState,
    ResetPayload,
    ThinkPayload,
)
from statewright import InvalidTransition, MachineOptions

from tests.seeds.support import FakeClock

St, Ev = ReMemState, ReMemEvent
Action = Literal["THINK", "REFINE", "ACT"]
TIMEOUT_SECONDS = 30.0
LOOP_WINDOW = 5


class MemoryBank:
    """The seed's ``MemoryBank(max_entries=10)``: a bounded list of entries."""

    def __init__(self, max_entries: int = 10) -> None:
        self.max_entries = max_entries
        self.entries: list[str] = []

    def add(self, text: str) -> None:
        self.entries.append(text)
        del self.entries[: -self.max_entries]

    def __len__(self) -> int:
        return len(self.entries)


@dataclass
class ReMemContext:
    """The seed's State: task_input, traces (iteration is the machine's data, the memory bank
    the handlers')."""

    task_input: str | None = None
    traces: list[str] = field(default_factory=list)
    started_at: float | None = None
    result: str | None = None


class Handlers:
    """Implements ``ReMemHandlers[ReMemContext]`` with an injected clock and memory bank."""

    def __init__(self, clock: FakeClock, memory_bank: MemoryBank) -> None:
        self.clock = clock
        self.memory_bank = memory_bank
        #: The optional MDP: rewards learned per (state, action); counts come from the runtime.
        self.rewards: dict[tuple[str, str], float] = {}
        self.mdp_updates = 0

    def init_state(self, context: ReMemContext, payload: InitializePayload, /) -> None:
        context.task_input = payload["task_input"]
        context.traces = []
        context.started_at = self.clock.now
        context.result = None

    def record_thought(self, context: ReMemContext, payload: ThinkPayload, /) -> None:
        context.traces.append(payload["thought"] or "")

    def apply_memory_delta(self, context: ReMemContext, payload: RefinePayload, /) -> None:
        delta = payload["delta"]
        doomed = {int(i) for i in delta.get("delete", [])}  # entry numbers, 0-based
        self.memory_bank.entries = [
            e for i, e in enumerate(self.memory_bank.entries) if i not in doomed
        ]
        for text in delta.get("add", []):
            self.memory_bank.add(str(text))

    def record_result(self, context: ReMemContext, payload: ActPayload, /) -> None:
        context.result = payload["result"]

    def update_mdp(
        self, context: ReMemContext, payload: ThinkPayload | RefinePayload | ActPayload, /
    ) -> None:
        self.mdp_updates += 1
        action = "ACT" if "result" in payload else "THINK" if "thought" in payload else "REFINE"
        key = (str(self.mdp_updates), action)  # the update's position in the run, the action
        self.rewards[key] = 1.0 if action == "ACT" else 0.1

    def clear_state(self, context: ReMemContext, payload: ResetPayload, /) -> None:
        fresh = ReMemContext()
        for name in fresh.__dataclass_fields__:
            setattr(context, name, getattr(fresh, name))


class ReMemLoop:
    """The seed's ``StateMachine(max_iterations, use_mdp)`` on top of the generated machine."""

    def __init__(self, clock: FakeClock | None = None, memory_bank: MemoryBank | None = None):
        self.clock = clock or FakeClock(start=1000.0, step=0.0)
        self.memory_bank = memory_bank or MemoryBank(max_entries=10)
        self.handlers = Handlers(self.clock, self.memory_bank)
        options = MachineOptions(clock=self.clock, instance_id="remem")
        self.machine: ReMemMachine[ReMemContext] = ReMemMachine(
            ReMemContext(), self.handlers, options=options
        )

    @property
    def context(self) -> ReMemContext:
        return self.machine.context

    @property
    def data(self) -> ReMemData:
        """The loop's counters and limits: the spec's data model."""
        return self.machine.data

    def initialize(self, task_input: str, max_iterations: int | None = None) -> ReMemState:
        return self.machine.initialize(task_input=task_input, max_iterations=max_iterations)

    def transition(self, action: Action, text: str | None = None) -> ReMemState:
        """Apply THINK / REFINE / ACT; ValueError like the seed when not usable."""
        if self.machine.state is St.UNINITIALIZED:
            raise ValueError("状态机未初始化")
        if self.machine.in_tag("terminated"):
            raise ValueError("状态机已终止")
        if action == "THINK":
            return self.machine.think(thought=text)
        if action == "REFINE":
            return self.machine.refine(delta={"add": [text or "note"]})
        return self.machine.act(result=text or "")

    def get_valid_actions(self) -> list[Action]:
        allowed = self.machine.allowed_events()
        actions: tuple[Action, ...] = ("THINK", "REFINE", "ACT")
        return [a for a in actions if Ev(a) in allowed]

    def fallback(self, requested: str) -> Action:
        """无效动作处理: the requested action if valid, else ACT, else the first valid one."""
        valid = self.get_valid_actions()
        for action in valid:
            if action == requested:
                return action
        if "ACT" in valid:
            return "ACT"
        if not valid:
            raise ValueError("状态机已终止")
        return valid[0]

    def elapsed(self) -> float:
        started = self.context.started_at
        return 0.0 if started is None else self.clock.now - started

    def should_terminate(self) -> bool:
        data = self.data
        recent = data.actions[-LOOP_WINDOW:]
        return (
            self.machine.in_tag("terminated")
            or data.iteration >= data.max_iterations
            or "ACT" in data.actions
            or (self.machine.in_tag("active") and self.elapsed() >= TIMEOUT_SECONDS)
            or (len(recent) == LOOP_WINDOW and len(set(recent)) == 1)
        )

    def check_timeout(self) -> bool:
        """Report a timeout to the machine when the injected clock says so."""
        if self.machine.in_tag("active") and self.elapsed() >= TIMEOUT_SECONDS:
            self.machine.timeout(elapsed_seconds=self.elapsed())
            return True
        return False

    def transitions_since_initialize(self) -> int:
        history = self.machine.history
        starts = [i for i, r in enumerate(history) if r.event == Ev.INITIALIZE]
        return len(history) - starts[-1] - 1 if starts else 0

    def get_progress(self) -> dict[str, object]:
        ctx, data = self.context, self.data
        return {
            "initialized": self.machine.state is not St.UNINITIALIZED,
            "current_iteration": data.iteration,
            "max_iterations": data.max_iterations,
            "progress_percentage": 100.0 * data.iteration / data.max_iterations,
            "total_transitions": self.transitions_since_initialize(),
            "traces_count": len(ctx.traces),
            "memory_size": len(self.memory_bank),
            "elapsed_time": self.elapsed(),
        }

    def get_mdp_stats(self) -> dict[str, object]:
        counts = self.machine.transition_counts()
        return {
            "enabled": True,
            "states_count": len({s for s, _, _ in counts} | {t for _, _, t in counts}),
            "transitions_count": len(counts),
            "rewards_count": len(self.handlers.rewards),
        }


def states(loop: ReMemLoop) -> list[str]:
    return [f"{r.source} --{r.event}--> {r.target}" for r in loop.machine.history]


# ----------------------------------------------------------------------------- basic usage


def test_basic_usage() -> None:
    loop = ReMemLoop()
    loop.memory_bank.add("old memory")
    assert loop.initialize("用户任务描述") is St.READY
    assert loop.data.max_iterations == 8  # the default
    assert loop.transition("THINK", "推理内容...") is St.THINKING
    assert loop.machine.refine(delta={"delete": [0], "add": ["新记忆"]}) is St.REFINING
    assert loop.memory_bank.entries == ["新记忆"]
    assert not loop.should_terminate()
    assert loop.transition("ACT", "最终答案") is St.DONE
    assert loop.context.result == "最终答案"
    assert loop.should_terminate()
    assert states(loop) == [
        "uninitialized --INITIALIZE--> ready",
        "ready --THINK--> thinking",
        "thinking --REFINE--> refining",
        "refining --ACT--> done",
    ]
    assert loop.context.traces == ["推理内容..."]
    assert loop.machine.history[2].payload == {"delta": {"delete": [0], "add": ["新记忆"]}}


# ----------------------------------------------------------------------------- valid actions


def state_reached(state: ReMemState) -> ReMemLoop:
    loop = ReMemLoop()
    if state is St.UNINITIALIZED:
        return loop
    loop.initialize("task")
    steps: dict[ReMemState, Callable[[], object]] = {
        St.READY: lambda: None,
        St.THINKING: lambda: loop.machine.think(),
        St.REFINING: lambda: loop.machine.refine(delta={}),
        St.DONE: lambda: loop.machine.act(result="r"),
        St.TIMED_OUT: lambda: loop.machine.timeout(),
        St.LOOP_DETECTED: lambda: loop.machine.loop_detected(action="THINK"),
    }
    steps[state]()
    assert loop.machine.state is state
    return loop


@pytest.mark.parametrize("state", list(St), ids=str)
def test_valid_actions_per_state(state: ReMemState) -> None:
    loop = state_reached(state)
    allowed = loop.machine.allowed_events()
    if state is St.UNINITIALIZED:
        assert allowed == {Ev.INITIALIZE, Ev.RESET}
        assert loop.get_valid_actions() == []
    elif state in TAG_ACTIVE:
        assert allowed == {Ev.THINK, Ev.REFINE, Ev.ACT, Ev.TIMEOUT, Ev.LOOP_DETECTED, Ev.RESET}
        assert loop.get_valid_actions() == ["THINK", "REFINE", "ACT"]  # 返回 THINK, REFINE, ACT
    else:
        assert state in TAG_TERMINATED
        assert allowed == {Ev.RESET}
        assert loop.get_valid_actions() == []
        assert loop.should_terminate()


def test_invalid_action_falls_back() -> None:
    loop = state_reached(St.THINKING)
    assert loop.fallback("REFINE") == "REFINE"
    assert loop.fallback("JUMP") == "ACT"  # 如果 ACT 是有效动作, 回退到 ACT
    loop.machine.act(result="x")
    with pytest.raises(ValueError, match="状态机已终止"):
        loop.fallback("THINK")


# ----------------------------------------------------------------------------- forced ACT


@pytest.mark.parametrize("last", ["THINK", "REFINE"])
def test_max_iterations_forces_act(last: Action) -> None:
    loop = ReMemLoop()
    loop.initialize("task", max_iterations=5)
    for i in range(4):  # 执行 4 次 THINK
        assert loop.transition("THINK", f"t{i}") is St.THINKING
    assert loop.data.actions == ["THINK"] * 4
    # 第 5 次转移: 即使传入 THINK (或 REFINE) 也会被强制转为 ACT
    assert loop.transition(last) is St.DONE
    assert loop.data.forced_act
    assert loop.data.actions == ["THINK"] * 4 + ["ACT"]
    assert loop.data.iteration == 5
    record = loop.machine.history[-1]
    assert (record.source, record.event, record.target) == ("thinking", last, "done")
    assert loop.handlers.mdp_updates == 5
    assert loop.should_terminate()
    with pytest.raises(ValueError, match="状态机已终止"):
        loop.transition("THINK")


def test_forced_act_has_priority_over_loop_detection() -> None:
    loop = ReMemLoop()
    loop.initialize("task", max_iterations=5)
    for _ in range(4):
        loop.transition("REFINE")
    assert loop.transition("REFINE") is St.DONE  # not loop_detected


# ----------------------------------------------------------------------------- termination


@pytest.mark.parametrize("action", ["THINK", "REFINE"])
def test_five_identical_actions_in_a_row_terminate(action: Action) -> None:
    loop = ReMemLoop()
    loop.initialize("task", max_iterations=8)
    for _ in range(4):
        loop.transition(action)
    assert loop.transition(action) is St.LOOP_DETECTED
    assert loop.data.iteration == 4  # the looping action itself is not applied
    assert loop.data.actions == [action] * 4 and not loop.data.forced_act
    assert loop.machine.in_tag("terminated") and loop.should_terminate()


def test_alternating_actions_are_not_a_loop_but_can_be_reported() -> None:
    loop = ReMemLoop()
    loop.initialize("task", max_iterations=20)
    sequence: list[Action] = ["THINK", "THINK", "THINK", "THINK", "REFINE"]
    for action in sequence + sequence[:4]:
        loop.transition(action)
    assert loop.machine.state is St.THINKING and not loop.should_terminate()
    # The caller may detect loops itself and report them.
    assert loop.machine.loop_detected(action="THINK") is St.LOOP_DETECTED


def test_act_terminates() -> None:
    loop = state_reached(St.READY)
    assert loop.transition("ACT", "answer") is St.DONE
    for event in (Ev.THINK, Ev.REFINE, Ev.ACT, Ev.TIMEOUT, Ev.LOOP_DETECTED, Ev.INITIALIZE):
        assert loop.machine.dynamic.try_send(event) is False
    with pytest.raises(InvalidTransition) as info:
        loop.machine.think(thought="more")
    assert info.value.state == "done" and info.value.allowed == {"RESET"}


def test_timeout_with_an_injected_clock() -> None:
    clock = FakeClock(start=5000.0, step=0.0)
    loop = ReMemLoop(clock=clock)
    loop.initialize("slow task")
    loop.transition("THINK")
    clock.advance(29.9)
    assert not loop.should_terminate() and not loop.check_timeout()
    loop.transition("REFINE")
    clock.advance(0.1)
    assert loop.should_terminate()  # 超时 (默认 30 秒)
    assert loop.check_timeout()
    assert loop.machine.state is St.TIMED_OUT
    assert loop.machine.history[-1].payload == {"elapsed_seconds": pytest.approx(30.0)}
    assert loop.machine.history[-1].epoch == pytest.approx(5030.0)
    assert not loop.check_timeout()  # reported once
    with pytest.raises(ValueError, match="状态机已终止"):
        loop.transition("ACT")


def test_the_spec_timer_times_out_30_seconds_after_initialize() -> None:
    """The timeout is a spec timer on `running`: no caller has to check the clock."""
    clock = FakeClock(start=5000.0, step=0.0)
    loop = ReMemLoop(clock=clock)
    loop.initialize("slow task")
    assert loop.machine.pending_timers == {"after.running.30s": 5030.0}
    loop.transition("THINK")
    clock.advance(20.0)
    loop.transition("REFINE")  # moving inside `running` does not restart the timer
    assert loop.machine.pending_timers == {"after.running.30s": 5030.0}
    clock.advance(9.9)
    assert loop.machine.fire_due() == 0 and loop.machine.is_in(St.REFINING)
    clock.advance(0.1)
    assert loop.machine.fire_due() == 1
    assert loop.machine.is_in(St.TIMED_OUT)
    last = loop.machine.history[-1]
    assert (last.source, last.event, last.epoch) == (St.REFINING, "after.running.30s", 5030.0)
    assert loop.machine.pending_timers == {}


def test_act_cancels_the_timer_and_a_restored_loop_keeps_it() -> None:
    clock = FakeClock(start=100.0, step=0.0)
    loop = ReMemLoop(clock=clock)
    loop.initialize("task")
    loop.transition("THINK")
    clock.advance(10.0)
    snapshot = loop.machine.snapshot()
    assert snapshot["chart"]["timers"][0]["due"] == 130.0
    restored = ReMemMachine.restore(snapshot, loop.handlers, options=MachineOptions(clock=clock))
    assert restored.pending_timers == {"after.running.30s": 130.0}  # absolute: on_restore = fire
    restored.act(result="answer")
    assert restored.state is St.DONE and restored.pending_timers == {}
    clock.advance(60.0)
    assert restored.fire_due() == 0 and restored.state is St.DONE


# ----------------------------------------------------------------------------- errors


def test_errors_before_initialisation() -> None:
    loop = ReMemLoop()
    with pytest.raises(ValueError, match="状态机未初始化"):
        loop.transition("THINK")
    with pytest.raises(InvalidTransition) as info:
        loop.machine.think(thought="too early")
    assert info.value.state == "uninitialized"
    assert info.value.allowed == {"INITIALIZE", "RESET"}
    assert loop.machine.history == ()
    assert loop.get_progress()["initialized"] is False


def test_errors_after_termination() -> None:
    loop = state_reached(St.DONE)
    with pytest.raises(ValueError, match="状态机已终止"):
        loop.transition("THINK")
    with pytest.raises(InvalidTransition):
        loop.machine.act(result="again")


# ----------------------------------------------------------------------------- progress / stats


def test_progress_matches_the_seed_example() -> None:
    clock = FakeClock(start=100.0, step=0.0)
    bank = MemoryBank(max_entries=10)
    for i in range(9):
        bank.add(f"entry {i}")
    loop = ReMemLoop(clock=clock, memory_bank=bank)
    loop.initialize("用户任务描述")  # max_iterations=8
    loop.transition("THINK", "a")
    clock.advance(1.0)
    loop.transition("REFINE", "entry 9")  # the bank is full now
    clock.advance(1.5)
    loop.transition("THINK", "b")
    assert loop.get_progress() == {
        "initialized": True,
        "current_iteration": 3,
        "max_iterations": 8,
        "progress_percentage": 37.5,
        "total_transitions": 3,
        "traces_count": 2,
        "memory_size": 10,
        "elapsed_time": 2.5,
    }


def test_statistics_and_mdp() -> None:
    loop = ReMemLoop()
    loop.initialize("task")
    for action in ("THINK", "THINK", "REFINE", "THINK", "ACT"):
        loop.transition(action)
    machine = loop.machine
    assert machine.transition_counts() == {
        (St.UNINITIALIZED, Ev.INITIALIZE, St.READY): 1,
        (St.READY, Ev.THINK, St.THINKING): 1,
        (St.THINKING, Ev.THINK, St.THINKING): 1,
        (St.THINKING, Ev.REFINE, St.REFINING): 1,
        (St.REFINING, Ev.THINK, St.THINKING): 1,
        (St.THINKING, Ev.ACT, St.DONE): 1,
    }
    assert machine.transition_probabilities()[St.THINKING] == {
        (Ev.THINK, St.THINKING): pytest.approx(1 / 3),
        (Ev.REFINE, St.REFINING): pytest.approx(1 / 3),
        (Ev.ACT, St.DONE): pytest.approx(1 / 3),
    }
    assert machine.iteration_counts == {
        St.UNINITIALIZED: 1,
        St.READY: 1,
        St.THINKING: 3,
        St.REFINING: 1,
        St.DONE: 1,
    }
    stats = machine.statistics()
    assert stats["total_transitions"] == 6
    assert stats["visits"] == {
        "uninitialized": 1,
        "ready": 1,
        "thinking": 3,
        "refining": 1,
        "done": 1,
    }
    assert {"from": "thinking", "event": "ACT", "to": "done", "count": 1} in stats["transitions"]
    assert loop.get_mdp_stats() == {
        "enabled": True,
        "states_count": 5,
        "transitions_count": 6,
        "rewards_count": 5,
    }
    assert loop.handlers.mdp_updates == 5  # one MDP update per THINK / REFINE / ACT
    assert loop.data.actions == ["THINK", "THINK", "REFINE", "THINK", "ACT"]
    assert loop.data.iteration == 5 and not loop.data.forced_act


# ----------------------------------------------------------------------------- reset


@pytest.mark.parametrize("state", list(St), ids=str)
def test_reset_from_anywhere(state: ReMemState) -> None:
    loop = state_reached(state)
    assert loop.machine.reset() is St.UNINITIALIZED
    assert loop.context == ReMemContext()  # 清除所有状态
    data = loop.data  # the data model's counters and limits are back to their initial values
    assert (data.iteration, data.max_iterations, data.actions, data.forced_act) == (0, 8, [], False)
    assert loop.get_valid_actions() == []
    with pytest.raises(ValueError, match="状态机未初始化"):
        loop.transition("THINK")
    # Initialise again and run: the counter of the new run starts from zero.
    loop.initialize("again", max_iterations=3)
    assert loop.get_progress()["total_transitions"] == 0
    loop.transition("THINK")
    loop.transition("THINK")
    assert loop.transition("THINK") is St.DONE  # forced ACT at the new limit


def test_reset_keeps_the_audit_trail_in_the_runtime() -> None:
    loop = state_reached(St.DONE)
    loop.machine.reset()
    # The context (traces, iteration) is cleared; the runtime's history and statistics are an
    # audit log of the machine's whole life and keep counting.
    assert [r.event for r in loop.machine.history] == ["INITIALIZE", "ACT", "RESET"]
    assert loop.machine.total_transitions == 3


def test_snapshot_mid_loop_and_continue() -> None:
    loop = ReMemLoop()
    loop.initialize("task", max_iterations=4)
    loop.transition("THINK", "first")
    loop.transition("REFINE", "fact")
    snapshot = loop.machine.snapshot()
    assert snapshot["data"]["iteration"] == 2 and snapshot["state"] == "refining"
    # The memory bank is not in the snapshot (it is the handlers'); the new process brings it.
    restored: ReMemMachine[ReMemContext] = ReMemMachine.restore(snapshot, loop.handlers)
    assert restored.context == loop.context
    assert (restored.data.iteration, restored.data.max_iterations) == (2, 4)
    assert restored.data.actions == ["THINK", "REFINE"]
    assert restored.think(thought="second") is St.THINKING
    assert restored.think(thought="third") is St.DONE  # the 4th transition is forced to ACT
    assert restored.data.forced_act


def test_iterations_count() -> None:
    """A small property: whatever the sequence, the run ends by the max_iterations-th action."""
    choices: tuple[Action, ...] = ("THINK", "REFINE")
    for sequence in itertools.product(choices, repeat=4):
        loop = ReMemLoop()
        loop.initialize("task", max_iterations=4)
        for action in sequence:
            if loop.machine.in_tag("terminated"):
                break
            loop.transition(action)
        assert loop.machine.state is St.DONE
        assert loop.data.iteration == 4 and loop.data.forced_act
