"""The Markdown page of a compiled :class:`Machine`: overview, tables, diagram.

Everything shown is computed here (a statechart's own tables in :mod:`chart_docs`) from the
model; ``machine.md.jinja`` only prints the :class:`_PageView`. Every string from the spec goes
through :mod:`markdown` (by way of :mod:`docs_cells`): names and values as code spans, labels and
metadata literally, descriptions as inline Markdown without raw HTML or block syntax, so no spec
text can break a table or swallow the rest of the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from statewright_compiler.codegen.jinja_env import template_environment
from statewright_compiler.diagrams.mermaid import render_mermaid
from statewright_compiler.docs import chart_docs, markdown
from statewright_compiler.docs.cells import (
    Table,
    code,
    codes,
    count,
    event_cell,
    markdown_cell,
    markdown_paragraph,
    markdown_prose_cell,
    metadata_cells,
    metadata_keys,
    metadata_text,
    rule_cell,
    state_cell,
)
from statewright_compiler.model import Event, Machine, StateKind, Transition

__all__ = [
    "markdown_cell",
    "markdown_paragraph",
    "markdown_prose_cell",
    "render_markdown",
]

#: How many hex digits of the spec's sha256 the page shows.
SHA256_SHORT = 12


@dataclass(frozen=True)
class _TransitionGroup:
    heading: str
    note: str
    table: Table | None


@dataclass(frozen=True)
class _PageView:
    title: str
    provenance: str
    description: str
    overview: Table
    mermaid: str
    states: Table
    events: Table
    transition_groups: tuple[_TransitionGroup, ...]
    error_handlers: Table | None
    tags: Table | None
    handler_names: tuple[str, ...]
    chart: bool = False
    internal_events: tuple[str, ...] = ()
    """A chart's events raised by the machine itself, one list item each."""
    on_error: str = ""
    """What an error in a chart's guard or action does."""


_KIND_TEXT = {
    StateKind.NORMAL: "normal",
    StateKind.FINAL: "final",
    StateKind.ERROR: "error",
    StateKind.WAIT: "wait",
}


def _overview(machine: Machine) -> Table:
    if machine.chart:
        states = chart_docs.states_summary(machine)
        initial = codes(machine.initial_targets or (machine.initial,))
    else:
        kinds = [
            f"{sum(1 for state in machine.states if state.kind is kind)} {_KIND_TEXT[kind]}"
            for kind in (StateKind.FINAL, StateKind.ERROR, StateKind.WAIT)
            if any(state.kind is kind for state in machine.states)
        ]
        states = str(len(machine.states)) + (f" ({', '.join(kinds)})" if kinds else "")
        initial = state_cell(machine.state(machine.initial))
    errors = (
        ("On error", code(machine.on_error))
        if machine.chart
        else ("Error handlers", str(len(machine.error_handlers)))
    )
    rows: list[tuple[str, str]] = [
        ("Initial state", initial),
        ("States", states),
        ("Events", str(len(machine.events))),
        (
            "Transitions",
            f"{count(len(machine.rules), 'rule')}, "
            f"{count(len(machine.transitions), 'concrete transition')}",
        ),
        errors,
        ("Version", str(machine.version)),
        ("Generated module", code(machine.module_name)),
        ("Classes", codes(f"{machine.name}{suffix}" for suffix in ("State", "Event", "Machine"))),
        ("Spec", f"{code(machine.source_path)} (sha256 {code(_short_sha(machine))})"),
    ]
    rows.extend(
        (markdown_cell(key), markdown_cell(metadata_text(value))) for key, value in machine.metadata
    )
    return Table(("Item", "Value"), tuple(rows))


def _short_sha(machine: Machine) -> str:
    return machine.source_sha256[:SHA256_SHORT]


def _states_table(machine: Machine) -> Table:
    keys = metadata_keys(state.metadata for state in machine.states)
    show_values = any(state.value != state.name for state in machine.states)
    header = (
        "State",
        *(("Value",) if show_values else ()),
        "Kind",
        "Tags",
        "Description",
        "Entry actions",
        "Exit actions",
        *(markdown_cell(key) for key in keys),
    )
    rows = tuple(
        (
            state_cell(state) + (" (initial)" if state.name == machine.initial else ""),
            *((code(state.value),) if show_values else ()),
            _KIND_TEXT[state.kind],
            codes(state.tags),
            markdown_prose_cell(state.description),
            codes(state.entry_actions),
            codes(state.exit_actions),
            *metadata_cells(state.metadata, keys),
        )
        for state in machine.states
    )
    return Table(header, rows)


def _payload_cell(event: Event) -> str:
    return "<br>".join(
        code(f"{field.name}: {field.annotation}" + (" = None" if field.optional else ""))
        for field in event.payload
    )


def _events_table(machine: Machine) -> Table:
    keys = metadata_keys(event.metadata for event in machine.events)
    header = ("Event", "Method", "Payload", "Description", *(markdown_cell(key) for key in keys))
    rows = tuple(
        (
            event_cell(event),
            code(f"{event.method}()"),
            _payload_cell(event),
            markdown_prose_cell(event.description),
            *metadata_cells(event.metadata, keys),
        )
        for event in machine.events
    )
    return Table(header, rows)


def _target_cell(machine: Machine, transition: Transition) -> str:
    if not transition.returns_to_previous:
        return code(transition.target)
    candidates = machine.previous_candidates(transition.source)
    return "previous state (" + (codes(candidates) if candidates else "none possible") + ")"


def _transition_groups(machine: Machine) -> tuple[_TransitionGroup, ...]:
    keys = metadata_keys(rule.metadata for rule in machine.rules)
    header = (
        "Event",
        "Target",
        "Guard",
        "Actions",
        "Checkpoint",
        "Description",
        *(markdown_cell(key) for key in keys),
        "Rule",
    )
    groups = []
    for state in machine.states:
        transitions = [t for t in machine.transitions if t.source == state.name]
        rows = []
        for transition in transitions:
            rule = machine.rules[transition.rule_index]
            rows.append(
                (
                    code(transition.event),
                    _target_cell(machine, transition),
                    code(transition.guard_text) if transition.guard_text else "",
                    codes(transition.actions),
                    "yes" if transition.checkpoint else "",
                    markdown_prose_cell(rule.description),
                    *metadata_cells(rule.metadata, keys),
                    rule_cell(rule),
                )
            )
        if rows:
            note = ""
        elif state.is_final:
            note = "Final state: accepts no event."
        else:
            note = "No transitions: every event is rejected here."
        groups.append(
            _TransitionGroup(
                heading=f"From {code(state.name)}",
                note=note,
                table=Table(header, tuple(rows)) if rows else None,
            )
        )
    return tuple(groups)


def _chart_transition_groups(machine: Machine) -> tuple[_TransitionGroup, ...]:
    return tuple(
        _TransitionGroup(f"From {code(state.name)}", note, table)
        for state, note, table in chart_docs.transition_tables(machine)
    )


def _error_handlers_table(machine: Machine) -> Table | None:
    if not machine.error_handlers:
        return None
    rows = tuple(
        (
            (
                markdown_cell(handler.source.describe())
                + (f" ({codes(handler.sources)})" if handler.sources else "")
                if handler.source.is_wildcard
                else codes(handler.sources)
            ),
            code(handler.target),
            codes(handler.actions),
            markdown_prose_cell(handler.description),
            f"line {handler.line}",
        )
        for handler in machine.error_handlers
    )
    return Table(("From", "To", "Actions", "Description", "Rule"), rows)


def _tags_table(machine: Machine) -> Table | None:
    if not machine.tags:
        return None
    return Table(
        ("Tag", "States"), tuple((code(tag), codes(states)) for tag, states in machine.tags)
    )


def _page(machine: Machine) -> _PageView:
    provenance = (
        f"Generated by statewright from {markdown.code(machine.source_path)} "
        f"(sha256 {markdown.code(_short_sha(machine))}). Do not edit: change the spec and run "
        f"{markdown.code('statewright docs')}."
    )
    handler_names = (
        f"Guards: {codes(machine.guards) or 'none'}.",
        f"Actions: {codes(machine.actions) or 'none'}.",
        *(
            (f"Delay handlers (they return seconds): {codes(machine.delays)}.",)
            if machine.delays
            else ()
        ),
    )
    return _PageView(
        title=markdown.literal(machine.name),
        provenance=provenance,
        description=markdown_paragraph(machine.description),
        overview=_overview(machine),
        mermaid=render_mermaid(machine),
        states=chart_docs.states_table(machine) if machine.chart else _states_table(machine),
        events=_events_table(machine),
        transition_groups=(
            _chart_transition_groups(machine) if machine.chart else _transition_groups(machine)
        ),
        error_handlers=_error_handlers_table(machine),
        tags=_tags_table(machine),
        handler_names=handler_names,
        chart=machine.chart,
        internal_events=chart_docs.internal_events(machine) if machine.chart else (),
        on_error=chart_docs.on_error_text(machine) if machine.chart else "",
    )


def render_markdown(machine: Machine) -> str:
    """The Markdown page documenting ``machine``: same model, same bytes."""
    return template_environment().get_template("machine.md.jinja").render(page=_page(machine))
