"""Seed 001 — Notebook-BCC State Machine Specification (v1), via ``generated/notebook_bcc_v1.py``.

Covers: the Workflow Execution Example state by state (IDLE -> STAGE_RUNNING -> STEP_RUNNING ->
BEHAVIOR_RUNNING -> BEHAVIOR_COMPLETED -> STEP_COMPLETED, with the observation / state values the
seed shows), the behaviour retry while ``behavior_iteration < max_retries`` (through
TRANSITION_TO_COMPLETE_STEP's decision STEP_RUNNING and through START_BEHAVIOR "retry/next"), the
step failure escalation, the stage decisions of COMPLETE_STAGE (next stage / workflow complete /
continue the stage), START_STEP for the next step, the final state, invalid transitions, the
progress metrics, and a snapshot taken while awaiting reflection.

The handlers below are the agents' bookkeeping: each state's characteristics (entry / exit
actions) and each transition's actions write into ``NotebookState``. The retry counter
``behavior_iteration`` and ``max_retries`` are the spec's data model (``machine.data``): the retry
rule and the reflection agents' decisions are ``cond`` expressions in the spec; the handler
guards left read the current behavior and the remaining stages from the context.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest
from notebook_bcc_v1 import (
    CompleteActionPayload,
    CompleteStagePayload,
    NotebookBccV1Event,
    NotebookBccV1Machine,
    NotebookBccV1State,
    StartBehaviorPayload,
    StartStepPayload,
    StartWorkflowPayload,
    TransitionToCompleteStepPayload,
)
from statewright import InvalidTransition, MachineOptions, MemoryStore

from tests.seeds.support import FakeClock

St, Ev = NotebookBccV1State, NotebookBccV1Event

STAGES = [
    "data_existence_establishment",
    "data_integrity_assessment",
    "exploratory_analysis",
    "feature_engineering",
    "modeling",
    "evaluation",
]
STEPS = [
    "data_collection_inventory",
    "data_structure_discovery",
    "variable_definition",
    "observation_unit_check",
    "data_loading_validation",
]


@dataclass
class NotebookState:
    """``observation.location`` / ``state`` of the seed, flattened to JSON-friendly fields."""

    # observation.location.current (behavior_iteration is the machine's data)
    stage_id: str | None = None
    step_id: str | None = None
    behavior_id: str | None = None
    # observation.location.progress
    stages_completed: list[str] = field(default_factory=list)
    stages_remaining: list[str] = field(default_factory=list)
    steps_completed: list[str] = field(default_factory=list)
    steps_remaining: list[str] = field(default_factory=list)
    steps_total: int = 0
    behaviors_completed: list[dict[str, Any]] = field(default_factory=list)
    stage_outputs: dict[str, list[str]] = field(default_factory=dict)
    # state
    variables: dict[str, str] = field(default_factory=dict)
    effects_current: list[str] = field(default_factory=list)
    effects_history: list[str] = field(default_factory=list)
    cell_count: int = 0
    last_output: str | None = None
    agent: str | None = None
    bound_inputs: dict[str, str] = field(default_factory=dict)
    behavior_queue_ready: bool = False
    context_for_next: str | None = None
    escalations: list[str] = field(default_factory=list)
    experiences: list[str] = field(default_factory=list)
    iterations_per_step: dict[str, int] = field(default_factory=dict)


class Handlers:
    """Implements ``NotebookBccV1Handlers[NotebookState]``; ``log`` lists the calls in order."""

    def __init__(self) -> None:
        self.log: list[str] = []

    # ---------------------------------------------------------------- guards (on the context)
    def same_behavior(self, ctx: NotebookState, p: StartBehaviorPayload, /) -> bool:
        return p["behavior_id"] == ctx.behavior_id

    def stages_remaining(self, ctx: NotebookState, p: CompleteStagePayload, /) -> bool:
        return bool(ctx.stages_remaining)

    # ---------------------------------------------------------------- transition actions
    def record_stage_plan(self, ctx: NotebookState, p: StartWorkflowPayload, /) -> None:
        self.log.append("record_stage_plan")
        ctx.variables["user_problem"] = p["user_problem"]
        ctx.variables["user_submit_files"] = ",".join(p["user_submit_files"])
        ctx.stages_remaining = [stage["id"] for stage in p["stages"]]

    def record_step_plan(self, ctx: NotebookState, p: StartStepPayload, /) -> None:
        self.log.append("record_step_plan")
        if p["stage_id"] != ctx.stage_id:
            raise ValueError(f"steps for {p['stage_id']} while {ctx.stage_id} is current")
        if not ctx.steps_remaining and not ctx.steps_completed:
            ctx.steps_total = len(p["steps"])
        ctx.steps_remaining = [step["id"] for step in p["steps"]]

    def bind_behavior(self, ctx: NotebookState, p: StartBehaviorPayload, /) -> None:
        self.log.append("bind_behavior")  # a new behavior (the spec sets its iteration to 1)
        ctx.behavior_id = p["behavior_id"]
        step = ctx.step_id or "?"
        ctx.iterations_per_step[step] = ctx.iterations_per_step.get(step, 0) + 1

    def record_retry(
        self, ctx: NotebookState, p: StartBehaviorPayload | TransitionToCompleteStepPayload, /
    ) -> None:
        self.log.append("record_retry")  # the spec increments behavior_iteration
        step = ctx.step_id or "?"
        ctx.iterations_per_step[step] = ctx.iterations_per_step.get(step, 0) + 1
        ctx.context_for_next = p.get("context_for_next")  # type: ignore[assignment]

    def update_outputs_tracking(
        self, ctx: NotebookState, p: TransitionToCompleteStepPayload, /
    ) -> None:
        self.log.append("update_outputs_tracking")
        ctx.behaviors_completed.append(
            {
                "behavior_id": ctx.behavior_id,
                "completion_status": "success",
                "artifacts_produced": list(p["artifacts_produced"] or []),
            }
        )

    def escalate_to_stage_reflection(
        self, ctx: NotebookState, p: TransitionToCompleteStepPayload, /
    ) -> None:
        self.log.append("escalate_to_stage_reflection")
        ctx.escalations.append(ctx.step_id or "?")

    def record_stage_experience(self, ctx: NotebookState, p: CompleteStagePayload, /) -> None:
        self.log.append("record_stage_experience")
        ctx.experiences.append(p["stage_experience"] or "")
        ctx.stages_completed.append(ctx.stage_id or "?")

    def advance_stage(self, ctx: NotebookState, p: CompleteStagePayload, /) -> None:
        self.log.append("advance_stage")
        ctx.steps_completed, ctx.steps_remaining, ctx.steps_total = [], [], 0

    def manage_variables(self, ctx: NotebookState, p: CompleteStagePayload, /) -> None:
        self.log.append("manage_variables")

    # ---------------------------------------------------------------- state characteristics
    def set_current_stage(
        self, ctx: NotebookState, p: StartWorkflowPayload | CompleteStagePayload, /
    ) -> None:
        self.log.append("set_current_stage")
        ctx.stage_id = ctx.stages_remaining.pop(0)
        ctx.step_id = ctx.behavior_id = None

    def init_stage_outputs_tracking(
        self, ctx: NotebookState, p: StartWorkflowPayload | CompleteStagePayload, /
    ) -> None:
        self.log.append("init_stage_outputs_tracking")
        ctx.stage_outputs = {"expected": [], "produced": [], "in_progress": []}

    def set_current_step(
        self,
        ctx: NotebookState,
        p: StartStepPayload | TransitionToCompleteStepPayload | CompleteStagePayload,
        /,
    ) -> None:
        self.log.append("set_current_step")
        if "current_step_is_complete" in p:  # behaviour retry: the same step runs again
            return
        ctx.step_id = ctx.steps_remaining.pop(0)
        ctx.behavior_id = None  # and the spec sets behavior_iteration to 0

    def prepare_behavior_queue(
        self,
        ctx: NotebookState,
        p: StartStepPayload | TransitionToCompleteStepPayload | CompleteStagePayload,
        /,
    ) -> None:
        self.log.append("prepare_behavior_queue")
        ctx.behavior_queue_ready = True

    def assign_agent(self, ctx: NotebookState, p: StartBehaviorPayload, /) -> None:
        self.log.append("assign_agent")
        ctx.agent = p["agent"]

    def bind_input_variables(self, ctx: NotebookState, p: StartBehaviorPayload, /) -> None:
        self.log.append("bind_input_variables")
        missing = [v for v in p["inputs"].values() if v not in ctx.variables]  # No Hallucination
        if missing:
            raise KeyError(f"unknown variables {missing}")
        ctx.bound_inputs = {name: ctx.variables[v] for name, v in p["inputs"].items()}

    def capture_effects(self, ctx: NotebookState, p: CompleteActionPayload, /) -> None:
        self.log.append("capture_effects")
        ctx.effects_current = list(p["effects"])
        ctx.cell_count += len(p["actions"])
        ctx.last_output = p["effects"][-1] if p["effects"] else None

    def store_artifacts(self, ctx: NotebookState, p: CompleteActionPayload, /) -> None:
        self.log.append("store_artifacts")
        for name in p["variables"]:
            ctx.variables[name] = f"<{name}>"

    def archive_current_effects(
        self, ctx: NotebookState, p: StartBehaviorPayload | TransitionToCompleteStepPayload, /
    ) -> None:
        self.log.append("archive_current_effects")
        ctx.effects_history.extend(ctx.effects_current)
        ctx.effects_current = []

    def update_variables_with_artifacts(
        self, ctx: NotebookState, p: TransitionToCompleteStepPayload, /
    ) -> None:
        self.log.append("update_variables_with_artifacts")
        if ctx.step_id and ctx.step_id not in ctx.steps_completed:
            ctx.steps_completed.append(ctx.step_id)


Notebook = NotebookBccV1Machine[NotebookState]


def new_notebook(max_retries: int = 3, store: MemoryStore | None = None) -> Notebook:
    options = MachineOptions(clock=FakeClock(), instance_id="nb-v1", store=store)
    # max_retries for this run: the instance's initial data.
    data = {"max_retries": max_retries}
    return NotebookBccV1Machine(NotebookState(), Handlers(), options=options, data=data)


def handlers_of(notebook: Notebook) -> Handlers:
    handlers = notebook.handlers
    assert isinstance(handlers, Handlers)
    return handlers


def fsm(notebook: Notebook) -> dict[str, str]:
    """The seed's ``state.FSM``: upper-case state name and the last transition's event."""
    out = {"state": notebook.state.name}
    last = notebook.last_transition
    if last is not None:
        out["last_transition"] = str(last.event)
    return out


# ------------------------------------------------------------------------- agent outputs (T1-T6)


def start_workflow(nb: Notebook) -> NotebookBccV1State:
    return nb.start_workflow(
        user_problem="Build house price model, RMSE < 25000, R² > 0.85",
        user_submit_files=["./assets/housing.csv"],
        stages=[{"id": s, "title": s.replace("_", " ").title()} for s in STAGES],
        focus="Key thresholds (RMSE, R², PCS)",
    )


def start_step(nb: Notebook, steps: list[str] | None = None) -> NotebookBccV1State:
    stage = nb.context.stage_id or ""
    return nb.start_step(stage_id=stage, steps=[{"id": s} for s in (steps or STEPS)])


def start_behavior(nb: Notebook, behavior_id: str | None = None) -> NotebookBccV1State:
    step = nb.context.step_id or ""
    return nb.start_behavior(
        behavior_id=behavior_id or f"{step}_b1",
        step_id=step,
        agent="behavior_2_initial_inventory_and_access_check",
        task="Perform initial inventory...",
        inputs={"files": "user_submit_files"},
        outputs={"raw_dataset": "housing dataframe"},
        acceptance=["raw_dataset.shape[0] > 0"],
        effects=True,
    )


def complete_action(nb: Notebook) -> NotebookBccV1State:
    return nb.complete_action(
        actions=[{"add-text": "Load the data"}, {"add-code2run": "df = pd.read_csv(...)"}],
        effects=["数据集成功加载！数据形状：(2930, 82)\n"],  # noqa: RUF001 - the seed's output
        variables=["raw_dataset", "data_inventory_checklist"],
    )


def reflect(nb: Notebook, complete: bool) -> NotebookBccV1State:
    return nb.transition_to_complete_step(
        current_step_is_complete=complete,
        next_state="STEP_COMPLETED" if complete else "STEP_RUNNING",
        artifacts_produced=["data_inventory_checklist", "raw_dataset"] if complete else None,
        context_for_next=None if complete else "artifacts incomplete: add the checklist",
    )


def stage_reflection(nb: Notebook, complete: bool) -> NotebookBccV1State:
    status: Literal["achieved", "partial"] = "achieved" if complete else "partial"
    return nb.complete_stage(
        stage_is_complete=complete,
        goal_status=status,
        next_state="STAGE_COMPLETED" if complete else "STEP_RUNNING",
        stage_experience=f"lessons of {nb.context.stage_id}" if complete else None,
    )


def notebook_in(state: NotebookBccV1State, max_retries: int = 3) -> Notebook:
    nb = new_notebook(max_retries)
    walk = [start_workflow, start_step, start_behavior, complete_action]
    order = [St.IDLE, St.STAGE_RUNNING, St.STEP_RUNNING, St.BEHAVIOR_RUNNING, St.BEHAVIOR_COMPLETED]
    for step in walk[: order.index(state)] if state in order else walk:
        step(nb)
    if state is St.STEP_COMPLETED:
        reflect(nb, True)
    assert nb.state is state
    return nb


# ----------------------------------------------------------------------------- the seed's example


def test_workflow_execution_example() -> None:
    nb = new_notebook()
    ctx, handlers = nb.context, handlers_of(nb)
    # Initial State (IDLE)
    assert fsm(nb) == {"state": "IDLE"}
    assert (ctx.stage_id, ctx.step_id, ctx.behavior_id) == (None, None, None)
    assert ctx.cell_count == 0

    # After START_WORKFLOW (STAGE_RUNNING)
    assert start_workflow(nb) is St.STAGE_RUNNING
    assert fsm(nb) == {"state": "STAGE_RUNNING", "last_transition": "START_WORKFLOW"}
    assert [ctx.stage_id, ctx.step_id] == ["data_existence_establishment", None]
    assert ctx.stages_completed == [] and len(ctx.stages_remaining) == 5  # 5 more stages
    assert ctx.variables == {
        "user_problem": "Build house price model, RMSE < 25000, R² > 0.85",
        "user_submit_files": "./assets/housing.csv",
    }
    assert handlers.log == [
        "record_stage_plan",
        "set_current_stage",
        "init_stage_outputs_tracking",
    ]

    # After START_STEP (STEP_RUNNING)
    assert start_step(nb) is St.STEP_RUNNING
    assert fsm(nb) == {"state": "STEP_RUNNING", "last_transition": "START_STEP"}
    assert (ctx.stage_id, ctx.step_id) == (
        "data_existence_establishment",
        "data_collection_inventory",
    )
    assert len(ctx.steps_remaining) == 4 and ctx.behavior_queue_ready  # 4 more steps
    assert (nb.data.behavior_iteration, nb.data.max_retries) == (0, 3)  # no behavior yet

    # After START_BEHAVIOR (BEHAVIOR_RUNNING)
    assert start_behavior(nb) is St.BEHAVIOR_RUNNING
    assert fsm(nb) == {"state": "BEHAVIOR_RUNNING", "last_transition": "START_BEHAVIOR"}
    assert ctx.behavior_id == "data_collection_inventory_b1" and nb.data.behavior_iteration == 1
    assert ctx.agent == "behavior_2_initial_inventory_and_access_check"
    assert ctx.bound_inputs == {"files": "./assets/housing.csv"}

    # After COMPLETE_ACTION (BEHAVIOR_COMPLETED)
    assert complete_action(nb) is St.BEHAVIOR_COMPLETED
    assert fsm(nb) == {"state": "BEHAVIOR_COMPLETED", "last_transition": "COMPLETE_ACTION"}
    assert set(ctx.variables) == {
        "user_problem",
        "user_submit_files",
        "raw_dataset",
        "data_inventory_checklist",
    }
    assert ctx.effects_current == ["数据集成功加载！数据形状：(2930, 82)\n"]  # noqa: RUF001
    assert ctx.cell_count == 2 and ctx.last_output == ctx.effects_current[0]

    # After TRANSITION_TO_COMPLETE_STEP (STEP_COMPLETED)
    assert reflect(nb, complete=True) is St.STEP_COMPLETED
    assert fsm(nb) == {"state": "STEP_COMPLETED", "last_transition": "TRANSITION_TO_COMPLETE_STEP"}
    assert ctx.behaviors_completed == [
        {
            "behavior_id": "data_collection_inventory_b1",
            "completion_status": "success",
            "artifacts_produced": ["data_inventory_checklist", "raw_dataset"],
        }
    ]
    assert ctx.effects_current == [] and len(ctx.effects_history) == 1  # archived on exit
    assert ctx.steps_completed == ["data_collection_inventory"]
    # Exit actions of the source, the transition's actions, entry actions of the target:
    assert handlers.log[-3:] == [
        "archive_current_effects",
        "update_outputs_tracking",
        "update_variables_with_artifacts",
    ]
    assert [r.event_id for r in nb.history] == [1, 2, 3, 4, 5]


# ----------------------------------------------------------------------------- behaviour retry


@pytest.mark.parametrize("max_retries", [1, 2, 3])
def test_behavior_retry_until_max_retries_then_escalate(max_retries: int) -> None:
    nb = notebook_in(St.BEHAVIOR_COMPLETED, max_retries)
    ctx = nb.context
    for iteration in range(1, max_retries):
        assert nb.data.behavior_iteration == iteration
        # artifacts incomplete and behavior_iteration < max_retries: decision STEP_RUNNING
        assert reflect(nb, complete=False) is St.STEP_RUNNING
        assert nb.data.behavior_iteration == iteration + 1
        assert ctx.step_id == "data_collection_inventory"  # the same step
        assert ctx.context_for_next == "artifacts incomplete: add the checklist"
        start_behavior(nb)  # the same behaviour again: its iteration is kept
        assert nb.data.behavior_iteration == iteration + 1
        complete_action(nb)
    assert nb.data.behavior_iteration == max_retries
    # Step failure: no retries left -> escalate to stage reflection.
    assert reflect(nb, complete=False) is St.STEP_COMPLETED
    assert ctx.escalations == ["data_collection_inventory"]
    assert handlers_of(nb).log.count("escalate_to_stage_reflection") == 1
    assert nb.transition_counts().get(
        (St.BEHAVIOR_COMPLETED, Ev.TRANSITION_TO_COMPLETE_STEP, St.STEP_RUNNING), 0
    ) == (max_retries - 1)


def test_behavior_retry_through_start_behavior() -> None:
    nb = notebook_in(St.BEHAVIOR_COMPLETED, max_retries=2)
    ctx = nb.context
    # retry: the same behaviour_id while retries are left
    assert start_behavior(nb, "data_collection_inventory_b1") is St.BEHAVIOR_RUNNING
    assert nb.data.behavior_iteration == 2
    complete_action(nb)
    # no retries left: a retry of the same behaviour is rejected (no guard passed) ...
    with pytest.raises(InvalidTransition) as info:
        start_behavior(nb, "data_collection_inventory_b1")
    assert info.value.reason == "no guard passed"
    assert nb.state is St.BEHAVIOR_COMPLETED and nb.data.behavior_iteration == 2
    # ... but the next behaviour starts at iteration 1.
    assert start_behavior(nb, "data_collection_inventory_b2") is St.BEHAVIOR_RUNNING
    assert ctx.behavior_id == "data_collection_inventory_b2" and nb.data.behavior_iteration == 1
    assert ctx.effects_history  # the previous behaviour's effects were archived


def test_complete_step_on_the_first_try() -> None:
    nb = notebook_in(St.BEHAVIOR_COMPLETED)
    assert reflect(nb, complete=True) is St.STEP_COMPLETED
    assert nb.context.escalations == [] and nb.data.behavior_iteration == 1


# ----------------------------------------------------------------------------- stage decisions


def test_stage_continues_with_the_next_step() -> None:
    nb = notebook_in(St.STEP_COMPLETED)
    # T6 decision STEP_RUNNING: the stage is not complete yet
    assert stage_reflection(nb, complete=False) is St.STEP_RUNNING
    assert nb.context.step_id == "data_structure_discovery"
    assert nb.data.behavior_iteration == 0  # a new step: its first behavior has not started
    assert handlers_of(nb).log[-3:] == [
        "manage_variables",
        "set_current_step",
        "prepare_behavior_queue",
    ]
    # START_STEP from step_completed is the direct "next step"
    start_behavior(nb)
    complete_action(nb)
    reflect(nb, complete=True)
    assert start_step(nb, STEPS[2:]) is St.STEP_RUNNING
    assert nb.context.step_id == "variable_definition"
    assert nb.context.steps_completed == ["data_collection_inventory", "data_structure_discovery"]


def test_stage_complete_moves_to_the_next_stage() -> None:
    nb = notebook_in(St.STEP_COMPLETED)
    assert stage_reflection(nb, complete=True) is St.STAGE_RUNNING
    ctx = nb.context
    assert ctx.stage_id == "data_integrity_assessment"
    assert ctx.stages_completed == ["data_existence_establishment"]
    assert ctx.experiences == ["lessons of data_existence_establishment"]
    assert handlers_of(nb).log[-4:] == [
        "record_stage_experience",
        "advance_stage",
        "set_current_stage",
        "init_stage_outputs_tracking",
    ]


def run_stage(nb: Notebook, steps: list[str], retries_on_first_step: int = 0) -> None:
    """One stage: each step with one behaviour (retried on the first step), then T6."""
    start_step(nb, steps)
    for index in range(len(steps)):
        start_behavior(nb)
        complete_action(nb)
        for _ in range(retries_on_first_step if index == 0 else 0):
            reflect(nb, complete=False)
            start_behavior(nb)
            complete_action(nb)
        reflect(nb, complete=True)
        stage_reflection(nb, complete=index == len(steps) - 1)


def test_full_workflow_to_workflow_complete_and_metrics() -> None:
    nb = new_notebook()
    start_workflow(nb)
    for number, _ in enumerate(STAGES):
        run_stage(nb, ["s1", "s2"], retries_on_first_step=1 if number == 0 else 0)
        # Progress metrics, checked after each stage.
        ctx = nb.context
        overall = len(ctx.stages_completed) / len(STAGES)
        assert overall == pytest.approx((number + 1) / 6)
    assert nb.state is St.WORKFLOW_COMPLETE and nb.is_final
    ctx = nb.context
    assert ctx.stages_completed == STAGES and ctx.stages_remaining == []
    # Retry rate: average behaviour iterations per step (s1 of the first stage ran twice).
    assert ctx.iterations_per_step == {"s1": 7, "s2": 6}
    assert sum(ctx.iterations_per_step.values()) / 12 == pytest.approx(13 / 12)
    last = nb.last_transition
    assert last is not None
    assert (last.source, last.event, last.target) == (
        "step_completed",
        "COMPLETE_STAGE",
        "workflow_complete",
    )
    # WORKFLOW_COMPLETE is final: nothing leaves it.
    assert nb.allowed_events() == frozenset()
    for event in Ev:
        assert nb.dynamic.try_send(event) is False


# ----------------------------------------------------------------------------- invalid transitions


@pytest.mark.parametrize(
    ("state", "event"),
    [
        (St.IDLE, Ev.START_STEP),
        (St.STAGE_RUNNING, Ev.START_BEHAVIOR),
        (St.STEP_RUNNING, Ev.COMPLETE_ACTION),
        (St.BEHAVIOR_RUNNING, Ev.TRANSITION_TO_COMPLETE_STEP),
        (St.BEHAVIOR_COMPLETED, Ev.COMPLETE_STAGE),
        (St.STEP_COMPLETED, Ev.START_BEHAVIOR),
    ],
)
def test_out_of_sequence_events_are_rejected(
    state: NotebookBccV1State, event: NotebookBccV1Event
) -> None:
    nb = notebook_in(state)
    log = list(handlers_of(nb).log)
    assert nb.dynamic.try_send(event) is False
    assert nb.state is state and handlers_of(nb).log == log  # no action ran


def test_bound_variable_must_exist() -> None:
    """No Hallucination: binding an unknown variable fails and the behaviour does not start."""
    from statewright import ActionFailed

    nb = notebook_in(St.STEP_RUNNING)
    with pytest.raises(ActionFailed) as info:
        nb.start_behavior(
            behavior_id="b",
            step_id="s",
            agent="a",
            task="t",
            inputs={"x": "fabricated_variable"},
            outputs={},
            acceptance=[],
            effects=False,
        )
    assert info.value.action == "bind_input_variables"
    assert nb.state is St.STEP_RUNNING


# ----------------------------------------------------------------------------- persistence


def test_snapshot_while_awaiting_reflection_keeps_the_retry_counter() -> None:
    store = MemoryStore()
    nb = notebook_in(St.BEHAVIOR_COMPLETED, max_retries=2)
    reflect(nb, complete=False)
    start_behavior(nb)
    complete_action(nb)
    assert nb.data.behavior_iteration == 2
    assert nb.save(store) == 1
    stored = store.load("nb-v1")
    assert stored is not None
    assert stored["state"] == "behavior_completed"
    assert stored["data"]["behavior_iteration"] == 2
    assert stored["counts"] == [
        [s, e, t, n]
        for (s, e, t), n in (
            (("idle", "START_WORKFLOW", "stage_running"), 1),
            (("stage_running", "START_STEP", "step_running"), 1),
            (("step_running", "START_BEHAVIOR", "behavior_running"), 2),
            (("behavior_running", "COMPLETE_ACTION", "behavior_completed"), 2),
            (("behavior_completed", "TRANSITION_TO_COMPLETE_STEP", "step_running"), 1),
        )
    ]
    loaded: Notebook = NotebookBccV1Machine.load(store, "nb-v1", Handlers())
    assert loaded.context == nb.context
    assert (loaded.data.behavior_iteration, loaded.data.max_retries) == (2, 2)
    # max_retries = 2 reached: the restored machine escalates instead of retrying.
    assert reflect(loaded, complete=False) is St.STEP_COMPLETED
    assert loaded.context.escalations == ["data_collection_inventory"]
