"""What a statechart's docs page says that a flat machine's does not: each state's parent, kind
and default entry; transitions by rule (a trigger may be a descriptor matching many events, a
timer, or none at all), with their targets, type and ``then`` steps; the events the machine
raises or sends itself; what an error does.

A flat page lists one row per concrete (state, event) transition. A chart's rule can match many
events, so its rows follow the rules, as the spec and the diagram do: one per rule and source
state, in the order the chart tries them. Cells come from :mod:`docs_cells`, so spec text is
escaped exactly as on a flat page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from statewright_compiler.docs import markdown
from statewright_compiler.docs.cells import (
    Table,
    code,
    codes,
    markdown_cell,
    markdown_prose_cell,
    metadata_cells,
    metadata_keys,
    rule_cell,
    state_cell,
    steps_cell,
    timer_cell,
)
from statewright_compiler.model import Machine, RaiseStep, Rule, SendStep, State, StateKind, Step
from statewright_compiler.model.step_text import timer_of

__all__ = [
    "internal_events",
    "kind_text",
    "on_error_text",
    "states_summary",
    "states_table",
    "transition_tables",
]

_LEAF_KINDS = {
    StateKind.NORMAL: "atomic",
    StateKind.FINAL: "final",
    StateKind.ERROR: "error",
    StateKind.WAIT: "wait",
}


def kind_text(state: State) -> str:
    """``atomic``, ``final``, ``compound``, ``compound, wait``, ``parallel``, ``deep history``..."""
    if state.kind is StateKind.HISTORY:
        return f"{state.history or 'shallow'} history"
    if state.kind is StateKind.PARALLEL:
        return "parallel"
    if state.children:
        return "compound" + ("" if state.kind is StateKind.NORMAL else f", {state.kind.value}")
    return _LEAF_KINDS[state.kind]


def states_summary(machine: Machine) -> str:
    """``13 (2 compound, 1 parallel, 1 history, 3 final)``: how many of each kind that matters."""
    counts: Counter[str] = Counter()
    for state in machine.states:
        if state.kind in (StateKind.HISTORY, StateKind.PARALLEL):
            counts[state.kind.value] += 1
            continue
        if state.children:
            counts["compound"] += 1
        if state.kind is not StateKind.NORMAL:
            counts[state.kind.value] += 1
    shown = [
        f"{counts[kind]} {kind}"
        for kind in ("compound", "parallel", "history", "final", "error", "wait")
        if counts[kind]
    ]
    return str(len(machine.states)) + (f" ({', '.join(shown)})" if shown else "")


def _with_steps(targets: tuple[str, ...], steps: tuple[Step, ...]) -> str:
    return codes(targets) + (f" / {steps_cell(steps)}" if steps else "")


def _default_entry(state: State) -> str:
    """A compound state's initial states, or a history state's default, with their steps."""
    if state.kind is StateKind.HISTORY:
        return _with_steps(state.default, state.default_steps)
    return _with_steps(state.initial, state.initial_steps)


def states_table(machine: Machine) -> Table:
    keys = metadata_keys(state.metadata for state in machine.states)
    show_values = any(state.value != state.name for state in machine.states)
    initial = machine.initial_targets or (machine.initial,)
    header = (
        "State",
        *(("Value",) if show_values else ()),
        "Parent",
        "Kind",
        "Default entry",
        "Tags",
        "Description",
        "Entry actions",
        "Exit actions",
        *(markdown_cell(key) for key in keys),
    )
    rows = tuple(
        (
            state_cell(state) + (" (initial)" if state.name in initial else ""),
            *((code(state.value),) if show_values else ()),
            code(state.parent) if state.parent else "",
            kind_text(state),
            _default_entry(state),
            codes(state.tags),
            markdown_prose_cell(state.description),
            steps_cell(state.entry),
            steps_cell(state.exit),
            *metadata_cells(state.metadata, keys),
        )
        for state in machine.states
    )
    return Table(header, rows)


def _trigger_cell(machine: Machine, rule: Rule) -> str:
    timer = timer_of(machine, rule)
    if timer is not None:
        return f"{timer_cell(timer, with_id=False)} ({code(rule.event)})"
    if rule.eventless:
        return "eventless"
    if rule.events == (rule.event,):
        return code(rule.event)
    return f"{code(rule.event)} ({codes(rule.events)})"


def _target_cell(machine: Machine, rule: Rule) -> str:
    if not rule.targets:
        return "none (targetless)"
    cells = []
    for target in rule.targets:
        state = machine.state(target)
        cell = code(target)
        if state.kind is StateKind.HISTORY and state.parent:
            cell += f" ({kind_text(state)} of {code(state.parent)})"
        cells.append(cell)
    return ", ".join(cells)


def _empty_note(machine: Machine, state: State) -> str:
    """What happens in a state no rule leaves from."""
    if state.is_final:
        return "Final state: accepts no event."
    if state.kind is StateKind.HISTORY:
        remembered = "every state below" if state.history == "deep" else "the child of"
        return (
            f"History pseudo-state of {code(state.parent or '')}: never active itself. A "
            f"transition to it re-enters {remembered} {code(state.parent or '')} that was active "
            "when it was last left, or its default entry the first time."
        )
    ancestors = []
    parent = state.parent
    while parent is not None:
        ancestors.append(parent)
        parent = machine.state(parent).parent
    if ancestors:
        return f"No transitions of its own: those of {codes(ancestors)} apply."
    if state.children:
        return "No transitions of its own: the states inside it handle events."
    return "No transitions: every event is rejected here."


def transition_tables(machine: Machine) -> Iterator[tuple[State, str, Table | None]]:
    """For each state, in document order: a note when no rule leaves from it, else its rules
    in the order the chart tries them."""
    keys = metadata_keys(rule.metadata for rule in machine.rules)
    show_type = any(rule.internal for rule in machine.rules)
    show_then = any(rule.then for rule in machine.rules)
    header = (
        "Trigger",
        "Target",
        *(("Type",) if show_type else ()),
        "Guard",
        "Actions",
        *(("Then",) if show_then else ()),
        "Checkpoint",
        "Description",
        *(markdown_cell(key) for key in keys),
        "Rule",
    )
    for state in machine.states:
        rows = tuple(
            (
                _trigger_cell(machine, rule),
                _target_cell(machine, rule),
                *(("internal" if rule.internal else "",) if show_type else ()),
                code(rule.guard_text) if rule.guard_text else "",
                steps_cell(rule.steps),
                *((steps_cell(rule.then),) if show_then else ()),
                "yes" if rule.checkpoint else "",
                markdown_prose_cell(rule.description),
                *metadata_cells(rule.metadata, keys),
                rule_cell(rule),
            )
            for rule in machine.rules
            if state.name in rule.sources
        )
        if rows:
            yield state, "", Table(header, rows)
        else:
            yield state, _empty_note(machine, state), None


def _raised_and_sent(machine: Machine) -> dict[str, list[str]]:
    """For each event a ``raise`` or ``send`` step puts on the queue, where those steps are:
    ``raised by the entry of `x` ``, ``sent by the exit of `y` after `5m` (id `t`)``."""
    places: list[tuple[str, tuple[Step, ...]]] = [("the initial transition", machine.initial_steps)]
    for state in machine.states:
        name = code(state.name)
        places += [
            (f"the entry of {name}", state.entry),
            (f"the exit of {name}", state.exit),
            (f"the initial transition of {name}", state.initial_steps),
            (f"the default of {name}", state.default_steps),
        ]
    places += [
        (f"the transition at line {rule.line}", (*rule.steps, *rule.then)) for rule in machine.rules
    ]
    found: dict[str, list[str]] = {}
    for place, steps in places:
        for step in steps:
            if isinstance(step, RaiseStep):
                reason = f"raised by {place}"
            elif isinstance(step, SendStep):
                reason = f"sent by {place} {timer_cell(step)}"
            else:
                continue
            if reason not in found.setdefault(step.event, []):
                found[step.event].append(reason)
    for state in machine.states:
        for timer in state.timers:
            reason = f"sent by the timer of {code(state.name)}, {timer_cell(timer, with_id=False)}"
            found.setdefault(timer.event, []).append(reason)
    return found


def _done_text(machine: Machine, value: str) -> str:
    state = next((s for s in machine.states if f"done.state.{s.value}" == value), None)
    if state is None:
        return "raised when the state it names is done"
    if state.kind is StateKind.PARALLEL:
        return f"raised when every region of {code(state.name)} is in a final state"
    return f"raised when {code(state.name)} enters a final child"


def internal_events(machine: Machine) -> tuple[str, ...]:
    """One line per event the machine puts on its own queue, in event order."""
    queued = _raised_and_sent(machine)
    lines = []
    for event in machine.events:
        reasons = []
        if event.value.startswith("done.state."):
            reasons.append(_done_text(machine, event.value))
        elif event.value == "error.execution" and machine.on_error == "event":
            reasons.append("raised when a guard or an action raises an exception")
        reasons += queued.get(event.name, [])
        if reasons:
            name = markdown.code(event.name) + (
                f" (value {markdown.code(event.value)})" if event.value != event.name else ""
            )
            lines.append(f"{name}: {'; '.join(reasons)}.")
    return tuple(lines)


def on_error_text(machine: Machine) -> str:
    """What an exception in a guard or an action does (``machine.on_error``)."""
    setting = markdown.code(f'on_error = "{machine.on_error}"')
    if machine.on_error == "event":
        error = markdown.code("error.execution")
        prefixes = f"{markdown.code('error')}, {markdown.code('error.*')}"
        return (
            f"{setting}: a guard that raises an exception counts as false, an action that raises "
            f"skips the rest of its block, and either raises the internal event {error}, which "
            f"transitions on it (or on {prefixes}) handle like any other event."
        )
    return (
        f"{setting}: a guard or an action that raises an exception leaves the machine as it was "
        "before the event, and the exception propagates to the caller."
    )
