"""Notebook-BCC (seed 001) as a hierarchy of machines: a workflow runs each stage as a child
machine, each stage runs each step as a child of its own (spec/notebook_workflow.toml,
spec/notebook_stage.toml, spec/notebook_step.toml).

The reflection's verdicts go to the workflow and are forwarded down to the running step. The
workflow is suspended halfway through a stage (its stage and step are cancelled), saved, loaded
again as a new process would, resumed (the stage starts again at the step it had reached), and
finished. Everything is saved in one SQLite file as one snapshot per workflow.
Run (after `make setup`): .venv/bin/python examples/notebook_hierarchy.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from notebook_workflow import NotebookWorkflowMachine
from statewright import MachineOptions, SqliteStore


def tree(workflow: NotebookWorkflowMachine[None]) -> str:
    """The running machines, outermost first: ``workflow > stage > step``."""
    parts = [f"workflow {workflow.state}"]
    stage = workflow.children.stage
    if stage is not None:
        parts.append(f"stage {stage.data.stage_id} {stage.state} ({stage.data.steps_done} done)")
        step = stage.children.step
        if step is not None:
            parts.append(f"step {step.data.step_id} try {step.data.behavior_iteration}")
    return " > ".join(parts)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(Path(folder) / "workflows.db")
        options = MachineOptions(store=store, instance_id="wf-1", log_transitions=False)
        workflow = NotebookWorkflowMachine(None, options=options)
        workflow.start_workflow(stages=["explore", "model"])
        print(tree(workflow))
        for artifact, accepted in [("eda.ipynb", False), ("eda.ipynb", True)]:
            workflow.complete_action(artifact=artifact, accepted=accepted)
            print(tree(workflow))
        workflow.suspend()
        print(tree(workflow))
        workflow.save()

        resumed: NotebookWorkflowMachine[None] = NotebookWorkflowMachine.load(
            store, "wf-1", None, options=options
        )
        resumed.resume()
        print(tree(resumed))
        for artifact in ["features.parquet", "model.pkl", "report.md"]:
            resumed.complete_action(artifact=artifact, accepted=True)
            print(tree(resumed))
        print("artifacts:", resumed.data.artifacts)
        store.close()


if __name__ == "__main__":
    main()
