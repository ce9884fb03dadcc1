"""An agent loop: the current state's events as tools, a (scripted) model picks one, the runtime
checks the call and sends it, and the next state offers the next tools.

The machine is the Pegasus task (seed 002). The model is a script of tool calls as a model API
returns them (a name and JSON arguments); two of them are wrong, as models' calls sometimes are,
and the error goes back to the model, which corrects itself. Nothing from the model reaches a
handler before the boundary checked it against the spec's payload types.
Run (after `make setup`): .venv/bin/python examples/agent_loop.py
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pegasus_task import (
    PegasusTaskMachine,
    PegasusTaskState,
    ReflectDonePayload,
    ToolCallCompletedPayload,
    ToolCallFailedPayload,
)
from statewright import InvalidPayload, InvalidTransition, ToolDefinition

#: What the "model" answers, one tool call per turn: (tool name, JSON arguments).
SCRIPT = [
    ("PERCEIVE_DONE", '{"perception": {"topic": "unit conversion"}}'),
    ("THINK_DONE", '{"reasoning": {"approach": "look it up, then convert"}}'),
    ("PLAN_DONE", '{"goal": "answer in feet", "steps": "search"}'),  # steps must be a list
    ("PLAN_DONE", '{"goal": "answer in feet", "steps": ["search", "convert"]}'),
    ("REFLECT_DONE", '{"verdict": "complete"}'),  # not offered while acting
    ("TOOL_CALL_COMPLETED", '{"step_index": 0, "output": "1 m = 3.28 ft"}'),
    ("TOOL_CALL_COMPLETED", '{"step_index": 1, "output": "12 m = 39.4 ft"}'),
    ("REFLECT_DONE", '{"verdict": "complete", "lessons": ["state the unit"]}'),
]


@dataclass
class Task:
    steps: list[str] = field(default_factory=list)


class Decisions:
    """The guards the spec names (implements PegasusTaskHandlers[Task])."""

    def plan_has_more_steps(
        self, task: Task, payload: ToolCallCompletedPayload | ToolCallFailedPayload, /
    ) -> bool:
        return payload["step_index"] + 1 < len(task.steps)

    def verdict_is_complete(self, task: Task, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "complete"

    def verdict_is_continue(self, task: Task, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "continue"

    def verdict_is_replan(self, task: Task, payload: ReflectDonePayload, /) -> bool:
        return payload["verdict"] == "replan"


class ScriptedModel:
    """Stands in for an LLM: given tools (and the last error), returns the next tool call."""

    def __init__(self) -> None:
        self.turns = iter(SCRIPT)

    def call(self, tools: list[ToolDefinition], feedback: str | None) -> tuple[str, str]:
        if feedback:
            print(f"    model was told: {feedback}")
        return next(self.turns)


def main() -> None:
    task = Task()
    machine = PegasusTaskMachine(task, Decisions())
    machine.task_created(input_text="How tall is 12 m in feet?", source="chat")
    model = ScriptedModel()
    feedback: str | None = None
    while machine.state is not PegasusTaskState.COMPLETED:
        tools = machine.tools()
        print(f"{machine.state}: tools {[tool.name for tool in tools]}")
        name, arguments = model.call(tools, feedback)
        try:
            machine.send_external(name, arguments)
        except (InvalidPayload, InvalidTransition) as error:
            feedback = str(error)  # the model gets the reason and tries again
            continue
        feedback = None
        if name == "PLAN_DONE":
            task.steps = json.loads(arguments)["steps"]
        print(f"    {name} -> {machine.state}")
    schema = machine.tools(PegasusTaskState.PLANNING)[0].for_openai()
    print("PLAN_DONE as an OpenAI tool:", json.dumps(schema["function"]["parameters"]))


if __name__ == "__main__":
    main()
