"""Executable content and timers as plain text: one wording for the diagrams' labels and the
docs page's cells (which escape it, piece by piece, for Markdown).

Delays are written back in the spec's short syntax (``5m``, ``1h30m``, ``250ms``), not as the
seconds the compiler stores, so a reader recognises the spec's own value.
"""

from __future__ import annotations

import math
from decimal import Decimal

from statewright_compiler.model import (
    CancelStep,
    LogStep,
    Machine,
    RaiseStep,
    Rule,
    SendStep,
    Step,
)

__all__ = ["delay_text", "duration_text", "step_text", "timer_of"]

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


def delay_text(timer: SendStep) -> str:
    """``5m``, or ``handler()`` when a delay handler computes it."""
    if timer.delay_handler:
        return f"{timer.delay_handler}()"
    return duration_text(timer.delay or 0.0)


def timer_of(machine: Machine, rule: Rule) -> SendStep | None:
    """The ``after`` timer that sends the event ``rule`` is taken on, if it is a timer's."""
    for source in rule.sources:
        for timer in machine.state(source).timers:
            if timer.event == rule.event:
                return timer
    return None


def step_text(step: Step) -> str:
    """``name``, ``raise EVENT``, ``log "text"`` (``log label: "text"``), ``send EVENT after 5m
    (id)``, ``cancel id``."""
    if isinstance(step, RaiseStep):
        return f"raise {step.event}"
    if isinstance(step, LogStep):
        return "log " + (f"{step.label}: " if step.label else "") + f'"{step.text}"'
    if isinstance(step, SendStep):
        return f"send {step.event} after {delay_text(step)} ({step.id})"
    if isinstance(step, CancelStep):
        return f"cancel {step.id}"
    return step
