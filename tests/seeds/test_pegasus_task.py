"""Seed 002 — Pegasus 任务状态机 (TaskFSM), played through ``generated/pegasus_task.py``.

Covers: the static table, the dynamic table (plan has more steps -> ACTING else REFLECTING;
verdict complete / continue / replan), the special transitions (TASK_SUSPENDED from every active
state, TASK_FAILED from every non-final state), resume to the state before suspension (also
across snapshot/restore and a store), final states rejecting everything with InvalidTransition,
history records with event ids, the TaskRegistry (MachineRegistry) and persistence only at the
持久化策略 transitions.

The FSM does no IO (核心思想): the ``Agent`` below does the "LLM calls", writes the products into
the TaskContext and then fires the event. The guards read the context and the payload.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

import pytest
from pegasus_task import (
    FINAL_STATES,
    TAG_ACTIVE,
    PegasusTaskEvent,
    PegasusTaskMachine,
    PegasusTaskState,
    ReflectDonePayload,
    ToolCallCompletedPayload,
    ToolCallFailedPayload,
)
from statewright import (
    InvalidTransition,
    MachineOptions,
    MachineRegistry,
    MemoryStore,
    TransitionRecord,
    UnknownInstance,
)

from tests.seeds.support import FakeClock, RecordingStore, iso

St, Ev = PegasusTaskState, PegasusTaskEvent
Verdict = Literal["complete", "continue", "replan"]


@dataclass
class TaskContext:
    """The seed's TaskContext, with JSON-friendly fields so snapshots carry it whole."""

    input_text: str = ""
    source: str = ""
    input_metadata: dict[str, str] = field(default_factory=dict)
    priority: int = 0
    perception: dict[str, str] | None = None
    reasoning: dict[str, str] | None = None
    goal: str | None = None
    steps: list[str] = field(default_factory=list)
    actions_done: list[dict[str, str]] = field(default_factory=list)
    reflections: list[str] = field(default_factory=list)
    iteration: int = 0
    final_result: str | None = None
    error: str | None = None
    suspended_state: str | None = None
    suspend_reason: str | None = None
    messages: list[dict[str, str]] = field(default_factory=list)


class Handlers:
    """Implements ``PegasusTaskHandlers[TaskContext]``: the dynamic decisions."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def plan_has_more_steps(
        self, context: TaskContext, payload: ToolCallCompletedPayload | ToolCallFailedPayload, /
    ) -> bool:
        self.calls.append(f"plan_has_more_steps({payload['step_index']})")
        return payload["step_index"] + 1 < len(context.steps)

    def verdict_is_complete(self, context: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "complete"

    def verdict_is_continue(self, context: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "continue"

    def verdict_is_replan(self, context: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "replan"


Task = PegasusTaskMachine[TaskContext]


def new_task(
    task_id: str = "task-1", *, store: MemoryStore | None = None, clock: FakeClock | None = None
) -> Task:
    options = MachineOptions(instance_id=task_id, store=store, clock=clock or FakeClock())
    return PegasusTaskMachine(TaskContext(), Handlers(), options=options)


class Agent:
    """Drives one task: the IO happens here, after each transition (fake LLM and tools)."""

    def __init__(self, task: Task, plans: list[list[str]], verdicts: list[Verdict]) -> None:
        self.task = task
        self.plans = plans
        self.verdicts = verdicts

    @staticmethod
    def from_event(task: Task, text: str, priority: int = 0) -> Agent:
        """TaskFSM.from_event: the raw input goes into the TaskContext."""
        ctx = task.context
        ctx.input_text, ctx.source, ctx.priority = text, "cli", priority
        task.task_created(input_text=text, source="cli", priority=priority)
        return Agent(task, [], [])

    def perceive(self) -> None:
        self.task.context.perception = {"intent": "answer"}
        self.task.perceive_done(perception=self.task.context.perception)

    def think(self) -> None:
        self.task.context.reasoning = {"idea": f"round {self.task.context.iteration}"}
        self.task.think_done(reasoning=self.task.context.reasoning)

    def plan(self) -> None:
        ctx = self.task.context
        ctx.goal, ctx.steps = "answer the question", self.plans.pop(0)
        self.task.plan_done(goal=ctx.goal, steps=ctx.steps)

    def act(self) -> None:
        ctx = self.task.context
        for index, step in enumerate(ctx.steps):
            if step.startswith("broken"):
                self.task.tool_call_failed(step_index=index, error="tool crashed")
            else:
                ctx.actions_done.append({"step": step, "output": f"{step}: ok"})
                self.task.tool_call_completed(step_index=index, output=f"{step}: ok")

    def reflect(self) -> PegasusTaskState:
        ctx = self.task.context
        verdict = self.verdicts.pop(0)
        ctx.reflections.append(verdict)
        ctx.iteration += 1
        if verdict == "complete":
            ctx.final_result = "42"
        return self.task.reflect_done(verdict=verdict, assessment=f"iteration {ctx.iteration}")

    def run(self) -> PegasusTaskState:
        """The cognitive loop: perceive -> think -> plan -> act -> reflect until done."""
        self.perceive()
        state = St.THINKING
        while state is not St.COMPLETED:
            if state is St.THINKING:
                self.think()
            self.plan()
            self.act()
            state = self.reflect()
        return state


def trace(task: Task) -> list[str]:
    return [f"{r.source} --{r.event}--> {r.target}" for r in task.history]


def task_in(state: PegasusTaskState, task: Task | None = None) -> Task:
    """A task driven from idle to ``state`` (plan of two steps)."""
    task = task or new_task()
    path: list[tuple[PegasusTaskEvent, dict[str, object]]] = [
        (Ev.TASK_CREATED, {"input_text": "q", "source": "cli"}),
        (Ev.PERCEIVE_DONE, {}),
        (Ev.THINK_DONE, {}),
        (Ev.PLAN_DONE, {"goal": "g", "steps": ["search", "summarise"]}),
        (Ev.ACT_DONE, {}),
        (Ev.REFLECT_DONE, {"verdict": "complete"}),
    ]
    order = [St.IDLE, St.PERCEIVING, St.THINKING, St.PLANNING, St.ACTING, St.REFLECTING]
    if state is St.SUSPENDED:
        task_in(St.THINKING, task)
        task.need_more_info(reason="which year?")
    elif state is St.FAILED:
        task.task_failed(error="boom")
    else:
        stop = order.index(state) if state in order else len(path)
        for event, payload in path[:stop]:
            if event is Ev.PLAN_DONE:
                task.context.steps = ["search", "summarise"]
            task.dynamic.send(event, **payload)  # events from a table: the dynamic escape hatch
    assert task.state is state
    return task


# ----------------------------------------------------------------------------- static table

STATIC_ROWS = [
    (St.IDLE, Ev.TASK_CREATED, St.PERCEIVING),
    (St.PERCEIVING, Ev.PERCEIVE_DONE, St.THINKING),
    (St.THINKING, Ev.THINK_DONE, St.PLANNING),
    (St.THINKING, Ev.NEED_MORE_INFO, St.SUSPENDED),
    (St.PLANNING, Ev.PLAN_DONE, St.ACTING),
    (St.ACTING, Ev.ACT_DONE, St.REFLECTING),
    (St.SUSPENDED, Ev.MESSAGE_RECEIVED, St.THINKING),
]
PAYLOADS: dict[PegasusTaskEvent, dict[str, object]] = {
    Ev.TASK_CREATED: {"input_text": "q", "source": "cli"},
    Ev.PLAN_DONE: {"goal": "g", "steps": ["a"]},
    Ev.MESSAGE_RECEIVED: {"message": {"role": "user", "content": "2024"}},
}


@pytest.mark.parametrize(("source", "event", "target"), STATIC_ROWS, ids=lambda v: str(v))
def test_static_transition(
    source: PegasusTaskState, event: PegasusTaskEvent, target: PegasusTaskState
) -> None:
    task = task_in(source)
    assert task.dynamic.can_send(event, **PAYLOADS.get(event, {}))
    assert task.dynamic.send(event, **PAYLOADS.get(event, {})) is target
    assert task.state is target
    last = task.last_transition
    assert last is not None and (last.source, last.event, last.target) == (source, event, target)


# ----------------------------------------------------------------------------- dynamic table


def test_tool_calls_loop_while_the_plan_has_steps() -> None:
    task = task_in(St.PLANNING)
    task.context.steps = ["search", "broken fetch", "summarise"]
    task.plan_done(goal="g", steps=task.context.steps)
    assert task.tool_call_completed(step_index=0, output="hits") is St.ACTING
    assert task.tool_call_failed(step_index=1, error="timeout") is St.ACTING  # not a task failure
    assert task.tool_call_completed(step_index=2, output="summary") is St.REFLECTING
    assert trace(task)[-3:] == [
        "acting --TOOL_CALL_COMPLETED--> acting",
        "acting --TOOL_CALL_FAILED--> acting",
        "acting --TOOL_CALL_COMPLETED--> reflecting",
    ]
    assert task.handlers is not None
    assert isinstance(task.handlers, Handlers)
    assert task.handlers.calls == [
        "plan_has_more_steps(0)",
        "plan_has_more_steps(1)",
        "plan_has_more_steps(2)",
    ]


@pytest.mark.parametrize("event", [Ev.TOOL_CALL_COMPLETED, Ev.TOOL_CALL_FAILED])
def test_last_tool_call_goes_to_reflecting(event: PegasusTaskEvent) -> None:
    task = task_in(St.PLANNING)
    task.context.steps = ["only step"]
    task.plan_done(goal="g", steps=["only step"])
    payload: dict[str, object] = {"step_index": 0, "output": "x", "error": "e"}
    payload.pop("error" if event is Ev.TOOL_CALL_COMPLETED else "output")
    assert task.dynamic.send(event, **payload) is St.REFLECTING


@pytest.mark.parametrize(
    ("verdict", "target"),
    [("complete", St.COMPLETED), ("continue", St.THINKING), ("replan", St.PLANNING)],
)
def test_reflect_verdict_decides(verdict: Verdict, target: PegasusTaskState) -> None:
    task = task_in(St.REFLECTING)
    assert task.reflect_done(verdict=verdict, lessons=["check units"]) is target
    assert task.is_final is (target in FINAL_STATES)
    assert task.history[-1].payload["verdict"] == verdict


def test_full_cognitive_loop() -> None:
    task = new_task()
    agent = Agent.from_event(task, "what is 6*7?")
    agent.plans = [["search", "broken calc"], ["calc"], ["verify"]]
    agent.verdicts = ["continue", "replan", "complete"]
    assert agent.run() is St.COMPLETED
    assert trace(task) == [
        "idle --TASK_CREATED--> perceiving",
        "perceiving --PERCEIVE_DONE--> thinking",
        "thinking --THINK_DONE--> planning",
        "planning --PLAN_DONE--> acting",
        "acting --TOOL_CALL_COMPLETED--> acting",
        "acting --TOOL_CALL_FAILED--> reflecting",
        "reflecting --REFLECT_DONE--> thinking",
        "thinking --THINK_DONE--> planning",
        "planning --PLAN_DONE--> acting",
        "acting --TOOL_CALL_COMPLETED--> reflecting",
        "reflecting --REFLECT_DONE--> planning",
        "planning --PLAN_DONE--> acting",
        "acting --TOOL_CALL_COMPLETED--> reflecting",
        "reflecting --REFLECT_DONE--> completed",
    ]
    ctx = task.context
    assert ctx.iteration == 3 and ctx.reflections == ["continue", "replan", "complete"]
    assert ctx.final_result == "42" and len(ctx.actions_done) == 3
    assert task.is_final and not task.in_tag("active")
    probabilities = task.transition_probabilities()
    assert probabilities[St.REFLECTING] == {
        (Ev.REFLECT_DONE, St.THINKING): pytest.approx(1 / 3),
        (Ev.REFLECT_DONE, St.PLANNING): pytest.approx(1 / 3),
        (Ev.REFLECT_DONE, St.COMPLETED): pytest.approx(1 / 3),
    }


# ----------------------------------------------------------------------------- special transitions


@pytest.mark.parametrize("state", sorted(TAG_ACTIVE), ids=str)
def test_suspend_from_any_active_state_and_resume(state: PegasusTaskState) -> None:
    task = task_in(state)
    assert task.in_tag("active")
    task.context.suspended_state, task.context.suspend_reason = str(task.state), "user paused"
    assert task.task_suspended(reason="user paused") is St.SUSPENDED
    assert task.previous_state is state
    assert str(task.previous_state) == task.context.suspended_state
    assert task.allowed_events() == {Ev.MESSAGE_RECEIVED, Ev.TASK_RESUMED, Ev.TASK_FAILED}
    assert task.task_resumed() is state
    assert task.history[-1].as_dict() | {"timestamp": None} == {
        "from": "suspended",
        "event": "TASK_RESUMED",
        "to": str(state),
        "timestamp": None,
        "event_id": task.total_transitions,
        "payload": {},
    }


@pytest.mark.parametrize("state", [St.IDLE, St.SUSPENDED], ids=str)
def test_only_active_states_can_be_suspended(state: PegasusTaskState) -> None:
    task = task_in(state)
    assert not task.can_send(Ev.TASK_SUSPENDED)
    with pytest.raises(InvalidTransition):
        task.task_suspended(reason="no")
    assert task.state is state


def test_resume_after_need_more_info_returns_to_thinking() -> None:
    task = task_in(St.SUSPENDED)
    assert task.previous_state is St.THINKING
    assert task.task_resumed() is St.THINKING
    task.need_more_info(reason="still unclear")
    task.context.messages.append({"role": "user", "content": "2024"})
    assert task.message_received(message={"role": "user", "content": "2024"}) is St.THINKING


def test_resume_after_self_loop_in_acting_returns_to_acting() -> None:
    task = task_in(St.PLANNING)
    task.context.steps = ["a", "b", "c"]
    task.plan_done(goal="g", steps=task.context.steps)
    task.tool_call_completed(step_index=0)  # acting -> acting keeps the memory
    task.task_suspended(reason="rate limited")
    assert task.task_resumed() is St.ACTING


def test_resume_after_snapshot_and_restore() -> None:
    task = task_in(St.REFLECTING)
    task.context.suspended_state = "reflecting"
    task.task_suspended(reason="operator")
    snapshot = task.snapshot()
    assert snapshot["state"] == "suspended" and snapshot["previous"] == "reflecting"
    assert snapshot["context"]["suspended_state"] == "reflecting"
    restored: Task = PegasusTaskMachine.restore(snapshot, Handlers())
    assert restored.instance_id == "task-1"
    assert restored.context == task.context
    assert restored.task_resumed() is St.REFLECTING
    assert restored.history[-1].event_id == task.total_transitions + 1
    assert restored.reflect_done(verdict="complete") is St.COMPLETED


def test_resume_after_loading_the_suspension_checkpoint() -> None:
    store = RecordingStore()
    task = task_in(St.ACTING, new_task("task-s", store=store))
    task.task_suspended(reason="night")
    del task  # the process stops; the suspension was checkpointed
    loaded: Task = PegasusTaskMachine.load(store, "task-s", Handlers())
    assert loaded.state is St.SUSPENDED and loaded.previous_state is St.ACTING
    assert loaded.task_resumed() is St.ACTING
    assert loaded.act_done(action_result={"ok": "yes"}) is St.REFLECTING  # checkpoint
    assert [(state, event) for state, event, _ in store.saves][-2:] == [
        ("suspended", "TASK_SUSPENDED"),
        ("reflecting", "ACT_DONE"),
    ]


def test_resume_targets_the_history_of_active() -> None:
    """The spec says "the state before suspension" with active's history state (spec v1 said it
    with "<previous>"; the scenario tests above are unchanged)."""
    from pegasus_task import CHART, IN_ACTIVE

    names = [node.name for node in CHART.nodes]
    resume = next(t for t in CHART.transitions if Ev.TASK_RESUMED in t.events)
    (target,) = resume.targets
    node = CHART.nodes[target]
    assert (names[resume.source], node.name, node.kind, names[node.parent]) == (
        "suspended",
        "resume_point",
        "shallow",
        "active",
    )
    assert IN_ACTIVE == TAG_ACTIVE


NON_FINAL = [s for s in St if s not in FINAL_STATES]


@pytest.mark.parametrize("state", NON_FINAL, ids=str)
def test_fail_from_any_non_final_state(state: PegasusTaskState) -> None:
    store = RecordingStore()
    task = task_in(state, new_task("task-f", store=store))
    saves_before = len(store.saves)
    task.context.error = "disk full"
    assert task.task_failed(error="disk full") is St.FAILED
    assert task.is_final
    # 持久化策略: FAILED saves TaskContext + error.
    assert len(store.saves) == saves_before + 1
    saved = store.snapshots[-1]
    assert saved["state"] == "failed" and saved["context"]["error"] == "disk full"
    assert saved["history"][-1]["payload"] == {"error": "disk full"}


# ----------------------------------------------------------------------------- final states


@pytest.mark.parametrize("final", sorted(FINAL_STATES), ids=str)
@pytest.mark.parametrize("event", list(Ev), ids=str)
def test_final_states_reject_everything(
    final: PegasusTaskState, event: PegasusTaskEvent, caplog: pytest.LogCaptureFixture
) -> None:
    task = task_in(final)
    count = task.total_transitions
    assert task.allowed_events() == frozenset()
    assert not task.dynamic.can_send(event)
    with caplog.at_level(logging.WARNING, logger="statewright"):
        with pytest.raises(InvalidTransition) as info:
            task.dynamic.send(event)
        assert task.dynamic.try_send(event) is False
    assert info.value.reason == "the state is final"
    assert info.value.state == str(final) and info.value.allowed == frozenset()
    assert task.state is final and task.total_transitions == count
    assert caplog.records == []  # rejections are answers, logged at DEBUG, not warnings


# ----------------------------------------------------------------------------- history


def test_history_records_carry_event_ids() -> None:
    clock = FakeClock(start=1_767_225_600.0, step=0.5)
    task = new_task(clock=clock)
    seen: list[TransitionRecord] = []
    task.add_listener(seen.append)
    agent = Agent.from_event(task, "hi")
    agent.perceive()
    agent.think()
    records = task.history
    assert [(r.source, r.target, r.event, r.event_id) for r in records] == [
        ("idle", "perceiving", "TASK_CREATED", 1),
        ("perceiving", "thinking", "PERCEIVE_DONE", 2),
        ("thinking", "planning", "THINK_DONE", 3),
    ]
    assert [r.timestamp for r in records] == [iso(1_767_225_600.0 + 0.5 * i) for i in range(3)]
    assert records[0].payload == {
        "input_text": "hi",
        "source": "cli",
        "input_metadata": None,
        "priority": 0,
    }
    assert seen == list(records)  # listeners get the same records, ids included
    # Replaying the recorded events on a fresh machine reproduces every step (精确复现).
    replay = new_task("task-replay")
    for record in records:
        replay.send(record.event, **record.payload)
    assert trace(replay) == trace(task)


# ----------------------------------------------------------------------------- TaskRegistry


def test_registry(caplog: pytest.LogCaptureFixture) -> None:
    registry: MachineRegistry[Task] = MachineRegistry(max_active=2)
    first, second, third = (new_task(f"task-{i}") for i in (1, 2, 3))
    with caplog.at_level(logging.WARNING, logger="statewright"):
        assert registry.register(first) == "task-1"
        assert registry.register(second) == "task-2"
        assert caplog.records == []
        registry.register(third)  # above max_active: registered anyway, with a warning
    assert len(caplog.records) == 1
    assert "3 active machines, more than max_active=2" in caplog.records[0].getMessage()
    assert registry.active_count() == 3 and len(registry) == 3

    assert registry.get("task-2") is second
    assert registry.get_or_none("task-9") is None
    with pytest.raises(UnknownInstance):
        registry.get("task-9")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(new_task("task-1"))

    task_in(St.COMPLETED, first)
    second.task_created(input_text="x", source="cli")
    third.task_failed(error="quota")
    assert registry.list_all() == [first, second, third]
    assert registry.list_active() == [second]
    assert registry.active_count() == 1
    assert sorted(registry.cleanup_terminal()) == ["task-1", "task-3"]
    assert registry.list_all() == [second] and "task-1" not in registry
    assert registry.remove("task-2") is second
    assert len(registry) == 0
    with pytest.raises(UnknownInstance):
        registry.remove("task-2")


def test_registry_with_store_and_priorities() -> None:
    store = MemoryStore()
    registry: MachineRegistry[Task] = MachineRegistry(store=store)
    for task_id, priority in (("task-a", 5), ("task-b", 1), ("task-c", 3)):
        task = new_task(task_id)
        Agent.from_event(task, "hi", priority=priority)
        registry.register(task)
    # The scheduler picks the smallest priority first (priority: smaller runs first).
    queue = sorted(registry.list_active(), key=lambda t: t.context.priority)
    assert [t.instance_id for t in queue] == ["task-b", "task-c", "task-a"]
    assert registry.save_all() == {"task-a": 1, "task-b": 1, "task-c": 1}
    assert store.list_ids() == ["task-a", "task-b", "task-c"]
    registry.remove("task-b", delete_stored=True)
    assert store.list_ids() == ["task-a", "task-c"]
    other: MachineRegistry[Task] = MachineRegistry(store=store)
    loaded = other.load(PegasusTaskMachine, "task-c", Handlers())
    assert other.get("task-c") is loaded and loaded.context.priority == 3
    assert loaded.state is St.PERCEIVING


# ----------------------------------------------------------------------------- persistence


def test_persistence_only_at_the_key_transitions() -> None:
    store = RecordingStore()
    task = new_task("task-p", store=store)
    revisions: list[tuple[str, int]] = []
    task.add_listener(lambda record: revisions.append((record.event, task.revision)))
    agent = Agent.from_event(task, "plan a trip")
    agent.plans = [["book flight", "book hotel"], ["pay"]]
    agent.verdicts = ["continue", "complete"]
    agent.perceive()
    agent.think()
    agent.plan()  # PLAN_DONE: save
    task.tool_call_completed(step_index=0, output="flight booked")  # more steps: no save
    task.act_done(action_result={"booked": "flight"})  # ACT_DONE: save
    agent.reflect()  # continue -> thinking: no save
    task.context.suspended_state = "thinking"
    task.task_suspended(reason="waiting for card")  # entering SUSPENDED: save
    task.task_resumed()
    task.need_more_info(reason="which card?")  # entering SUSPENDED again: save
    task.message_received(message={"role": "user", "content": "visa"})
    agent.think()
    agent.plan()  # save
    task.act_done(action_result={"paid": "yes"})  # save
    agent.reflect()  # complete: save
    assert task.state is St.COMPLETED
    assert [(state, event) for state, event, _ in store.saves] == [
        ("acting", "PLAN_DONE"),
        ("reflecting", "ACT_DONE"),
        ("suspended", "TASK_SUSPENDED"),
        ("suspended", "NEED_MORE_INFO"),
        ("acting", "PLAN_DONE"),
        ("reflecting", "ACT_DONE"),
        ("completed", "REFLECT_DONE"),
    ]
    assert [revision for _, _, revision in store.saves] == [1, 2, 3, 4, 5, 6, 7]
    # The revision moves exactly at the checkpointed transitions, nowhere else.
    assert revisions == [
        ("TASK_CREATED", 0),
        ("PERCEIVE_DONE", 0),
        ("THINK_DONE", 0),
        ("PLAN_DONE", 1),
        ("TOOL_CALL_COMPLETED", 1),
        ("ACT_DONE", 2),
        ("REFLECT_DONE", 2),
        ("TASK_SUSPENDED", 3),
        ("TASK_RESUMED", 3),
        ("NEED_MORE_INFO", 4),
        ("MESSAGE_RECEIVED", 4),
        ("THINK_DONE", 4),
        ("PLAN_DONE", 5),
        ("ACT_DONE", 6),
        ("REFLECT_DONE", 7),
    ]
    # What each checkpoint holds (持久化内容).
    plan_saved = store.snapshots[0]
    assert plan_saved["context"]["steps"] == ["book flight", "book hotel"]
    assert plan_saved["history"][-1]["payload"]["steps"] == ["book flight", "book hotel"]
    suspended_saved = store.snapshots[2]
    assert suspended_saved["previous"] == "thinking"
    assert suspended_saved["context"]["suspended_state"] == "thinking"
    act_saved = store.snapshots[5]
    assert act_saved["history"][-1]["payload"] == {"action_result": {"paid": "yes"}}
    final = store.load("task-p")
    assert final is not None and final["revision"] == 7 and final["state"] == "completed"
    assert final["context"]["final_result"] == "42"
    assert len(final["history"]) == task.total_transitions == 15


def test_tool_call_failure_is_not_a_checkpoint_but_task_failure_is() -> None:
    store = RecordingStore()
    task = task_in(St.PLANNING, new_task("task-t", store=store))
    task.context.steps = ["a", "b"]
    task.plan_done(goal="g", steps=["a", "b"])
    task.tool_call_failed(step_index=0, error="e")
    task.tool_call_failed(step_index=1, error="e")
    assert task.state is St.REFLECTING
    assert [event for _, event, _ in store.saves] == ["PLAN_DONE"]
    task.task_failed(error="gave up")
    assert [event for _, event, _ in store.saves] == ["PLAN_DONE", "TASK_FAILED"]
