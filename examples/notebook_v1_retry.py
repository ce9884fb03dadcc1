"""Notebook-BCC v1 (seed 001): a behaviour retried while behavior_iteration < max_retries.

The reflection agent says "incomplete" three times; with max_retries = 3 (the spec's value) the
first two retry the behaviour, the third escalates to stage reflection. The retry counter and its
limit are the spec's data model (`nb.data`): the spec's conditions decide, the machine counts
and records.
Run (after `make setup`): .venv/bin/python examples/notebook_v1_retry.py
"""

from __future__ import annotations

from dataclasses import dataclass

from notebook_bcc_v1 import (
    CompleteActionPayload,
    CompleteStagePayload,
    NotebookBccV1Machine,
    StartBehaviorPayload,
    StartStepPayload,
    StartWorkflowPayload,
    TransitionToCompleteStepPayload,
)

Reflection = TransitionToCompleteStepPayload
StageChange = StartWorkflowPayload | CompleteStagePayload
StepChange = StartStepPayload | TransitionToCompleteStepPayload | CompleteStagePayload


@dataclass
class Location:
    behavior_id: str = ""
    escalated: bool = False


class Agents:
    """Guards and actions (implements NotebookBccV1Handlers[Location]); most are no-ops here."""

    def same_behavior(self, c: Location, p: StartBehaviorPayload, /) -> bool:
        return p["behavior_id"] == c.behavior_id

    def stages_remaining(self, c: Location, p: CompleteStagePayload, /) -> bool:
        return False

    def bind_behavior(self, c: Location, p: StartBehaviorPayload, /) -> None:
        c.behavior_id = p["behavior_id"]

    def record_retry(self, c: Location, p: StartBehaviorPayload | Reflection, /) -> None: ...

    def escalate_to_stage_reflection(self, c: Location, p: Reflection, /) -> None:
        c.escalated = True

    def record_stage_plan(self, c: Location, p: StartWorkflowPayload, /) -> None: ...
    def record_step_plan(self, c: Location, p: StartStepPayload, /) -> None: ...
    def set_current_stage(self, c: Location, p: StageChange, /) -> None: ...
    def init_stage_outputs_tracking(self, c: Location, p: StageChange, /) -> None: ...
    def set_current_step(self, c: Location, p: StepChange, /) -> None: ...
    def prepare_behavior_queue(self, c: Location, p: StepChange, /) -> None: ...
    def assign_agent(self, c: Location, p: StartBehaviorPayload, /) -> None: ...
    def bind_input_variables(self, c: Location, p: StartBehaviorPayload, /) -> None: ...
    def capture_effects(self, c: Location, p: CompleteActionPayload, /) -> None: ...
    def store_artifacts(self, c: Location, p: CompleteActionPayload, /) -> None: ...
    def archive_current_effects(
        self, c: Location, p: StartBehaviorPayload | Reflection, /
    ) -> None: ...
    def update_outputs_tracking(self, c: Location, p: Reflection, /) -> None: ...
    def update_variables_with_artifacts(self, c: Location, p: Reflection, /) -> None: ...
    def record_stage_experience(self, c: Location, p: CompleteStagePayload, /) -> None: ...
    def advance_stage(self, c: Location, p: CompleteStagePayload, /) -> None: ...
    def manage_variables(self, c: Location, p: CompleteStagePayload, /) -> None: ...


def main() -> None:
    nb = NotebookBccV1Machine(Location(), Agents())
    nb.start_workflow(user_problem="predict prices", user_submit_files=["h.csv"], stages=[{}])
    nb.start_step(stage_id="load", steps=[{"id": "inventory"}])
    for _ in range(nb.data.max_retries):
        nb.start_behavior(
            behavior_id="inventory_b1", step_id="inventory", agent="Explore", task="load h.csv",
            inputs={}, outputs={"raw_dataset": "df"}, acceptance=["rows > 0"], effects=True,
        )  # fmt: skip
        nb.complete_action(actions=[{"add-code2run": "df = load()"}], effects=[], variables=[])
        iteration = nb.data.behavior_iteration
        state = nb.transition_to_complete_step(
            current_step_is_complete=False, next_state="STEP_RUNNING"
        )
        print(f"iteration {iteration}: reflection says incomplete -> {state}")
    print("escalated to stage reflection:", nb.context.escalated)
    nb.complete_stage(stage_is_complete=True, goal_status="partial", next_state="STAGE_COMPLETED")
    print("final:", nb.state, "| transitions:", nb.total_transitions)


if __name__ == "__main__":
    main()
