"""Small hand-written charts: a spec around a body of states, the calls of a run written
compactly, and :func:`run`, which runs the compiled machine and checks that the reference
interpreter agrees with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tests.charts.harness import (
    Answer,
    Observation,
    Script,
    compile_chart,
    first_difference,
    run_machine,
    run_reference,
)

__all__ = ["COMPOUND", "EVENTS", "REGIONS", "calls", "chart", "run"]

EVENTS = ("GO", "BACK", "OTHER")


def chart(
    body: str, *, initial: str, on_error: str = "raise", events: Sequence[str] = EVENTS
) -> str:
    """A spec named Random (what the harness runs) around ``body``: its states and rules."""
    declared = "\n".join(f"[events.{name}]" for name in events)
    head = f'[machine]\nname = "Random"\ninitial = {initial}\non_error = "{on_error}"\n'
    return f"{head}\n{declared}\n\n{body}"


def calls(observation: Observation) -> list[str]:
    shown = []
    for call in observation.calls:
        if call[0] == "action":
            shown.append(call[1] + ("!" if call[2] else ""))
        elif call[0] == "guard":
            shown.append(f"{call[1]}={call[2]}")
        else:
            shown.append(f"log:{call[1]}")
    return shown


def run(
    spec: str,
    events: Sequence[str] = (),
    guards: Mapping[str, Sequence[Answer]] | None = None,
    failures: Mapping[str, frozenset[int]] | None = None,
) -> list[Observation]:
    """The machine's observations (the start, then each event), checked against the reference."""
    script = Script(guards or {}, failures or {})
    machine = run_machine(compile_chart(spec), script.fresh(), events)
    expected = run_reference(spec, script.fresh(), events)
    assert machine == expected, first_difference(machine, expected, events)
    return machine


#: Two regions, each with a GO transition of its own.
REGIONS = """
[states.p]
kind = "parallel"
exit = ["ex_p"]
[states.a]
parent = "p"
exit = ["ex_a"]
[states.a1]
parent = "a"
exit = ["ex_a1"]
on.GO = { to = "a2", actions = ["t_a"] }
[states.a2]
parent = "a"
entry = ["en_a2"]
[states.b]
parent = "p"
exit = ["ex_b"]
[states.b1]
parent = "b"
exit = ["ex_b1"]
on.GO = { to = "b2", actions = ["t_b"] }
[states.b2]
parent = "b"
entry = ["en_b2"]
[states.z]
entry = ["en_z"]
"""

#: A compound state whose GO transition targets its second child; TYPE is to be replaced.
COMPOUND = """
[states.s]
entry = ["en_s"]
exit = ["ex_s"]
on.GO = { to = "s2", type = "TYPE", actions = ["t"] }
[states.s1]
parent = "s"
entry = ["en_s1"]
exit = ["ex_s1"]
[states.s2]
parent = "s"
entry = ["en_s2"]
exit = ["ex_s2"]
"""
