"""SCXML's behaviours pinned on small charts, with the exact calls they make.

Each chart runs on the compiled machine; :func:`run` also runs the reference interpreter and
checks that it agrees, so these double as hand-picked cases for it. Calls are written compactly:
an action by its name (``"x!"`` when it raised), a guard as ``"g=True"``, a log step as
``"log:text"``.
"""

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


# -- the initial configuration --------------------------------------------------------------------
def test_an_initial_list_enters_one_state_per_region_and_the_other_regions_defaults() -> None:
    spec = chart(
        """
[states.p]
kind = "parallel"
[states.a]
parent = "p"
[states.a1]
parent = "a"
entry = ["en_a1"]
[states.a2]
parent = "a"
entry = ["en_a2"]
[states.b]
parent = "p"
[states.b1]
parent = "b"
entry = ["en_b1"]
[states.b2]
parent = "b"
entry = ["en_b2"]
[states.c]
parent = "p"
[states.c1]
parent = "c"
entry = ["en_c1"]
on.GO = "a1"
""",
        initial='["b2", "a2"]',
    )
    (started,) = run(spec)
    # Every target's descendants are added before any target's ancestors (computeEntrySet):
    # b2's parallel ancestor must not enter a's default a1 before a2 is known to be a target.
    assert started.leaves == {"a2", "b2", "c1"}
    assert calls(started) == ["en_a2", "en_b2", "en_c1"]
