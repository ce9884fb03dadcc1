"""The Markdown page of a compiled :class:`Machine`: overview, tables, diagram.

Everything shown is computed here from the model; ``machine.md.jinja`` only prints the
:class:`_PageView`. Every string from the spec goes through :mod:`markdown`: names and values as
code spans, labels and metadata literally, descriptions as inline Markdown without raw HTML or
block syntax, so no spec text can break a table or swallow the rest of the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import markdown
from .doc_templates import template_environment
from .mermaid import render_mermaid
from .model import (
    Event,
    Machine,
    MetadataValue,
    Rule,
    State,
    StateKind,
    Transition,
)

__all__ = [
    "markdown_cell",
    "markdown_paragraph",
    "markdown_prose_cell",
    "render_markdown",
]

#: How many hex digits of the spec's sha256 the page shows.
SHA256_SHORT = 12


def markdown_cell(text: str) -> str:
    """Literal ``text`` (a label, a metadata value) as one Markdown table cell."""
    return markdown.literal(text, table=True)


def markdown_prose_cell(text: str) -> str:
    """A description as one Markdown table cell (see :func:`markdown.prose`)."""
    return markdown.prose(text, table=True)


def markdown_paragraph(text: str) -> str:
    """A description as Markdown paragraphs (see :func:`markdown.prose`)."""
    return markdown.paragraph(text)


def _code(text: str) -> str:
    """A code span inside a table cell."""
    return markdown.code(text, table=True)


def _codes(names: Iterable[str]) -> str:
    return ", ".join(_code(name) for name in names)


def _metadata_text(value: MetadataValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(_metadata_text(item) for item in value)
    return str(value)


def _metadata_keys(entries: Iterable[tuple[tuple[str, MetadataValue], ...]]) -> tuple[str, ...]:
    """Every metadata key, in order of first appearance."""
    keys: dict[str, None] = {}
    for metadata in entries:
        for key, _ in metadata:
            keys.setdefault(key, None)
    return tuple(keys)


def _metadata_cells(
    metadata: tuple[tuple[str, MetadataValue], ...], keys: Sequence[str]
) -> tuple[str, ...]:
    values = dict(metadata)
    return tuple(
        markdown_cell(_metadata_text(values[key])) if key in values else "" for key in keys
    )


@dataclass(frozen=True)
class _Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    @property
    def lines(self) -> tuple[str, ...]:
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(cells) + " |"

        separator = "|" + "|".join("---" for _ in self.header) + "|"
        return (line(self.header), separator, *(line(row) for row in self.rows))


@dataclass(frozen=True)
class _TransitionGroup:
    heading: str
    note: str
    table: _Table | None


@dataclass(frozen=True)
class _PageView:
    title: str
    provenance: str
    description: str
    overview: _Table
    mermaid: str
    states: _Table
    events: _Table
    transition_groups: tuple[_TransitionGroup, ...]
    error_handlers: _Table | None
    tags: _Table | None
    handler_names: tuple[str, ...]


_KIND_TEXT = {
    StateKind.NORMAL: "normal",
    StateKind.FINAL: "final",
    StateKind.ERROR: "error",
    StateKind.WAIT: "wait",
}


def _state_cell(state: State) -> str:
    cell = _code(state.name)
    if state.label != state.name:
        cell += "<br>" + markdown_cell(state.label)
    return cell


def _event_cell(event: Event) -> str:
    cell = _code(event.name)
    if event.label != event.name:
        cell += "<br>" + markdown_cell(event.label)
    return cell


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _overview(machine: Machine) -> _Table:
    kinds = [
        f"{sum(1 for state in machine.states if state.kind is kind)} {_KIND_TEXT[kind]}"
        for kind in (StateKind.FINAL, StateKind.ERROR, StateKind.WAIT)
        if any(state.kind is kind for state in machine.states)
    ]
    states = str(len(machine.states)) + (f" ({', '.join(kinds)})" if kinds else "")
    initial = machine.state(machine.initial)
    rows: list[tuple[str, str]] = [
        ("Initial state", _state_cell(initial)),
        ("States", states),
        ("Events", str(len(machine.events))),
        (
            "Transitions",
            f"{_count(len(machine.rules), 'rule')}, "
            f"{_count(len(machine.transitions), 'concrete transition')}",
        ),
        ("Error handlers", str(len(machine.error_handlers))),
        ("Version", str(machine.version)),
        ("Generated module", _code(machine.module_name)),
        ("Classes", _codes(f"{machine.name}{suffix}" for suffix in ("State", "Event", "Machine"))),
        ("Spec", f"{_code(machine.source_path)} (sha256 {_code(_short_sha(machine))})"),
    ]
    rows.extend(
        (markdown_cell(key), markdown_cell(_metadata_text(value)))
        for key, value in machine.metadata
    )
    return _Table(("Item", "Value"), tuple(rows))


def _short_sha(machine: Machine) -> str:
    return machine.source_sha256[:SHA256_SHORT]


def _states_table(machine: Machine) -> _Table:
    keys = _metadata_keys(state.metadata for state in machine.states)
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
            _state_cell(state) + (" (initial)" if state.name == machine.initial else ""),
            *((_code(state.value),) if show_values else ()),
            _KIND_TEXT[state.kind],
            _codes(state.tags),
            markdown_prose_cell(state.description),
            _codes(state.entry_actions),
            _codes(state.exit_actions),
            *_metadata_cells(state.metadata, keys),
        )
        for state in machine.states
    )
    return _Table(header, rows)


def _payload_cell(event: Event) -> str:
    return "<br>".join(
        _code(f"{field.name}: {field.annotation}" + (" = None" if field.optional else ""))
        for field in event.payload
    )


def _events_table(machine: Machine) -> _Table:
    keys = _metadata_keys(event.metadata for event in machine.events)
    header = ("Event", "Method", "Payload", "Description", *(markdown_cell(key) for key in keys))
    rows = tuple(
        (
            _event_cell(event),
            _code(f"{event.method}()"),
            _payload_cell(event),
            markdown_prose_cell(event.description),
            *_metadata_cells(event.metadata, keys),
        )
        for event in machine.events
    )
    return _Table(header, rows)


def _target_cell(machine: Machine, transition: Transition) -> str:
    if not transition.returns_to_previous:
        return _code(transition.target)
    candidates = machine.previous_candidates(transition.source)
    return "previous state (" + (_codes(candidates) if candidates else "none possible") + ")"


def _rule_cell(rule: Rule) -> str:
    cell = f"line {rule.line}"
    if rule.source.is_wildcard or len(rule.sources) > 1:
        cell += ", from " + markdown_cell(rule.source.describe())
    return cell


def _transition_groups(machine: Machine) -> tuple[_TransitionGroup, ...]:
    keys = _metadata_keys(rule.metadata for rule in machine.rules)
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
                    _code(transition.event),
                    _target_cell(machine, transition),
                    _code(transition.guard_text) if transition.guard_text else "",
                    _codes(transition.actions),
                    "yes" if transition.checkpoint else "",
                    markdown_prose_cell(rule.description),
                    *_metadata_cells(rule.metadata, keys),
                    _rule_cell(rule),
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
                heading=f"From {_code(state.name)}",
                note=note,
                table=_Table(header, tuple(rows)) if rows else None,
            )
        )
    return tuple(groups)


def _error_handlers_table(machine: Machine) -> _Table | None:
    if not machine.error_handlers:
        return None
    rows = tuple(
        (
            (
                markdown_cell(handler.source.describe())
                + (f" ({_codes(handler.sources)})" if handler.sources else "")
                if handler.source.is_wildcard
                else _codes(handler.sources)
            ),
            _code(handler.target),
            _codes(handler.actions),
            markdown_prose_cell(handler.description),
            f"line {handler.line}",
        )
        for handler in machine.error_handlers
    )
    return _Table(("From", "To", "Actions", "Description", "Rule"), rows)


def _tags_table(machine: Machine) -> _Table | None:
    if not machine.tags:
        return None
    return _Table(
        ("Tag", "States"), tuple((_code(tag), _codes(states)) for tag, states in machine.tags)
    )


def _page(machine: Machine) -> _PageView:
    provenance = (
        f"Generated by statewright from {markdown.code(machine.source_path)} "
        f"(sha256 {markdown.code(_short_sha(machine))}). Do not edit: change the spec and run "
        f"{markdown.code('statewright docs')}."
    )
    handler_names = (
        f"Guards: {_codes(machine.guards) or 'none'}.",
        f"Actions: {_codes(machine.actions) or 'none'}.",
    )
    return _PageView(
        title=markdown.literal(machine.name),
        provenance=provenance,
        description=markdown_paragraph(machine.description),
        overview=_overview(machine),
        mermaid=render_mermaid(machine),
        states=_states_table(machine),
        events=_events_table(machine),
        transition_groups=_transition_groups(machine),
        error_handlers=_error_handlers_table(machine),
        tags=_tags_table(machine),
        handler_names=handler_names,
    )


def render_markdown(machine: Machine) -> str:
    """The Markdown page documenting ``machine``: same model, same bytes."""
    return template_environment().get_template("machine.md.jinja").render(page=_page(machine))
