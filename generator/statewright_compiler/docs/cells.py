"""Facts of the model as Markdown: table cells, the tables made of them, and the notes a page
shows instead of an empty table.

Every string from the spec reaches a cell through :mod:`markdown` (names and values as code
spans, labels and metadata literally, descriptions as inline prose), so :mod:`page` only chooses
which cell shows which fact. A :class:`Table` is built from :class:`Column` s, each a header and
the cell it shows for an item, so one table can show a column only for statecharts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from statewright_compiler.docs import markdown
from statewright_compiler.docs.step_cells import steps_cell, timer_cell
from statewright_compiler.model import (
    Event,
    Machine,
    MetadataValue,
    Rule,
    State,
    StateKind,
    Transition,
)
from statewright_compiler.model.step_text import timer_of

__all__ = [
    "Column",
    "Table",
    "code",
    "codes",
    "count",
    "default_entry_cell",
    "event_cell",
    "kind_text",
    "markdown_cell",
    "markdown_paragraph",
    "markdown_prose_cell",
    "metadata_columns",
    "metadata_text",
    "no_transitions_note",
    "payload_cell",
    "rule_cell",
    "rule_targets_cell",
    "state_cell",
    "state_counts_cell",
    "table",
    "target_cell",
    "trigger_cell",
]

Item = TypeVar("Item")


def markdown_cell(text: str) -> str:
    """Literal ``text`` (a label, a metadata value) as one Markdown table cell."""
    return markdown.literal(text, table=True)


def markdown_prose_cell(text: str) -> str:
    """A description as one Markdown table cell (see :func:`markdown.prose`)."""
    return markdown.prose(text, table=True)


def markdown_paragraph(text: str) -> str:
    """A description as Markdown paragraphs (see :func:`markdown.prose`)."""
    return markdown.paragraph(text)


def code(text: str) -> str:
    """A code span inside a table cell."""
    return markdown.code(text, table=True)


def codes(names: Iterable[str]) -> str:
    return ", ".join(code(name) for name in names)


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


# -- tables ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def lines(self) -> tuple[str, ...]:
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(cells) + " |"

        separator = "|" + "|".join("---" for _ in self.header) + "|"
        return (line(self.header), separator, *(line(row) for row in self.rows))


@dataclass(frozen=True)
class Column(Generic[Item]):
    """A table column: its header and the cell it shows for an item; hidden unless ``shown``."""

    header: str
    cell: Callable[[Item], str]
    shown: bool = True


def table(columns: Sequence[Column[Item]], items: Iterable[Item]) -> Table:
    """One row per item, one cell per shown column."""
    shown = [column for column in columns if column.shown]
    return Table(
        tuple(column.header for column in shown),
        tuple(tuple(column.cell(item) for column in shown) for item in items),
    )


def metadata_text(value: MetadataValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(metadata_text(item) for item in value)
    return str(value)


#: A spec entry's metadata: ``(key, value)`` pairs in the order the spec writes them.
Metadata = tuple[tuple[str, MetadataValue], ...]


def metadata_columns(
    entries: Iterable[Metadata], metadata: Callable[[Item], Metadata]
) -> list[Column[Item]]:
    """One column per key of the metadata ``entries``, in order of first appearance, showing
    the value the item's ``metadata`` has under it."""
    keys: dict[str, None] = {}
    for entry in entries:
        for key, _ in entry:
            keys.setdefault(key, None)

    def cell(key: str) -> Callable[[Item], str]:
        def value(item: Item) -> str:
            values = dict(metadata(item))
            return markdown_cell(metadata_text(values[key])) if key in values else ""

        return value

    return [Column(markdown_cell(key), cell(key)) for key in keys]


# -- states and events ----------------------------------------------------------------------------
def state_cell(state: State) -> str:
    cell = code(state.name)
    if state.label != state.name:
        cell += "<br>" + markdown_cell(state.label)
    return cell


def event_cell(event: Event) -> str:
    cell = code(event.name)
    if event.label != event.name:
        cell += "<br>" + markdown_cell(event.label)
    return cell


#: A statechart's leaf states by kind (a flat machine's states show the kind as written).
_LEAF_KINDS = {
    StateKind.NORMAL: "atomic",
    StateKind.FINAL: "final",
    StateKind.ERROR: "error",
    StateKind.WAIT: "wait",
}


def kind_text(state: State) -> str:
    """A chart's ``atomic``, ``final``, ``compound``, ``compound, wait``, ``parallel``, ``deep
    history``..."""
    if state.kind is StateKind.HISTORY:
        return f"{state.history or 'shallow'} history"
    if state.kind is StateKind.PARALLEL:
        return "parallel"
    if state.children:
        return "compound" + ("" if state.kind is StateKind.NORMAL else f", {state.kind.value}")
    return _LEAF_KINDS[state.kind]


def state_counts_cell(machine: Machine) -> str:
    """``13 (2 compound, 1 parallel, 1 history, 3 final)``: how many of each kind that matters
    (a flat machine's states are never compound, parallel or history ones)."""
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


def default_entry_cell(state: State) -> str:
    """A compound state's initial states, or a history state's default, with their steps."""
    if state.kind is StateKind.HISTORY:
        targets, steps = state.default, state.default_steps
    else:
        targets, steps = state.initial, state.initial_steps
    return codes(targets) + (f" / {steps_cell(steps)}" if steps else "")


def payload_cell(event: Event) -> str:
    return "<br>".join(
        code(f"{field.name}: {field.annotation}" + (" = None" if field.optional else ""))
        for field in event.payload
    )


# -- transitions ----------------------------------------------------------------------------------
def rule_cell(rule: Rule) -> str:
    """Where the rule is in the spec, and which states it leaves from when it says more than
    the one its table's heading names."""
    cell = f"line {rule.line}"
    if rule.source.is_wildcard or len(rule.sources) > 1:
        cell += ", from " + markdown_cell(rule.source.describe())
    return cell


def target_cell(machine: Machine, transition: Transition) -> str:
    """A flat transition's target; ``<previous>`` with the states it can return to."""
    if not transition.returns_to_previous:
        return code(transition.target)
    candidates = machine.previous_candidates(transition.source)
    return "previous state (" + (codes(candidates) if candidates else "none possible") + ")"


def trigger_cell(machine: Machine, rule: Rule) -> str:
    """A chart rule's trigger: a timer's delay, ``eventless``, or the event (a descriptor with
    the events it matches)."""
    timer = timer_of(machine, rule)
    if timer is not None:
        return f"{timer_cell(timer, with_id=False)} ({code(rule.event)})"
    if rule.eventless:
        return "eventless"
    if rule.events == (rule.event,):
        return code(rule.event)
    return f"{code(rule.event)} ({codes(rule.events)})"


def rule_targets_cell(machine: Machine, rule: Rule) -> str:
    """A chart rule's targets; a history state with what it is the history of."""
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


def no_transitions_note(machine: Machine, state: State) -> str:
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
