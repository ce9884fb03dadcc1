"""ReMem's Think / Refine / Act loop (seed 004) with a scripted "LLM" and max_iterations = 4.

The policy keeps thinking; at the 4th transition the machine forces ACT. Valid actions come
from ``allowed_events()``; the iteration count, the limit and the actions taken are the spec's
data model (``machine.data``), so the handlers only do the side effects.
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
    memory: list[str] = field(default_factory=list)


class Loop:
    """The side effects (implements ReMemHandlers[Run])."""

    def init_state(self, r: Run, p: InitializePayload, /) -> None:
        r.task = p["task_input"]

    def record_thought(self, r: Run, p: ThinkPayload, /) -> None:
        print(f"  think: {p['thought']}")

    def apply_memory_delta(self, r: Run, p: RefinePayload, /) -> None:
        r.memory += [str(x) for x in p["delta"].get("add", [])]

    def record_result(self, r: Run, p: ActPayload, /) -> None:
        print(f"  result: {p['result']}")

    def update_mdp(self, r: Run, p: ThinkPayload | RefinePayload | ActPayload, /) -> None:
        pass  # the runtime's transition counts are the MDP statistics here

    def clear_state(self, r: Run, p: ResetPayload, /) -> None:
        r.task, r.memory = "", []


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
    data = machine.data
    print("final:", machine.state, "| actions:", data.actions, "| forced:", data.forced_act)
    after_thinking = machine.transition_probabilities()[ReMemState.THINKING]
    print("P(event, next | thinking):", {f"{e}->{t}": p for (e, t), p in after_thinking.items()})
    assert not machine.can_send(ReMemEvent.THINK)  # terminated: only RESET is accepted
    print("after reset:", machine.reset())


if __name__ == "__main__":
    main()
