"""Executable content and timers as Markdown table cells: handler names, raise, log, send and
cancel, the data model's assign, if and foreach (their expressions as code spans, on one line),
and a data field's initial value. Every string goes through :mod:`markdown` (:func:`code`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from statewright_compiler.docs import markdown
from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    DataField,
    ForeachStep,
    IfStep,
    LogStep,
    RaiseStep,
    SendStep,
    State,
    Step,
)
from statewright_compiler.model.step_text import delay_text, expression_text
from statewright_compiler.spec.literals import value_literal

__all__ = ["data_initial_cell", "donedata_cell", "sent_when", "steps_cell", "timer_cell"]


def code(text: str) -> str:
    """A code span inside a table cell."""
    return markdown.code(text, table=True)


# -- steps and timers -----------------------------------------------------------------------------
def timer_cell(timer: SendStep, *, with_id: bool = True) -> str:
    """``after `5m` (id `reminder`)``, with what a restored machine does when not the default."""
    cell = f"after {code(delay_text(timer))}"
    details = [f"id {code(timer.id)}"] if with_id and timer.id else []
    if timer.on_restore != "fire":
        details.append(f"on restore {code(timer.on_restore)}")
    return cell + (f" ({', '.join(details)})" if details else "")


def _step_cell(step: Step) -> str:
    if isinstance(step, RaiseStep):
        return "raise " + code(step.event)
    if isinstance(step, SendStep):
        return _send_cell(step)
    if isinstance(step, CancelStep):
        return "cancel " + code(expression_text(step.id_expr) if step.id_expr else step.id)
    if isinstance(step, LogStep):
        shown = expression_text(step.expr) if step.expr is not None else step.text
        text = "log" + (f" {code(shown)}" if shown else "")
        return text + (f" (label {code(step.label)})" if step.label else "")
    if isinstance(step, AssignStep):
        return (
            f"assign {code(expression_text(step.location))} = {code(expression_text(step.value))}"
        )
    if isinstance(step, IfStep):
        parts = [
            f"{'if' if index == 0 else 'elif'} {code(expression_text(test))}: {_block(steps)}"
            for index, (test, steps) in enumerate(step.branches)
        ]
        parts += [f"else: {_block(step.otherwise)}"] if step.otherwise else []
        return "; ".join(parts)
    if isinstance(step, ForeachStep):
        names = code(step.item) + (f", {code(step.index)}" if step.index else "")
        return f"foreach {names} in {code(expression_text(step.array))}: {_block(step.steps)}"
    return code(step)


def sent_when(step: SendStep) -> str:
    """`` after `5m` (id `x`)`` for a delayed send, "" for one sent at once."""
    if step.delay is not None or step.delay_handler or step.delay_expr is not None:
        return " " + timer_cell(step)
    return ""


def _block(steps: Sequence[Step]) -> str:
    return f"({steps_cell(steps)})" if steps else "nothing"


def _send_cell(step: SendStep) -> str:
    """``send `EVENT` after `5m` (id `x`)``, with its data, target and id location."""
    event = code(expression_text(step.event_expr)) if step.event_expr else code(step.event)
    cell = f"send {event}"
    cell += sent_when(step)
    if not sent_when(step) and step.id:
        cell += f" (id {code(step.id)})"
    data = [f"{code(name)} = {code(expression_text(value))}" for name, value in step.params]
    data += [code(name) for name in step.namelist]
    if step.content is not None:
        data.append(code(expression_text(step.content)))
    if data:
        cell += " with " + ", ".join(data)
    target = step.target or (expression_text(step.target_expr) if step.target_expr else "")
    if target:
        cell += f" to {code(target)}"
    if step.id_location:
        cell += f", its id in {code(step.id_location)}"
    return cell


def steps_cell(steps: Iterable[Step]) -> str:
    """Executable content: handler names as code, ``raise `EVENT```, ``log `text```,
    ``send `EVENT` after `5m` (id `x`)``, ``cancel `x```, ``assign `x` = `expr```, ``if
    `cond`: (...)``, ``foreach `item` in `items`: (...)``."""
    return ", ".join(_step_cell(step) for step in steps)


# -- data -----------------------------------------------------------------------------------------
def data_initial_cell(field: DataField) -> str:
    """A data field's initial value: the literal, the expression (``= `expr```), or None."""
    if field.expr is not None:
        return "computed: " + code(expression_text(field.expr))
    return code(value_literal(field.initial))


def donedata_cell(state: State) -> str:
    """A final state's done data: ``name = expr`` pairs, or the one expression."""
    if state.donedata_params:
        pairs = state.donedata_params
        return ", ".join(f"{code(name)} = {code(expression_text(value))}" for name, value in pairs)
    return code(expression_text(state.donedata)) if state.donedata else ""
