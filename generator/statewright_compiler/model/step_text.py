"""Executable content and timers as plain text: one wording for the diagrams' labels and the
docs page's cells (which escape it, piece by piece, for Markdown).

Delays are written back in the spec's short syntax (``5m``, ``1h30m``, ``250ms``), not as the
seconds the compiler stores, so a reader recognises the spec's own value.
"""

from __future__ import annotations

import math
from decimal import Decimal

from statewright_compiler.model import (
    AssignStep,
    CancelStep,
    Expression,
    ForeachStep,
    IfStep,
    LogStep,
    Machine,
    RaiseStep,
    Rule,
    SendStep,
    Step,
)

__all__ = [
    "delay_text",
    "duration_text",
    "expression_text",
    "send_text",
    "step_text",
    "steps_text",
    "timer_of",
]

_UNITS = (("d", 86400_000), ("h", 3600_000), ("m", 60_000), ("s", 1000), ("ms", 1))


def duration_text(seconds: float) -> str:
    """``86400.0`` as ``1d``, ``5400.0`` as ``1h30m``, ``0.25`` as ``250ms``; what no whole
    number of milliseconds gives, as seconds (``0.0005s``)."""
    milliseconds = round(seconds * 1000)
    if milliseconds <= 0 or not math.isclose(
        milliseconds, seconds * 1000, rel_tol=1e-15, abs_tol=1e-6
    ):
        # The shortest text that reads back as ``seconds``, in plain decimals (never 1e-05).
        text = format(Decimal(repr(seconds)), "f")
        return (text.rstrip("0").rstrip(".") if "." in text else text) + "s"
    parts = []
    for unit, size in _UNITS:
        count, milliseconds = divmod(milliseconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def expression_text(expression: Expression) -> str:
    """An expression as the spec wrote it, on one line (:attr:`Expression.shown`)."""
    return expression.shown


def delay_text(timer: SendStep) -> str:
    """``5m``, ``handler()`` when a delay handler computes it, or the delay expression."""
    if timer.delay_handler:
        return f"{timer.delay_handler}()"
    if timer.delay_expr is not None:
        return expression_text(timer.delay_expr)
    return duration_text(timer.delay or 0.0)


def send_text(step: SendStep) -> str:
    """``EVENT`` or the event's expression, ``after 5m`` when delayed, the id, the target."""
    text = expression_text(step.event_expr) if step.event_expr is not None else step.event
    if step.delay is not None or step.delay_handler or step.delay_expr is not None:
        text += f" after {delay_text(step)}"
    if step.id:
        text += f" ({step.id})"
    if step.target is not None:
        text += f" to {step.target}"
    elif step.target_expr is not None:
        text += f" to {expression_text(step.target_expr)}"
    return text


def timer_of(machine: Machine, rule: Rule) -> SendStep | None:
    """The ``after`` timer that sends the event ``rule`` is taken on, if it is a timer's."""
    for source in rule.sources:
        for timer in machine.state(source).timers:
            if timer.event == rule.event:
                return timer
    return None


def step_text(step: Step) -> str:
    """``name``, ``raise EVENT``, ``log "text"`` (``log label: "text"``, ``log label: expr``),
    ``send EVENT after 5m (id)``, ``cancel id``, ``x = expr``, ``if c: ...; else: ...``,
    ``foreach item in items: ...``."""
    if isinstance(step, RaiseStep):
        return f"raise {step.event}"
    if isinstance(step, LogStep):
        shown = expression_text(step.expr) if step.expr is not None else f'"{step.text}"'
        return "log " + (f"{step.label}: " if step.label else "") + shown
    if isinstance(step, SendStep):
        return f"send {send_text(step)}"
    if isinstance(step, CancelStep):
        return f"cancel {expression_text(step.id_expr) if step.id_expr else step.id}"
    if isinstance(step, AssignStep):
        return f"{expression_text(step.location)} = {expression_text(step.value)}"
    if isinstance(step, IfStep):
        parts = [
            f"{'if' if index == 0 else 'elif'} {expression_text(test)}: {steps_text(steps)}"
            for index, (test, steps) in enumerate(step.branches)
        ]
        parts += [f"else: {steps_text(step.otherwise)}"] if step.otherwise else []
        return "; ".join(parts)
    if isinstance(step, ForeachStep):
        names = step.item + (f", {step.index}" if step.index else "")
        return f"foreach {names} in {expression_text(step.array)}: {steps_text(step.steps)}"
    return step


def steps_text(steps: tuple[Step, ...]) -> str:
    """Steps one after the other; ``pass`` for none."""
    return "(" + ", ".join(step_text(step) for step in steps) + ")" if steps else "pass"
