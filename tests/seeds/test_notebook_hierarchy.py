"""Seed 001's hierarchy as child machines: ``generated/notebook_workflow.py`` runs each planned
stage as a ``NotebookStage`` child, which runs each step as a ``NotebookStep`` child.

Covers, persisted in SQLite and driven by a fake clock: the reflection's verdicts sent to the
workflow reach the running step (autoforward twice), a rejected behavior retried inside the step,
an accepted step moving its stage on (a new step child with the next id) and reported to the
workflow (STEP_DONE to ``#_parent``), the tree saved and loaded as one snapshot in another
"process" (a new machine from the store), SUSPEND cancelling the stage and its step, RESUME
starting the stage again at the step it had reached with what it had produced, the stages' done
data carrying artifacts up, the store-wide timer driver firing a grandchild's timeout and the
failure reaching the workflow, CANCEL dropping the whole tree, and the typed accessors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from notebook_stage import NotebookStageMachine, NotebookStageState
from notebook_step import NotebookStepMachine, NotebookStepState
from notebook_workflow import NotebookWorkflowMachine, NotebookWorkflowState
from statewright import MachineOptions, SqliteStore, UnknownEvent, fire_due_timers

from tests.seeds.support import FakeClock

Wf = NotebookWorkflowState


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "workflows.db")
    yield opened
    opened.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(step=0.0)


def _new(store: SqliteStore, clock: FakeClock) -> NotebookWorkflowMachine[None]:
    options = MachineOptions(clock=clock, store=store, instance_id="wf-1")
    return NotebookWorkflowMachine(None, options=options)


def _load(store: SqliteStore, clock: FakeClock) -> NotebookWorkflowMachine[None]:
    return NotebookWorkflowMachine.load(store, "wf-1", None, options=MachineOptions(clock=clock))


def _verdict(machine: NotebookWorkflowMachine[None], artifact: str, accepted: bool) -> None:
    machine.send_external("COMPLETE_ACTION", {"artifact": artifact, "accepted": accepted})


def _running_step(machine: NotebookWorkflowMachine[None]) -> NotebookStepMachine[None]:
    stage = machine.children.stage
    assert isinstance(stage, NotebookStageMachine)
    step = stage.children.step
    assert isinstance(step, NotebookStepMachine)
    return step


def test_a_workflow_runs_its_stages_and_steps_as_a_tree_that_survives_a_reload(
    store: SqliteStore, clock: FakeClock
) -> None:
    workflow = _new(store, clock)
    assert workflow.is_in(Wf.IDLE) and not dict(workflow.children)
    workflow.send_external("START_WORKFLOW", {"stages": ["explore", "model"]})
    assert workflow.is_in(Wf.STAGE_RUNNING)
    step = _running_step(workflow)
    assert (step.data.step_id, step.data.behavior_iteration) == ("explore.step1", 1)

    _verdict(workflow, "eda.ipynb", accepted=False)  # retried inside the step
    assert _running_step(workflow).data.behavior_iteration == 2
    _verdict(workflow, "eda.ipynb", accepted=True)  # the step is done: the stage starts step 2
    stage = workflow.children.stage
    assert stage is not None and stage.state is NotebookStageState.STEP_RUNNING
    assert (stage.data.steps_done, stage.data.artifacts) == (1, ["eda.ipynb"])
    assert _running_step(workflow).data.step_id == "explore.step2"
    assert (workflow.data.steps_done, workflow.data.stage_artifacts) == (1, ["eda.ipynb"])
    workflow.save()

    reloaded = _load(store, clock)  # another process: the tree comes back whole
    assert reloaded.is_in(Wf.STAGE_RUNNING)
    assert _running_step(reloaded).data.step_id == "explore.step2"
    assert _running_step(reloaded).state is NotebookStepState.BEHAVIOR_RUNNING

    _verdict(reloaded, "features.parquet", accepted=True)  # the explore stage is done
    assert reloaded.data.current == 1
    assert reloaded.data.artifacts == ["eda.ipynb", "features.parquet"]
    assert _running_step(reloaded).data.step_id == "model.step1"
    for artifact in ("model.pkl", "report.md"):
        _verdict(reloaded, artifact, accepted=True)
    assert reloaded.state is Wf.WORKFLOW_COMPLETE
    assert reloaded.data.artifacts == ["eda.ipynb", "features.parquet", "model.pkl", "report.md"]
    assert not dict(reloaded.children)


def test_suspend_cancels_the_stage_and_resume_continues_it_at_its_step(
    store: SqliteStore, clock: FakeClock
) -> None:
    workflow = _new(store, clock)
    workflow.send_external("START_WORKFLOW", {"stages": ["explore"]})
    _verdict(workflow, "eda.ipynb", accepted=True)
    workflow.send_external("SUSPEND", {})
    assert workflow.state is Wf.SUSPENDED and not dict(workflow.children)
    workflow.save()
    clock.advance(7 * 24 * 3600)  # a week suspended: no step timer runs meanwhile
    assert fire_due_timers(store, NotebookWorkflowMachine, now=clock.now) == 0

    resumed = _load(store, clock)
    resumed.send_external("RESUME", {})
    stage = resumed.children.stage
    assert stage is not None
    assert (stage.data.steps_done, stage.data.artifacts) == (1, ["eda.ipynb"])
    assert _running_step(resumed).data.step_id == "explore.step2"
    _verdict(resumed, "features.parquet", accepted=True)
    assert resumed.state is Wf.WORKFLOW_COMPLETE
    assert resumed.data.artifacts == ["eda.ipynb", "features.parquet"]


def test_a_hanging_step_times_out_through_the_store_driver_and_fails_the_workflow(
    store: SqliteStore, clock: FakeClock
) -> None:
    workflow = _new(store, clock)
    workflow.send_external("START_WORKFLOW", {"stages": ["explore"]})
    workflow.save()
    assert workflow.next_due == clock.now + 30 * 60  # the grandchild's timer, seen at the root
    clock.advance(29 * 60)
    assert fire_due_timers(store, NotebookWorkflowMachine, now=clock.now) == 0
    clock.advance(2 * 60)
    assert fire_due_timers(store, NotebookWorkflowMachine, now=clock.now) >= 1
    failed = _load(store, clock)
    assert failed.state is Wf.WORKFLOW_FAILED and not dict(failed.children)
    assert [str(record.event) for record in failed.history][-1] == "done.invoke.stage"


def test_the_stages_report_is_the_workflows_own_event(store: SqliteStore, clock: FakeClock) -> None:
    """STEP_DONE is internal: only the stage (its send to #_parent) may send it."""
    workflow = _new(store, clock)
    workflow.send_external("START_WORKFLOW", {"stages": ["explore"]})
    with pytest.raises(UnknownEvent):
        report = {"stage_id": "explore", "steps_done": 5, "artifacts": []}
        workflow.send_external("STEP_DONE", report)
    assert workflow.data.steps_done == 0 and not hasattr(workflow, "step_done")


def test_cancel_drops_the_whole_tree(store: SqliteStore, clock: FakeClock) -> None:
    workflow = _new(store, clock)
    workflow.send_external("START_WORKFLOW", {"stages": ["explore"]})
    workflow.send_external("CANCEL", {})
    assert workflow.state is Wf.CANCELLED and not dict(workflow.children)
    assert workflow.next_due is None  # the step's timer went with it
