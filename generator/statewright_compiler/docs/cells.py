"""Facts of the model as Markdown table cells: the pieces every table of a docs page is made of.

Every string from the spec reaches a cell through :mod:`markdown` here (names and values as code
spans, labels and metadata literally, descriptions as inline prose), so :mod:`docs` and
:mod:`chart_docs` only choose which cell shows which fact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from statewright_compiler.docs import markdown
from statewright_compiler.model import (
    CancelStep,
    Event,
    LogStep,
    MetadataValue,
    RaiseStep,
    Rule,
    SendStep,
    State,
    Step,
)
from statewright_compiler.model.step_text import delay_text

__all__ = [
    "Table",
    "code",
    "codes",
    "count",
    "event_cell",
    "markdown_cell",
    "markdown_paragraph",
    "markdown_prose_cell",
    "metadata_cells",
    "metadata_keys",
    "metadata_text",
    "rule_cell",
    "state_cell",
    "steps_cell",
    "timer_cell",
]


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


def metadata_text(value: MetadataValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ", ".join(metadata_text(item) for item in value)
    return str(value)


def metadata_keys(entries: Iterable[tuple[tuple[str, MetadataValue], ...]]) -> tuple[str, ...]:
    """Every metadata key, in order of first appearance."""
    keys: dict[str, None] = {}
    for metadata in entries:
        for key, _ in metadata:
            keys.setdefault(key, None)
    return tuple(keys)


def metadata_cells(
    metadata: tuple[tuple[str, MetadataValue], ...], keys: Sequence[str]
) -> tuple[str, ...]:
    values = dict(metadata)
    return tuple(markdown_cell(metadata_text(values[key])) if key in values else "" for key in keys)


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


def count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def timer_cell(timer: SendStep, *, with_id: bool = True) -> str:
    """``after `5m` (id `reminder`)``, with what a restored machine does when not the default."""
    cell = f"after {code(delay_text(timer))}"
    details = [f"id {code(timer.id)}"] if with_id else []
    if timer.on_restore != "fire":
        details.append(f"on restore {code(timer.on_restore)}")
    return cell + (f" ({', '.join(details)})" if details else "")


def _step_cell(step: Step) -> str:
    if isinstance(step, RaiseStep):
        return "raise " + code(step.event)
    if isinstance(step, SendStep):
        return f"send {code(step.event)} {timer_cell(step)}"
    if isinstance(step, CancelStep):
        return "cancel " + code(step.id)
    if isinstance(step, LogStep):
        text = "log" + (f" {code(step.text)}" if step.text else "")
        return text + (f" (label {code(step.label)})" if step.label else "")
    return code(step)


def steps_cell(steps: Iterable[Step]) -> str:
    """Executable content: handler names as code, ``raise `EVENT```, ``log `text```,
    ``send `EVENT` after `5m` (id `x`)``, ``cancel `x```."""
    return ", ".join(_step_cell(step) for step in steps)


def rule_cell(rule: Rule) -> str:
    """Where the rule is in the spec, and which states it leaves from when it says more than
    the one its table's heading names."""
    cell = f"line {rule.line}"
    if rule.source.is_wildcard or len(rule.sources) > 1:
        cell += ", from " + markdown_cell(rule.source.describe())
    return cell
