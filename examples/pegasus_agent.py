"""An agent loop driving the Pegasus task machine (seed 002) with a fake planner.

The machine does no IO: the agent calls its (fake) planner and tools, writes the results into
its own context and fires the next event.
Run (after `make setup`): .venv/bin/python examples/pegasus_agent.py
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pegasus_task import (
    PegasusTaskMachine,
    PegasusTaskState,
    ReflectDonePayload,
    ToolCallCompletedPayload,
    ToolCallFailedPayload,
)
from statewright import MachineOptions, MemoryStore


@dataclass
class TaskContext:
    question: str = ""
    steps: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    rounds: int = 0


class Decisions:
    """The guards of the dynamic transitions (implements PegasusTaskHandlers[TaskContext])."""

    def plan_has_more_steps(
        self, ctx: TaskContext, payload: ToolCallCompletedPayload | ToolCallFailedPayload, /
    ) -> bool:
        return payload["step_index"] + 1 < len(ctx.steps)

    def verdict_is_complete(self, ctx: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "complete"

    def verdict_is_continue(self, ctx: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "continue"

    def verdict_is_replan(self, ctx: TaskContext, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "replan"


def fake_planner(question: str, round_number: int) -> list[str]:
    return ["search the web", "read top result"] if round_number == 0 else ["compute answer"]


def main() -> None:
    store = MemoryStore()
    task = PegasusTaskMachine(
        TaskContext(), Decisions(), options=MachineOptions(instance_id="task-1", store=store)
    )
    task.add_listener(lambda r: print(f"  #{r.event_id} {r.source} --{r.event}--> {r.target}"))

    ctx = task.context
    ctx.question = "How tall is the Eiffel tower in feet?"
    task.task_created(input_text=ctx.question, source="cli")
    task.perceive_done(perception={"intent": "fact lookup"})
    state = task.think_done(reasoning={"approach": "search, then convert"})
    while state is not PegasusTaskState.COMPLETED:
        ctx.steps = fake_planner(ctx.question, ctx.rounds)
        task.plan_done(goal="answer in feet", steps=ctx.steps)
        for index, step in enumerate(ctx.steps):
            ctx.outputs.append(f"{step}: ok")
            task.tool_call_completed(step_index=index, output=ctx.outputs[-1])
        ctx.rounds += 1
        state = task.reflect_done(verdict="replan" if ctx.rounds == 1 else "complete")

    saved = [h["event"] for h in (store.load("task-1") or {}).get("history", [])][-1]
    print(f"final state: {task.state}, checkpoints saved: {task.revision} (last: {saved})")


if __name__ == "__main__":
    main()
