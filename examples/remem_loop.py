"""ReMem's Think / Refine / Act loop (seed 004) with a scripted "LLM" and max_iterations = 4.

The policy keeps thinking; at the 4th transition the machine forces ACT. Valid actions come
from ``allowed_events()``.
Run (after `make setup`): .venv/bin/python examples/remem_loop.py
"""

from __future__ import annotations

from dataclasses import dataclass, field

from remem import (
    ActPayload,
    InitializePayload,
    RefinePayload,
    ReMemEvent,
    ReMemMachine,
    ReMemState,
    ResetPayload,
    ThinkPayload,
)

ACTIONS = {ReMemEvent.THINK, ReMemEvent.REFINE, ReMemEvent.ACT}


@dataclass
class Run:
    task: str = ""
    max_iterations: int = 8
    iteration: int = 0
    actions: list[str] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)


class Loop:
    """Guards and actions (implements ReMemHandlers[Run])."""

    def iterations_exhausted(self, r: Run, p: ThinkPayload | RefinePayload, /) -> bool:
        return r.iteration + 1 >= r.max_iterations

    def repeated_action(self, r: Run, p: ThinkPayload | RefinePayload, /) -> bool:
        kind = "THINK" if "thought" in p else "REFINE"
        return r.actions[-4:] == [kind] * 4

    def init_state(self, r: Run, p: InitializePayload, /) -> None:
        r.task, r.max_iterations = p["task_input"], p["max_iterations"] or 8

    def record_thought(self, r: Run, p: ThinkPayload, /) -> None:
        print(f"  think: {p['thought']}")

    def apply_memory_delta(self, r: Run, p: RefinePayload, /) -> None:
        r.memory += [str(x) for x in p["delta"].get("add", [])]

    def increment_iteration(self, r: Run, p: ThinkPayload | RefinePayload, /) -> None:
        r.iteration += 1
        r.actions.append("THINK" if "thought" in p else "REFINE")

    def force_act(self, r: Run, p: ThinkPayload | RefinePayload, /) -> None:
        r.iteration += 1
        r.actions.append("ACT (forced)")

    def record_result(self, r: Run, p: ActPayload, /) -> None:
        r.actions.append("ACT")

    def update_mdp(self, r: Run, p: ThinkPayload | RefinePayload | ActPayload, /) -> None:
        pass  # the runtime's transition counts are the MDP statistics here

    def clear_state(self, r: Run, p: ResetPayload, /) -> None:
        r.iteration, r.actions, r.memory = 0, [], []


def main() -> None:
    machine = ReMemMachine(Run(), Loop())
    machine.initialize(task_input="summarise the meeting", max_iterations=4)
    script = ["read the notes", "REFINE", "list decisions", "check owners", "more thinking"]
    for step in script:
        valid = sorted(str(e) for e in machine.allowed_events() if e in ACTIONS)
        if not valid:
            break
        print(f"{machine.state:>9} valid={valid}")
        if step == "REFINE":
            machine.refine(delta={"add": ["decision: ship on Friday"]})
        else:
            machine.think(thought=step)
    print("final:", machine.state, "| actions:", machine.context.actions)
    after_thinking = machine.transition_probabilities()[ReMemState.THINKING]
    print("P(event, next | thinking):", {f"{e}->{t}": p for (e, t), p in after_thinking.items()})
    assert not machine.can_send(ReMemEvent.THINK)  # terminated: only RESET is accepted
    print("after reset:", machine.reset())


if __name__ == "__main__":
    main()
